from typing import Any

import pytest

from haygate.components.query_builder import QueryBuilder
from haygate.errors import ConfigurationError, InvalidRequestError

RULES: dict[str, Any] = {
    "version": {"field": "meta.version"},
    "section_path": {"field": "meta.section_path_prefixes", "transform": "slug_path"},
    "content_type": {"field": "meta.content_type", "ignore": ["mixed"]},
}


class TestQueryBuilder:
    def test_init_declares_a_socket_per_rule_and_template_variable(self) -> None:
        sockets = QueryBuilder(filters=RULES).__haystack_input__._sockets_dict  # type: ignore[attr-defined]
        assert set(sockets) == {"query", "version", "section_path", "content_type", "server_filters"}
        templated = QueryBuilder(query_template="{{ a }} and {{ b | join_and }}")
        assert {"a", "b"} <= set(templated.__haystack_input__._sockets_dict)  # type: ignore[attr-defined]

    def test_init_rejects_unknown_transform_operator_and_template(self) -> None:
        with pytest.raises(ConfigurationError, match="unknown transform 'upper'"):
            QueryBuilder(filters={"x": {"field": "meta.x", "transform": "upper"}})
        with pytest.raises(ConfigurationError, match="unknown operator"):
            QueryBuilder(filters={"x": {"field": "meta.x", "operator": "like"}})
        with pytest.raises(ConfigurationError, match="query_template"):
            QueryBuilder(query_template="{{ unclosed")

    def test_to_dict(self) -> None:
        assert QueryBuilder(filters=RULES, query_required=False).to_dict() == {
            "type": "haygate.components.query_builder.QueryBuilder",
            "init_parameters": {"filters": RULES, "fixed_filters": [], "query_template": None, "query_required": False},
        }

    def test_from_dict(self) -> None:
        assert QueryBuilder.from_dict(QueryBuilder(filters=RULES).to_dict()).filters == RULES

    def test_run_builds_query_and_filters(self) -> None:
        out = QueryBuilder(filters=RULES).run(
            query="  agents ", version="3.0", section_path="Agents > Tools", content_type="mixed"
        )
        assert out["query"] == "agents"
        assert out["filters"] == {
            "operator": "AND",
            "conditions": [
                {"field": "meta.version", "operator": "==", "value": "3.0"},
                {"field": "meta.section_path_prefixes", "operator": "==", "value": "agents/tools"},
            ],
        }
        assert out["applied_filters"] == {"version": "3.0", "section_path": "agents/tools"}

    def test_run_without_filters(self) -> None:
        assert QueryBuilder(filters=RULES).run(query="x")["filters"] is None

    def test_run_server_and_fixed_filters_always_apply(self) -> None:
        tenant = {"field": "meta.project_id", "operator": "==", "value": "p1"}
        fixed = {"field": "meta.kind", "operator": "==", "value": "CV"}
        out = QueryBuilder(filters=RULES, fixed_filters=[fixed]).run(query="x", server_filters=[tenant])
        assert out["filters"] == {"operator": "AND", "conditions": [fixed, tenant]} and out["applied_filters"] == {}

    def test_run_a_switch_leaves_out_unless_asked_and_is_split_from_the_rest(self) -> None:
        rules = {**RULES, "changelogs": {"field": "meta.changelog", "operator": "!=", "transform": "negate",
                                          "ignore": [True], "report": False}}  # fmt: skip
        tenant = {"field": "meta.project_id", "operator": "==", "value": "p1"}
        builder = QueryBuilder(filters=rules)
        plain = builder.run(query="x", version="3.0", changelogs=False, server_filters=[tenant])
        switch = {"field": "meta.changelog", "operator": "!=", "value": True}
        version = {"field": "meta.version", "operator": "==", "value": "3.0"}
        assert plain["filters"] == {"operator": "AND", "conditions": [version, switch, tenant]}
        assert plain["applied_filters"] == {"version": "3.0"}  # a switch is not a filter the caller reads back
        assert plain["switches"] == {"changelogs": {"switch": switch, "others": [version, tenant]}}
        asked = builder.run(query="x", changelogs=True)
        assert asked["filters"] is None and asked["switches"] == {}

    def test_run_template(self) -> None:
        builder = QueryBuilder(query_template="Find {{ level ~ ' ' if level }}people with {{ skills | join_and }}")
        assert builder.run(skills=["Go", "SQL"])["query"] == "Find people with Go and SQL"

    def test_run_rejects_blank_query_unless_optional(self) -> None:
        with pytest.raises(InvalidRequestError, match="'query' must be a non-empty string"):
            QueryBuilder().run(query="   ")
        assert QueryBuilder(query_required=False).run(query=None)["query"] == ""
