"""A real MCP client (the `mcp` SDK) talks to `haygate serve` over stdio, in a process of its own.

The server's home declares one tool, `search`, whose pipeline runs no model, so the test measures the
transport, not model loading: list, call with filters, and a validation error, all over stdio.
"""

import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
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
        [tool] = (await session.list_tools()).tools
        assert tool.name == "search" and all(p.get("description") for p in tool.input_schema["properties"].values())
        result = await session.call_tool("search", {"query": "borders", "entities": ["bug"], "limit": 5})
        assert result.is_error is False
        data = result.structured_content
        assert data["results"] and {r["entity_type"] for r in data["results"]} == {"bug"}
        assert data["metadata"]["filters"] == {"entities": ["bug"]}
        bad = await session.call_tool("search", {"query": "x", "limit": 0})
        assert bad.is_error is True
        assert json.loads(bad.content[0].text)["error"]["code"] == "VALIDATION_ERROR"
