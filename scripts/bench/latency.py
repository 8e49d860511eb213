"""A `search_docs` call's latency budget: where the time of a REST and an MCP call goes, stage by stage, beside a
bare ONNX forward, a bare engine query and a bare `SentenceTransformer.encode` of the same query.

On the bundled samples (ingested into a temporary data dir), or a project `--home` with its ingested `--data`:

1. In this process, with the data dir to itself, per query text: the bare ONNX forward of the text (the
   served backend's own session: tokenizer, graph, pooling; no cache), the bare engine query of the same work
   (the retriever's fused hybrid request straight on the Qdrant Edge shard, and the fetch of the 10 kept, as
   the served pipeline makes them), and `SentenceTransformer.encode` of the text (torch, where installed).
2. A real `haygate serve --http` with JSON logs; per query text, one REST call (`httpx`, a kept-alive
   connection) and one MCP call (the official SDK over streamable HTTP, a handshake-era session), in turns,
   each with a text no process has embedded. The server's log line of each call gives its duration inside the
   gateway and each pipeline stage's (`stages_ms`: query building, query embedding, store, ranking,
   formatting).

Per path, p50 and p95 (ms) of: the wall time a client sees; each stage; `gateway` (argument checks, the
result's schema check and envelope: the call's duration less its stages); `serialization` (the result to
JSON, timed here on the same results); `transport` (the wall time less the call's duration and the
serialization: HTTP, the event loop, the protocol). And the budget lines: `outside_model_and_engine` (per
call, the wall time less the query embedding stage and the bare engine's time for that query) and
`rest_over_st_encode_p50` (the REST p50 over the bare encode's). Prints one JSON document with the load average
before and after. Figures: docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.latency [--queries 200] [--home DIR --data DIR]`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp
import qdrant_edge as qe

from haygate.document_stores.payload import convert_id
from haygate.document_stores.query import plan
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import free_port, load_average, percentiles, serve_command, served
from scripts.workload.query_texts import judged_texts

TOOL = "search_docs"
KEPT = 10  # what a call returns (the ranker's top_k)
STAGES = ("query_building", "query_embedding", "store", "ranking", "formatting")


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def bare(settings: Settings, texts: list[str]) -> dict[str, list[float]]:
    """Per text, seconds of: the ONNX forward, the engine's query for the same work, and `encode`."""
    measured: dict[str, list[float]] = {"onnx_forward": [], "engine": [], "st_encode": []}
    with Loader(settings) as loader:
        gateway = Gateway.load(loader, only=TOOL)
        gateway.warm_up()
        pipeline: Any = gateway.get(TOOL).pipeline.pipeline  # type: ignore[union-attr]
        embedder, sparse = pipeline.get_component("dense_embedder"), pipeline.get_component("sparse_embedder")
        retriever, builder = pipeline.get_component("retriever"), pipeline.get_component("query_builder")
        store: Any = loader.store("docs")
        backend = embedder.embedding_backend
        encoder = sentence_transformer(embedder.model)
        for number, text in enumerate(texts):
            text = f"{text} bare"
            vector = backend._run([text])[0]
            # the served request: its filters (search_docs leaves changelogs out), fusion, depth and fields
            filters = builder.run(query=text)["filters"]
            query = retriever.policy.query(
                [float(v) for v in vector], sparse.run(text)["sparse_embedding"], text, filters, None, None
            )
            condition = store._filter(query.filters)
            batch = qe.QueryBatchRequest([store._request(query, ranked, condition) for ranked in plan(query)])

            def engine(batch: qe.QueryBatchRequest = batch) -> None:
                fused = store.shard.query_batch(batch)[0]
                ids = [convert_id(point.payload["id"]) for point in fused[:KEPT]]
                store.shard.retrieve(ids, with_payload=True, with_vector=False)

            work: list[tuple[str, Callable[[], Any]]] = [
                ("onnx_forward", lambda t=f"{text} onnx": backend._run([t])),  # type: ignore[misc]
                ("engine", engine),
            ]
            if encoder is not None:
                work.append(("st_encode", lambda t=f"{text} st": encoder.encode(t)))  # type: ignore[misc]
            for key, run in work if number % 2 == 0 else list(reversed(work)):
                measured[key].append(timed(run))
        gateway.writer.close()
    return measured


def sentence_transformer(model: str) -> Any:
    """The model on sentence-transformers (torch), as a pipeline with `backend: torch` loads it; None without it."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    from haygate.components.embedding_backends import model_folder

    return SentenceTransformer(str(model_folder(model)), device="cpu")


async def calls(url: str, texts: list[str]) -> dict[str, list[tuple[float, dict[str, Any]]]]:
    """Per path, each call's wall time and result, REST and MCP in turns."""
    done: dict[str, list[tuple[float, dict[str, Any]]]] = {"rest": [], "mcp": []}
    async with httpx.AsyncClient(base_url=url, timeout=60) as http, mcp.Client(f"{url}/mcp", mode="legacy") as client:

        async def rest(text: str) -> dict[str, Any]:
            answer = await http.post(f"/api/tools/{TOOL}", json={"query": text})
            answer.raise_for_status()
            return dict(answer.json())

        async def over_mcp(text: str) -> dict[str, Any]:
            answer = await client.call_tool(TOOL, {"query": text})
            assert not answer.is_error, answer
            return dict(answer.structured_content or {})

        for warm in texts[:10]:  # the connection, the session and the first runs of every stage
            await rest(f"{warm} warm")
            await over_mcp(f"{warm} warm mcp")
        for number, text in enumerate(texts[10:]):
            paths = [("rest", rest), ("mcp", over_mcp)]
            for name, call in paths if number % 2 == 0 else list(reversed(paths)):
                started = time.perf_counter()
                result = await call(f"{text} {name}")
                done[name].append((time.perf_counter() - started, result))
    return done


def logged_calls(log: Path) -> list[dict[str, Any]]:
    """The server's call lines (JSON), in order."""
    lines = []
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("logger") == "haygate.calls" and entry.get("tool") == TOOL:
            lines.append(entry)
    return lines


def budget(
    walls: list[tuple[float, dict[str, Any]]], lines: list[dict[str, Any]], engine: list[float]
) -> dict[str, Any]:
    """One path's stages, from its calls' wall times and results and the server's lines for them."""
    seconds: dict[str, list[float]] = {key: [] for key in ("wall", "server", *STAGES, "gateway", "serialization")}
    seconds |= {"transport": [], "outside_model_and_engine": []}
    for (wall, result), line, engine_s in zip(walls, lines, engine, strict=False):
        stages = {stage: line["stages_ms"].get(stage, 0.0) / 1000 for stage in STAGES}
        server = line["duration_ms"] / 1000
        serialization = timed(lambda r=result: json.dumps(r))  # type: ignore[misc]
        seconds["wall"].append(wall)
        seconds["server"].append(server)
        for stage, value in stages.items():
            seconds[stage].append(value)
        seconds["gateway"].append(max(0.0, server - sum(line["stages_ms"].values()) / 1000))
        seconds["serialization"].append(serialization)
        seconds["transport"].append(max(0.0, wall - server - serialization))
        seconds["outside_model_and_engine"].append(wall - stages["query_embedding"] - engine_s)
    return {key: percentiles(values) for key, values in seconds.items() if values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200, help="distinct query texts per path (default: 200)")
    parser.add_argument("--home", type=Path, default=PROJECT, help="the project served (default: this one)")
    parser.add_argument("--data", type=Path, help="its data dir, with `docs` ingested (default: the samples)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="haygate-bench-latency-") as scratch:
        work = Path(scratch)
        data_dir = args.data or work / "data"
        env = {**os.environ, "HAYGATE_HOME": str(args.home), "HAYGATE_DATA_DIR": str(data_dir)}
        env |= {"HAYGATE_WATCH": "false", "HAYGATE_LOG_FORMAT": "json"}
        if args.data is None:
            command = [sys.executable, "-m", "haygate.cli", "ingest", "--samples", "--no-progress"]
            subprocess.run(command, env=env, cwd=PROJECT, check=True, capture_output=True)
        texts = judged_texts()[: args.queries + 10]
        load_before = load_average()
        settings = Settings(home=args.home, data_dir=data_dir, token=None, tier="public")
        floors = bare(settings, texts[10:])
        port = free_port()
        log = work / "server.log"
        with served(serve_command(port), port=port, env=env, cwd=PROJECT, log=log) as server:
            timed_calls = anyio.run(calls, server.url, texts)
        lines = logged_calls(log)[20:]  # after the warm-up calls
        by_path = {"rest": lines[0::2], "mcp": lines[1::2]}
        for number in range(1, len(lines) // 2, 2):  # odd rounds ran MCP first
            by_path["rest"][number], by_path["mcp"][number] = by_path["mcp"][number], by_path["rest"][number]
        assert all(line["transport"] == path for path, found in by_path.items() for line in found), "lines out of order"
        report: dict[str, Any] = {"queries": len(texts) - 10, "home": str(args.home), "cores": os.cpu_count()}
        report["bare"] = {key: percentiles(values) for key, values in floors.items() if values}
        for path, walls in timed_calls.items():
            report[path] = budget(walls, by_path[path], floors["engine"])
        rest_p50 = statistics.median(wall for wall, _ in timed_calls["rest"])
        mcp_p50 = statistics.median(wall for wall, _ in timed_calls["mcp"])
        report["mcp_minus_rest_p50_ms"] = round(1000 * (mcp_p50 - rest_p50), 3)
        if floors["st_encode"]:
            report["rest_over_st_encode_p50"] = round(rest_p50 / statistics.median(floors["st_encode"]), 3)
        report["rest_over_onnx_forward_p50"] = round(rest_p50 / statistics.median(floors["onnx_forward"]), 3)
        report["load_average"] = {"before": load_before, "after": load_average()}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
