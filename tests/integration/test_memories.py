"""memory_search / memory_fulltext_search (spec 004): pagination, link sorting, AND/OR, highlighting, REST."""

import json
import re
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
import qdrant_edge as qe
from fastmcp import Client

from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import dangling_links
from tests.support.serving import mcp_for

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]
FIXTURE = {r["key"]: r for r in map(json.loads, (PROJECT / "samples" / "memories" / "memories.jsonl").open())}
TOOLS = ("memory_search", "memory_fulltext_search")
_TOKENS = qe.Bm25(qe.Bm25Config(k=1e9, b=0.0, avg_len=1.0, language="english", ascii_folding=True))


def tokens(text: str) -> set[int]:
    return set(_TOKENS.embed_document(text).indices)


async def call(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> Any:
    async with Client(mcp_for(gateway)) as client:
        return await client.call_tool(tool, arguments, raise_on_error=False)


async def ok(gateway: Gateway, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await call(gateway, tool, arguments)
    assert result.is_error is False, result.content
    data: dict[str, Any] = result.structured_content
    return data


async def test_schemas_describe_every_parameter(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        tools = {t.name: t for t in await client.list_tools() if t.name in TOOLS}
    assert set(tools) == set(TOOLS)
    for tool in tools.values():
        properties = tool.input_schema["properties"]
        for name, prop in properties.items():
            assert prop.get("description") and prop.get("examples"), (tool.name, name)
        assert properties["sortLinks"] == {**properties["sortLinks"], "type": "boolean", "default": True}
        assert (properties["limit"]["default"], properties["limit"]["minimum"], properties["limit"]["maximum"]) == (
            10,
            1,
            100,
        )
        assert properties["offset"]["minimum"] == 0
    assert tools["memory_fulltext_search"].input_schema["properties"]["operator"]["enum"] == ["AND", "OR"]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [("memory_search", {"query": "database migration"}), ("memory_fulltext_search", {"keywords": "migration"})],
)
async def test_pages_concatenate_to_one_large_page(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> None:
    whole = await ok(gateway, tool, **arguments, limit=100)
    total = whole["metadata"]["total"]
    assert total >= 15  # three pages of 7 or more (memory_search counts only related memories)
    expected = [r["key"] for r in whole["results"]]
    pages: list[str] = []
    for offset in range(0, min(total, 100), 7):
        page = await ok(gateway, tool, **arguments, limit=7, offset=offset)
        assert page["metadata"]["total"] == total and page["metadata"]["offset"] == offset
        pages += [r["key"] for r in page["results"]]
    assert pages[: len(expected)] == expected and len(pages) >= len(expected) == min(total, 100)
    assert len(pages) == len(set(pages))  # no duplicates across pages
    past = await ok(gateway, tool, **arguments, offset=total + 5)
    assert past["results"] == [] and past["metadata"]["total"] == total
    assert "past the end" in past["metadata"]["message"]


async def scores_for(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> dict[str, float]:
    """Every memory's score for this query, read page by page from the tool itself."""
    scores: dict[str, float] = {}
    offset = 0
    while True:
        page = await ok(gateway, tool, **arguments, limit=100, offset=offset)
        scores.update({r["key"]: r["score"] for r in page["results"]})
        offset += 100
        if offset >= page["metadata"]["total"]:
            return scores


async def test_links_sort_by_weight_times_the_linked_memorys_score(gateway: Gateway) -> None:
    arguments = {"query": "invoice PDF rendering"}
    scores = await scores_for(gateway, "memory_search", arguments)
    data = await ok(gateway, "memory_search", **arguments, limit=5)
    assert sum(len(result["links"]) for result in data["results"]) >= 2, "no links to sort: nothing is checked"
    for result in data["results"]:
        stored = FIXTURE[result["key"]]["links"]
        expected = sorted(
            stored, key=lambda link: -(link["weight"] * scores.get(link["target_key"], 0.0))
        )  # stable: ties keep stored order
        assert [link["target_key"] for link in result["links"]] == [link["target_key"] for link in expected]
        for link in result["links"]:
            assert link["link_score"] == pytest.approx(link["weight"] * scores.get(link["target_key"], 0.0), abs=1e-5)
    unsorted = await ok(gateway, "memory_search", **arguments, limit=5, sortLinks=False)
    assert [r["key"] for r in unsorted["results"]] == [r["key"] for r in data["results"]]
    for result in unsorted["results"]:
        assert [link["target_key"] for link in result["links"]] == [
            link["target_key"] for link in FIXTURE[result["key"]]["links"]
        ]


async def test_fulltext_links_score_memories_outside_the_results(gateway: Gateway) -> None:
    data = await ok(gateway, "memory_fulltext_search", keywords="redis timeout")
    keys = {r["key"] for r in data["results"]}
    outside = [link for r in data["results"] for link in r["links"] if link["target_key"] not in keys]
    assert any(link["memory_score"] > 0 for link in outside)  # scored by the same words, not left at 0
    for result in data["results"]:
        link_scores = [link["link_score"] for link in result["links"]]
        assert link_scores == sorted(link_scores, reverse=True)


async def test_dangling_links_are_kept_and_marked(gateway: Gateway) -> None:
    data = await ok(gateway, "memory_fulltext_search", keywords="inactivity TTL")
    [result] = [r for r in data["results"] if r["key"] == "bug-session-expiry-redis-timeout"]
    [link] = [link for link in result["links"] if link["target_key"] == "deleted-old-auth-notes"]
    assert link["dangling"] is True and link["memory_score"] == 0
    assert all(not link["dangling"] for link in result["links"] if link["target_key"] != "deleted-old-auth-notes")
    reported = dangling_links(gateway.loader.store("memories"), "links")
    assert len(reported) == 3 and any("deleted-old-auth-notes" in r for r in reported)


async def test_and_requires_every_keyword_or_any(gateway: Gateway) -> None:
    both = await ok(gateway, "memory_fulltext_search", keywords="redis timeout", limit=100)
    either = await ok(gateway, "memory_fulltext_search", keywords="redis timeout", operator="OR", limit=100)
    redis, timeout = tokens("redis"), tokens("timeout")
    and_keys = {r["key"] for r in both["results"]}
    or_keys = {r["key"] for r in either["results"]}
    assert and_keys < or_keys and len(and_keys) >= 5
    for key in and_keys:
        text = tokens(FIXTURE[key]["summary"] + " " + FIXTURE[key]["content"])
        assert redis <= text and timeout <= text
    for key in or_keys:
        text = tokens(FIXTURE[key]["summary"] + " " + FIXTURE[key]["content"])
        assert redis <= text or timeout <= text
    assert any(not (redis <= tokens(FIXTURE[k]["content"] + FIXTURE[k]["summary"])) for k in or_keys)


async def test_excerpts_highlight_stemmed_forms_within_300_chars(gateway: Gateway) -> None:
    data = await ok(gateway, "memory_fulltext_search", keywords="index", limit=50)
    marked = {m.lower() for r in data["results"] for m in re.findall(r"<mark>([^<]+)</mark>", r["excerpt"])}
    assert {"indexing", "indexes", "indexed"} & marked and "index" in marked
    assert all(len(r["excerpt"]) <= 300 for r in data["results"])
    assert all("<mark>" in r["excerpt"] for r in data["results"])


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize(
    ("arguments", "field", "needle"),
    [
        ({"sortLinks": "yes"}, "sortLinks", "boolean"),
        ({"sortLinks": 1}, "sortLinks", "boolean"),
        ({"sortLinks": None}, "sortLinks", "boolean"),
        ({"limit": 0}, "limit", "greater than or equal to 1"),
        ({"limit": 101}, "limit", "less than or equal to 100"),
        ({"offset": -1}, "offset", "greater than or equal to 0"),
    ],
)
async def test_validation_errors(
    gateway: Gateway, tool: str, arguments: dict[str, Any], field: str, needle: str
) -> None:
    query = {"query": "redis"} if tool == "memory_search" else {"keywords": "redis"}
    result = await call(gateway, tool, {**query, **arguments})
    assert result.is_error is True
    error = json.loads(result.content[0].text)["error"]
    assert error["code"] == "VALIDATION_ERROR"
    [problem] = [p for p in error["details"]["errors"] if p["field"] == field]
    assert needle in problem["message"]


async def test_operator_and_empty_keywords_are_validated(gateway: Gateway) -> None:
    for arguments in ({"keywords": "redis", "operator": "XOR"}, {"keywords": "   "}, {"keywords": ""}):
        result = await call(gateway, "memory_fulltext_search", arguments)
        assert result.is_error is True
        assert json.loads(result.content[0].text)["error"]["code"] == "VALIDATION_ERROR"


async def test_rest_returns_exactly_what_mcp_returns(gateway: Gateway, base_url: str) -> None:
    cases = [
        ("memory_search", {"query": "invoice PDF rendering"}),
        ("memory_search", {"query": "database migration", "limit": 7, "offset": 7}),
        ("memory_search", {"query": "redis", "sortLinks": False}),
        ("memory_fulltext_search", {"keywords": "redis timeout", "operator": "OR", "limit": 5, "offset": 10}),
        ("memory_fulltext_search", {"keywords": "index"}),
        ("memory_fulltext_search", {"keywords": "migration", "offset": 500}),
    ]
    async with Client(mcp_for(gateway)) as client, httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        for tool, arguments in cases:
            mcp = (await client.call_tool(tool, arguments)).structured_content
            [declared] = [t for t in await client.list_tools() if t.name == tool]
            jsonschema.validate(mcp, declared.output_schema)
            rest = await http.post(f"/api/tools/{tool}", json=arguments)
            assert rest.status_code == 200 and rest.json() == mcp
        bad = await http.post("/api/tools/memory_search", json={"query": "x", "sortLinks": "yes"})
        assert bad.status_code == 422 and bad.json()["error"]["code"] == "VALIDATION_ERROR"
