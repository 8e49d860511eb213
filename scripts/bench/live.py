"""The live service: start-up, writes through a server against an in-process ingest, and search latency
under writes. Prints one JSON document; nothing here is asserted.

startup  Time from launching `haygate serve` to `initialize`, to `tools/list` and to the first successful
         call (`search_docs` by default), over stdio (the official `mcp` SDK; a first launch, with no answers
         kept, and a later one) and HTTP (FastMCP's client), on the bundled configuration with the samples
         ingested, or on the project `--home` with its `--data`. `--before DIR` also runs a checkout of an
         older haygate (its code, and its configs unless `--home`) the same way, alternating rounds, so both
         are measured side by side.
writes   Records per second written by `haygate ingest` in-process (a warm loader, the work only) against
         the same records written through a warm `serve --http` in requests of 1,024 (one ingest batch), as
         the CLI does when a server holds the data dir. `docs` (embedded with the model) and `entities` (no model).
search   REST `search_docs` latency on a served `docs` collection, alone and while another client
         keeps upserting documents; every query is new to the server (no cached query embedding).

Reading the output: start-up figures are medians over the rounds in seconds (`*_s`), write rates are records
per second, search latencies are `{n, p50_ms, p95_ms, p99_ms, max_ms}` (`scripts.measure.percentiles`); each
beside the 1-minute load average taken when it was measured. Figures: docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.live [--before /tmp/haygate-before] [--skip writes ...]`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

import anyio
import httpx
from fastmcp import Client
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from haygate.ingest.report import BATCH_RECORDS
from scripts import PROJECT
from scripts.measure import free_port, load_average, percentiles, serve_command, served

SHARED_SECTIONS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
QUERY = {"query": "how do NOT filters work"}
SECOND_QUERY = {"query": "serialize a pipeline to YAML"}
THIRD_QUERY = {"query": "chunking long documents with overlap"}
# Model exports are made once, as `make run` makes them; every launch measured here finds them in place.
MODELS = Path(tempfile.mkdtemp(prefix="haygate-bench-live-models-"))


def load() -> float:
    return load_average()[0]


def median(values: list[float]) -> float:
    return round(statistics.median(values), 3)


def server_env(checkout: Path, data_dir: Path, home: Path | None = None, **values: str) -> dict[str, str]:
    """Run `checkout`'s haygate (its code first on the path; run with `cwd=checkout`) on its own configs, or on
    the project `home`."""
    return {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "HAYGATE_HOME": str(home or checkout),
        "HAYGATE_DATA_DIR": str(data_dir),
        "HAYGATE_MODEL_CACHE_DIR": str(MODELS),
        **values,
    }


# -- startup --------------------------------------------------------------------------------------


class Launch(NamedTuple):
    """What one timed launch serves: a checkout's code, on a project (its own, or `home`) and its data."""

    checkout: Path
    data_dir: Path
    home: Path | None
    tool: str
    arguments: dict[str, Any]


async def stdio_startup(launch: Launch, log: Path) -> dict[str, float]:
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "haygate.cli", "serve"],
        env=server_env(launch.checkout, launch.data_dir, launch.home),
        cwd=launch.checkout,
    )
    launched = time.perf_counter()
    with log.open("a") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write), ClientSession(read, write) as client:
            with anyio.fail_after(300):
                await client.initialize()
                initialized = time.perf_counter() - launched
                await client.list_tools()
                listed = time.perf_counter() - launched
                result = await client.call_tool(launch.tool, launch.arguments)
                called = time.perf_counter() - launched
                started = time.perf_counter()
                await client.call_tool(launch.tool, {**launch.arguments, **SECOND_QUERY})
                second = time.perf_counter() - started
    assert not result.is_error, result
    return {
        "initialize_s": initialized,
        "tools_list_s": listed,
        "first_call_s": called,
        "first_call_alone_s": called - listed,
        "second_call_alone_s": second,
    }


async def http_startup(launch: Launch, log: Path) -> dict[str, float]:
    port = free_port()
    env = server_env(launch.checkout, launch.data_dir, launch.home)
    launched = time.perf_counter()
    with served(serve_command(port), port=port, env=env, cwd=launch.checkout, log=log, health=None):  # timed here
        with anyio.fail_after(300):
            while True:
                try:
                    async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                        initialized = time.perf_counter() - launched
                        await client.list_tools()
                        listed = time.perf_counter() - launched
                        result = await client.call_tool(launch.tool, launch.arguments)
                        called = time.perf_counter() - launched
                        # Once the server says it is ready, a new query costs what the one after it does?
                        async with httpx.AsyncClient() as http:
                            while (await http.get(f"http://127.0.0.1:{port}/health")).json()["status"] not in (
                                "ready",
                                "degraded",
                            ):
                                await anyio.sleep(0.05)
                        started = time.perf_counter()
                        await client.call_tool(launch.tool, {**launch.arguments, **THIRD_QUERY})
                        first_ready = time.perf_counter() - started
                        started = time.perf_counter()
                        await client.call_tool(launch.tool, {**launch.arguments, **SECOND_QUERY})
                        second_ready = time.perf_counter() - started
                        break
                except (httpx.HTTPError, OSError, RuntimeError):
                    await anyio.sleep(0.05)
    assert not result.is_error, result
    return {
        "initialize_s": initialized,
        "tools_list_s": listed,
        "first_call_s": called,
        "first_new_query_when_ready_s": first_ready,
        "second_new_query_when_ready_s": second_ready,
    }


def indexed(checkout: Path, work: Path) -> Path:
    """A data dir with the checkout's bundled samples ingested (untimed), as `make run` leaves one."""
    data_dir = Path(tempfile.mkdtemp(dir=work))
    env = server_env(checkout, data_dir)
    command = [sys.executable, "-m", "haygate.cli", "ingest", "--samples", "--no-progress"]
    subprocess.run(command, env=env, cwd=checkout, check=True, capture_output=True)
    return data_dir


def measure_startup(
    checkouts: dict[str, Path], rounds: int, work: Path, home: Path | None, data: Path | None, call: dict[str, Any]
) -> dict[str, Any]:
    """Per checkout and transport, the medians of `rounds` launches, alternating checkouts. Over stdio each
    round launches twice: `first` with no answers kept from before (a first launch, or one after a YAML
    change), then `later` (every launch after it)."""
    launches = {
        name: Launch(checkout, data or indexed(checkout, work), home, call["tool"], call["arguments"])
        for name, checkout in checkouts.items()
    }
    kinds = {"stdio_first": stdio_startup, "stdio_later": stdio_startup, "http": http_startup}
    samples: dict[str, dict[str, list[dict[str, float]]]] = {name: {kind: [] for kind in kinds} for name in launches}
    loads: list[float] = []
    for launch in launches.values():  # untimed: model exports, each data dir's first open
        anyio.run(stdio_startup, launch, work / "prime.log")
    for _ in range(rounds):
        for name, launch in launches.items():  # alternating: both see the same machine
            for kind, measure in kinds.items():
                if kind == "stdio_first":
                    (launch.data_dir / ".cache" / "mcp-handshake.json").unlink(missing_ok=True)
                loads.append(load())
                samples[name][kind].append(anyio.run(measure, launch, work / f"{name}.log"))
    report: dict[str, Any] = {"rounds": rounds, "load_1min": loads, "call": call}
    for name, kinds_run in samples.items():
        report[name] = {
            kind: {key: median([run[key] for run in runs]) for key in runs[0]} for kind, runs in kinds_run.items()
        }
    return report


# -- writes and search ----------------------------------------------------------------------------


def doc_records(limit: int) -> list[dict[str, Any]]:
    source = SHARED_SECTIONS if SHARED_SECTIONS.exists() else PROJECT / "samples" / "docs" / "sections.jsonl"
    records = []
    with source.open() as handle:
        for line in handle:
            records.append(json.loads(line))
            if len(records) >= limit:
                break
    return records


def entity_records(count: int) -> list[dict[str, Any]]:
    words = ["border", "tooltip", "payment", "banner", "checkout", "android", "notification", "crash", "login", "cart"]
    return [
        {
            "entity_type": "bug",
            "entity_id": f"bug:{n}",
            "product_id": f"product:{n % 17}",
            "title": f"{words[n % 10].title()} {words[(n * 7) % 10]} issue {n}",
            "description": " ".join(words[(n + k) % 10] for k in range(30)),
        }
        for n in range(count)
    ]


@contextmanager
def admin_server(data_dir: Path, log: Path) -> Iterator[str]:
    """This checkout served on the admin tier (writes allowed), ready: its URL."""
    port = free_port()
    env = server_env(PROJECT, data_dir, HAYGATE_TIER="admin", HAYGATE_WATCH="false")
    with served(serve_command(port), port=port, env=env, cwd=PROJECT, log=log) as server:
        yield server.url


def upsert_through(url: str, collection: str, records: list[dict[str, Any]]) -> None:
    with httpx.Client(base_url=url, timeout=600) as http:
        for start in range(0, len(records), BATCH_RECORDS):
            answer = http.put(f"/api/collections/{collection}/records", json=records[start : start + BATCH_RECORDS])
            answer.raise_for_status()
            assert not answer.json()["refused"], answer.json()["refused"][:3]


def ingest_direct(collection: str, records: list[dict[str, Any]], data_dir: Path, warm: dict[str, Any]) -> float:
    from haygate.gateway.loader import Loader
    from haygate.ingest.indexer import ingest_files
    from haygate.settings import Settings

    source = data_dir.parent / f"{collection}-{data_dir.name}.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    with Loader(Settings(data_dir=data_dir)) as loader:
        target = loader.collection(collection)
        target.indexing.warm_up()
        warm_file = data_dir.parent / f"warm-{data_dir.name}.jsonl"
        warm_file.write_text(json.dumps(warm) + "\n")
        ingest_files(target, [warm_file], progress=False)  # models and shards open, as in a warm server
        started = time.perf_counter()
        report = ingest_files(target, [source], progress=False)
        elapsed = time.perf_counter() - started
    assert not report.errors, report.errors[:3]
    return elapsed


def measure_writes(work: Path, docs: int, entities: int, rounds: int) -> dict[str, Any]:
    report: dict[str, Any] = {}
    for collection, records in (("docs", doc_records(docs)), ("entities", entity_records(entities))):
        warm = {**records[0], **({"_id": "warm-up"} if collection == "docs" else {"entity_id": "bug:warm"})}
        direct, through, loads = [], [], []
        for _ in range(rounds):
            loads.append(load())
            direct.append(ingest_direct(collection, records, Path(tempfile.mkdtemp(dir=work)), warm))
            loads.append(load())
            with admin_server(Path(tempfile.mkdtemp(dir=work)), work / "writes.log") as url:
                upsert_through(url, collection, [warm])
                started = time.perf_counter()
                upsert_through(url, collection, records)
                through.append(time.perf_counter() - started)
        report[collection] = {
            "records": len(records),
            "ingest_records_per_s": round(len(records) / median(direct), 1),
            "server_records_per_s": round(len(records) / median(through), 1),
            "server_vs_ingest": round(median(direct) / median(through), 3),
            "rounds": rounds,
            "load_1min": loads,
        }
    return report


def measure_search(work: Path, docs: int, queries: int) -> dict[str, Any]:
    records = doc_records(docs)
    titles = [r["title"] for r in records][:queries]
    with admin_server(Path(tempfile.mkdtemp(dir=work)), work / "search.log") as url:
        upsert_through(url, "docs", records)
        http = httpx.Client(base_url=url, timeout=120)

        def run_queries(phrasing: str) -> list[float]:
            """Each phase asks its own questions: no query embedding comes from the cache."""
            latencies = []
            for title in titles:
                started = time.perf_counter()
                answer = http.post("/api/tools/search_docs", json={"query": phrasing.format(title)})
                latencies.append(time.perf_counter() - started)
                answer.raise_for_status()
            return latencies

        run_queries("{} setup")  # warm
        idle_load = load()
        alone = run_queries("how does {} work")
        writing = threading.Event()
        writing.set()
        writes = [0]

        def writer() -> None:
            with httpx.Client(base_url=url, timeout=600) as client:
                batch = 0
                while writing.is_set():
                    changed = [{**r, "text": f"{r['text']} (revision {batch})"} for r in records[:32]]
                    client.put("/api/collections/docs/records", json=changed).raise_for_status()
                    writes[0] += len(changed)
                    batch += 1

        thread = threading.Thread(target=writer)
        thread.start()
        time.sleep(1.0)
        busy_load = load()
        during = run_queries("what is {} for")
        writing.clear()
        thread.join()
        http.close()
    return {
        "collection_docs": len(records),
        "alone": {**percentiles(alone), "load_1min": idle_load},
        "with_writer": {**percentiles(during), "load_1min": busy_load, "records_written": writes[0]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout of an older haygate to compare startup with")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--docs", type=int, default=600, help="documentation sections for writes and search")
    parser.add_argument("--entities", type=int, default=9000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--skip", nargs="*", default=[], choices=["startup", "writes", "search"])
    parser.add_argument("--home", type=Path, help="start-up on this project (its configs) instead of each checkout's")
    parser.add_argument("--data", type=Path, help="with --home: its data dir, ingested (default: the samples)")
    parser.add_argument("--call", type=json.loads, default={"tool": "search_docs", "arguments": QUERY},
                        help='the first call timed: {"tool": ..., "arguments": {...}}')  # fmt: skip
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="haygate-bench-live-"))
    report: dict[str, Any] = {"cores": os.cpu_count(), "work": str(work)}
    if "startup" not in args.skip:
        checkouts = {"after": PROJECT} | ({"before": args.before.resolve()} if args.before else {})
        report["startup"] = measure_startup(checkouts, args.rounds, work, args.home, args.data, args.call)
        print(json.dumps({"startup": report["startup"]}), file=sys.stderr)
    if "writes" not in args.skip:
        report["writes"] = measure_writes(work, args.docs, args.entities, args.rounds)
        print(json.dumps({"writes": report["writes"]}), file=sys.stderr)
    if "search" not in args.skip:
        report["search"] = measure_search(work, args.docs, args.queries)
    print(json.dumps(report, indent=2))
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(MODELS, ignore_errors=True)


if __name__ == "__main__":
    main()
