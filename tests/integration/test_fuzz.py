"""Fuzzing every served tool from its own declared schema, over MCP and over REST.

Valid arguments are drawn from the tool's MCP input schema itself, by Schemathesis' generator (`from_schema`:
every keyword the declarations publish, `pattern` and bounds included, integers also written as integral
floats, 20.0, as JavaScript clients and LLMs send them), then loosened only where the server promises more
than the schema says (an enum value in any case). Hostile variants of them add wrong types, oversized strings
and arrays, deep nesting, unknown keys, tenant keys. Every answer must be a result that honours the output
schema, or the error envelope with a code other than INTERNAL_ERROR; a call the schema admits is never
refused, but for the one refusal `tests/contract/refusals.py` names (a malformed raw query of `search`); and
no tenant tool may return another project's row.

The fast profile runs in `make test`; `make eval` runs the long one (`tests/eval/test_fuzz_long.py`, 2,000
calls per tool and transport, `HAYGATE_FUZZ_EXAMPLES` to change it).
"""

import json
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
from tests.contract.refusals import is_raw_query_syntax_refusal
from tests.support.serving import http_for, mcp_for, serve

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FAST_EXAMPLES = 25
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


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Arguments the input schema admits, drawn by Schemathesis from the schema itself (as the body of a
    one-operation OpenAPI 3.1 document around it: its public API for generating from a JSON Schema)."""
    import schemathesis
    from schemathesis.generation import GenerationMode

    document = {
        "openapi": "3.1.0",
        "info": {"title": "a tool's arguments", "version": "1"},
        "paths": {
            "/call": {
                "post": {
                    "requestBody": {"required": True, "content": {"application/json": {"schema": schema}}},
                    "responses": {"200": {"description": "a result"}},
                }
            }
        },
    }
    operation = schemathesis.openapi.from_dict(document)["/call"]["POST"]
    return operation.as_strategy(generation_mode=GenerationMode.POSITIVE).map(lambda case: case.body)


def shouted(arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The same call with its enum values in upper case, which the tools take: an enum value in any case."""
    properties = schema.get("properties", {})

    def upper(value: Any, spec: dict[str, Any]) -> Any:
        if isinstance(value, str) and "enum" in spec:
            return value.upper()
        if isinstance(value, list) and "enum" in spec.get("items", {}):
            return [item.upper() if isinstance(item, str) else item for item in value]
        return value

    return {name: upper(value, properties.get(name, {})) for name, value in arguments.items()}


def valid_arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """What the schema admits, or the same with its enum values shouted."""
    return from_schema(schema).flatmap(lambda arguments: st.sampled_from([arguments, shouted(arguments, schema)]))


def hostile(arguments: dict[str, Any], tool_keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """A valid call with one argument replaced, or an unknown (possibly tenant) key added."""
    keys = st.sampled_from([*tool_keys, "project_id", "extraction_type", "filters", "tenant", "unknown"])
    return st.builds(lambda key, value: {**arguments, key: value}, keys, hostile_values)


def arguments_for(schema: dict[str, Any]) -> st.SearchStrategy[tuple[dict[str, Any], bool]]:
    """(arguments, whether the schema admits them)."""
    valid = valid_arguments(schema)
    wrong = from_schema(schema).flatmap(lambda args: hostile(args, list(schema.get("properties", {}))))
    return st.one_of(valid.map(lambda args: (args, True)), wrong.map(lambda args: (args, False)))


@pytest.fixture(scope="module")
def rest_url(gateway: Gateway) -> Iterator[str]:
    yield from serve(http_for(gateway))


def other_project_ids(gateway: Gateway) -> set[str]:
    store = gateway.tools["get_decisions"].pipeline.pipeline.get_component("retriever").document_store  # type: ignore[union-attr]
    rows = store.meta_by_filter({"field": "meta.project_id", "operator": "==", "value": OTHER_PROJECT})
    return {str(d.meta["record_id"]) for d in rows}


def check(
    tool: str,
    schema: dict[str, Any],
    arguments: Any,
    answer: dict[str, Any],
    is_error: bool,
    forbidden: set[str],
    valid: bool = False,
) -> None:
    """`valid`: the input schema admits the arguments, so the call gets a result, or the one refusal
    `tests/contract/refusals.py` names."""
    if is_error:
        assert set(answer) == {"error"} and answer["error"]["code"] != "INTERNAL_ERROR", answer
        assert not valid or is_raw_query_syntax_refusal(tool, arguments, answer), (arguments, answer)
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
        check(tool, output_schema, arguments, answer, result.is_error, forbidden, valid)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    )
    @given(case=arguments_for(input_schema))
    def call_both(case: tuple[dict[str, Any], bool]) -> None:
        arguments, valid = case
        anyio.run(over_mcp, arguments, valid)
        # json.dumps, not httpx's json=: a hostile float (inf, nan) goes out as Python writes it ("Infinity"),
        # which no JSON parser takes, and the server must answer 422 for it; httpx refuses to send it at all.
        body = json.dumps(arguments).encode()
        answer = httpx.post(
            f"{rest_url}/api/tools/{tool}", content=body, headers={"content-type": "application/json"}, timeout=120
        )
        assert answer.status_code != 500, answer.text[:500]
        assert not valid or answer.status_code in (200, 422), (arguments, answer.status_code, answer.text[:500])
        check(tool, output_schema, arguments, answer.json(), answer.status_code >= 400, forbidden, valid)

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
    check(tool, output_schema, json.loads(body), answer.json(), answer.status_code >= 400, set())
    assert answer.status_code in (200, 422), answer.text
    if "Infinity" in body or "NaN" in body:
        assert answer.status_code == 422


# The found strings: blank to Python's str.strip(), so refused by the tools, but a generator that ignored the
# schema's `pattern` drew them as valid (about one run in three). Every whitespace character strip() removes,
# alone, in every parameter that must have a character: refused by the published schema (Python's regex
# here; tests/unit/gateway/test_declarations.py holds the pattern to ECMA-262's and Rust's) and by the tool.
BLANK = [chr(code) for code in range(0x3100) if chr(code).isspace()]
FOUND_BLANK = ["\r", "\x85", "\x1c"]


def must_have_a_character(schema: dict[str, Any]) -> list[str]:
    return [name for name, p in schema["properties"].items() if p.get("type") == "string" and p.get("minLength")]


@pytest.mark.parametrize("tool", TOOLS)
def test_a_blank_string_is_refused_by_the_schema_and_the_tool(gateway: Gateway, tool: str) -> None:
    runtime = gateway.tools[tool]
    schema = runtime.declaration.input_schema()
    validator = jsonschema.Draft202012Validator(schema)
    [example] = [dict(e) for e in runtime.example_arguments()][:1] or [{}]
    assert set(FOUND_BLANK) <= set(BLANK) and len(BLANK) == 29
    for name in must_have_a_character(schema):
        for blank in [*BLANK, " \t\x85\u3000"]:
            arguments = {**example, name: blank}
            assert not validator.is_valid(arguments), (tool, name, blank)
            with pytest.raises(Exception, match="must have a character other than spaces"):
                runtime.validate_arguments(arguments)
        kept = {**example, name: "\ufeff"}  # ECMA's \s has it; strip() keeps it, so the schema admits it too
        assert validator.is_valid(kept)
        runtime.validate_arguments(kept)


@pytest.mark.parametrize("tool", TOOLS)
def test_every_call_drawn_as_valid_is_one_the_tool_takes(gateway: Gateway, tool: str) -> None:
    """The generator against the server's own validation, without the pipeline: 200 draws a tool, so a
    disagreement shows here, every run, rather than as a rare false failure of the fuzz test."""
    runtime = gateway.tools[tool]
    schema = runtime.declaration.input_schema()
    validator = jsonschema.Draft202012Validator(schema)

    @settings(max_examples=200, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(arguments=from_schema(schema))
    def drawn(arguments: dict[str, Any]) -> None:
        assert validator.is_valid(arguments), arguments
        runtime.validate_arguments(arguments)
        runtime.validate_arguments(shouted(arguments, schema))

    drawn()
