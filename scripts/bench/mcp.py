"""What an MCP call costs beside the same REST call, on one server: `search_docs` over the bundled samples.

Each round makes one call on every path, in a shuffled order, each with a query text no process has seen
(haygate keeps recent query vectors, so a repeated text would be a cache hit):

- `rest`: `POST /api/tools/search_docs` (httpx, one kept-alive connection);
- `sdk-2025` and `sdk-2026`: the official `mcp` SDK client over streamable HTTP, on the handshake era
  (`mode="legacy"`, a session) and on the 2026-07-28 era (stateless);
- `fastmcp-2025` and `fastmcp-2026`: FastMCP's client, both eras;
- `stdio-2025` and `stdio-2026`: the official client over stdio, each to a server of its own on a copy of the
  data dir.

For each path: the wall time of a call (p50, p95), the server's CPU time per call (every thread of the
server process, from `/proc/<pid>/task/*/schedstat`, in ns) and its event loop's alone (the main thread: the
transport and the protocol, Python that holds the GIL, so what bounds the calls a process serves a second),
the client's CPU per call, and the p50 of (path - REST) over the rounds, each round's calls
made back to back; and what the official client's check of a result against the tool's output schema costs
alone (`client_schema_validation_ms`: client work that REST does not do). Prints one JSON document, with
the load average before and after: per path `{n, p50_ms, p95_ms, p99_ms, max_ms}` of the wall times
(`scripts.measure.percentiles`), `minus_rest_p50_ms`, and the mean CPU per call (`server_cpu_ms`,
`server_loop_cpu_ms`, `client_cpu_ms`). Figures: docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.mcp [--rounds 150] [--checkout DIR]` (`--checkout`: serve an older
haygate's code and configs, to compare before and after one after the other).
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import fastmcp
import httpx
import mcp
from mcp.client.stdio import StdioServerParameters

from scripts import PROJECT
from scripts.measure import free_port, load_average, percentiles, serve_command, served
from scripts.workload.query_texts import judged_texts

MODERN = "2026-07-28"
TOOL = "search_docs"
Call = Callable[[str], Awaitable[Any]]


def server_env(checkout: Path, data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(checkout),
        "HAYGATE_HOME": str(checkout),
        "HAYGATE_DATA_DIR": str(data_dir),
        "HAYGATE_WATCH": "false",
        "HAYGATE_MODEL_CACHE_DIR": os.environ.get("HAYGATE_MODEL_CACHE_DIR", str(PROJECT / "data" / ".models")),
    }


def cpu_ns(pid: int) -> tuple[int, int]:
    """Time every thread of `pid` has run, and its main thread (the event loop: the transport, the protocol,
    the Python that holds the GIL between a call's stages), in ns: the scheduler's own count, not 10 ms ticks."""
    total = main = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            ran = int((task / "schedstat").read_text().split()[0])
        except (FileNotFoundError, ProcessLookupError):
            continue  # a thread that ended between the listing and the read
        total += ran
        main += ran if task.name == str(pid) else 0
    return total, main


def children() -> set[int]:
    """This process' child processes (a stdio client starts its server as one)."""
    found = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                    found.add(int(proc.name))
            except (OSError, IndexError, ValueError):
                continue
    return found


async def client_validation_ms(client: Any, query: str) -> float:
    """What the official client's check of a result against the tool's output schema costs (it makes it on
    every call, as `ClientSession.validate_tool_result` does: a compiled validator, every error found)."""
    from jsonschema.exceptions import best_match
    from jsonschema.validators import validator_for

    schema = next(t.output_schema for t in (await client.list_tools()).tools if t.name == TOOL)
    validator = validator_for(schema)(schema)
    result = (await client.call_tool(TOOL, {"query": query})).structured_content
    started, rounds = time.perf_counter(), 200
    for _ in range(rounds):
        best_match(validator.iter_errors(result))
    return round(1000 * (time.perf_counter() - started) / rounds, 3)


async def measure(checkout: Path, rounds: int, work: Path) -> dict[str, Any]:
    data_dir = work / "data"
    env = server_env(checkout, data_dir)
    subprocess.run(
        [sys.executable, "-m", "haygate.cli", "ingest", "--samples"],
        env=env,
        cwd=checkout,
        check=True,
        capture_output=True,
    )
    for era in ("legacy", MODERN):  # copied while no server holds the data
        shutil.copytree(data_dir, work / f"data-stdio-{era}")
    texts = judged_texts()
    random.Random(7).shuffle(texts)
    queries = (f"{text} {n}" if n else text for n in range(100) for text in texts)  # each text once
    port = free_port()
    log = work / "server.log"
    with served(serve_command(port), port=port, env=env, cwd=checkout, log=log) as http_server:
        url, pid = http_server.url, http_server.process.pid
        async with AsyncExitStack() as stack:

            async def stdio_client(era: str) -> tuple[Any, int]:
                """An official client over stdio to a server of its own, on its own copy of the data."""
                copy = work / f"data-stdio-{era}"
                params = StdioServerParameters(
                    command=sys.executable,
                    args=["-m", "haygate.cli", "serve"],
                    env=server_env(checkout, copy),
                    cwd=str(checkout),
                )
                before = children()
                client = await stack.enter_async_context(mcp.Client(params, mode=era))
                (started,) = children() - before
                return client, started

            rest = await stack.enter_async_context(httpx.AsyncClient(base_url=url, timeout=60))
            sdk_legacy = await stack.enter_async_context(mcp.Client(f"{url}/mcp", mode="legacy"))
            sdk_modern = await stack.enter_async_context(mcp.Client(f"{url}/mcp", mode=MODERN))
            fast_legacy = await stack.enter_async_context(fastmcp.Client(f"{url}/mcp", mode="legacy"))
            fast_modern = await stack.enter_async_context(fastmcp.Client(f"{url}/mcp", mode=MODERN))
            stdio_legacy, stdio_legacy_pid = await stdio_client("legacy")
            stdio_modern, stdio_modern_pid = await stdio_client(MODERN)

            async def rest_call(query: str) -> Any:
                answer = await rest.post(f"/api/tools/{TOOL}", json={"query": query})
                answer.raise_for_status()
                return answer.json()

            def mcp_call(client: Any) -> Call:
                async def call(query: str) -> Any:
                    result = await client.call_tool(TOOL, {"query": query})
                    if getattr(result, "is_error", False) or getattr(result, "isError", False):
                        raise SystemExit(f"{TOOL} failed: {result}")
                    return result

                return call

            paths: dict[str, tuple[Call, int]] = {
                "rest": (rest_call, pid),
                "sdk-2025": (mcp_call(sdk_legacy), pid),
                "sdk-2026": (mcp_call(sdk_modern), pid),
                "fastmcp-2025": (mcp_call(fast_legacy), pid),
                "fastmcp-2026": (mcp_call(fast_modern), pid),
                "stdio-2025": (mcp_call(stdio_legacy), stdio_legacy_pid),
                "stdio-2026": (mcp_call(stdio_modern), stdio_modern_pid),
            }
            for call, _ in paths.values():  # warm every path (and both servers' models) first
                for _ in range(3):
                    await call(next(queries))
            wall: dict[str, list[float]] = {name: [] for name in paths}
            server: dict[str, list[int]] = {name: [] for name in paths}
            loop: dict[str, list[int]] = {name: [] for name in paths}
            client: dict[str, list[float]] = {name: [] for name in paths}
            order = list(paths)
            shuffler = random.Random(11)
            load_before = load_average()
            for _ in range(rounds):
                shuffler.shuffle(order)
                for name in order:
                    call, server_pid = paths[name]
                    query = next(queries)
                    cpu_before, client_before = cpu_ns(server_pid), time.process_time()
                    started = time.perf_counter()
                    await call(query)
                    wall[name].append(time.perf_counter() - started)
                    client[name].append(time.process_time() - client_before)
                    cpu_after = cpu_ns(server_pid)
                    server[name].append(cpu_after[0] - cpu_before[0])
                    loop[name].append(cpu_after[1] - cpu_before[1])
            load_after = load_average()
            validation_ms = await client_validation_ms(sdk_legacy, next(queries))
    result: dict[str, Any] = {"checkout": str(checkout), "rounds": rounds, "paths": {}}
    for name in paths:
        deltas = [a - b for a, b in zip(wall[name], wall["rest"], strict=True)]
        result["paths"][name] = {
            **percentiles(wall[name]),
            "minus_rest_p50_ms": round(1000 * statistics.median(deltas), 2),
            "server_cpu_ms": round(statistics.mean(server[name]) / 1e6, 2),
            "server_loop_cpu_ms": round(statistics.mean(loop[name]) / 1e6, 2),
            "client_cpu_ms": round(1000 * statistics.mean(client[name]), 2),
        }
    result["client_schema_validation_ms"] = validation_ms
    result["load"] = {"before": load_before, "after": load_after}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=150, help="calls per path")
    parser.add_argument("--checkout", type=Path, default=PROJECT, help="the haygate checkout to serve")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="haygate-bench-mcp-") as work:
        print(json.dumps(anyio.run(measure, args.checkout.resolve(), args.rounds, Path(work)), indent=2))


if __name__ == "__main__":
    main()
