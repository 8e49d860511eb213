"""Reading JSONL, CSV and Markdown, and mapping records to Documents."""

from pathlib import Path

import pytest

from components.collections import schema_for
from components.text import content_type, path_prefixes, slug_path, slugify
from haygate.records import RecordError, read_records, to_documents


def test_slugify_and_section_path() -> None:
    assert slugify("What\u2019s an AI Agent?") == "whats-an-ai-agent"
    assert slug_path(["Agents", "What\u2019s an AI Agent?"]) == "agents/whats-an-ai-agent"
    assert slug_path("Pipelines > Serialization") == "pipelines/serialization"
    assert path_prefixes("a/b/c") == ["a", "a/b", "a/b/c"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A paragraph of plain explanation.\nAnother sentence follows here.", "prose"),
        ("```python\nfrom haystack import Pipeline\np = Pipeline()\n```", "code"),
        (
            "Install it first, then check the version of the package you got.\n```bash\npip install haygate\n```",
            "mixed",
        ),
        ("", "prose"),
    ],
)
def test_content_type(text: str, expected: str) -> None:
    assert content_type(text) == expected


def test_markdown_is_split_by_headings(tmp_path: Path) -> None:
    page = tmp_path / "guide.md"
    page.write_text(
        "---\ntitle: Guide\nversion: '2.0'\nsource: my-docs\n---\n# Guide\nIntro.\n\n## Install\nRun it.\n"
        "```bash\n# not a heading\npip install x\n```\n### Extras\nMore.\n## Use\nUse it.\n"
    )
    records = [r.data for r in read_records(page) if r.data]
    assert [r["title"] for r in records] == [
        "Guide",
        "Guide > Install",
        "Guide > Install > Extras",
        "Guide > Use",
    ]
    assert "# not a heading" in records[1]["text"]
    assert {r["version"] for r in records} == {"2.0"}
    docs = to_documents(records[2], schema_for("docs"))
    assert docs[0].meta["section_path"] == "guide/install/extras"
    assert docs[0].meta["section_path_prefixes"] == ["guide", "guide/install", "guide/install/extras"]
    assert docs[0].meta["source_name"] == "my-docs"


def test_jsonl_bad_lines_are_named(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"_id": "1", "text": "ok"}\nnot json\n\n[1, 2]\n{"_id": "4", "text": "fine"}\n')
    records = list(read_records(path))
    assert [(r.line, r.error is None) for r in records] == [(1, True), (2, False), (4, False), (5, True)]
    assert "invalid JSON" in (records[1].error or "")


def test_csv_records(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text('_id,title,text\n1,One,"first, with comma"\n2,Two,second\n')
    records = list(read_records(path))
    assert [r.data["text"] for r in records if r.data] == ["first, with comma", "second"]
    assert [r.line for r in records] == [2, 3]


def test_missing_content_or_id_is_a_record_error() -> None:
    schema = schema_for("docs")
    with pytest.raises(RecordError, match="content"):
        to_documents({"_id": "x", "title": "t"}, schema)
    with pytest.raises(RecordError, match="missing id"):
        to_documents({"text": "body"}, schema)


def test_long_records_are_chunked_with_stable_ids() -> None:
    schema = schema_for("docs")
    text = " ".join(f"w{i}" for i in range(500))
    docs = to_documents({"_id": "long", "text": text, "title": "Long"}, schema)
    assert len(docs) == 3
    assert [d.id for d in docs] == ["long#chunk0", "long#chunk1", "long#chunk2"]
    assert {d.meta["record_id"] for d in docs} == {"long"}
    assert docs[0].content.split()[-30:] == docs[1].content.split()[:30]  # overlap
    assert to_documents({"_id": "long", "text": text, "title": "Long"}, schema)[0].id == "long#chunk0"
