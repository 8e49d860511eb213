"""`haygate serve` as a process: fast first answers over stdio, hot reload with `tools/list_changed`, the CLI
going through the running server, writes while clients search, `kill -9` right after acknowledged writes, and
a clean stop on SIGTERM and SIGINT.

Real processes, real sockets, the official `mcp` SDK and FastMCP's client; a temp home with `search` and
the admin tools (no model loads) except where the whole bundled configuration is the point.
"""

import contextlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import mcp_types
import pytest
from fastmcp import Client
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.subscriptions import listen
from mcp.shared.subscriptions import ToolsListChanged
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from haygate.cli import main
from haygate.errors import ExitCode
from haygate.gateway.loader import Loader
from haygate.ingest.mapping import RECORD_ID
from haygate.server.client import local_server
from haygate.server.endpoint import read_endpoint, socket_path
from tests.support.processes import forkserver
from tests.support.project import ENTITY, PROJECT, make_home, make_settings
from tests.support.serving import free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]
READY_WITHIN = 120.0  # a busy CI machine; the figures go in the closing notes, not here


def server_env(home: Path, data_dir: Path, **values: str) -> dict[str, str]:
    return {**os.environ, "HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(data_dir), **values}


def wait_ready(url: str, alive: Any) -> None:
    deadline = time.monotonic() + READY_WITHIN
    while time.monotonic() < deadline:
        assert alive(), "the server exited before it was ready"
        try:
            if httpx.get(f"{url}/health", timeout=2).json()["status"] in ("ready", "degraded"):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise AssertionError(f"{url} not ready within {READY_WITHIN} s")


@contextmanager
def http_server(home: Path, data_dir: Path, log: Path, **env: str) -> Iterator[str]:
    """`haygate serve --http` at admin tier, ready; stopped with SIGTERM (a clean stop) afterwards."""
    port = free_port()
    command = [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)]
    with log.open("ab") as stderr:
        environment = server_env(home, data_dir, HAYGATE_TIER="admin", **env)
        process = subprocess.Popen(command, env=environment, stderr=stderr)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, lambda: process.poll() is None)
        yield url
    finally:
        process.terminate()
        assert process.wait(60) == 0, log.read_text()[-3000:]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return make_home(tmp_path)


def stored_record_ids(home: Path, data_dir: Path, collection: str = "entities") -> set[str]:
    """What the shards hold, read in this process once no server runs."""
    with Loader(make_settings(data_dir, home=home)) as loader:
        return {str(d.meta[RECORD_ID]) for d in loader.store(collection).meta_by_filter(None)}


def bug(n: int, title: str = "Zebra tooltip") -> dict[str, str]:
    return {**ENTITY, "entity_id": f"bug:{n}", "title": title}


def test_stdio_answers_tools_list_before_the_models_load_and_the_first_call_succeeds(tmp_path: Path) -> None:
    """The official `mcp` SDK over stdio, on the whole bundled configuration (models and all)."""
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "haygate.cli", "serve"],
        env=server_env(PROJECT, tmp_path / "data"),
    )

    async def session() -> tuple[float, str, list[str], Any]:
        launched = time.monotonic()
        with (tmp_path / "server.log").open("w") as errlog:
            async with stdio_client(parameters, errlog=errlog) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                listed = await client.list_tools()
                elapsed = time.monotonic() - launched
                endpoint = read_endpoint(tmp_path / "data")
                assert endpoint is not None  # the local API is up as soon as the transport is
                local = local_server(tmp_path / "data")
                assert local is not None
                state = local.operate("health", {})["status"]
                local.close()
                first = await client.call_tool("search_docs", {"query": "how do NOT filters work"})
                return elapsed, state, sorted(t.name for t in listed.tools), first

    elapsed, state, names, first = anyio.run(session)
    assert {"search_docs", "search", "search_by_skills", "memory_search"} <= set(names)
    assert state == "starting", "tools/list waited for the models"
    assert elapsed < 30, f"tools/list after {elapsed:.1f} s"  # ~1.5 s idle; only a gross regression fails
    assert first.is_error is False and first.structured_content["results"] == []
    assert "is empty" in first.structured_content["metadata"]["message"]


def test_a_description_edit_reaches_listening_clients_and_a_broken_edit_keeps_the_tool(
    home: Path, tmp_path: Path
) -> None:
    """A 2026-07-28 client over HTTP hears of the change on its `subscriptions/listen` stream."""
    declaration = home / "configs" / "tools" / "search.yaml"
    original = declaration.read_text()
    with http_server(home, tmp_path / "data", tmp_path / "server.log") as url:

        async def session() -> None:
            async with Client(f"{url}/mcp") as client, listen(client.session, tools_list_changed=True) as changes:
                assert "Full-text search" in await description(client)
                declaration.write_text(original.replace("Full-text search", "Keyword search", 1))
                with anyio.fail_after(60):
                    assert isinstance(await anext(changes), ToolsListChanged)  # the watcher reloaded
                assert "Keyword search" in await description(client)

                declaration.write_text(original.replace("tier: public", "tier: [public"))
                refused = httpx.post(f"{url}/api/admin/reload", timeout=120)
                assert refused.status_code == 422 and any("search.yaml" in p for p in refused.json()["problems"])
                assert "Keyword search" in await description(client)
                result = await client.call_tool("search", {"query": "zebra"})
                assert result.is_error is False
                with anyio.move_on_after(2) as waited:
                    await anext(changes)
                assert waited.cancelled_caught, "a refused reload announced a change"

        anyio.run(session)


def test_a_2025_era_client_over_stdio_is_told_unsolicited(home: Path, tmp_path: Path) -> None:
    """The `initialize` handshake era has no listen streams: the notification comes on the standing channel."""
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "haygate.cli", "serve"], env=server_env(home, tmp_path / "data")
    )
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changed.set()

    async def session() -> None:
        with (tmp_path / "server.log").open("w") as errlog:
            async with (
                stdio_client(parameters, errlog=errlog) as (read, write),
                ClientSession(read, write, message_handler=on_message) as client,
            ):
                await client.initialize()
                assert client.protocol_version not in MODERN_PROTOCOL_VERSIONS
                await client.list_tools()
                tools_dir = home / "configs" / "tools"
                (tools_dir / "admin.yaml").rename(tmp_path / "admin.yaml")  # not served at this tier anyway
                (tools_dir / "search.yaml").write_text(
                    (tools_dir / "search.yaml").read_text().replace("Full-text search", "Keyword search", 1)
                )
                with anyio.fail_after(60):
                    await changed.wait()
                listed = await client.list_tools()
                assert [t.description[:14] for t in listed.tools if t.name == "search"] == ["Keyword search"]

    anyio.run(session)


async def description(client: Client) -> str:
    tools = {tool.name: tool for tool in await client.list_tools()}
    return str(tools["search"].description)


def test_the_cli_goes_through_the_running_server(
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    data_dir = tmp_path / "data"
    records = tmp_path / "bugs.jsonl"
    records.write_text("".join(json.dumps(bug(n, f"Quokka banner {n}")) + "\n" for n in range(5)) + "{broken\n")
    for name, value in server_env(home, data_dir).items():
        monkeypatch.setenv(name, value)
    caplog.set_level(logging.INFO, logger="haygate")
    with http_server(home, data_dir, tmp_path / "server.log") as url:
        assert main(["ingest", "entities", str(records), "--no-progress"]) == 1  # one line refused
        assert "going through it" in caplog.text and f"{records}:6" in capsys.readouterr().err
        assert main(["call", "search", "--json", '{"query": "quokka"}']) == ExitCode.OK
        assert len(json.loads(capsys.readouterr().out)["results"]) == 5
        assert main(["delete", "entities", "bug:0", "bug:77"]) == ExitCode.FAILED  # bug:77 is not there
        assert "not found in 'entities': bug:77" in capsys.readouterr().err
        assert main(["call", "search", "--server", url, "--json", '{"query": "quokka"}']) == ExitCode.OK
        assert len(json.loads(capsys.readouterr().out)["results"]) == 4
    assert stored_record_ids(home, data_dir) == {f"bug:{n}" for n in range(1, 5)}


UPSERTS = 400  # in batches of 10, each of which searches must see whole or not at all


def test_upserts_while_eight_clients_search(home: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    acknowledged: set[str] = set()
    failures: list[str] = []
    searches = [0]
    writing = threading.Event()
    writing.set()
    with http_server(home, data_dir, tmp_path / "server.log") as url:

        def search() -> None:
            with httpx.Client(base_url=url, timeout=60) as http:
                while writing.is_set():
                    answer = http.post("/api/tools/search", json={"query": "zebra", "limit": 100})
                    if answer.status_code != 200 or len(answer.json()["results"]) % 10:  # whole batches only
                        failures.append(answer.text[:300])
                    searches[0] += 1

        readers = [threading.Thread(target=search) for _ in range(8)]
        for reader in readers:
            reader.start()
        try:
            with httpx.Client(base_url=url, timeout=120) as http:
                for start in range(0, UPSERTS, 10):
                    batch = [bug(n) for n in range(start, start + 10)]
                    answer = http.put("/api/collections/entities/records", json=batch)
                    assert answer.status_code == 200 and answer.json()["added"] == 10, answer.text
                    acknowledged |= {record["entity_id"] for record in batch}
                    time.sleep(0.01)
        finally:
            writing.clear()
            for reader in readers:
                reader.join(60)
    assert failures == [] and searches[0] > 8
    assert len(acknowledged) == UPSERTS and stored_record_ids(home, data_dir) == acknowledged


def _serve_here(env: dict[str, str], port: int) -> None:
    """A forkserver child: the real `haygate serve --http`, with Haystack already imported."""
    os.environ.clear()
    os.environ.update(env)
    sys.exit(main(["serve", "--http", "--port", str(port)]))


KILLS = 6  # each round is the whole check (a kill right after acknowledged writes); more rounds repeat it


def test_kill_9_right_after_acknowledged_writes_loses_nothing(home: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    context = forkserver()
    env = server_env(home, data_dir, HAYGATE_TIER="admin", HAYGATE_WATCH="false")
    acknowledged: set[str] = set()
    for round_number in range(KILLS):
        port = free_port()
        server = context.Process(target=_serve_here, args=(env, port))
        server.start()
        url = f"http://127.0.0.1:{port}"
        try:
            wait_ready(url, server.is_alive)  # a stale endpoint file of the killed one is no obstacle
            batch = [bug(round_number * 10 + n, f"Round {round_number} tooltip") for n in range(10)]
            answer = httpx.put(f"{url}/api/collections/entities/records", json=batch, timeout=120)
            assert answer.status_code == 200 and answer.json()["added"] == 10, answer.text
            acknowledged |= {record["entity_id"] for record in batch}
        finally:
            server.kill()
            server.join(30)
        assert server.exitcode == -9
    assert read_endpoint(data_dir) is None  # the last one's file names a dead process
    assert stored_record_ids(home, data_dir) == acknowledged


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_signal_ends_the_server_cleanly_and_at_once(
    home: Path, tmp_path: Path, stop_signal: signal.Signals
) -> None:
    """Exit code 0, shards flushed and closed (the manifest says so), the endpoint file gone, within seconds:
    also with a client's streamable-HTTP session open and a write just made."""
    data_dir, log = tmp_path / "data", tmp_path / "server.log"
    port = free_port()
    command = [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)]
    with log.open("ab") as stderr:
        process = subprocess.Popen(command, env=server_env(home, data_dir, HAYGATE_TIER="admin"), stderr=stderr)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url, lambda: process.poll() is None)
        assert httpx.put(f"{url}/api/collections/entities/records", json=[bug(1)], timeout=60).status_code == 200

        async def open_session() -> None:
            async with Client(f"{url}/mcp") as client:
                await client.list_tools()
                process.send_signal(stop_signal)
                started = time.monotonic()
                assert process.wait(30) == 0, log.read_text()[-3000:]
                stopped_in.append(time.monotonic() - started)

        stopped_in: list[float] = []
        with contextlib.suppress(Exception):  # the session ends with the server
            anyio.run(open_session)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 0, log.read_text()[-3000:]
    assert stopped_in and stopped_in[0] < 10, stopped_in  # about 0.3 s here; the issue asks for 2 s
    assert read_endpoint(data_dir) is None and not socket_path(data_dir).exists()
    manifest = json.loads((data_dir / "entities" / "haygate-shard.json").read_text())
    assert manifest["clean"] and manifest["points"] == 1
    assert f"stopping ({stop_signal.name})" in log.read_text()


def test_a_port_another_program_holds_is_refused_with_what_to_do(home: Path, tmp_path: Path) -> None:
    """No traceback from uvicorn's exit mid-start: the port is checked before anything loads, and said."""
    import socket

    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        command = [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)]
        done = subprocess.run(
            command, env=server_env(home, tmp_path / "data"), capture_output=True, text=True, timeout=60
        )
    assert done.returncode == ExitCode.CONFIG, done.stderr[-3000:]
    assert f"error: cannot serve HTTP on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr
