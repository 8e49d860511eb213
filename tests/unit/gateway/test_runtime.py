"""The gateway core on the `search` tool over a few entities (no model runs): validation, the error
envelope, parameter names in errors, tiers."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from haygate.errors import InvalidRequestError, NotFoundError, envelope
from haygate.gateway.declarations import NOT_BLANK
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.settings import Settings
from tests.support.project import copy_project

PROJECT = Path(__file__).resolve().parents[3]
ENTITIES = [
    {
        "entity_type": "bug",
        "entity_id": "bug:1",
        "product_id": "product:1",
        "title": "Dropdown hides the menu",
        "actual_result": "The menu is hidden.",
        "expected_result": "It shows.",
    },
    {
        "entity_type": "bug",
        "entity_id": "bug:2",
        "product_id": "product:2",
        "title": "Crash on login",
        "actual_result": "The dropdown freezes.",
        "expected_result": "Login works.",
    },
    {
        "entity_type": "feature",
        "entity_id": "feature:3",
        "product_id": "product:1",
        "title": "Login",
        "description": "Sign in with email.",
        "howtofind": "Top right.",
    },
]


@pytest.fixture
def gateway(loader: Loader, tmp_path: Path) -> Iterator[Gateway]:
    source = tmp_path / "entities.jsonl"
    source.write_text("\n".join(json.dumps(e) for e in ENTITIES))
    ingest_files(loader.collection("entities"), [source], progress=False)
    yield Gateway.load(loader, files=[PROJECT / "configs" / "tools" / "search.yaml"])


def test_a_call_runs_the_pipeline_through_its_interface(gateway: Gateway) -> None:
    result = gateway.call("search", {"query": "dropdown"})
    assert [r["entity_id"] for r in result["results"]] == [1, 2]  # the title hit first
    assert result["metadata"]["counts"] == {"bug": 2} and result["metadata"]["filters"] == {}
    scoped = gateway.call("search", {"query": "login", "entities": ["feature"], "product_ids": [1]})
    assert [(r["entity_type"], r["entity_id"]) for r in scoped["results"]] == [("feature", 3)]
    assert scoped["metadata"]["filters"] == {"entities": ["feature"], "product_ids": [1]}


def test_arguments_are_validated_against_the_declaration(gateway: Gateway) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        gateway.call("search", {"query": "x", "limit": 0, "colour": "red"})
    problems = {d["field"]: d for d in caught.value.details["errors"]}
    assert problems["limit"]["minimum"] == 1 and "unknown parameter" in problems["colour"]["message"]
    with pytest.raises(InvalidRequestError, match="must be a JSON object"):
        gateway.call("search", ["x"])


def test_a_blank_text_is_refused_as_the_schema_says(gateway: Gateway) -> None:
    """A required text with at least one character must have one that is not a space: the schema says so
    (so a fuzzer or a client reading it never sends what the tool would refuse), and the error names it."""
    schema = gateway.tools["search"].arguments_model.model_json_schema()["properties"]["query"]
    assert schema["minLength"] == 1 and schema["pattern"] == NOT_BLANK
    for blank in (" ", "\t\n", "\u00a0\u3000", "\x1c", "\r", "\x85"):
        with pytest.raises(InvalidRequestError) as caught:
            gateway.call("search", {"query": blank})
        assert caught.value.details["errors"] == [
            {
                "field": "query",
                "problem": "string_pattern_mismatch",
                "message": "must have a character other than spaces",
                "expected": "string",
            }
        ]
    assert gateway.call("search", {"query": " dropdown "})["results"]


def test_component_errors_keep_their_position_and_hint(gateway: Gateway) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        gateway.call("search", {"query": "(crash", "match_mode": "raw"})
    assert caught.value.details == {"position": 1, "hint": "close it with ')'"}


def test_unknown_tools_and_the_envelope(gateway: Gateway) -> None:
    with pytest.raises(NotFoundError) as caught:
        gateway.call("find", {})
    status, body = envelope(caught.value)
    assert status == 404 and body["error"]["details"]["available"] == ["search"]
    assert envelope(RuntimeError("/secret/path")) == (
        500,
        {
            "error": {
                "code": "INTERNAL_ERROR",
                "message": "internal error; the server log has the details",
                "details": {},
            }
        },
    )


def test_errors_name_the_callers_parameter_not_the_socket(settings: Settings, tmp_path: Path) -> None:
    """A component says 'query'; the tool's caller sent 'keywords'."""
    home = tmp_path / "home"
    copy_project(home)
    pipeline = yaml.safe_load((home / "pipelines" / "tools" / "search.yaml").read_text())
    pipeline["inputs"]["keywords"] = pipeline["inputs"].pop("query")
    (home / "pipelines" / "tools" / "find.yaml").write_text(yaml.safe_dump(pipeline))
    declaration = yaml.safe_load((home / "configs" / "tools" / "search.yaml").read_text())
    declaration["name"] = "find"
    declaration["parameters"]["keywords"] = declaration["parameters"].pop("query")
    del declaration["parameters"]["keywords"]["min_length"]  # a blank text then reaches the query builder
    (home / "configs" / "tools" / "search.yaml").write_text(yaml.safe_dump(declaration))
    with Loader(settings.model_copy(update={"home": home})) as loader:
        gateway = Gateway.load(loader)
        with pytest.raises(InvalidRequestError) as caught:
            gateway.call("find", {"keywords": "   "})
    assert caught.value.message == "'keywords' must be a non-empty string" and caught.value.details == {
        "field": "keywords"
    }


def test_tools_above_the_server_tier_are_not_served(settings: Settings, tmp_path: Path) -> None:
    internal = yaml.safe_load((PROJECT / "configs" / "tools" / "search.yaml").read_text())
    internal.update(name="search_internal", tier="internal", pipeline="tools/search.yaml")
    path = tmp_path / "internal.yaml"
    path.write_text(yaml.safe_dump(internal))
    files = [PROJECT / "configs" / "tools" / "search.yaml", path]
    for tier, expected in (("public", {"search"}), ("internal", {"search", "search_internal"})):
        with Loader(settings.model_copy(update={"tier": tier})) as loader:
            assert set(Gateway.load(loader, files=files).tools) == expected


def test_warm_up_rehearses_each_tool_with_its_examples(samples_settings: Settings) -> None:
    """The first client call must not be the one that runs the model and the store for the first time."""
    from haygate.components import dense_text_embedder

    with Loader(samples_settings) as loader:
        gateway = Gateway.load(loader, only="search_docs")
        example = gateway.tools["search_docs"].declaration.parameters["query"].examples[0]
        embedder = gateway.tools["search_docs"].pipeline.pipeline.get_component("dense_embedder")  # type: ignore[union-attr]
        dense_text_embedder._QUERY_CACHE.pop(embedder._cache_key(example), None)
        gateway.warm_up()
        assert embedder._cache_key(example) in dense_text_embedder._QUERY_CACHE
