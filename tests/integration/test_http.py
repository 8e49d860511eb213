"""REST and streamable-HTTP MCP over real HTTP (uvicorn on 127.0.0.1), with and without a bearer token."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastmcp import Client

from haygate.gateway.runtime import Gateway
from haygate.server.apps import OPEN_RECORD
from tests.support.serving import http_for, mcp_for, serve

pytestmark = pytest.mark.integration

TOKEN = "test-token-123"
QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("search_docs", {"query": "reciprocal rank fusion rrf_k", "max_results": 5}),
    ("search_docs", {"query": "bearer token", "version": "1.1"}),
    ("search_docs", {"query": "filters", "section_path": "filters", "content_type": "code", "max_results": 3}),
    ("search_docs", {"query": "nothing matches this", "version": "0.0"}),
    ("search_by_skills", {"required_skills": ["Kubernetes"], "preferred_skills": ["Terraform"], "top_k": 10}),
    ("search_by_skills", {"required_skills": ["Python", "Machine Learning"], "experience_level": "junior"}),
    ("search_by_skills", {"required_skills": ["NonexistentSkill123"]}),
]


@pytest.fixture
def secured_url(gateway: Gateway) -> Iterator[str]:
    yield from serve(http_for(gateway, token=TOKEN))


async def test_rest_matches_mcp(gateway: Gateway, base_url: str) -> None:
    async with Client(mcp_for(gateway)) as client, httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        for tool, arguments in QUERIES:
            mcp_result = (await client.call_tool(tool, arguments)).structured_content
            response = await http.post(f"/api/tools/{tool}", json=arguments)
            assert response.status_code == 200
            rest_result = response.json()
            assert rest_result == mcp_result


async def test_rest_error_codes(base_url: str) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        bad = await http.post("/api/tools/search_docs", json={"query": "x", "max_results": 99})
        assert bad.status_code == 422
        assert bad.json()["error"]["code"] == "VALIDATION_ERROR"
        assert bad.json()["error"]["details"]["errors"][0]["maximum"] == 50
        missing = await http.post("/api/tools/nope", json={"query": "x"})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
        typed = {"content-type": "application/json"}
        garbage = await http.post("/api/tools/search_docs", content=b"{not json", headers=typed)
        assert garbage.status_code == 422 and "JSON" in garbage.json()["error"]["message"]
        untyped = await http.post("/api/tools/search_docs", content=b'{"query": "x"}')  # no content type
        assert untyped.status_code == 415 and untyped.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
        not_object = await http.post("/api/tools/search_docs", json=["query"])
        assert not_object.status_code == 422


async def test_health_and_openapi(gateway: Gateway, base_url: str) -> None:
    async with httpx.AsyncClient(base_url=base_url) as http:
        health = (await http.get("/health")).json()
        assert health["status"] == "ready" and health["tools"] == sorted(gateway.tools)
        spec = (await http.get("/openapi.json")).json()
    operation = spec["paths"]["/api/tools/search_docs"]["post"]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    assert schema["properties"]["max_results"]["maximum"] == 50
    assert set(operation["responses"]) == {"200", "403", "404", "413", "415", "422", "503", "500"}


async def test_mcp_over_streamable_http(gateway: Gateway, base_url: str) -> None:
    async with Client(f"{base_url}/mcp") as client:
        tools = await client.list_tools()
        result = await client.call_tool("search_docs", {"query": "bearer token", "max_results": 2})
    assert sorted(t.name for t in tools) == sorted([*gateway.tools, OPEN_RECORD])  # and the views' tool
    assert len(result.structured_content["results"]) == 2


async def test_bearer_token_is_required_when_configured(gateway: Gateway, secured_url: str) -> None:
    async with httpx.AsyncClient(base_url=secured_url, timeout=60) as http:
        assert (await http.post("/api/tools/search_docs", json={"query": "x"})).status_code == 401
        wrong = await http.post("/api/tools/search_docs", json={"query": "x"}, headers={"Authorization": "Bearer no"})
        assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "UNAUTHORIZED"
        assert (await http.post("/mcp", json={})).status_code == 401
        ok = await http.post(
            "/api/tools/search_docs", json={"query": "x"}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        assert ok.status_code == 200
        for scheme, status in (("bearer", 200), ("BEARER", 200), ("Basic", 401), ("", 401)):  # RFC 7235: any case
            sent = await http.post(
                "/api/tools/search_docs", json={"query": "x"}, headers={"Authorization": f"{scheme} {TOKEN}".strip()}
            )
            assert sent.status_code == status, scheme
        assert (await http.get("/health")).status_code == 200
    async with Client(f"{secured_url}/mcp", auth=TOKEN) as client:
        assert sorted(t.name for t in await client.list_tools()) == sorted([*gateway.tools, OPEN_RECORD])


async def test_unknown_paths_and_wrong_methods_get_the_envelope(base_url: str) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        missing = await http.get("/nowhere")
        wrong = await http.get("/api/tools/search_docs")
        put = await http.put("/health")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
    assert wrong.status_code == 405 and wrong.json()["error"] == {
        "code": "METHOD_NOT_ALLOWED",
        "message": "GET is not allowed on /api/tools/search_docs; use POST",
        "details": {"allowed": ["POST"]},
    }
    assert wrong.headers["allow"] == "POST"
    assert put.status_code == 405 and put.headers["allow"] == "GET"


@pytest.mark.parametrize(
    ("tool", "body", "fragment"),
    [
        ("search_docs", '{"query": "x", "version": "' + "v" * 10_000_000 + '"}', "at most 1000 characters"),
        ("search", '{"query": "x", "entities": [' + ", ".join(['"bug"'] * 200_000) + "]}", "at most 100 items"),
        ("search_docs", '{"query": "x", "max_results": ' + "9" * 5001 + "}", "request body must be JSON"),
        ("search_docs", '{"query": "x", "max_results": NaN}', "NaN is not JSON"),
        ("search_docs", '{"query": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
        ("search_docs", '{"query": "x", "extra": ' + "[" * 40 + "]" * 40 + "}", "nested more than 32 levels"),
    ],
    ids=["10MB-string", "200k-array", "5001-digit-integer", "NaN", "100k-deep", "40-deep"],
)
async def test_hostile_sizes_and_depths_are_validation_errors(
    base_url: str, tool: str, body: str, fragment: str
) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as http:
        answer = await http.post(
            f"/api/tools/{tool}", content=body.encode(), headers={"content-type": "application/json"}
        )
    assert answer.status_code == 422, answer.text[:300]
    error = answer.json()["error"]
    assert error["code"] == "VALIDATION_ERROR" and fragment in error["message"], error["message"][:300]
    assert len(answer.content) < 5000  # nothing hostile is echoed back


def test_every_parameter_of_every_tool_is_bounded(gateway: Gateway) -> None:
    for name, runtime in gateway.tools.items():
        for parameter, schema in runtime.declaration.input_schema()["properties"].items():
            kind = schema.get("type")
            if "enum" in schema or kind == "boolean":
                continue
            bound = {"string": "maxLength", "array": "maxItems", "object": "maxProperties"}.get(kind)
            bound = bound or ("maximum" if kind in ("integer", "number") else "maxLength")
            assert bound in schema, (name, parameter, schema)
