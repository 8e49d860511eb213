"""get_decisions / get_patterns / get_warnings (spec 001): typed results, topic and query, tenant isolation."""

import json
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from fastmcp import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from tests.support.project import SAMPLES_PROJECT, make_settings
from tests.support.serving import http_for, mcp_for

pytestmark = pytest.mark.integration

PROJECT = Path(__file__).resolve().parents[2]
FIXTURE = [json.loads(line) for line in (PROJECT / "samples" / "knowledge" / "extractions.jsonl").open()]
TOOLS = {"get_decisions": "decision", "get_patterns": "pattern", "get_warnings": "warning"}
OWN, OTHER = SAMPLES_PROJECT, "orbit-agents"
OWN_IDS = {r["id"] for r in FIXTURE if r["project_id"] == OWN}
OTHER_IDS = {r["id"] for r in FIXTURE if r["project_id"] == OTHER}
TOPICS = sorted({t for r in FIXTURE for t in r["topics"]})


@pytest.fixture
def tenant_gateway(gateway: Gateway) -> Gateway:
    """The session's sample gateway serves the tenant OWN."""
    assert gateway.loader.settings.project_id == OWN
    return gateway


def expected(kind: str, topic: str | None = None) -> set[str]:
    return {
        r["id"]
        for r in FIXTURE
        if r["project_id"] == OWN and r["type"] == kind and (topic is None or topic in r["topics"])
    }


async def call(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> Any:
    async with Client(mcp_for(gateway)) as client:
        return await client.call_tool(tool, arguments, raise_on_error=False)


@pytest.mark.parametrize("tool", sorted(TOOLS))
async def test_each_type_lists_its_own_extractions_typed(tenant_gateway: Gateway, tool: str) -> None:
    async with Client(mcp_for(tenant_gateway)) as client:
        [declared] = [t for t in await client.list_tools() if t.name == tool]
        result = await client.call_tool(tool, {"limit": 500})
    data = result.structured_content
    jsonschema.validate(data, declared.output_schema)
    assert {r["id"] for r in data["results"]} == expected(TOOLS[tool])
    assert data["metadata"]["query"] == "all" and data["metadata"]["search_type"] == "filtered"
    cited = {r["source_title"] for r in data["results"]}
    assert set(data["metadata"]["sources_cited"]) == cited and data["metadata"]["result_count"] == len(data["results"])
    assert declared.annotations is not None and declared.annotations.read_only_hint is True
    schema = declared.input_schema
    assert set(schema["properties"]) == {"topic", "query", "limit"} and "required" not in schema


async def test_result_fields_come_from_the_extraction(tenant_gateway: Gateway) -> None:
    data = (await call(tenant_gateway, "get_decisions", {"limit": 500})).structured_content
    source = {r["id"]: r for r in FIXTURE}
    assert {r["id"] for r in data["results"]} == expected("decision")  # every decision, each checked below
    for result in data["results"]:
        record = source[result["id"]]
        assert result["question"] == record["content"]["question"]
        assert result["options"] == record["content"]["options"]
        assert (result["source_id"], result["chunk_id"]) == (record["source_id"], record["chunk_id"])


@pytest.mark.parametrize("topic", ["chunking", "caching", "evaluation"])
async def test_topic_filter(tenant_gateway: Gateway, topic: str) -> None:
    data = (await call(tenant_gateway, "get_patterns", {"topic": topic, "limit": 500})).structured_content
    assert {r["id"] for r in data["results"]} == expected("pattern", topic)
    assert all(topic in r["topics"] for r in data["results"]) and data["metadata"]["query"] == topic


async def test_query_ranks_semantically_within_the_type(tenant_gateway: Gateway) -> None:
    data = (
        await call(tenant_gateway, "get_decisions", {"query": "how to reduce latency of retrieval", "limit": 5})
    ).structured_content
    assert data["metadata"]["search_type"] == "semantic"
    assert data["results"][0]["id"] in {"ext-dec-013", "ext-dec-006", "ext-dec-007"}
    chunks = (
        await call(tenant_gateway, "get_decisions", {"query": "how much should chunks overlap"})
    ).structured_content
    assert chunks["results"][0]["id"] == "ext-dec-001"
    assert {r["id"] for r in chunks["results"]} <= expected("decision")


async def test_topic_without_extractions_is_empty_with_a_message(tenant_gateway: Gateway) -> None:
    data = (await call(tenant_gateway, "get_warnings", {"topic": "quantum-gardening"})).structured_content
    assert data["results"] == [] and data["metadata"]["result_count"] == 0
    assert "quantum-gardening" in data["metadata"]["message"]


@pytest.mark.parametrize(
    "arguments",
    [{"limit": 0}, {"limit": 501}, {"limit": "20"}, {"topic": 5}, {"topic": ""}, {"project_id": OTHER}],
)
async def test_bad_arguments_get_validation_error(tenant_gateway: Gateway, arguments: dict[str, Any]) -> None:
    result = await call(tenant_gateway, "get_warnings", arguments)
    assert result.is_error is True
    assert json.loads(result.content[0].text)["error"]["code"] == "VALIDATION_ERROR"


async def test_a_failing_store_is_an_internal_error_without_internals(samples_dir: Path) -> None:
    # A real store that cannot answer: a Qdrant server URL where nothing listens.
    with Loader(make_settings(samples_dir, qdrant_url="http://127.0.0.1:9", project_id=OWN)) as loader:
        result = await call(Gateway.load(loader), "get_decisions", {"topic": "rag"})
    assert result.is_error is True
    error = json.loads(result.content[0].text)["error"]
    assert error["code"] == "INTERNAL_ERROR"
    assert "127.0.0.1" not in error["message"] and "Traceback" not in result.content[0].text


async def test_rest_matches_mcp(tenant_gateway: Gateway) -> None:

    transport = httpx.ASGITransport(app=http_for(tenant_gateway))
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as http:
        for tool, arguments in [
            ("get_decisions", {"topic": "rag"}),
            ("get_patterns", {"query": "cache embeddings", "limit": 3}),
            ("get_warnings", {}),
        ]:
            mcp = (await call(tenant_gateway, tool, arguments)).structured_content
            rest = await http.post(f"/api/tools/{tool}", json=arguments)
            assert rest.status_code == 200 and rest.json() == mcp


def test_without_a_project_the_tenant_tools_are_not_served(samples_dir: Path) -> None:
    """HAYGATE_PROJECT_ID set empty switches the tenant off: the tenant tools are then not served."""
    with Loader(make_settings(samples_dir, project_id="")) as loader:
        assert not set(TOOLS) & set(Gateway.load(loader).tools)


def test_each_project_sees_only_its_rows(samples_dir: Path) -> None:
    for project, ids in ((OWN, OWN_IDS), (OTHER, OTHER_IDS)):
        with Loader(make_settings(samples_dir, project_id=project)) as loader:
            gateway = Gateway.load(loader)
            seen = {r["id"] for tool in TOOLS for r in gateway.call(tool, {"limit": 500})["results"]}
        assert seen == ids


crafted_text = st.one_of(
    st.sampled_from([*TOPICS, OTHER, OWN, "*", "security' OR '1'='1", "meta.project_id", '{"project_id": 1}']),
    st.text(max_size=40),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    tool=st.sampled_from(sorted(TOOLS)),
    topic=st.none() | crafted_text,
    query=st.none() | crafted_text,
    limit=st.integers(min_value=-5, max_value=600),
    extra=st.dictionaries(st.sampled_from(["project_id", "extraction_type", "filters", "tenant"]), crafted_text),
)
def test_no_crafted_arguments_read_another_project(
    tenant_gateway: Gateway,
    tool: str,
    topic: str | None,
    query: str | None,
    limit: int,
    extra: dict[str, str],
) -> None:
    arguments: dict[str, Any] = {"limit": limit, **extra}
    if topic is not None:
        arguments["topic"] = topic
    if query is not None:
        arguments["query"] = query
    try:
        result = tenant_gateway.call(tool, arguments)
    except Exception as error:  # only a validation error may stop a call
        assert getattr(error, "code", None) == "VALIDATION_ERROR", error
        return
    ids = {r["id"] for r in result["results"]}
    assert not ids & OTHER_IDS
    assert ids <= expected(TOOLS[tool])
