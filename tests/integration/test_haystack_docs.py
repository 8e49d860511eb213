"""search_docs on a slice of the real Haystack documentation: version and section filters."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from haygate.gateway import Gateway
from haygate.ingest import ingest_files

pytestmark = [pytest.mark.integration, pytest.mark.shared_data]
SECTIONS = Path(__file__).resolve().parents[3] / "shared" / "data" / "haystack-docs" / "sections.jsonl"


@pytest.fixture
def docs_slice(haygate_env: Path, tmp_path: Path) -> Iterator[Path]:
    if not SECTIONS.exists():
        pytest.skip(f"shared haystack-docs not present at {SECTIONS}")
    wanted = ("concepts/agents.mdx", "concepts/pipelines/serialization.mdx", "concepts/pipelines.mdx")
    rows = [
        line
        for line in SECTIONS.open()
        if json.loads(line)["path"] in wanted and json.loads(line)["version"] in ("2.18", "3.0")
    ]
    assert len(rows) > 20, "the slice should hold real sections"
    sliced = tmp_path / "slice.jsonl"
    sliced.write_text("".join(rows))
    report = ingest_files("docs", [sliced], progress=False)
    assert not report.errors and report.records == len(rows)
    yield sliced


def test_version_and_section_filters_on_real_docs(docs_slice: Path) -> None:
    gateway = Gateway.load()
    result = gateway.call(
        "search_docs",
        {"query": "what is an AI agent", "version": "3.0", "section_path": "agents", "max_results": 10},
    )
    assert result["results"]
    assert {r["version"] for r in result["results"]} == {"3.0"}
    assert all(r["section_path"] == "agents" or r["section_path"].startswith("agents/") for r in result["results"])
    assert result["results"][0]["source"] == "deepset-ai/haystack"

    older = gateway.call("search_docs", {"query": "serialize a pipeline to YAML", "version": "2.18", "max_results": 5})
    assert {r["version"] for r in older["results"]} == {"2.18"}
    assert any("serializ" in (r["title"] or "").lower() for r in older["results"][:3])

    nothing = gateway.call("search_docs", {"query": "agents", "version": "2.18", "section_path": "no-such-section"})
    assert nothing["results"] == [] and "section_path" in nothing["metadata"]["message"]


async def test_stdio_client_on_real_docs(docs_slice: Path, haygate_env: Path) -> None:
    """The issue's acceptance path: the `mcp` SDK over stdio, filters on ingested haystack-docs sections."""
    import os
    import sys

    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    from components.collections import close_all

    close_all()  # the server process must own the shard
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "haygate.cli", "serve"],
        cwd=str(Path(__file__).resolve().parents[2]),
        env={"HAYGATE_DATA_DIR": str(haygate_env), "PATH": os.environ.get("PATH", "")},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        [tool] = [t for t in (await session.list_tools()).tools if t.name == "search_docs"]
        assert tool.output_schema is not None
        result = await session.call_tool(
            "search_docs",
            {"query": "pipeline serialization", "version": "3.0", "section_path": "Serializing Pipelines"},
        )
        assert result.is_error is False
        results = result.structured_content["results"]
        assert results and {r["version"] for r in results} == {"3.0"}
        assert all(r["section_path"].startswith("serializing-pipelines") for r in results)
        bad = await session.call_tool("search_docs", {"query": "x", "content_type": "video"})
        assert bad.is_error is True and '"VALIDATION_ERROR"' in bad.content[0].text
