"""Every tool fed records in its spec's own shape, and called with its spec's own example arguments.

Records arrive as the specs write them (integer ids in spec 002, `_id`/ObjectId extractions in spec 001);
ingest types them, and every result must validate against the tool's declared output schema, as the
official `mcp` SDK does on the client side (it rejects a whole call whose structured content does not).
"""

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from fastmcp import Client

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from tests.support.project import make_settings
from tests.support.serving import mcp_for

pytestmark = [pytest.mark.integration, pytest.mark.slow]

# Spec 002: integer ids, one table of products, features, tests and bugs.
ENTITIES = [
    {"entity_type": "product", "entity_id": 598, "product_id": 598, "title": "Canvas Studio"},
    {"entity_type": "product", "entity_id": 601, "product_id": 601, "title": "Photo Frames"},
    {
        "entity_type": "feature",
        "entity_id": 1049,
        "product_id": 598,
        "title": "Borders and frames",
        "description": "Add borders around images",
        "howtofind": "Editor > Borders",
        "user_stories": "As a user I can pick a border colour",
    },
    {
        "entity_type": "bug",
        "entity_id": 3070,
        "product_id": 601,
        "title": "Border disappears on export",
        "actual_result": "The border is gone in the PNG",
        "expected_result": "The border is kept",
    },
    {"entity_type": "test", "entity_id": 2030, "product_id": 700, "title": "Video mode smoke test", "goal": "Record"},
]
# Spec 001: extraction documents keyed by a MongoDB ObjectId, as mongoexport writes them.
EXTRACTIONS = [
    {
        "_id": {"$oid": "65a1f0c2e4b0a1b2c3d4e5f6"},
        "project_id": "default",
        "source_id": "src-handbook",
        "source_title": "LLM Handbook Ch.5",
        "chunk_id": "c-041",
        "type": "decision",
        "content": {
            "question": "Should chunks overlap?",
            "options": ["No overlap", "10-20% overlap"],
            "considerations": ["Facts straddle boundaries"],
            "recommended_approach": "Overlap by 10-20%",
        },
        "topics": ["Chunking", "RAG"],
        "schema_version": "1.0",
        "extracted_at": {"$date": "2026-03-14T10:30:08Z"},
    },
    {
        "_id": {"$oid": "65a1f0c2e4b0a1b2c3d4e5f7"},
        "project_id": "default",
        "source_id": "src-survey",
        "source_title": "RAG Survey 2024",
        "chunk_id": "c-007",
        "type": "warning",
        "content": {
            "title": "Embedding drift",
            "description": "Re-embedding with a new model silently breaks old vectors",
            "symptoms": ["Recall drops"],
            "consequences": ["Wrong answers"],
            "prevention": "Version the embedding model",
        },
        "topics": ["embeddings"],
        "schema_version": "1.0",
        "extracted_at": "2026-03-15T09:00:00Z",
    },
    {
        "_id": {"$oid": "65a1f0c2e4b0a1b2c3d4e5f8"},
        "project_id": "default",
        "source_id": "src-survey",
        "source_title": "RAG Survey 2024",
        "chunk_id": "c-009",
        "type": "pattern",
        "content": {
            "name": "Parent document retrieval",
            "problem": "Small chunks lose context",
            "solution": "Retrieve small, return the parent",
            "code_example": None,
            "context": "Long documents",
            "trade_offs": ["More tokens"],
        },
        "topics": ["retrieval"],
        "schema_version": "1.0",
        "extracted_at": "2026-03-15T09:05:00Z",
    },
]
# Spec 004: memories with weighted links.
MEMORIES = [
    {
        "key": "redis-eviction",
        "summary": "Redis evicts keys under memory pressure",
        "content": "Set maxmemory-policy to allkeys-lru on the cache.",
        "tags": ["ops"],
        "created_at": "2026-01-05T08:29:00Z",
        "links": [{"target_key": "redis-timeouts", "weight": 0.8}],
    },
    {
        "key": "redis-timeouts",
        "summary": "Redis timeouts come from slow Lua scripts",
        "content": "Keep scripts short; use SLOWLOG to find them.",
        "tags": ["ops"],
        "created_at": "2026-01-06T08:29:00Z",
        "links": [],
    },
    {
        "key": "invoice-pdf-fonts",
        "summary": "Invoice PDFs embed the Inter font so totals line up",
        "content": "WeasyPrint renders invoices; fonts ship in the worker image.",
        "tags": ["billing"],
        "created_at": "2026-01-07T08:29:00Z",
        "links": [],
    },
]
# Spec 003: documentation sections.
SECTIONS = [
    {
        "_id": "3.0/filters.md#Filters/NOT",
        "version": "3.0",
        "path": "filters.md",
        "title": "NOT",
        "heading_path": ["Filters", "NOT"],
        "source": "haystack",
        "text": "NOT excludes:\n\n```python\nfilters = {'operator': 'NOT', 'conditions': [{'field': 'meta.type',"
        " 'operator': '==', 'value': 'draft'}]}\nresults = retriever.run(query='exclude drafts', filters=filters)\n```",
    },
    {
        "_id": "3.0/agents.md#Agents",
        "version": "3.0",
        "path": "agents.md",
        "title": "Agents",
        "heading_path": ["Agents"],
        "source": "haystack",
        "text": "An agent calls tools in a loop until it can answer.",
    },
]
# Spec 000: CVs.
CVS = [
    {
        "_id": "cv-1",
        "name": "Candidate #1",
        "as_of": "2026-11-01",
        "text": "Senior ML engineer. Python, machine learning, Kubernetes, AWS. 2014 - 2026 at Acme.",
    },
    {
        "_id": "cv-2",
        "name": "Candidate #2",
        "as_of": "2026-11-01",
        "text": "Junior Java developer. Java, Spring. 2024 - 2026 at Beta.",
    },
]


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gateway]:
    root = tmp_path_factory.mktemp("spec-shapes")
    with Loader(make_settings(root / "data")) as loader:
        for collection, records in [
            ("entities", ENTITIES),
            ("knowledge", EXTRACTIONS),
            ("memories", MEMORIES),
            ("docs", SECTIONS),
            ("candidates", CVS),
        ]:
            source = root / f"{collection}.jsonl"
            source.write_text("".join(json.dumps(r) + "\n" for r in records))
            report = ingest_files(loader.collection(collection), [source], progress=False)
            assert report.errors == [] and report.records == len(records), (collection, report.errors)
        yield Gateway.load(loader)


# The specs' own example calls, with what each must find.
CALLS: list[tuple[str, dict[str, Any], Any]] = [
    ("search", {"query": "borders"}, {"feature:1049", "bug:3070"}),
    ("search", {"query": "borders", "entities": ["features"]}, {"feature:1049"}),
    ("search", {"query": "borders", "product_ids": [598, 601]}, {"feature:1049", "bug:3070"}),
    ("search", {"query": "borders", "product_ids": [601]}, {"bug:3070"}),
    ("search", {"query": "video", "product_ids": [700.0], "entities": ["Tests"]}, {"test:2030"}),
    ("get_decisions", {}, {"65a1f0c2e4b0a1b2c3d4e5f6"}),
    ("get_decisions", {"topic": "CHUNKING"}, {"65a1f0c2e4b0a1b2c3d4e5f6"}),
    ("get_warnings", {"topic": "embeddings"}, {"65a1f0c2e4b0a1b2c3d4e5f7"}),
    ("get_patterns", {"query": "small chunks lose context"}, {"65a1f0c2e4b0a1b2c3d4e5f8"}),
    ("memory_search", {"query": "redis eviction", "limit": 5, "offset": 0, "sortLinks": True}, None),
    ("memory_fulltext_search", {"keywords": "redis slowlog", "operator": "or"}, None),
    ("search_docs", {"query": "exclude documents with NOT", "content_type": "CODE"}, {"3.0/filters.md#Filters/NOT"}),
    ("search_docs", {"query": "agents", "content_type": "MIXED", "version": "3.0"}, None),
    ("search_by_skills", {"required_skills": ["Python", "Machine Learning"], "experience_level": "senior"}, None),
    ("search_by_skills", {"required_skills": ["NonexistentSkill123"]}, None),
]


def found(tool: str, data: dict[str, Any]) -> set[str]:
    key = {"search_docs": "id", "memory_search": "key", "memory_fulltext_search": "key"}
    items = data.get("results", data.get("candidates", []))
    if tool == "search":  # each entity's own id, with its type: {entity_type: bug, entity_id: 3070}
        return {f"{item['entity_type']}:{item['entity_id']}" for item in items}
    return {str(item.get(key.get(tool, "id"))) for item in items}


@pytest.mark.parametrize(("tool", "arguments", "expected"), CALLS, ids=[f"{c[0]}-{i}" for i, c in enumerate(CALLS)])
async def test_spec_example_calls_work_and_honour_the_output_schema(
    gateway: Gateway, tool: str, arguments: dict[str, Any], expected: Any
) -> None:
    async with Client(mcp_for(gateway)) as client:
        schemas = {t.name: t.output_schema for t in await client.list_tools()}
        result = await client.call_tool(tool, arguments, raise_on_error=False)
    assert result.is_error is False, result.content
    data = result.structured_content
    jsonschema.validate(data, schemas[tool])
    if expected is not None:
        assert found(tool, data) == expected


async def test_a_filter_value_no_record_has_is_named(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        missing = await client.call_tool("search", {"query": "borders", "product_ids": [999]})
        version = await client.call_tool("search_docs", {"query": "agents", "version": "9.9"})
        worded = await client.call_tool("search", {"query": "zeppelin"})
    assert missing.structured_content["results"] == []
    assert "no record has product_ids=[999]" in missing.structured_content["metadata"]["message"]
    assert "no record has version='9.9'" in version.structured_content["metadata"]["message"]
    assert "no record has" not in worded.structured_content["metadata"]["message"]


async def test_extractions_echo_the_query(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        asked = await client.call_tool("get_decisions", {"query": "chunk overlap", "topic": "rag"})
        listed = await client.call_tool("get_decisions", {"topic": "rag"})
    assert asked.structured_content["metadata"]["query"] == "chunk overlap"
    assert listed.structured_content["metadata"]["query"] == "rag"


async def test_a_query_that_matches_nothing_finds_nothing_and_says_how_many_were_left_out(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        unrelated = (await client.call_tool("get_patterns", {"query": "chocolate cake baking"})).structured_content
        related = (await client.call_tool("get_patterns", {"query": "small chunks lose context"})).structured_content
        memories = (await client.call_tool("memory_search", {"query": "chocolate cake baking"})).structured_content
        redis = (await client.call_tool("memory_search", {"query": "redis eviction"})).structured_content
    assert unrelated["results"] == [] and unrelated["metadata"]["below_relevance_floor"] >= 1
    assert "below the relevance floor" in unrelated["metadata"]["message"]
    assert found("get_patterns", related) == {"65a1f0c2e4b0a1b2c3d4e5f8"}
    assert memories["results"] == [] and memories["metadata"]["total"] == 0
    assert redis["metadata"]["total"] == 2  # the two Redis memories, not the collection's size (3)
