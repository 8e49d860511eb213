"""What a console call costs beyond the REST call it stands for, and what the console page weighs.

One live service over the bundled `docs` samples (ingested into a temporary data dir), served over real HTTP
by uvicorn. Calls of `search_docs` alternate between `POST /api/tools/search_docs` and `POST /api/console/call`
(the same call, with each row's provenance drawn), each with a text never sent before (the judged set's
queries), so no cache serves either side. Prints JSON: each side's p50 and p95 (client-side, whole HTTP
calls), the difference of the p50s, the page's transfer size (HTML, script and stylesheet, as served) and the
load average. Run: `.venv/bin/python scripts/bench_console.py`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

import httpx
import uvicorn
from query_texts import judged_texts

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import sample_files
from haygate.server.http import build_http_app
from haygate.server.service import GatewayService
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parents[1]


def percentile(values: list[float], share: float) -> float:
    return round(statistics.quantiles(values, n=100, method="inclusive")[int(share * 100) - 1], 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400, help="calls per side (default: 400)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="haygate-bench-console-") as scratch:
        settings = Settings(home=PROJECT, data_dir=Path(scratch) / "data", token=None, tier="public")
        with Loader(settings) as loader:
            files = sample_files(PROJECT / "samples", settings.collections_dir)["docs"]
            ingest_files(loader.collection("docs"), files, progress=False)
        service = GatewayService(settings)
        service.start(background=False)
        server = uvicorn.Server(uvicorn.Config(build_http_app(service), host="127.0.0.1", port=0, log_level="error"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.05)
        port = server.servers[0].sockets[0].getsockname()[1]
        times: dict[str, list[float]] = {"rest": [], "console": []}
        load_before = os.getloadavg()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as http:
            page = sum(
                len(http.get(path).content)
                for path in ("/console", "/console/static/console.js", "/console/static/console.css")
            )
            for number, text in enumerate(judged_texts()[: 2 * args.calls]):
                side = ("rest", "console")[number % 2]
                arguments = {"query": text, "max_results": 10}
                started = time.perf_counter()
                if side == "rest":
                    answer = http.post("/api/tools/search_docs", json=arguments)
                else:
                    answer = http.post("/api/console/call", json={"tool": "search_docs", "arguments": arguments})
                times[side].append((time.perf_counter() - started) * 1000)
                answer.raise_for_status()
        load_after = os.getloadavg()
        server.should_exit = True
        thread.join(timeout=10)
        service.close()
    figures = {
        side: {"calls": len(ms), "p50_ms": percentile(ms, 0.5), "p95_ms": percentile(ms, 0.95)}
        for side, ms in times.items()
    }
    print(
        json.dumps(
            {
                "tool": "search_docs",
                **figures,
                "console_minus_rest_p50_ms": round(figures["console"]["p50_ms"] - figures["rest"]["p50_ms"], 2),
                "page_bytes": page,
                "load_average": {
                    "before": [round(x, 2) for x in load_before],
                    "after": [round(x, 2) for x in load_after],
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
