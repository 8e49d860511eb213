"""A real MCP client (the `mcp` SDK) talks to `haygate serve` over stdio."""

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.integration
PROJECT = Path(__file__).resolve().parents[2]


async def test_stdio_list_and_call_with_filters(samples_dir: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "haygate.cli", "serve"],
        cwd=str(PROJECT),
        env={
            "HAYGATE_DATA_DIR": str(samples_dir),
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/tmp"),
        },
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        [tool] = [t for t in tools if t.name == "search_docs"]
        assert all(p.get("description") for p in tool.input_schema["properties"].values())
        result = await session.call_tool(
            "search_docs", {"query": "comparison operators", "version": "1.0", "section_path": "filters"}
        )
        assert result.is_error is False
        data = result.structured_content
        assert data["results"] and {r["version"] for r in data["results"]} == {"1.0"}
        assert all(r["section_path"].startswith("filters") for r in data["results"])
        bad = await session.call_tool("search_docs", {"query": "x", "max_results": 0})
        assert bad.is_error is True
        assert json.loads(bad.content[0].text)["error"]["code"] == "VALIDATION_ERROR"
