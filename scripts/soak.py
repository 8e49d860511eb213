"""A soak: one served haygate under a steady mix of traffic for a set time. Prints one JSON report and exits 1
when a check fails, so a leak, a lost write or an error that only shows after minutes is found here first.

The server is the real `haygate serve --http` at admin tier, serving a snapshot of the project (configs/,
pipelines/, components/: so edits in the checkout meanwhile do not turn the reloads into refusals), on a data
dir holding the ingested samples (`--data-dir`, used in place; else `haygate ingest --samples` into a temp dir). For
`--duration` seconds:

- searches on every served tool, over REST and over MCP (FastMCP's client on streamable HTTP, one client in
  the 2026-07-28 era and one with a 2025-era session, each reconnecting every `RECONNECT_EVERY` calls). The tools
  and their examples come from `tools/list`; the query texts are the judged sets' own
  (`evaluation/<tool>/queries.jsonl` with its `eval.yaml` arguments), never the same text twice, so no
  answer is a cache hit. One call in `MEANT_EVERY` sends an undeclared argument: `VALIDATION_ERROR` on purpose;
- upserts and deletes of `memories` records (each holds the word `soakrecord`, so one full-text query lists
  them all), through REST (`PUT`/`DELETE /api/collections/memories/records`) and through MCP
  (`upsert_records`, `delete_records`), each writer with ids of its own and at most `LIVE_CAP` live records;
- `POST /api/admin/reload` every few minutes (at least twice in a short run);
- one `kill -9` of the server midway, and a restart on the same data dir and port.

The report: calls and errors by tool, transport and code, those the mix provokes (the deliberate invalid
calls; calls refused or cut off while the server restarts) apart from unexpected ones; p50/p95/p99 per tool
per window (a minute, or a tenth of a short run) with the load average and RSS beside them; the server's RSS
(`/proc/<pid>/status`: VmRSS, and its heap and file-backed parts) over time, its growth after warm-up
against what the bounded caches can explain, and the heap's slope late in each server's life (`rss_lives`);
how often the written collection's manifest said its indexes were built; and, read back through the server
over REST and MCP, every acknowledged write present at its last acknowledged revision and no
acknowledged delete back.

Run: `.venv/bin/python -m scripts.soak --duration 1800 [--data-dir DIR]`.
"""

import argparse
import json
import math
import os
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
import yaml
from fastmcp import Client
from prometheus_client.parser import text_string_to_metric_families

from haygate.components.dense_text_embedder import QUERY_CACHE_SIZE
from haygate.server.apps import OPEN_RECORD
from haygate.server.telemetry import RECENT_CALLS
from scripts.measure import free_port, load_average, memory_mb, percentiles

PROJECT = Path(__file__).resolve().parent.parent
JUDGED = PROJECT / "evaluation"
HEADERS = {"content-type": "application/json"}  # the server refuses state changes whose body is not JSON
COLLECTION = "memories"
MARK = "soakrecord"  # a word only the soak's records hold: one full-text query lists them all
LIVE_CAP = 150  # live records per writer: the collection stays about the samples' size, so growth is not data
MEANT_EVERY = 25  # one search call in this many is invalid on purpose
RECONNECT_EVERY = 200  # MCP calls per client session: sessions are opened and closed all along
CALL_TIMEOUT = 60.0
READY_WITHIN = 300.0
# A query embedding in the server's LRU (haygate/components/dense_text_embedder.py): a 384-float array and its
# key, measured at 59.8 MB for 32,768 entries.
QUERY_CACHE_ENTRY_MB = 59.8 / 32768
RSS_MARGIN_MB = 64.0  # growth after warm-up beyond what the caches explain: allocator slack, reloads, indexes
CONNECTION_LOST = ("TRANSPORT", "TIMEOUT")  # the call got no answer: the connection is opened anew
RESTART_CODES = (*CONNECTION_LOST, "UNAVAILABLE")  # how a call fails while the server is down or starting
NOT_SENT = "TRANSPORT:ConnectError"  # refused at connect: the request never left, so a write is not in doubt
WRITE_TOOLS = ("upsert_records", "delete_records")


def manifest(data_dir: Path) -> dict[str, Any]:
    """The written collection's `haygate-shard.json` (points, clean, optimized), or {} while it is rewritten."""
    try:
        return dict(json.loads((data_dir / COLLECTION / "haygate-shard.json").read_text()))
    except (OSError, ValueError):
        return {}


# -- what happened ------------------------------------------------------------------------------------------


@dataclass
class Call:
    started: float  # seconds since the traffic began
    ended: float
    tool: str
    transport: str  # rest, mcp
    outcome: str  # "ok", the envelope's code, HTTP_<status>, TRANSPORT:<exception> or TIMEOUT
    meant: bool = False  # sent invalid on purpose
    connected: float = 0.0  # when the connection (pool or session) it went over was opened

    @property
    def seconds(self) -> float:
        return self.ended - self.started


@dataclass
class Life:
    """One server process, from launch to its end (killed, or stopped at the end of the run)."""

    pid: int
    launched: float
    ready: float | None = None
    ended: float | None = None
    ended_by: str | None = None


@dataclass
class Sample:
    at: float
    life: int
    rss_mb: float
    anon_mb: float
    file_mb: float
    load_1min: float
    optimized: bool | None  # the written collection's manifest: indexes built since its last write


class Clock:
    """Seconds since the traffic began (negative before: the server's first start)."""

    def __init__(self) -> None:
        self.zero = time.monotonic()

    def start(self) -> float:
        """Count from now; returns how far the zero moved."""
        now = time.monotonic()
        moved, self.zero = now - self.zero, now
        return moved

    def __call__(self) -> float:
        return time.monotonic() - self.zero


# -- the server ---------------------------------------------------------------------------------------------


class Server:
    """`haygate serve --http` at admin tier on one data dir: launched, killed with SIGKILL, launched again on
    the same port (clients reconnect to the address they know), and stopped with SIGTERM at the end."""

    def __init__(self, home: Path, data_dir: Path, log: Path, clock: Clock) -> None:
        self.home, self.data_dir, self.log, self.clock = home, data_dir, log, clock
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self.lives: list[Life] = []
        self.outages: list[list[float]] = []  # [killed at, ready again at]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def launch(self) -> None:
        env = {
            **os.environ,
            "HAYGATE_HOME": str(self.home),
            "HAYGATE_DATA_DIR": str(self.data_dir),
            "HAYGATE_TIER": "admin",
            "HAYGATE_WATCH": "false",  # reloads are the soak's, at set times
        }
        command = [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(self.port)]
        with self.log.open("ab") as stderr:
            self.process = subprocess.Popen(command, env=env, stderr=stderr, cwd=self.home)
        self.lives.append(Life(self.process.pid, self.clock()))

    async def until_ready(self) -> None:
        """Wait for /health to say ready; a launch whose port was taken meanwhile is retried on another."""
        deadline = time.monotonic() + READY_WITHIN
        async with httpx.AsyncClient(headers=HEADERS, timeout=5) as http:
            while time.monotonic() < deadline:
                assert self.process is not None
                if self.process.poll() is not None:
                    if "address already in use" not in self.log.read_text()[-2000:].lower():
                        raise RuntimeError(f"the server exited ({self.process.returncode}); see {self.log}")
                    self.port = free_port()
                    self.launch()
                try:
                    if (await http.get(f"{self.url}/health")).json()["status"] in ("ready", "degraded"):
                        self.lives[-1].ready = self.clock()
                        return
                except (httpx.HTTPError, ValueError):
                    pass
                await anyio.sleep(0.1)
        raise RuntimeError(f"the server was not ready within {READY_WITHIN:.0f} s; see {self.log}")

    def kill(self) -> None:
        assert self.process is not None
        self.outages.append([self.clock(), math.inf])
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)
        self.lives[-1].ended, self.lives[-1].ended_by = self.clock(), "SIGKILL"

    async def restart(self) -> None:
        self.launch()
        await self.until_ready()
        self.outages[-1][1] = self.clock()

    async def stop(self) -> int | None:
        """SIGTERM, as an operator stops it: the exit code (0 is a clean stop), None if it hung."""
        if self.process is None or self.process.poll() is not None:
            return None if self.process is None else self.process.returncode
        self.process.terminate()
        try:
            code = await anyio.to_thread.run_sync(self.process.wait, 60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            code = None
        self.lives[-1].ended, self.lives[-1].ended_by = self.clock(), "SIGTERM"
        return code


# -- what the searches send ---------------------------------------------------------------------------------


def filled(template: Any, text: str) -> Any:
    """An eval.yaml `arguments` template with its "{query}" placeholders filled."""
    if isinstance(template, str):
        return template.replace("{query}", text)
    if isinstance(template, list):
        return [filled(item, text) for item in template]
    if isinstance(template, dict):
        return {key: filled(value, text) for key, value in template.items()}
    return template


def example_arguments(schema: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The smallest call a tool's schema declares (each required parameter's first example), and the name of
    the first string parameter, which carries the varied text."""
    properties = schema.get("properties", {})
    arguments = {
        name: spec["examples"][0]
        for name, spec in properties.items()
        if name in schema.get("required", []) and spec.get("examples")
    }
    text = next(
        (name for name, spec in properties.items() if spec.get("type") == "string" and "enum" not in spec), None
    )
    return arguments, text


class Texts:
    """Each tool's calls: its judged queries as `haygate eval` sends them (else its declared example with
    the text varied), never the same arguments twice. After one pass, each text gets a pass number."""

    def __init__(self, schemas: dict[str, dict[str, Any]]) -> None:
        self.calls: dict[str, list[tuple[Any, str]]] = {}  # tool -> (arguments template, text)
        for tool, schema in schemas.items():
            judged = JUDGED / tool
            if (judged / "eval.yaml").is_file() and (judged / "queries.jsonl").is_file():
                template = yaml.safe_load((judged / "eval.yaml").read_text())["arguments"]
                queries = [json.loads(line) for line in (judged / "queries.jsonl").read_text().splitlines() if line]
                self.calls[tool] = [
                    ({**template, **q.get("metadata", {}).get("arguments", {})}, q["text"]) for q in queries
                ]
            else:
                arguments, text_name = example_arguments(schema)
                text = str(arguments.get(text_name, "")) if text_name else ""
                self.calls[tool] = [({**arguments, text_name: "{query}"} if text_name else arguments, text)]
        self.sent: Counter[str] = Counter()

    def next(self, tool: str) -> dict[str, Any]:
        calls = self.calls[tool]
        number = self.sent[tool]
        self.sent[tool] += 1
        template, text = calls[number % len(calls)]
        rounds = number // len(calls)
        return filled(template, f"{text} {rounds}" if rounds else text)


# -- the writes ---------------------------------------------------------------------------------------------


@dataclass
class Ledger:
    """One writer's records: what the server acknowledged, and what a failed write left in doubt (never
    touched again, and not checked)."""

    prefix: str
    rng: random.Random
    live: dict[str, int] = field(default_factory=dict)  # id -> last acknowledged revision
    deleted: set[str] = field(default_factory=set)
    in_doubt: set[str] = field(default_factory=set)
    acknowledged: Counter[str] = field(default_factory=Counter)  # upserted, deleted (records)
    problems: list[str] = field(default_factory=list)  # what an answer said that it should not have
    made: int = 0

    def record(self, key: str, revision: int) -> dict[str, Any]:
        topic = self.rng.choice(SAMPLE_SUMMARIES) if SAMPLE_SUMMARIES else "a note"
        return {
            "key": key,
            "summary": summary_of(key, revision),
            "content": f"{MARK} written by the soak. {topic}",
            "tags": ["soak"],
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "links": [{"target_key": self.rng.choice(SAMPLE_KEYS), "weight": 0.5}] if SAMPLE_KEYS else [],
        }

    def next_write(self) -> tuple[str, list[Any]]:
        """("delete", ids) or ("upsert", records): adds, updates of live records, and deletes that keep at
        most LIVE_CAP records live."""
        roll = self.rng.random()
        if len(self.live) >= LIVE_CAP or (len(self.live) >= 3 and roll < 0.2):
            return "delete", self.rng.sample(sorted(self.live), self.rng.randint(1, min(3, len(self.live))))
        if self.live and roll < 0.45:
            keys = self.rng.sample(sorted(self.live), self.rng.randint(1, min(3, len(self.live))))
            return "upsert", [self.record(key, self.live[key] + 1) for key in keys]
        records = []
        for _ in range(self.rng.randint(1, 3)):
            self.made += 1
            records.append(self.record(f"{self.prefix}-{self.made}", 0))
        return "upsert", records

    def acknowledge(self, kind: str, items: list[Any], answer: dict[str, Any]) -> None:
        if kind == "delete":
            if answer.get("missing"):
                self.problems.append(f"acknowledged records missing when deleted: {answer['missing']}")
            for key in items:
                self.live.pop(key, None)
                self.deleted.add(key)
            self.acknowledged["deleted"] += len(items)
            return
        new = sum(1 for record in items if record["key"] not in self.live)
        if answer.get("refused"):
            self.problems.append(f"records refused: {answer['refused'][:3]}")
        if answer.get("added") != new:  # an update reported as an add: the record had been lost
            self.problems.append(f"upsert of {len(items)} records ({new} new) answered added={answer.get('added')}")
        refused = {item["index"] for item in answer.get("refused", [])}
        for index, record in enumerate(items):
            if index in refused:
                self.in_doubt.add(record["key"])
                self.live.pop(record["key"], None)
            else:
                self.live[record["key"]] = self.live.get(record["key"], -1) + 1
        self.acknowledged["upserted"] += len(items) - len(refused)

    def doubt(self, kind: str, items: list[Any]) -> None:
        keys = items if kind == "delete" else [record["key"] for record in items]
        for key in keys:
            self.live.pop(key, None)
            self.in_doubt.add(key)

    def figures(self) -> dict[str, Any]:
        return {
            "acknowledged_records": dict(self.acknowledged),
            "live": len(self.live),
            "deleted": len(self.deleted),
            "in_doubt": len(self.in_doubt),
            "problems": self.problems[:20],
        }


def summary_of(key: str, revision: int) -> str:
    return f"Soak record {key} revision {revision}"


def sample_memories() -> tuple[list[str], list[str]]:
    path = PROJECT / "samples" / "memories" / "memories.jsonl"
    if not path.is_file():
        return [], []
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r["key"] for r in records], [r["summary"] for r in records]


SAMPLE_KEYS, SAMPLE_SUMMARIES = sample_memories()


# -- the traffic --------------------------------------------------------------------------------------------


class Soak:
    """The run: its clients, the reloads and the kill, the RSS sampler, and what each of them saw."""

    def __init__(self, server: Server, clock: Clock, duration: float, seed: int) -> None:
        self.server, self.clock, self.duration, self.seed = server, clock, duration, seed
        self.calls: list[Call] = []
        self.samples: list[Sample] = []
        self.reloads: list[dict[str, Any]] = []
        self.texts: Texts | None = None
        self.search_tools: list[str] = []
        self.ledgers: dict[str, Ledger] = {}
        self.load_at_start = 0.0
        self.failures: list[str] = []  # what stopped a step of the run itself (a restart, the read-back)
        self.embedding_tools: list[str] = []  # tools whose calls embedded their query (`embedding_tools`)

    def running(self) -> bool:
        return self.clock() < self.duration

    def note(self, started: float, tool: str, transport: str, outcome: str, meant: bool, connected: float) -> None:
        self.calls.append(Call(started, self.clock(), tool, transport, outcome, meant, connected))

    async def discover(self) -> None:
        """The served tools and their schemas, as an MCP client sees them."""
        async with Client(f"{self.server.url}/mcp", timeout=CALL_TIMEOUT) as client:
            tools = await client.list_tools()
        skipped = {*WRITE_TOOLS, OPEN_RECORD}  # writes go their own way; open-record takes a result's id
        schemas = {tool.name: dict(tool.input_schema) for tool in tools if tool.name not in skipped}
        self.search_tools = sorted(schemas)
        self.texts = Texts(schemas)

    def arguments(self, tool: str, number: int) -> tuple[dict[str, Any], bool]:
        assert self.texts is not None
        arguments = self.texts.next(tool)
        meant = number % MEANT_EVERY == MEANT_EVERY - 1
        return ({**arguments, "soak_undeclared": True} if meant else arguments), meant

    # -- searches ---------------------------------------------------------------------------------------

    async def rest_searcher(self, number: int) -> None:
        calls = number  # the clients start on different tools
        while self.running():
            connected = self.clock()
            async with httpx.AsyncClient(headers=HEADERS, timeout=CALL_TIMEOUT) as http:
                while self.running():
                    tool = self.search_tools[calls % len(self.search_tools)]
                    arguments, meant = self.arguments(tool, calls)
                    calls += 1
                    started = self.clock()
                    outcome = await rest_call(http, "POST", f"{self.server.url}/api/tools/{tool}", arguments)
                    self.note(started, tool, "rest", outcome[0], meant, connected)
                    if outcome[0].startswith(CONNECTION_LOST):
                        break  # a fresh pool: none of the killed server's connections is reused
            await anyio.sleep(0.2)

    async def mcp_searcher(self, number: int, mode: str) -> None:
        calls = number
        while self.running():
            connected = self.clock()
            lost = False
            try:
                async with Client(f"{self.server.url}/mcp", mode=mode, timeout=CALL_TIMEOUT) as client:
                    for _ in range(RECONNECT_EVERY):
                        if not self.running():
                            break
                        tool = self.search_tools[calls % len(self.search_tools)]
                        arguments, meant = self.arguments(tool, calls)
                        calls += 1
                        started = self.clock()
                        outcome = await mcp_call(client, tool, arguments)
                        self.note(started, tool, "mcp", outcome[0], meant, connected)
                        if outcome[0].startswith(CONNECTION_LOST):
                            lost = True
                            break
            except Exception as error:  # the session could not open, or could not close (the server is gone)
                self.note(connected, "(session)", "mcp", transport_code(error), False, connected)
                lost = True
            if lost:
                await anyio.sleep(0.2)

    # -- writes -----------------------------------------------------------------------------------------

    async def writer(self, transport: str, pause: float) -> None:
        ledger = self.ledgers[transport] = Ledger(f"soak-{transport}", random.Random(f"{self.seed}-{transport}"))
        while self.running():
            connected = self.clock()
            try:
                async with writes_over(transport, self.server.url) as send:
                    while self.running():
                        kind, items = ledger.next_write()
                        started = self.clock()
                        outcome, answer = await send(kind, items)
                        tool = "upsert_records" if kind == "upsert" else "delete_records"
                        self.note(started, tool, transport, outcome, False, connected)
                        if outcome == "ok" and answer is not None:
                            ledger.acknowledge(kind, items, answer)
                        elif outcome != NOT_SENT:
                            ledger.doubt(kind, items)
                        if outcome.startswith(CONNECTION_LOST):
                            break
                        await anyio.sleep(max(0.0, min(pause, self.duration - self.clock())))
            except Exception as error:  # the session could not open, or could not close (the server is gone)
                self.note(connected, "(session)", transport, transport_code(error), False, connected)
            await anyio.sleep(0.2)

    # -- reloads, the kill, RSS ---------------------------------------------------------------------------

    async def chaos(self, reload_at: list[float], kill_at: float) -> None:
        events = sorted([(at, "reload") for at in reload_at] + [(kill_at, "kill")])
        async with httpx.AsyncClient(headers=HEADERS, timeout=600) as http:
            for at, what in events:
                await anyio.sleep(max(0.0, at - self.clock()))
                started = self.clock()
                if what == "kill":
                    self.server.kill()
                    try:
                        await self.server.restart()
                    except RuntimeError as error:  # reported: the checks then fail, the report still comes
                        self.failures.append(f"restart after the kill: {error}")
                    continue
                outcome = await rest_call(http, "POST", f"{self.server.url}/api/admin/reload", None)
                self.note(started, "(reload)", "rest", outcome[0], False, started)
                self.reloads.append(
                    {"at_s": round(started, 1), "outcome": outcome[0], "seconds": round(self.clock() - started, 2)}
                )

    async def sampler(self, every: float) -> None:
        while self.running():
            process = self.server.process
            if process is not None:
                memory = memory_mb(process.pid)
                if memory is not None:
                    life = len(self.server.lives) - 1
                    optimized = manifest(self.server.data_dir).get("optimized")
                    rss = (memory["rss_mb"], memory["anon_mb"], memory["file_mb"])
                    self.samples.append(Sample(round(self.clock(), 1), life, *rss, load_average()[0], optimized))
            await anyio.sleep(every)

    # -- the read-back ----------------------------------------------------------------------------------

    async def read_back(self) -> dict[str, Any]:
        """Every soak record the server holds, listed over REST and over MCP, against the ledgers."""
        live = {key: rev for ledger in self.ledgers.values() for key, rev in ledger.live.items()}
        try:
            rest = await listed(lambda arguments: rest_page(self.server.url, arguments))
            async with Client(f"{self.server.url}/mcp", timeout=CALL_TIMEOUT) as client:
                mcp = await listed(lambda arguments: mcp_page(client, arguments))
        except Exception as error:  # a server that does not answer: every acknowledged write counts as missing
            self.failures.append(f"read-back: {transport_code(error)}: {error}")
            rest, mcp = {}, {"": ""}
        deleted = set().union(*(ledger.deleted for ledger in self.ledgers.values()))
        in_doubt = set().union(*(ledger.in_doubt for ledger in self.ledgers.values()))
        return {
            "found": len(rest),
            "missing": sorted(key for key in live if key not in rest),
            "stale": sorted(key for key, rev in live.items() if key in rest and rest[key] != summary_of(key, rev)),
            "resurrected": sorted(key for key in deleted if key in rest),
            "never_acknowledged": sorted(set(rest) - set(live) - deleted - in_doubt),
            "rest_equals_mcp": rest == mcp,
        }


async def rest_call(http: httpx.AsyncClient, method: str, url: str, body: Any) -> tuple[str, Any]:
    """(outcome, JSON answer): "ok", the envelope's error code, or how the transport failed."""
    try:
        answer = await http.request(method, url, json=body)
    except httpx.TimeoutException:
        return "TIMEOUT", None
    except httpx.TransportError as error:
        return f"TRANSPORT:{type(error).__name__}", None
    try:
        payload = answer.json()
    except ValueError:
        return f"HTTP_{answer.status_code}", None
    if answer.status_code == 200:
        return "ok", payload
    envelope = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(envelope, dict) and "code" in envelope:
        return str(envelope["code"]), payload
    if isinstance(payload, dict) and payload.get("reloaded") is False:
        return "RELOAD_REFUSED", payload
    return f"HTTP_{answer.status_code}", payload


async def mcp_call(client: Client, tool: str, arguments: dict[str, Any]) -> tuple[str, Any]:
    try:
        with anyio.fail_after(CALL_TIMEOUT + 5):
            result = await client.call_tool(tool, arguments, raise_on_error=False)
    except TimeoutError:
        return "TIMEOUT", None
    except Exception as error:
        return transport_code(error), None
    if not result.is_error:
        return "ok", result.structured_content
    try:
        return str(json.loads(result.content[0].text)["error"]["code"]), None  # type: ignore[union-attr]
    except (IndexError, AttributeError, KeyError, TypeError, ValueError):
        return "MCP_ERROR_WITHOUT_ENVELOPE", None


def transport_code(error: BaseException) -> str:
    """A failure below the protocol, named by its innermost exception (an ExceptionGroup says little)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    if isinstance(error, TimeoutError):
        return "TIMEOUT"
    return f"TRANSPORT:{type(error).__name__}"


@asynccontextmanager
async def writes_over(
    transport: str, url: str
) -> AsyncIterator[Callable[[str, list[Any]], Awaitable[tuple[str, Any]]]]:
    """A writer's connection: `send(kind, items)` -> (outcome, answer), over REST or MCP."""
    records = f"{url}/api/collections/{COLLECTION}/records"
    if transport == "rest":
        async with httpx.AsyncClient(headers=HEADERS, timeout=CALL_TIMEOUT) as http:

            async def over_rest(kind: str, items: list[Any]) -> tuple[str, Any]:
                if kind == "upsert":
                    return await rest_call(http, "PUT", records, items)
                return await rest_call(http, "DELETE", records, {"ids": items})

            yield over_rest
        return
    async with Client(f"{url}/mcp", timeout=CALL_TIMEOUT) as client:

        async def over_mcp(kind: str, items: list[Any]) -> tuple[str, Any]:
            if kind == "upsert":
                return await mcp_call(client, "upsert_records", {"collection": COLLECTION, "records": items})
            return await mcp_call(client, "delete_records", {"collection": COLLECTION, "ids": items})

        yield over_mcp


async def rest_page(url: str, arguments: dict[str, Any]) -> Any:
    async with httpx.AsyncClient(headers=HEADERS, timeout=CALL_TIMEOUT) as http:
        answer = await http.post(f"{url}/api/tools/memory_fulltext_search", json=arguments)
        answer.raise_for_status()
        return answer.json()


async def mcp_page(client: Client, arguments: dict[str, Any]) -> Any:
    result = await client.call_tool("memory_fulltext_search", arguments)
    return result.structured_content


async def listed(page: Callable[[dict[str, Any]], Awaitable[Any]]) -> dict[str, str]:
    """Every memory holding MARK, key -> summary, a page of 100 at a time (pages never overlap or skip)."""
    found: dict[str, str] = {}
    offset = 0
    while True:
        answer = await page({"keywords": MARK, "limit": 100, "offset": offset})
        found.update({item["key"]: item["summary"] for item in answer["results"]})
        offset += 100
        if offset >= answer["metadata"]["total"]:
            return found


# -- the report ---------------------------------------------------------------------------------------------


def classify(call: Call, outages: list[list[float]]) -> str | None:
    """Why a failed call was to be expected, or None (unexpected). A deliberately invalid call must get
    VALIDATION_ERROR; a call may fail below the protocol (or wait out the start) while the server is down,
    and so may the first call over a connection opened to the server that was killed."""
    if call.meant and call.outcome == "VALIDATION_ERROR":
        return "deliberately invalid"
    if call.outcome == "ok" or not call.outcome.startswith(RESTART_CODES):
        return None
    for killed, ready in outages:
        if call.started <= ready + 1.0 and call.ended >= killed:
            return "server restarting"
        if call.connected <= killed <= call.ended and call.outcome.startswith("TRANSPORT"):
            return "connection to the killed server"
    return None


def windows_of(calls: list[Call], samples: list[Sample], duration: float, width: float) -> list[dict[str, Any]]:
    count = max(1, math.ceil(duration / width - 1e-9))
    windows = []
    for index in range(count):
        start, end = index * width, min(duration, (index + 1) * width)
        inside = [c for c in calls if start <= c.started < end]
        seen = [s for s in samples if start <= s.at < end]
        per_tool: dict[str, list[float]] = defaultdict(list)
        for call in inside:
            if call.outcome == "ok":
                per_tool[call.tool].append(call.seconds)
        windows.append(
            {
                "from_s": round(start, 1),
                "to_s": round(end, 1),
                "load_1min": round(statistics.mean(s.load_1min for s in seen), 2) if seen else None,
                "rss_mb": seen[-1].rss_mb if seen else None,
                "calls": len(inside),
                "errors": sum(1 for c in inside if c.outcome != "ok"),
                "tools": {tool: percentiles(times) for tool, times in sorted(per_tool.items())},
            }
        )
    return windows


async def embedding_tools(url: str, search_tools: list[str]) -> list[str]:
    """The tools whose calls ran a query embedding stage, from the server's `/metrics` (its stage histogram):
    only their calls add query cache entries. All search tools when the metrics cannot be read."""
    try:
        async with httpx.AsyncClient(timeout=CALL_TIMEOUT) as http:
            answer = await http.get(f"{url}/metrics")
            answer.raise_for_status()
    except httpx.HTTPError:
        return search_tools
    return sorted(
        {
            sample.labels["tool"]
            for family in text_string_to_metric_families(answer.text)
            if family.name == "haygate_pipeline_stage_duration_seconds"
            for sample in family.samples
            if sample.name.endswith("_count") and sample.labels.get("stage") == "query_embedding" and sample.value
        }
        & set(search_tools)
    )


def cache_entries(soak: Soak, life: Life, start: float, end: float) -> int:
    """The query cache entries a server process added between `start` and `end`: at most one per answered
    call of a tool that embeds its query, until the cache was full (it then only replaces). The cache is the
    process's own, so only that process's calls count: a restarted server starts empty however many calls
    came before the kill."""
    searches = [
        c.started
        for c in soak.calls
        if life.launched <= c.started < end and c.tool in soak.embedding_tools and c.outcome == "ok"
    ]
    before = sum(1 for started in searches if started < start)
    return min(len(searches), QUERY_CACHE_SIZE) - min(before, QUERY_CACHE_SIZE)


def rss_lives(soak: Soak, warmup: float) -> list[dict[str, Any]]:
    """Per server process: RSS once warmed up (the median of the first samples after `warmup` of its own
    serving time), at its end, the growth between, and what the query cache could explain of it
    (`cache_entries`, an upper bound: a text seen before adds none). And the slope of the
    last third of the heap (anonymous RSS) less the query cache's rate then: what a flat server keeps near zero.

    Why the heap, and the cache per process, measured inside the served process (mallinfo2, gc counts by
    type, /proc/self/smaps): once warm, no Python object type grows but the cache's arrays; glibc's free
    lists (one arena per thread, up to 8 per core) grow in a server's first minutes and then level off, far
    less with MALLOC_ARENA_MAX=2; the file-backed part grows with the writes, as the written collection fills
    the pages of its preallocated write-ahead-log segments and vector chunks (fixed-size files the kernel may
    drop). A leak in the server's code is heap; the file-backed growth stays judged, with the rest, by the
    growth-after-warm-up margin. A restarted server's cache starts empty: counted over the whole run, it was
    taken for full and its entries for a leak."""
    figures: list[dict[str, Any]] = []
    for index, life in enumerate(soak.server.lives):
        if life.ready is None:
            continue
        end = life.ended if life.ended is not None else soak.duration
        warm_from = max(0.0, life.ready) + warmup * max(0.0, end - max(0.0, life.ready))
        after = [s for s in soak.samples if s.life == index and s.at >= warm_from]
        if len(after) < 4:
            figures.append({"pid": life.pid, "samples_after_warm_up": len(after)})
            continue
        edge = max(1, len(after) // 10)
        warm, last = (
            statistics.median(s.rss_mb for s in after[:edge]),
            statistics.median(s.rss_mb for s in after[-edge:]),
        )
        anon = statistics.median(s.anon_mb for s in after[-edge:]) - statistics.median(s.anon_mb for s in after[:edge])
        allowance = cache_entries(soak, life, warm_from, end) * QUERY_CACHE_ENTRY_MB
        late = after[-max(4, len(after) // 3) :]  # the last third: is it still growing, once warm?
        late_minutes = (late[-1].at - late[0].at) / 60
        late_entries = cache_entries(soak, life, late[0].at, late[-1].at)
        late_cache = late_entries * QUERY_CACHE_ENTRY_MB / late_minutes if late_minutes else 0.0
        late_anon_slope = 60 * slope([(s.at, s.anon_mb) for s in late])
        figures.append(
            {
                "pid": life.pid,
                "warm_from_s": round(warm_from, 1),
                "warm_mb": round(warm, 1),
                "last_mb": round(last, 1),
                "max_mb": max(s.rss_mb for s in after),
                "growth_mb": round(last - warm, 1),
                "anon_growth_mb": round(anon, 1),
                "slope_mb_per_min": round(60 * slope([(s.at, s.rss_mb) for s in after]), 2),
                "query_cache_allowance_mb": round(allowance, 1),
                "unexplained_growth_mb": round(last - warm - allowance, 1),
                "late_slope_mb_per_min": round(60 * slope([(s.at, s.rss_mb) for s in late]), 2),
                "late_anon_slope_mb_per_min": round(late_anon_slope, 2),
                "late_file_slope_mb_per_min": round(60 * slope([(s.at, s.file_mb) for s in late]), 2),
                "late_query_cache_mb_per_min": round(late_cache, 2),
                "late_unexplained_mb_per_min": round(late_anon_slope - late_cache, 2),
                "samples_after_warm_up": len(after),
            }
        )
    return figures


def slope(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of y over x."""
    mean_x = statistics.mean(x for x, _ in points)
    mean_y = statistics.mean(y for _, y in points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread if spread else 0.0


def by_tool(calls: list[Call]) -> dict[str, dict[str, Any]]:
    grouped: dict[str, dict[str, list[Call]]] = defaultdict(lambda: defaultdict(list))
    for call in calls:
        grouped[call.tool][call.transport].append(call)
    return {
        tool: {
            transport: {
                "calls": len(group),
                "ok": sum(1 for c in group if c.outcome == "ok"),
                "errors": dict(Counter(c.outcome for c in group if c.outcome != "ok")),
                **{k: v for k, v in percentiles([c.seconds for c in group if c.outcome == "ok"]).items() if k != "n"},
            }
            for transport, group in sorted(transports.items())
        }
        for tool, transports in sorted(grouped.items())
    }


LOG_PROBLEMS = (" ERROR ", " CRITICAL ", "Traceback")


def log_problems(log: Path) -> list[str]:
    """The server log's ERROR and CRITICAL lines and tracebacks (first lines only): a clean run has none, since
    everything the mix provokes on purpose is answered, not logged as a failure."""
    if not log.is_file():
        return []
    lines = log.read_text(errors="replace").splitlines()
    return [line[:300] for line in lines if any(problem in line for problem in LOG_PROBLEMS)]


def report(soak: Soak, read_back: dict[str, Any], stopped: int | None, args: argparse.Namespace) -> dict[str, Any]:
    expected: dict[str, Counter[str]] = defaultdict(Counter)
    unexpected: dict[str, Counter[str]] = defaultdict(Counter)
    examples: list[dict[str, Any]] = []
    for call in soak.calls:
        if call.outcome == "ok" and not call.meant:
            continue
        reason = classify(call, soak.server.outages)
        if reason is not None:
            expected[reason][call.outcome] += 1
            continue
        unexpected[f"{call.tool} via {call.transport}"][call.outcome] += 1
        if len(examples) < 10:
            examples.append({"at_s": round(call.started, 1), "tool": call.tool, "transport": call.transport,
                             "outcome": call.outcome, "meant": call.meant})  # fmt: skip
    width = 60.0 if args.duration >= 600 else args.duration / 10
    problems = log_problems(soak.server.log)
    lives = rss_lives(soak, args.warmup)
    called = {c.tool for c in soak.calls if c.outcome == "ok"}
    restarted = [life for life in soak.server.lives if life.ended_by == "SIGKILL"]
    writes_ok = all(not ledger.problems for ledger in soak.ledgers.values())
    checks = {
        "no_unexpected_errors": not unexpected,
        "acknowledged_writes_found": not read_back["missing"] and not read_back["stale"] and writes_ok,
        "no_deleted_record_back": not read_back["resurrected"],
        "nothing_unacknowledged_written": not read_back["never_acknowledged"],
        "rest_and_mcp_read_back_agree": read_back["rest_equals_mcp"],
        "every_tool_called": set(soak.search_tools) | set(WRITE_TOOLS) <= called,
        "reloaded": bool(soak.reloads) and all(r["outcome"] == "ok" for r in soak.reloads),
        "killed_and_restarted": len(restarted) == 1 and all(o[1] < math.inf for o in soak.server.outages),
        "clean_stop": stopped == 0,
        "every_step_ran": not soak.failures,
        "rss_growth_within_bound": all(life.get("unexplained_growth_mb", 0.0) <= args.rss_margin_mb for life in lives),
        "clean_server_log": not problems,
    }
    return {
        "duration_s": args.duration,
        "cores": os.cpu_count(),
        "load_1min": {"start": soak.load_at_start, "end": load_average()[0]},
        "client_cpu_s": round(resource.getrusage(resource.RUSAGE_SELF).ru_utime, 1),
        "data_dir": str(soak.server.data_dir),
        "server_log": str(soak.server.log),
        "tools": [*soak.search_tools, *WRITE_TOOLS],
        "server": {
            "lives": [
                {
                    "pid": life.pid,
                    "launched_s": round(life.launched, 1),
                    "ready_s": None if life.ready is None else round(life.ready, 1),
                    "ended_s": None if life.ended is None else round(life.ended, 1),
                    "ended_by": life.ended_by,
                }
                for life in soak.server.lives
            ],
            "outages_s": [[round(a, 1), round(b, 1)] for a, b in soak.server.outages],
            "reloads": soak.reloads,
            "stop_exit_code": stopped,
            "failures": soak.failures,
            "log_problems": problems[:20],
            "log_problem_lines": len(problems),
        },
        "calls": {
            "total": len(soak.calls),
            "ok": sum(1 for c in soak.calls if c.outcome == "ok"),
            "per_s": round(len(soak.calls) / args.duration, 1),
            "expected_errors": {reason: dict(codes) for reason, codes in expected.items()},
            "unexpected_errors": {where: dict(codes) for where, codes in unexpected.items()},
            "unexpected_examples": examples,
        },
        "by_tool": by_tool(soak.calls),
        "window_s": round(width, 1),
        "windows": windows_of(soak.calls, soak.samples, args.duration, width),
        "rss": {
            "lives": lives,
            "margin_mb": args.rss_margin_mb,
            "caches": {
                "query_embeddings": {
                    "entries": QUERY_CACHE_SIZE,
                    "mb": round(QUERY_CACHE_SIZE * QUERY_CACHE_ENTRY_MB),
                    "filled_by": soak.embedding_tools,
                },
                "call_durations_per_tool": RECENT_CALLS,
            },
            "samples": {
                "columns": ["at_s", "life", "rss_mb", "anon_mb", "file_mb", "load_1min"],
                "rows": [[s.at, s.life, s.rss_mb, s.anon_mb, s.file_mb, s.load_1min] for s in soak.samples],
            },
        },
        "writes": {
            **{transport: ledger.figures() for transport, ledger in sorted(soak.ledgers.items())},
            "optimized_share": round(sum(1 for s in soak.samples if s.optimized) / max(1, len(soak.samples)), 2),
            "read_back": read_back,
        },
        "checks": checks,
        "passed": all(checks.values()),
    }


# -- running it ---------------------------------------------------------------------------------------------


def snapshot(home: Path, work: Path) -> Path:
    """A copy of the project's configs/, pipelines/, components/ and samples/: the reloads reload what the soak
    began with, whatever is edited in the checkout meanwhile."""
    copy = work / "home"
    for folder in ("configs", "pipelines", "components", "samples"):
        if (home / folder).is_dir():
            shutil.copytree(home / folder, copy / folder)
    return copy


def ingested_samples(home: Path, work: Path) -> Path:
    """`haygate ingest --samples` into a temp data dir, as `make run` does."""
    data_dir = work / "data"
    env = {**os.environ, "HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "haygate.cli", "ingest", "--samples", "--no-progress"]
    subprocess.run(command, env=env, cwd=home, check=True, stdout=subprocess.DEVNULL)
    return data_dir


def reload_times(duration: float, kill_at: float) -> list[float]:
    """Every few minutes (every quarter of a short run), none within 5 % of the run of the kill."""
    every = min(180.0, duration / 4)
    times = [every * n for n in range(1, math.ceil(duration / every)) if every * n < duration]
    return [at for at in times if abs(at - kill_at) > 0.05 * duration] or [duration / 4]


async def run(args: argparse.Namespace, home: Path, data_dir: Path, work: Path) -> dict[str, Any]:
    clock = Clock()
    server = Server(home, data_dir, work / "server.log", clock)
    server.launch()
    soak = Soak(server, clock, args.duration, args.seed)
    try:
        await server.until_ready()
        await soak.discover()
        soak.load_at_start = load_average()[0]
        moved = clock.start()
        for life in server.lives:  # the first start, on the traffic's clock
            life.launched -= moved
            life.ready = None if life.ready is None else life.ready - moved
        kill_at = args.kill_at * args.duration
        async with anyio.create_task_group() as group:
            group.start_soon(soak.sampler, args.sample_every)
            group.start_soon(soak.chaos, reload_times(args.duration, kill_at), kill_at)
            for number in range(args.rest_clients):
                group.start_soon(soak.rest_searcher, number)
            for number in range(args.mcp_clients):
                group.start_soon(soak.mcp_searcher, number, "auto" if number % 2 == 0 else "legacy")
            group.start_soon(soak.writer, "rest", args.write_pause)
            group.start_soon(soak.writer, "mcp", args.write_pause)
        read_back = await soak.read_back()
        soak.embedding_tools = await embedding_tools(server.url, soak.search_tools)
    finally:
        stopped = await server.stop()
    return report(soak, read_back, stopped, args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of traffic")
    parser.add_argument("--data-dir", type=Path, help="a data dir holding the ingested samples (written to)")
    parser.add_argument(
        "--home", type=Path, default=PROJECT, help="the project whose configs/ and pipelines/ serve (copied)"
    )
    parser.add_argument("--rest-clients", type=int, default=2, help="concurrent REST searchers")
    parser.add_argument("--mcp-clients", type=int, default=2, help="concurrent MCP searchers (eras alternate)")
    parser.add_argument("--write-pause", type=float, default=0.2, help="seconds each writer waits between writes")
    parser.add_argument("--kill-at", type=float, default=0.5, help="when the kill -9 comes, as a share of the run")
    parser.add_argument("--sample-every", type=float, help="seconds between RSS samples (default: duration/300)")
    parser.add_argument("--warmup", type=float, default=0.25, help="share of each server's life that is warm-up")
    parser.add_argument(
        "--rss-margin-mb", type=float, default=RSS_MARGIN_MB, help="RSS growth the caches do not explain"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", action="store_true", help="keep the temp dir (log, data) even when all passed")
    args = parser.parse_args(argv)
    if args.sample_every is None:
        args.sample_every = max(0.25, args.duration / 300)  # a short soak's second server life lasts seconds
    work = Path(tempfile.mkdtemp(prefix="haygate-soak-"))
    home = snapshot(args.home.resolve(), work)
    data_dir = args.data_dir.resolve() if args.data_dir else ingested_samples(home, work)
    result = anyio.run(run, args, home, data_dir, work)
    print(json.dumps(result, indent=1))
    if result["passed"] and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
