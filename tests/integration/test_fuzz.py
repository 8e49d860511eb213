"""Fuzzing every served tool from its own declared schema, over MCP and over REST.

Arguments come from the tool's input schema (`from_schema`: valid calls, edge values included, integers
also written as integral floats, 20.0, as JavaScript clients and LLMs send them) and from hostile variants of
them: wrong types, oversized strings and arrays, deep nesting, unknown keys, tenant keys. Every answer must
be a result that honours the output schema, or the error envelope with a code other than INTERNAL_ERROR; a
call the schema admits is never refused as invalid (only a malformed raw query of `search` is, as its
declaration says); and no tenant tool may return another project's row.

The fast profile runs in `make test`. The long one (`HAYGATE_FUZZ_EXAMPLES`, e.g. 2000 per tool and
transport) is marked `fuzz_long` and runs only when that variable is set:

    HAYGATE_FUZZ_EXAMPLES=2000 .venv/bin/python -m pytest -m fuzz_long tests/integration/test_fuzz.py
"""

import json
import os
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import jsonschema
import pytest
from fastmcp import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from haygate.gateway.runtime import Gateway
from tests.conftest import http_for, mcp_for, serve

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FAST_EXAMPLES = 25
LONG_EXAMPLES = int(os.environ.get("HAYGATE_FUZZ_EXAMPLES", "0"))
OTHER_PROJECT = "orbit-agents"
TENANT_TOOLS = ("get_decisions", "get_patterns", "get_warnings")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
hostile_values = st.one_of(
    json_values,
    st.text(min_size=1001, max_size=3000),
    st.lists(st.text(max_size=5), min_size=101, max_size=300),
    st.integers(min_value=2**53, max_value=2**70) | st.integers(min_value=-(2**70), max_value=-(2**53)),
    st.sampled_from(["(" * 60 + "a" + ")" * 60, "NOT " * 60 + "a", '"', "*", "AND", OTHER_PROJECT, "\x00", ""]),
    st.builds(lambda depth: json.loads("[" * depth + "]" * depth), st.integers(min_value=33, max_value=200)),
)


def hostile(arguments: dict[str, Any], tool_keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid call with one argument replaced, or an unknown (possibly tenant) key added."""
    keys = st.sampled_from([*tool_keys, "project_id", "extraction_type", "filters", "tenant", "unknown"])
    return st.builds(lambda key, value: {**arguments, key: value}, keys, hostile_values)


def value_for(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Valid values of one parameter's JSON schema: the subset tool declarations produce."""
    if "enum" in schema:
        values = [v for v in schema["enum"] if v is not None]
        return st.sampled_from(values + [v.upper() for v in values if isinstance(v, str)])  # any case is valid
    kinds = schema.get("type", "string")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    options = []
    for kind in kinds:
        if kind == "string":
            options.append(st.text(min_size=schema.get("minLength", 0), max_size=min(schema.get("maxLength", 50), 50)))
        elif kind == "integer":
            low, high = schema.get("minimum", -(2**53) + 1), schema.get("maximum", 2**53 - 1)
            whole = st.integers(min_value=int(low), max_value=int(high))
            options += [whole, whole.map(float)]  # 20 and 20.0: one integer to JSON Schema
        elif kind == "number":
            low, high = schema.get("minimum", -1e9), schema.get("maximum", 1e9)
            options.append(st.floats(min_value=low, max_value=high, allow_nan=False))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "array":
            item = value_for(schema.get("items", {"type": "string"}))
            size = schema.get("maxItems", 10)
            options.append(st.lists(item, min_size=schema.get("minItems", 0), max_size=min(size, 10)))
        elif kind == "object":
            options.append(st.dictionaries(st.text(max_size=10), json_values, max_size=5))
    return st.one_of(options)


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Valid arguments: every required parameter, any of the optional ones."""
    properties = schema.get("properties", {})
    required = set(schema.get("required", []))
    return st.fixed_dictionaries(
        {name: value_for(p) for name, p in properties.items() if name in required},
        optional={name: value_for(p) for name, p in properties.items() if name not in required},
    )


def arguments_for(schema: dict[str, Any]) -> st.SearchStrategy[tuple[dict[str, Any], bool]]:
    """(arguments, whether the schema admits them)."""
    valid = from_schema(schema)
    wrong = valid.flatmap(lambda args: hostile(args, list(schema.get("properties", {}))))
    return st.one_of(valid.map(lambda args: (args, True)), wrong.map(lambda args: (args, False)))


def may_refuse(tool: str, arguments: dict[str, Any]) -> bool:
    """Valid calls a tool may still refuse: a raw query of `search` is a query language JSON Schema cannot
    describe, so a malformed one is a VALIDATION_ERROR that names the position."""
    return tool == "search" and str(arguments.get("match_mode", "")).lower() == "raw"


@pytest.fixture(scope="module")
def rest_url(gateway: Gateway) -> Iterator[str]:
    yield from serve(http_for(gateway))


def other_project_ids(gateway: Gateway) -> set[str]:
    store = gateway.tools["get_decisions"].pipeline.pipeline.get_component("retriever").document_store  # type: ignore[union-attr]
    rows = store.meta_by_filter({"field": "meta.project_id", "operator": "==", "value": OTHER_PROJECT})
    return {str(d.meta["record_id"]) for d in rows}


def check(
    tool: str, schema: dict[str, Any], answer: dict[str, Any], is_error: bool, forbidden: set[str], valid: bool = False
) -> None:
    """`valid`: the arguments are what the input schema admits, so they may not be refused as invalid."""
    if is_error:
        assert set(answer) == {"error"} and answer["error"]["code"] != "INTERNAL_ERROR", answer
        assert not valid or answer["error"]["code"] != "VALIDATION_ERROR", answer
        return
    jsonschema.validate(answer, schema)
    if tool in TENANT_TOOLS:
        assert not {str(row.get("id")) for row in answer["results"]} & forbidden


def fuzz(gateway: Gateway, rest_url: str, tool: str, examples: int) -> None:
    runtime = gateway.tools[tool]
    input_schema, output_schema = runtime.declaration.input_schema(), runtime.declaration.output_schema
    forbidden = other_project_ids(gateway) if tool in TENANT_TOOLS else set()
    mcp = mcp_for(gateway)

    async def over_mcp(arguments: dict[str, Any], valid: bool) -> None:
        async with Client(mcp) as client:
            result = await client.call_tool(tool, arguments, raise_on_error=False)
        answer = json.loads(result.content[0].text) if result.is_error else result.structured_content  # type: ignore[union-attr]
        check(tool, output_schema, answer, result.is_error, forbidden, valid)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )
    @given(case=arguments_for(input_schema))
    def call_both(case: tuple[dict[str, Any], bool]) -> None:
        arguments, admitted = case
        valid = admitted and not may_refuse(tool, arguments)
        anyio.run(over_mcp, arguments, valid)
        # json.dumps, not httpx's json=: a hostile float (inf, nan) goes out as Python writes it ("Infinity"),
        # which no JSON parser takes, and the server must answer 422 for it; httpx refuses to send it at all.
        body = json.dumps(arguments).encode()
        answer = httpx.post(
            f"{rest_url}/api/tools/{tool}", content=body, headers={"content-type": "application/json"}, timeout=120
        )
        assert answer.status_code != 500, answer.text[:500]
        check(tool, output_schema, answer.json(), answer.status_code >= 400, forbidden, valid)

    call_both()


TOOLS = [
    "search_docs",
    "search",
    "search_by_skills",
    "memory_search",
    "memory_fulltext_search",
    "get_decisions",
    "get_patterns",
    "get_warnings",
]


@pytest.mark.parametrize("tool", TOOLS)
def test_fuzzed_calls_get_a_result_or_the_envelope(gateway: Gateway, rest_url: str, tool: str) -> None:
    assert set(TOOLS) == set(gateway.tools)  # every served tool is fuzzed
    fuzz(gateway, rest_url, tool, FAST_EXAMPLES)


@pytest.mark.fuzz_long
@pytest.mark.budget(3000, "thousands of fuzzed calls per tool and transport (make eval)")
@pytest.mark.skipif(not LONG_EXAMPLES, reason="the long fuzz profile runs with HAYGATE_FUZZ_EXAMPLES=N set")
@pytest.mark.parametrize("tool", TOOLS)
def test_long_fuzz_profile(gateway: Gateway, rest_url: str, tool: str) -> None:
    fuzz(gateway, rest_url, tool, LONG_EXAMPLES)


# What the long profile found once, kept as plain cases: a query with no BM25 term left only the dense
# list, whose negative cosine broke the [0, 1] score; a non-JSON float must be a 422 over REST too.
FOUND = [
    ("search_docs", json.dumps({"query": ":", "content_type": "code"})),
    ("memory_fulltext_search", '{"keywords": "redis", "limit": Infinity}'),
    ("get_warnings", '{"topic": NaN}'),
    # Schemathesis found it: "at least half of 24 words" is C(24, 12) conditions to Qdrant (104 s).
    ("search", json.dumps({"query": " ".join(f"word{n} login error page" for n in range(6))})),
]


@pytest.mark.parametrize(("tool", "body"), FOUND, ids=[tool for tool, _ in FOUND])
def test_what_the_long_profile_found(gateway: Gateway, rest_url: str, tool: str, body: str) -> None:
    output_schema = gateway.tools[tool].declaration.output_schema
    answer = httpx.post(
        f"{rest_url}/api/tools/{tool}", content=body.encode(), headers={"content-type": "application/json"}, timeout=120
    )
    check(tool, output_schema, answer.json(), answer.status_code >= 400, set())
    assert answer.status_code in (200, 422), answer.text
    if "Infinity" in body or "NaN" in body:
        assert answer.status_code == 422
