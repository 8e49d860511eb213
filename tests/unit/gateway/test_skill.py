"""The project's skill and instructions, generated from declarations (`haygate.gateway.skill`,
`haygate.gateway.instructions`): names, front matter, paging, files; without data (a server still starting)."""

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastmcp.skills.models import SkillFrontmatter
from haystack import Document
from haystack.dataclasses import SparseEmbedding

from haygate.gateway.declarations import ParameterSpec, ToolDeclaration, load_declarations
from haygate.gateway.instructions import Outline, first_sentence, instructions, skill_name, tool_collections
from haygate.gateway.skill import Skill, build_skill, common_values, paging, result_lines
from tests.support.project import PROJECT


@pytest.fixture(scope="module")
def declarations() -> dict[str, ToolDeclaration]:
    """The example project's declarations, as the catalog reads them."""
    found = [d for path in sorted((PROJECT / "configs" / "tools").glob("*.yaml")) for d in load_declarations(path)]
    return {d.name: d for d in found}


@pytest.mark.parametrize(
    ("folder", "configured", "name"),
    [
        ("my-docs", None, "my-docs"),
        ("My Docs_2", None, "my-docs-2"),
        ("--x--y--", None, "x-y"),
        ("main", "Team Handbook", "team-handbook"),
        ("___", None, "haygate"),
        ("a" * 80, None, "a" * 64),
    ],
)
def test_skill_name_is_spelt_as_agent_skills_require(folder: str, configured: str | None, name: str) -> None:
    assert skill_name(folder, configured) == name
    SkillFrontmatter.model_validate({"name": name, "description": "x"})  # FastMCP's own check


def test_first_sentence_is_one_line_and_cut_at_a_word() -> None:
    assert first_sentence("Search the docs.\n  Then more.") == "Search the docs."
    assert first_sentence("word " * 50, limit=20) == "word word word word…"


def test_tool_collections_are_read_from_the_pipeline_files(declarations: dict[str, ToolDeclaration]) -> None:
    read = tool_collections(PROJECT / "pipelines", declarations)
    assert read["search_docs"] == ["docs"] and read["get_decisions"] == ["knowledge"]
    assert read["upsert_records"] == []  # an action takes its collection as an argument


def test_instructions_name_each_tool_once_with_its_collections(declarations: dict[str, ToolDeclaration]) -> None:
    project = Outline("main", {"search_docs": ["docs"]}, {"docs": "Documentation sections. More."})
    text = instructions(project, declarations)
    assert "skill://main/SKILL.md" in text
    assert "- search_docs [docs]: Hybrid (semantic + keyword) search over documentation sections." in text
    assert all(len(re.findall(rf"^- {name}( \[docs\])?:", text, re.MULTILINE)) == 1 for name in declarations)
    assert text.endswith("Collections:\n- docs: Documentation sections.")


def test_a_skill_without_data_has_valid_front_matter_and_a_file_per_tool(
    declarations: dict[str, ToolDeclaration],
) -> None:
    project = Outline("main", {"search_docs": ["docs"]}, {"docs": "Documentation sections."})
    skill = build_skill(project, declarations, None)
    assert set(skill.files) == {"SKILL.md", *(f"tools/{name}.md" for name in declarations)}
    front = yaml.safe_load(skill.main.split("---\n")[1])
    assert SkillFrontmatter.model_validate(front).name == "main" and front["description"] == skill.description
    assert all(f"`{name}`" in skill.main for name in declarations)
    assert "not run yet (the server is starting)" in skill.main  # a declared example, unchecked
    assert "the values the data holds are listed once it is ready" in skill.main


def test_paging_follows_the_declared_parameters(declarations: dict[str, ToolDeclaration]) -> None:
    offset = paging(declarations["memory_search"])
    assert "`offset` raised by `limit`" in offset and "`metadata.total`" in offset and "at most 100" in offset
    larger = paging(declarations["search_docs"])
    assert "there is no offset" in larger and "`max_results`" in larger and "(default 10), at most 50" in larger
    assert paging(declarations["get_decisions"]).startswith("`limit` sets how many results come back (default 20)")


def test_result_fields_and_score_provenance_come_from_the_output_schema(
    declarations: dict[str, ToolDeclaration],
) -> None:
    lines = "\n".join(result_lines(declarations["search_docs"]))
    assert "Each item of `results` holds:" in lines and "- `section_path`: Slugified heading path." in lines
    assert "- `scores.dense_rank`:" in lines and "- `scores.rerank_score`:" in lines
    assert "scores.terms_share" not in lines  # search_docs' schema does not declare it


def test_a_declared_title_heads_the_tool_file(declarations: dict[str, ToolDeclaration]) -> None:
    titled = declarations["search_docs"].model_copy(update={"title": "Search the documentation"})
    skill = build_skill(Outline("main", {}, {}), {"search_docs": titled}, None)
    assert skill.files["tools/search_docs.md"].startswith("# Search the documentation\n\nTool name: `search_docs`.")
    assert "| `search_docs` (Search the documentation) |" in skill.main


def test_writing_a_skill_replaces_its_files_and_removes_the_old_ones(tmp_path: Path) -> None:
    Skill("x", "d", {"SKILL.md": "one", "tools/a.md": "a", "tools/b.md": "b"}).write(tmp_path)
    Skill("x", "d", {"SKILL.md": "two", "tools/a.md": "a"}).write(tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "SKILL.md",
        "tools",
        "tools/a.md",
    ]
    assert (tmp_path / "SKILL.md").read_text() == "two"


def test_common_values_are_counted_within_the_scope_and_given_as_callers_send_them(tiny_store: Any) -> None:
    """Most-held first; only within the scope (another tenant's values are not shown); an id without the
    collection's prefix, as an integer parameter takes it."""
    groups = ["product:7", "product:7", "product:9", "product:3"]
    tenants = ["a", "a", "a", "b"]
    tiny_store.write_documents(
        [
            Document(
                id=f"d{i}",
                content=f"text {i}",
                meta={"record_id": f"d{i}", "group": group, "tenant": tenant},
                embedding=[1.0, float(i), 0.0],
                sparse_embedding=SparseEmbedding(indices=[i], values=[1.0]),
            )
            for i, (group, tenant) in enumerate(zip(groups, tenants, strict=True))
        ]
    )
    spec = ParameterSpec(type="array", items="integer", description="Only these products.", examples=[[7]])
    scope = [{"field": "meta.tenant", "operator": "==", "value": "a"}]
    assert common_values(tiny_store, "meta.group", scope, spec, "product:") == ([(7, 2), (9, 1)], 2)
    text = ParameterSpec(type="string", description="Only this group.", examples=["x"])
    assert common_values(tiny_store, "meta.group", [], text, None)[0][0] == ("product:7", 2)
