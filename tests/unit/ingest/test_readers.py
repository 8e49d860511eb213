"""Reading JSONL, CSV and Markdown into records that know their file and line."""

from pathlib import Path

from haygate.ingest.readers import ReadOptions, count_records, files_under, read_records


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
        "changelog": False,
        "includes": [],
        "missing_includes": [],
        "version": "2.0",
    }
    bare = tmp_path / "bare.md"
    bare.write_text("## First heading\nText.\n")
    [plain] = list(read_records(bare))
    # No level-1 heading: the page is titled by its name, as MkDocs titles it; its `##` names a section only.
    assert plain.data is not None and (plain.data["title"], plain.data["_id"]) == ("Bare", "file:bare.md")


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


def test_a_folder_takes_include_and_exclude_globs_as_gitignore_reads_them(tmp_path: Path) -> None:
    docs = tmp_path / "site"
    for name in ("docs/index.md", "docs/guide/a.md", "docs/changelog.md", "blog/post.md", "data.json"):
        (docs / name).parent.mkdir(parents=True, exist_ok=True)
        (docs / name).write_text("# T\n\nx\n" if name.endswith(".md") else '{"_id": "1", "text": "x"}\n')
    options = ReadOptions(include=("docs/**/*.md",), exclude=("changelog.md",))
    assert [p.relative_to(docs).as_posix() for p in files_under(docs, options)] == ["docs/guide/a.md", "docs/index.md"]
    assert count_records(docs, options) == 2
    assert [p.name for p in files_under(docs, ReadOptions(exclude=("blog/",)))] == [
        "data.json",
        "changelog.md",
        "a.md",
        "index.md",
    ]


def test_includes_are_read_from_inside_the_folder_and_the_rest_counted(tmp_path: Path) -> None:
    """pymdownx.snippets (a line, a fence's line, a section), MyST's literalinclude and a declared syntax with
    a line range; a path outside the folder or absent is left out and counted, never read."""
    site = tmp_path / "site"
    (site / "docs" / "sub").mkdir(parents=True)
    (site / "src").mkdir()
    (site / "src" / "app.py").write_text(
        "import os\n\n\ndef main():\n    # --8<-- [start:body]\n    print('hi')\n    # --8<-- [end:body]\n"
    )
    (site / "docs" / "sub" / "part.md").write_text("Part text, included.\n")
    (tmp_path / "secret.py").write_text("TOKEN = 'never read'\n")
    (site / "docs" / "page.md").write_text(
        "# Page\n\n"
        '--8<-- "sub/part.md"\n\n'
        '```python\n--8<-- "src/app.py:4:4"\n```\n\n'
        '--8<-- "src/app.py:body"\n\n'
        "```{literalinclude} ../src/app.py\n:lines: 1\n```\n\n"
        "{* ../src/app.py ln[4:6] hl[5] *}\n\n"
        '--8<-- "../../secret.py"\n\n'
        '--8<-- "nowhere.py"\n'
    )
    options = ReadOptions(include_patterns=(r"\{\*\s*(?P<path>\S+)(?:.*?ln\[(?P<lines>[^\]]*)\])?.*\*\}",))
    pages = {r.data["path"]: r for r in read_records(site, options) if r.data}
    assert sorted(pages) == ["docs/page.md", "docs/sub/part.md"]  # an included page is a page too (exclude it)
    record = pages["docs/page.md"]
    assert record.data is not None
    text = record.data["text"]
    assert "Part text, included." in text
    assert "```python\ndef main():\n```" in text  # a fence's snippet line, lines 4 to 4
    assert "```python\n    print('hi')\n```" in text and "[start:body]" not in text  # a snippet section
    assert "```python\nimport os\n```" in text  # literalinclude's :lines:
    assert "```python\ndef main():\n    print('hi')\n```" in text  # the declared syntax's ln[4:6], marks dropped
    assert "never read" not in text and "--8<--" not in text and "{*" not in text
    assert record.data["includes"] == ["docs/sub/part.md", "src/app.py", "src/app.py", "src/app.py", "src/app.py"]
    assert record.data["missing_includes"] == ["../../secret.py", "nowhere.py"]


def test_a_changelog_is_known_by_its_name_or_its_headings(tmp_path: Path) -> None:
    (tmp_path / "HISTORY.md").write_text("# History\n\nAll changes.\n")
    (tmp_path / "notes.md").write_text(
        "# Notes\n\n## v2.1.0 (2025-03-01)\n\nx\n\n## 2.0.0\n\ny\n\n## Unreleased\n\nz\n"
    )
    (tmp_path / "guide.md").write_text("# Guide\n\n## Install\n\nx\n\n## 2.0 migration\n\ny\n\n## Usage\n\nz\n")
    (tmp_path / "said.md").write_text("---\nchangelog: true\n---\n# Anything\n")
    (tmp_path / "releases.md").write_text("# Releases\n\n## Friday releases\n\nThe on-call lead approves.\n")
    flags = {r.data["path"]: r.data["changelog"] for r in read_records(tmp_path) if r.data}
    # releases.md: how a team releases, by its headings; a page of that name is as often that as release notes
    assert flags == {"HISTORY.md": True, "guide.md": False, "notes.md": True, "releases.md": False, "said.md": True}


def test_a_page_that_is_only_an_include_not_found_says_so(tmp_path: Path) -> None:
    """MyST-Parser's `develop/_changelog.md` is one `{include}` of a file above its docs folder."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "_changelog.md").write_text("```{include} ../../CHANGELOG.md\n```\n")
    [record] = list(read_records(tmp_path / "docs"))
    assert record.data is None and "only include(s) that could not be read (../../CHANGELOG.md" in (record.error or "")
