"""search_docs on a slice of the real Haystack documentation: version and section filters."""

import json
from pathlib import Path

import pytest
from fastmcp import Client

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.settings import Settings
from tests.support.project import SHARED_DATA, make_settings
from tests.support.serving import mcp_for

pytestmark = [pytest.mark.integration, pytest.mark.shared_data, pytest.mark.slow]  # real embeddings of ~100 sections
SECTIONS = SHARED_DATA / "haystack-docs" / "sections.jsonl"


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return make_settings(tmp_path_factory.mktemp("haystack-docs") / "data")


@pytest.fixture(scope="module")
def docs_slice(settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real sections of three pages in two versions, ingested once for this module."""
    wanted = ("concepts/agents.mdx", "concepts/pipelines/serialization.mdx", "concepts/pipelines.mdx")
    rows = [
        line
        for line in SECTIONS.open()
        if json.loads(line)["path"] in wanted and json.loads(line)["version"] in ("2.18", "3.0")
    ]
    assert len(rows) > 20, "the slice should hold real sections"
    sliced = tmp_path_factory.mktemp("slice") / "slice.jsonl"
    sliced.write_text("".join(rows))
    with Loader(settings) as loader:
        report = ingest_files(loader.collection("docs"), [sliced], progress=False)
    assert not report.errors and report.records == len(rows)
    return sliced


def test_version_and_section_filters_on_real_docs(docs_slice: Path, settings: Settings) -> None:
    with Loader(settings) as loader:
        gateway = Gateway.load(loader)
        result = gateway.call(
            "search_docs",
            {"query": "what is an AI agent", "version": "3.0", "section_path": "agents", "max_results": 10},
        )
        older = gateway.call(
            "search_docs", {"query": "serialize a pipeline to YAML", "version": "2.18", "max_results": 5}
        )
        nothing = gateway.call("search_docs", {"query": "agents", "version": "2.18", "section_path": "no-such-section"})
    assert result["results"]
    assert {r["version"] for r in result["results"]} == {"3.0"}
    assert all(r["section_path"] == "agents" or r["section_path"].startswith("agents/") for r in result["results"])
    assert result["results"][0]["source"] == "deepset-ai/haystack"
    assert {r["version"] for r in older["results"]} == {"2.18"}
    assert any("serializ" in (r["title"] or "").lower() for r in older["results"][:3])
    assert nothing["results"] == [] and "section_path" in nothing["metadata"]["message"]


async def test_mcp_client_on_real_docs(docs_slice: Path, settings: Settings) -> None:
    """Filters on real ingested sections through the MCP protocol (the stdio transport has its own test)."""
    with Loader(settings) as loader:
        async with Client(mcp_for(Gateway.load(loader))) as client:
            [tool] = [t for t in await client.list_tools() if t.name == "search_docs"]
            assert tool.output_schema is not None
            result = await client.call_tool(
                "search_docs",
                {"query": "pipeline serialization", "version": "3.0", "section_path": "Serializing Pipelines"},
            )
            bad = await client.call_tool("search_docs", {"query": "x", "content_type": "video"}, raise_on_error=False)
    assert result.is_error is False
    results = result.structured_content["results"]
    assert results and {r["version"] for r in results} == {"3.0"}
    assert all(r["section_path"].startswith("serializing-pipelines") for r in results)
    assert bad.is_error is True and '"VALIDATION_ERROR"' in bad.content[0].text
