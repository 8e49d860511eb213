"""What a console call costs beyond the REST call it stands for, and what the console page weighs.

One `haygate serve --http` over the bundled `docs` samples (ingested into a temporary data dir first). Calls
of `search_docs` alternate between `POST /api/tools/search_docs` and `POST /api/console/call` (the same call,
with each row's provenance drawn), each with a text never sent before (the judged sets' queries), so no cache
serves either side. Prints JSON: per side `{calls, n, p50_ms, p95_ms, p99_ms, max_ms}` (client-side, whole
HTTP calls; `scripts.measure.percentiles`), `console_minus_rest_p50_ms`, the page's transfer size in bytes
(HTML, script and stylesheet, as served) and the load average before and after. Figures:
docs/results/benchmarks.md. Run: `.venv/bin/python -m scripts.bench.console [--calls 400]`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import os
import tempfile
import time
from pathlib import Path

import httpx

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import sample_files
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import free_port, load_average, percentiles, serve_command, served
from scripts.workload.query_texts import judged_texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400, help="calls per side (default: 400)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="haygate-bench-console-") as scratch:
        settings = Settings(home=PROJECT, data_dir=Path(scratch) / "data", token=None, tier="public")
        with Loader(settings) as loader:
            files = sample_files(PROJECT / "samples", settings.collections_dir)["docs"]
            ingest_files(loader.collection("docs"), files, progress=False)
        env = {k: v for k, v in os.environ.items() if k != "HAYGATE_TOKEN"}
        env |= {"HAYGATE_HOME": str(PROJECT), "HAYGATE_DATA_DIR": str(settings.data_dir), "HAYGATE_TIER": "public"}
        env["HAYGATE_WATCH"] = "false"
        times: dict[str, list[float]] = {"rest": [], "console": []}
        port = free_port()
        log = Path(scratch) / "serve.log"
        with (
            served(serve_command(port), port=port, env=env, cwd=PROJECT, log=log) as server,
            httpx.Client(base_url=server.url, timeout=60) as http,
        ):
            load_before = load_average()
            page = sum(
                len(http.get(path).content)
                for path in (
                    "/console",
                    "/console/static/console.js",
                    "/console/static/console.css",
                    "/console/static/vendor/markdown-it.umd.min.js",  # how a result's Markdown is drawn
                )
            )
            for number, text in enumerate(judged_texts()[: 2 * args.calls]):
                side = ("rest", "console")[number % 2]
                arguments = {"query": text, "max_results": 10}
                started = time.perf_counter()
                if side == "rest":
                    answer = http.post("/api/tools/search_docs", json=arguments)
                else:
                    answer = http.post("/api/console/call", json={"tool": "search_docs", "arguments": arguments})
                times[side].append(time.perf_counter() - started)
                answer.raise_for_status()
            load_after = load_average()
    figures = {side: {"calls": len(seconds), **percentiles(seconds)} for side, seconds in times.items()}
    print(
        json.dumps(
            {
                "tool": "search_docs",
                **figures,
                "console_minus_rest_p50_ms": round(figures["console"]["p50_ms"] - figures["rest"]["p50_ms"], 3),
                "page_bytes": page,
                "load_average": {"before": load_before, "after": load_after},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
