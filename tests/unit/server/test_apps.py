"""The MCP Apps results view (`haygate.server.apps`): which tools get a view, what the view's page holds, and
the policy that lets it run its own script and style only."""

import base64
import hashlib
import json
import re
from typing import Any

import pytest

from haygate.gateway.declarations import ToolDeclaration, load_declarations
from haygate.server.apps import OPEN_RECORD, RankedList, filters, ranked_list, view_html, view_uri
from tests.support.project import PROJECT

QUERY = {"type": "string", "required": True, "description": "What to look for, in words.", "examples": ["x"]}


def declaration(items: dict[str, Any], key: str = "results", **parameters: Any) -> ToolDeclaration:
    schema = {
        "type": "object",
        "properties": {key: {"type": "array", "items": {"type": "object", "properties": items}}},
    }
    return ToolDeclaration.model_validate(
        {
            "name": "find_things",
            "description": "Find the things that match a query, best first.",
            "parameters": {"query": QUERY, **parameters},
            "output_schema": schema,
        }
    )


def served(name: str) -> ToolDeclaration:
    found = {d.name: d for path in (PROJECT / "configs" / "tools").glob("*.yaml") for d in load_declarations(path)}
    return found[name]


class TestRankedList:
    def test_records_with_id_and_score_are_ranked(self) -> None:
        found = ranked_list(declaration({"id": {"type": "string"}, "score": {"type": "number"}}))
        assert found == RankedList("results", "id", "score")

    def test_another_list_and_other_names_of_id_and_score_are_found(self) -> None:
        items = {"name": {"type": "string"}, "candidate_id": {"type": "string"}, "match_score": {"type": "number"}}
        assert ranked_list(declaration(items, key="candidates")) == RankedList(
            "candidates", "candidate_id", "match_score"
        )

    def test_a_key_is_an_identifier(self) -> None:
        items = {"key": {"type": "string"}, "summary": {"type": "string"}, "score": {"type": "number"}}
        assert ranked_list(declaration(items)) == RankedList("results", "key", "score")

    def test_records_without_a_score_get_no_view(self) -> None:
        assert ranked_list(declaration({"id": {"type": "string"}, "question": {"type": "string"}})) is None

    @pytest.mark.parametrize(
        ("tool", "expected"),
        [
            ("search_docs", RankedList("results", "id", "score")),
            ("search", RankedList("results", "entity_id", "score")),
            ("search_by_skills", RankedList("candidates", "candidate_id", "match_score")),
            ("memory_search", RankedList("results", "key", "score")),
            ("get_decisions", None),
            ("upsert_records", None),
        ],
    )
    def test_the_example_tools(self, tool: str, expected: RankedList | None) -> None:
        assert ranked_list(served(tool)) == expected


class TestFilters:
    def test_string_parameters_are_controls_and_the_rest_are_not(self) -> None:
        controls = filters(served("search_docs"))
        assert [(c["name"], c["kind"]) for c in controls] == [
            ("query", "text"),
            ("source", "text"),
            ("section_path", "text"),
            ("version", "text"),
            ("content_type", "choice"),
        ]
        assert controls[-1]["values"] == ["code", "prose", "mixed"] and controls[0]["required"] is True

    def test_an_array_of_enum_values_is_a_set_of_choices(self) -> None:
        entities = next(c for c in filters(served("search")) if c["name"] == "entities")
        assert entities["kind"] == "choices" and entities["values"] == ["product", "feature", "test", "bug"]


def inline(html: str, tag: str) -> str:
    [found] = re.findall(rf"<{tag}>(.*?)</{tag}>", html, re.DOTALL)
    return str(found)


def digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


class TestViewHtml:
    def page(self) -> str:
        tool = served("search_docs")
        found = ranked_list(tool)
        assert found is not None
        return view_html(tool, found)

    def test_the_policy_runs_the_inlined_script_and_style_only_and_reaches_nothing(self) -> None:
        html = self.page()
        [policy] = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', html)
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
        assert directives["default-src"] == "'none'" and directives["connect-src"] == "'none'"
        assert directives["script-src"] == digest(inline(html, "script"))
        assert directives["style-src"] == digest(inline(html, "style"))
        assert directives["frame-src"] == directives["base-uri"] == directives["form-action"] == "'none'"

    def test_nothing_is_loaded_from_elsewhere(self) -> None:
        html = self.page()
        assert " src=" not in html and " href=" not in html
        # markdown-it, inlined as vendored less the line naming its source map, writes "http://" before a bare
        # address it links (its linkify, which the view leaves off); the rest of the page names no address.
        vendored = PROJECT / "haygate" / "console" / "static" / "vendor" / "markdown-it.umd.min.js"
        library, source_map = vendored.read_text(encoding="utf-8").rstrip().rsplit("\n", 1)
        assert source_map.startswith("//# sourceMappingURL=") and source_map not in html and library in html
        own = html.replace(library, "")
        assert "http://" not in own and "https://" not in own

    def test_the_page_knows_its_tool(self) -> None:
        html = self.page()
        [config] = re.findall(r'<script type="application/json" id="haygate-view">(.*?)</script>', html, re.DOTALL)
        known = json.loads(config)
        assert {k: known[k] for k in ("tool", "open_tool", "list_key", "id_field", "score_field")} == {
            "tool": "search_docs",
            "open_tool": OPEN_RECORD,
            "list_key": "results",
            "id_field": "id",
            "score_field": "score",
        }

    def test_a_description_cannot_end_the_data_block(self) -> None:
        tool = declaration({"id": {"type": "string"}, "score": {"type": "number"}})
        tool.parameters["query"].description = "Words </script><script>alert(1)</script> to find."
        html = view_html(tool, RankedList("results", "id", "score"))
        assert html.count("</script>") == 2  # the data block's and the script's own

    def test_each_tool_has_a_view_of_its_own(self) -> None:
        assert view_uri("search_docs") == "ui://haygate/results/search_docs.html"
