"""A real MCP client (the `mcp` SDK) talks to `haygate serve` over stdio, in a process of its own.

The server's home declares one tool, `search`, whose pipeline runs no model, so the test measures the
transport, not model loading: list, call with filters, and a validation error, all over stdio.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import mcp_types
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.server.handshake import CACHE_FILE
from tests.support.project import PROJECT, copy_project, make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # a process of its own: imports torch and Haystack


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A haygate home whose only tool is `search`, with the sample entities ingested under `data/`."""
    home = tmp_path / "home"
    copy_project(home, tools=False)
    (home / "configs" / "tools").mkdir()
    shutil.copy(PROJECT / "configs" / "tools" / "search.yaml", home / "configs" / "tools")
    with Loader(make_settings(home / "data", home=home)) as loader:
        report = ingest_files(
            loader.collection("entities"), [PROJECT / "samples" / "entities" / "entities.jsonl"], progress=False
        )
    assert report.written == 516
    return home


async def test_stdio_list_and_call_with_filters(home: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "haygate.cli", "serve"],
        cwd=str(PROJECT),
        env={
            "HAYGATE_HOME": str(home),
            "HAYGATE_DATA_DIR": str(home / "data"),
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/tmp"),
        },
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tool, view_tool = (await session.list_tools()).tools  # the declared tool, and its results view's
        assert view_tool.name == "open-record"
        assert (tool.meta or {}).get("ui") == {"resourceUri": "ui://haygate/results/search.html"}
        assert tool.name == "search" and all(p.get("description") for p in tool.input_schema["properties"].values())
        result = await session.call_tool("search", {"query": "borders", "entities": ["bug"], "limit": 5})
        assert result.is_error is False
        data = result.structured_content
        assert data["results"] and {r["entity_type"] for r in data["results"]} == {"bug"}
        assert data["metadata"]["filters"] == {"entities": ["bug"]}
        bad = await session.call_tool("search", {"query": "x", "limit": 0})
        assert bad.is_error is True
        assert json.loads(bad.content[0].text)["error"]["code"] == "VALIDATION_ERROR"


# `haygate serve` with the background build held back: what is loaded once a client has listed the tools.
HELD_BACK = """
import sys
from haygate.server.service import GatewayService
GatewayService._start = lambda self, grace=None: None  # no pipelines, no models: only what answering the handshake took
close = GatewayService.close
def report(self):
    close(self)
    print("loaded:", sorted({m.split(".")[0] for m in sys.modules}), file=sys.stderr, flush=True)
GatewayService.close = report
from haygate.cli import main
main(["serve"])
"""
# What answers `initialize` and `tools/list` must not wait for: the pipelines' libraries, the models, and the
# storage library FastMCP makes its session-state store with (`haygate.compat.fastmcp.StateMadeOnWrite`).
NOT_BEFORE_THE_LIST = {
    "haystack",
    "numpy",
    "onnxruntime",
    "tokenizers",
    "qdrant_edge",
    "torch",
    "key_value",
    "websockets",
}


def test_the_handshake_loads_only_what_it_needs(home: Path) -> None:
    """The tools are listed from the YAML, before Haystack, the models or the store are imported (each is
    seconds of start-up a client would wait for); a call starts them."""
    env = {"HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(home / "data"), "PATH": os.environ.get("PATH", "")}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]  # fmt: skip
    with subprocess.Popen(
        [sys.executable, "-c", HELD_BACK],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=PROJECT,
    ) as server:  # fmt: skip
        assert server.stdin is not None and server.stdout is not None
        for message in messages:
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(2)]  # stdin stays open until both came
        _, err = server.communicate(timeout=60)
    assert [t["name"] for t in answers[1]["result"]["tools"]] == ["search", "open-record"]  # and a view's tool
    [loaded] = [line for line in err.splitlines() if line.startswith("loaded:")]
    assert "fastmcp" in loaded  # the probe sees what was imported
    assert not {name for name in NOT_BEFORE_THE_LIST if f"'{name}'" in loaded}, loaded


def launch(home: Path) -> StdioServerParameters:
    env = {"HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(home / "data"), "PATH": os.environ.get("PATH", "")}
    return StdioServerParameters(command=sys.executable, args=["-m", "haygate.cli", "serve"], cwd=str(PROJECT), env=env)


async def handshake(home: Path, errlog: Path) -> tuple[Any, Any, list[Any], Any]:
    """One launch: the SDK's `initialize` and `tools/list` answers, what else the server sent, and a call."""
    told: list[Any] = []

    async def on_message(message: Any) -> None:
        told.append(message)

    with errlog.open("a") as err:
        async with (
            stdio_client(launch(home), errlog=err) as (read, write),
            ClientSession(read, write, message_handler=on_message) as session,
        ):
            initialized = await session.initialize()
            listed = await session.list_tools()
            called = await session.call_tool("search", {"query": "borders", "limit": 1})
            with anyio.move_on_after(1 if told else 0.2):
                while not told:
                    await anyio.sleep(0.05)
            return initialized, listed, told, called


def test_a_second_launch_answers_the_handshake_as_fastmcp_did(home: Path, tmp_path: Path) -> None:
    """The first launch keeps FastMCP's answers (`haygate.server.handshake`); the next answers both at once,
    the same to the byte as the SDK reads them, and the call after them goes to FastMCP's session as ever."""
    first = anyio.run(handshake, home, tmp_path / "server.log")
    kept = home / "data" / CACHE_FILE
    assert len(json.loads(kept.read_text())) == 2  # the `initialize` and the `tools/list` answers
    again = anyio.run(handshake, home, tmp_path / "server.log")
    for before, after in zip(first[:2], again[:2], strict=True):
        assert after.model_dump() == before.model_dump()
    assert again[3].is_error is False and again[3].structured_content["results"]
    assert not again[2], "a kept answer that was right needs no correction"


def test_a_kept_tool_list_that_is_wrong_is_corrected_at_once(home: Path, tmp_path: Path) -> None:
    """Should a kept answer ever differ from FastMCP's (the key missed something), the client is told the list
    changed and the kept answer replaced: the next listing and the next launch are FastMCP's."""
    anyio.run(handshake, home, tmp_path / "server.log")
    kept = home / "data" / CACHE_FILE
    answers = json.loads(kept.read_text())
    [listing] = [answer for answer in answers.values() if "tools" in answer]
    listing["tools"][0]["description"] = "An old description."
    kept.write_text(json.dumps(answers))
    _, listed, told, _ = anyio.run(handshake, home, tmp_path / "server.log")
    assert listed.tools[0].description == "An old description."  # answered from what was kept, at once
    assert any(isinstance(m, mcp_types.ToolListChangedNotification) for m in told), told
    assert "An old description." not in kept.read_text()
    _, relisted, told, _ = anyio.run(handshake, home, tmp_path / "server.log")
    assert relisted.tools[0].description != "An old description." and not told
