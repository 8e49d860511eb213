"""Reading JSONL, CSV and Markdown into records that know their file and line."""

from pathlib import Path

from haygate.ingest.readers import count_records, read_records


def test_jsonl_bad_lines_are_named(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text('{"_id": "1", "text": "ok"}\nnot json\n\n[1, 2]\n{"_id": "4", "text": "fine"}\n')
    records = list(read_records(path))
    assert [(r.line, r.error is None) for r in records] == [(1, True), (2, False), (4, False), (5, True)]
    assert "invalid JSON" in (records[1].error or "") and records[1].where == f"{path}:2"
    assert count_records(path) == 4


def test_csv_records(tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text('_id,title,text\n1,One,"first, with comma"\n2,Two,second\n3,Three,x,extra\n')
    records = list(read_records(path))
    assert [r.data["text"] for r in records if r.data] == ["first, with comma", "second"]
    assert [r.line for r in records] == [2, 3, 4] and records[2].error == "more values than header columns"


def test_a_markdown_file_is_one_record_with_its_front_matter(tmp_path: Path) -> None:
    page = tmp_path / "guide.md"
    page.write_text("---\ntitle: The Guide\nversion: 2.0\nsource: my-docs\n---\n# Guide\nIntro.\n")
    [record] = list(read_records(page))
    assert record.line == 6 and record.data == {
        "_id": "my-docs:guide.md",
        "title": "The Guide",
        "doc_title": "The Guide",
        "path": "guide.md",
        "text": "# Guide\n\nIntro.\n",
        "source": "my-docs",
        "format": "markdown",
        "dialects": ["commonmark"],
        "anchors": [["Guide", "guide", False]],
        "version": "2.0",
    }
    bare = tmp_path / "bare.md"
    bare.write_text("## First heading\nText.\n")
    [plain] = list(read_records(bare))
    assert plain.data is not None and (plain.data["title"], plain.data["_id"]) == ("First heading", "file:bare.md")


def test_unreadable_inputs_are_records_with_errors(tmp_path: Path) -> None:
    broken = tmp_path / "broken.md"
    broken.write_text("---\ntitle: x\n")
    assert [r.error for r in read_records(broken)] == ["front matter starts with '---' but never ends"]
    assert [r.error for r in read_records(tmp_path / "missing.jsonl")] == ["file not found"]
    (tmp_path / "x.pdf").write_bytes(b"%PDF")
    assert "unsupported file type '.pdf'" in (next(read_records(tmp_path / "x.pdf")).error or "")


def test_a_folder_is_read_whole_each_markdown_file_named_by_its_path_inside_it(tmp_path: Path) -> None:
    docs = tmp_path / "handbook"
    for name in ("README.md", "guides/README.md", "guides/install.md", ".drafts/secret.md", "notes.txt"):
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text(f"# {name}\n\nText of {name}.\n")
    records = list(read_records(docs))
    assert [r.data["_id"] for r in records if r.data] == [
        "file:README.md",
        "file:guides/README.md",  # two README.md, two records
        "file:guides/install.md",
    ]  # hidden folders and unread suffixes left out
    assert {r.data["source"] for r in records if r.data} == {"handbook"} and count_records(docs) == 3
