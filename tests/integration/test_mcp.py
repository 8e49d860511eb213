"""search_docs through the real FastMCP in-memory client."""

import json
from typing import Any

import jsonschema
import pytest
from fastmcp import Client

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from tests.support.serving import mcp_for

pytestmark = pytest.mark.integration


def envelope(result: Any) -> dict[str, Any]:
    assert result.is_error is True
    return json.loads(result.content[0].text)["error"]


async def test_tool_schema_is_fully_described(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        [tool] = [t for t in await client.list_tools() if t.name == "search_docs"]
    schema = tool.input_schema
    assert schema["required"] == ["query"] and schema["additionalProperties"] is False
    for name, prop in schema["properties"].items():
        assert prop.get("description"), name
        assert prop.get("examples"), name
        assert "type" in prop, name
    max_results = schema["properties"]["max_results"]
    assert {k: max_results[k] for k in ("type", "minimum", "maximum", "default")} == {
        "type": "integer",
        "minimum": 1,
        "maximum": 50,
        "default": 10,
    }
    assert schema["properties"]["content_type"]["enum"] == ["code", "prose", "mixed"]
    assert tool.annotations is not None and tool.annotations.read_only_hint is True
    assert tool.output_schema["required"] == ["results", "metadata"]


async def test_call_returns_structured_content_matching_output_schema(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        [tool] = [t for t in await client.list_tools() if t.name == "search_docs"]
        result = await client.call_tool("search_docs", {"query": "reciprocal rank fusion rrf_k", "max_results": 3})
    data = result.structured_content
    jsonschema.validate(data, tool.output_schema)
    assert len(data["results"]) == 3
    assert data["results"][0]["title"].startswith("Pipelines > Pipeline stages > Hybrid retriever")
    assert data["metadata"]["reranked"] is False
    assert json.loads(result.content[0].text) == data


async def test_version_section_and_content_type_filters(gateway: Gateway) -> None:
    args = {
        "query": "not in operator exclude values",
        "version": "1.0",
        "section_path": "Filters",
        "content_type": "mixed",
        "max_results": 20,
    }
    async with Client(mcp_for(gateway)) as client:
        data = (await client.call_tool("search_docs", args)).structured_content
    assert data["results"]
    assert {r["version"] for r in data["results"]} == {"1.0"}
    assert all(r["section_path"].startswith("filters") for r in data["results"])
    assert data["metadata"]["filters"] == {"version": "1.0", "section_path": "filters"}
    async with Client(mcp_for(gateway)) as client:
        code_only = (
            await client.call_tool("search_docs", {"query": "install", "content_type": "code"})
        ).structured_content
    assert code_only["results"] and {r["content_type"] for r in code_only["results"]} == {"code"}


async def test_no_match_names_the_value_that_matches_nothing(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        data = (await client.call_tool("search_docs", {"query": "filters", "version": "9.9"})).structured_content
    assert data["results"] == []
    assert (
        "no record has version='9.9'" in data["metadata"]["message"]
        and "leave version out" in data["metadata"]["message"]
    )


@pytest.mark.parametrize(
    ("arguments", "field", "fragment"),
    [
        ({"query": "x", "max_results": 0}, "max_results", "greater than or equal to 1"),
        ({"query": "x", "max_results": 51}, "max_results", "less than or equal to 50"),
        ({"query": "x", "max_results": "10"}, "max_results", "valid integer"),
        ({"query": "x", "content_type": "video"}, "content_type", "'code', 'prose' or 'mixed'"),
        ({"query": "x", "min_score": 1.5}, "min_score", "less than or equal to 1"),
        ({"query": ""}, "query", "at least 1 character"),
        ({"max_results": 3}, "query", "Field required"),
        ({"query": "x", "yaer": "2.18"}, "yaer", "unknown parameter"),
    ],
)
async def test_invalid_arguments_get_validation_error(
    gateway: Gateway, arguments: dict[str, Any], field: str, fragment: str
) -> None:
    async with Client(mcp_for(gateway)) as client:
        result = await client.call_tool("search_docs", arguments, raise_on_error=False)
    error = envelope(result)
    assert error["code"] == "VALIDATION_ERROR"
    [detail] = [d for d in error["details"]["errors"] if d["field"] == field]
    assert fragment in detail["message"]
    if field == "content_type":
        assert detail["allowed"] == ["code", "prose", "mixed"]


async def test_unknown_tool_is_not_found(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        result = await client.call_tool("search_everything", {"query": "x"}, raise_on_error=False)
    assert envelope(result)["code"] == "NOT_FOUND"


async def test_internal_errors_are_masked(gateway: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    def broken(self: Any, query: Any) -> Any:
        raise RuntimeError("disk I/O error at /secret/path/segment-7")

    monkeypatch.setattr(EdgeDocumentStore, "hybrid_search", broken)
    async with Client(mcp_for(gateway)) as client:
        result = await client.call_tool("search_docs", {"query": "filters"}, raise_on_error=False)
    error = envelope(result)
    assert error["code"] == "INTERNAL_ERROR"
    assert "secret" not in result.content[0].text and "Traceback" not in result.content[0].text


async def test_missing_collection_answers_with_ingest_hint(loader: Loader) -> None:
    gateway = Gateway.load(loader)
    async with Client(mcp_for(gateway)) as client:
        result = await client.call_tool("search_docs", {"query": "anything"})
    assert result.structured_content["results"] == []
    assert "haygate ingest docs" in result.structured_content["metadata"]["message"]


async def test_declared_and_fastmcp_tools_are_both_called(gateway: Gateway) -> None:
    """Declared tools go straight to the service; a tool registered with FastMCP itself still answers."""
    mcp = mcp_for(gateway)

    @mcp.tool
    def ping(word: str) -> str:
        return f"pong {word}"

    async with Client(mcp) as client:
        declared = await client.call_tool("search_docs", {"query": "pipeline", "max_results": 2})
        registered = await client.call_tool("ping", {"word": "hi"})
    assert len(declared.structured_content["results"]) == 2
    assert registered.data == "pong hi"


async def test_header_checks_read_the_declared_schema(gateway: Gateway) -> None:
    """2026-07-28 `Mcp-Param-*` header checks ask for a tool's input schema by name: the one `tools/list` gives."""
    mcp = mcp_for(gateway)
    async with Client(mcp) as client:
        listed = {t.name: t.input_schema for t in await client.list_tools()}
    lookup = mcp._mcp_server.get_tool_input_schema
    assert lookup("search_docs") == listed["search_docs"]
    assert lookup("no_such_tool") is None
