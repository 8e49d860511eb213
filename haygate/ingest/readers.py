"""Read records from JSONL, CSV and Markdown files, each with the file and line it came from, so a bad
record is reported precisely while the good ones still land."""

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from haygate.text.markdown import FrontMatterError, split_front_matter

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", *MARKDOWN_SUFFIXES)


@dataclass(frozen=True)
class SourceRecord:
    file: str
    line: int
    data: dict[str, Any] | None
    error: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def as_source_record(file: str, line: int, record: Any) -> SourceRecord:
    """A decoded JSON value as a record: objects are records, anything else is refused with its type."""
    if isinstance(record, dict):
        return SourceRecord(file, line, record)
    return SourceRecord(file, line, None, f"expected a JSON object, got {type(record).__name__}")


def read_records(path: Path) -> Iterator[SourceRecord]:
    """The records of a file, or of every file of a folder that haygate reads (recursively, in path order;
    hidden files and folders left out). A Markdown file found in a folder is named by its path inside that
    folder (`guides/install.md`), so two `README.md` of two subfolders are two records."""
    if path.is_dir():
        for file in files_under(path):
            yield from _read_file(file, path)
        return
    yield from _read_file(path, None)


def files_under(folder: Path) -> list[Path]:
    """The files of `folder` that haygate reads, in path order; hidden ones (and those in hidden folders) left out."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


def _read_file(path: Path, root: Path | None) -> Iterator[SourceRecord]:
    suffix = path.suffix.lower()
    if not path.exists():
        yield SourceRecord(str(path), 0, None, "file not found")
    elif suffix in (".jsonl", ".ndjson", ".json"):
        yield from _read_jsonl(path)
    elif suffix == ".csv":
        yield from _read_csv(path)
    elif suffix in MARKDOWN_SUFFIXES:
        yield from _read_markdown(path, root)
    else:
        yield SourceRecord(str(path), 0, None, f"unsupported file type '{suffix}'; use .jsonl, .csv or .md")


def count_records(path: Path) -> int:
    """How many records `read_records` will yield, roughly and cheaply, for a progress bar."""
    if path.is_dir():
        return sum(count_records(file) for file in files_under(path))
    if not path.exists() or path.suffix.lower() in MARKDOWN_SUFFIXES:
        return 1
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip()) - (1 if path.suffix.lower() == ".csv" else 0)


def _read_jsonl(path: Path) -> Iterator[SourceRecord]:
    with path.open(encoding="utf-8") as handle:
        yield from parse_jsonl(handle, str(path))


def parse_jsonl(lines: Iterable[str], file: str) -> Iterator[SourceRecord]:
    """One record per non-blank line; a line that is not a JSON object is refused alone, by its number."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            yield SourceRecord(file, number, None, f"invalid JSON: {error.msg} at column {error.colno}")
            continue
        yield as_source_record(file, number, data)


def _read_csv(path: Path) -> Iterator[SourceRecord]:
    with path.open(encoding="utf-8", newline="") as handle:
        yield from parse_csv(handle, str(path))


def parse_csv(lines: Iterable[str], file: str) -> Iterator[SourceRecord]:
    """One record per row, keyed by the header; empty cells left out, a row longer than the header refused."""
    reader = csv.DictReader(lines)
    for row in reader:
        if None in row:
            yield SourceRecord(file, reader.line_num, None, "more values than header columns")
            continue
        yield SourceRecord(file, reader.line_num, {k: v for k, v in row.items() if v not in (None, "")})


def _read_markdown(path: Path, root: Path | None) -> Iterator[SourceRecord]:
    """One record per file: its body, with front matter's title, version and source. The indexing pipeline
    splits it at its headings (`MarkdownHeaderSplitter`), routed there by `format: markdown`. Found in a
    folder, it is named by its path inside it, and its source falls back on the folder's name."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        yield SourceRecord(str(path), 0, None, f"not UTF-8 text ({error.reason} at byte {error.start})")
        return
    if root is None:
        yield from parse_markdown(text, path.name, str(path), path.parent.name)
    else:
        yield from parse_markdown(text, path.relative_to(root).as_posix(), str(path), root.resolve().name)


def parse_markdown(text: str, name: str, file: str, folder: str = "") -> Iterator[SourceRecord]:
    """A Markdown file's one record, from its text: `name` is its file name, `folder` the source it falls back
    on when the front matter names none (a file's folder; nothing for an upload)."""
    try:
        front, body, line = split_front_matter(text)
    except FrontMatterError as error:
        yield SourceRecord(file, 1, None, str(error))
        return
    from haygate.text import dialects  # markdown-it and its plugins: when a file is read, not at a server's start

    page = dialects.read(body, "auto")
    first = page.headings[0].text if page.headings else None
    title = str(front.get("title") or front.get("sidebar_label") or first or Path(name).stem)
    data: dict[str, Any] = {
        "_id": f"{front.get('source', 'file')}:{name}",
        "title": title,
        "doc_title": title,
        "path": name,
        "text": page.body,
        "source": str(front.get("source", folder or "file")),
        "format": "markdown",
        "dialects": page.dialects,
        "anchors": [[heading.text, heading.anchor, heading.explicit] for heading in page.headings],
    }
    if "version" in front:
        data["version"] = str(front["version"])
    yield SourceRecord(file, line, data)


def sample_files(samples_dir: Path, collections_dir: Path) -> dict[str, list[Path]]:
    """The bundled sample collections: `samples/<collection>/*` for each declared collection."""
    samples: dict[str, list[Path]] = {}
    for folder in sorted(samples_dir.glob("*")):
        if folder.is_dir() and (collections_dir / f"{folder.name}.yaml").exists():
            samples[folder.name] = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    return samples
