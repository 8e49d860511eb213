"""Read records from JSONL, CSV and Markdown files, each with the file and line it came from, so a bad
record is reported precisely while the good ones still land."""

import csv
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from haygate.text.markdown import FrontMatterError, split_front_matter

if TYPE_CHECKING:  # markdown-it and its plugins load with the first Markdown file read
    from haygate.text.includes import Includes

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", *MARKDOWN_SUFFIXES)


@dataclass(frozen=True)
class ReadOptions:
    """How a collection reads files (its YAML's `files` and `markdown`, `CollectionSchema.read_options`): which
    files of a folder, and Markdown's dialect and code includes. The defaults read every file, as CommonMark or
    whichever dialect each Markdown file is written in."""

    dialect: str = "auto"
    include: tuple[str, ...] = ()  # globs of a file's path inside the folder; none: every file haygate reads
    exclude: tuple[str, ...] = ()
    include_bases: tuple[str, ...] = ()  # folders inside the ingested one where an include is also looked up
    include_patterns: tuple[str, ...] = ()  # the project's own include syntax (regular expressions)

    def selects(self, relative: str) -> bool:
        """Whether a file at `relative` (its path inside the folder) is read."""
        if not (self.include or self.exclude):
            return True
        import pathspec  # only where a selection is declared

        included = not self.include or pathspec.PathSpec.from_lines("gitwildmatch", self.include).match_file(relative)
        return included and not pathspec.PathSpec.from_lines("gitwildmatch", self.exclude).match_file(relative)


EVERYTHING = ReadOptions()


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


def read_records(path: Path, options: ReadOptions = EVERYTHING) -> Iterator[SourceRecord]:
    """The records of a file, or of every file of a folder that haygate reads (recursively, in path order;
    hidden files and folders left out, and those `options` do not select). A Markdown file found in a folder
    is named by its path inside that folder (`guides/install.md`), so two `README.md` of two subfolders are two
    records; its includes are read from inside that folder only."""
    if path.is_dir():
        for file in files_under(path, options):
            yield from _read_file(file, path, options)
        return
    yield from _read_file(path, None, options)


def files_under(folder: Path, options: ReadOptions = EVERYTHING) -> list[Path]:
    """The files of `folder` that haygate reads, in path order; hidden ones (and those in hidden folders) left
    out, and those the options' globs leave out."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
        and options.selects(p.relative_to(folder).as_posix())
    )


def _read_file(path: Path, root: Path | None, options: ReadOptions) -> Iterator[SourceRecord]:
    suffix = path.suffix.lower()
    if not path.exists():
        yield SourceRecord(str(path), 0, None, "file not found")
    elif suffix in (".jsonl", ".ndjson", ".json"):
        yield from _read_jsonl(path)
    elif suffix == ".csv":
        yield from _read_csv(path)
    elif suffix in MARKDOWN_SUFFIXES:
        yield from _read_markdown(path, root, options)
    else:
        yield SourceRecord(str(path), 0, None, f"unsupported file type '{suffix}'; use .jsonl, .csv or .md")


def count_records(path: Path, options: ReadOptions = EVERYTHING) -> int:
    """How many records `read_records` will yield, roughly and cheaply, for a progress bar."""
    if path.is_dir():
        return sum(count_records(file) for file in files_under(path, options))
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


def _read_markdown(path: Path, root: Path | None, options: ReadOptions) -> Iterator[SourceRecord]:
    """One record per file: its body, with front matter's title, version and source. The indexing pipeline
    splits it at its headings (`MarkdownHeaderSplitter`), routed there by `format: markdown`. Found in a
    folder, it is named by its path inside it, and its source falls back on the folder's name; its includes
    are read from inside that folder (a file given alone: inside its own folder)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        yield SourceRecord(str(path), 0, None, f"not UTF-8 text ({error.reason} at byte {error.start})")
        return
    from haygate.text.includes import Includes  # with the dialects: when a Markdown file is read

    base = root if root is not None else path.parent
    bases = tuple(base / folder for folder in options.include_bases)
    patterns = tuple(re.compile(pattern) for pattern in options.include_patterns)
    includes = Includes(base, path.parent, bases, patterns)
    name = path.name if root is None else path.relative_to(root).as_posix()
    yield from parse_markdown(text, name, str(path), base.resolve().name, options, includes)


def parse_markdown(
    text: str,
    name: str,
    file: str,
    folder: str = "",
    options: ReadOptions = EVERYTHING,
    includes: "Includes | None" = None,
) -> Iterator[SourceRecord]:
    """A Markdown file's one record, from its text: `name` is its file name, `folder` the source it falls back
    on when the front matter names none (a file's folder; nothing for an upload), `includes` what reads its code
    includes (`haygate.text.includes.Includes`; none: an upload's, which can read none)."""
    try:
        front, body, line = split_front_matter(text)
    except FrontMatterError as error:
        yield SourceRecord(file, 1, None, str(error))
        return
    from haygate.text import changelog, dialects  # markdown-it and its plugins: when a file is read, not at start

    page = dialects.read(body, cast("dialects.Dialect", options.dialect), includes)  # the schema checked it
    if not page.body.strip() and page.missing:
        targets = ", ".join(page.missing)
        reason = f"nothing to index: the page is only include(s) that could not be read ({targets}: absent, or "
        yield SourceRecord(file, line, None, reason + "outside the folder ingested; ingest the folder that holds them)")
        return
    title = str(front.get("title") or front.get("sidebar_label") or page_title(page.headings, name))
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
        "changelog": bool(
            front.get("changelog", changelog.is_changelog(name, [(h.level, h.text) for h in page.headings]))
        ),
        "includes": page.included,
        "missing_includes": page.missing,
    }
    if "version" in front:
        data["version"] = str(front["version"])
    yield SourceRecord(file, line, data)


def page_title(headings: list[Any], name: str) -> str:
    """A page's title as MkDocs and Docusaurus make it: its first heading when that is a level-1 heading, else
    its file name made readable (`version-policy.md`: "Version policy"). An `##` heading is a section's, never
    the page's: taken as the title, it would name the page's opening text and its own section alike."""
    if headings and headings[0].level == 1:
        return str(headings[0].text)
    stem = re.sub(r"[-_\s]+", " ", Path(name).stem).strip()
    return stem[:1].upper() + stem[1:] if stem else name


def sample_files(samples_dir: Path, collections_dir: Path) -> dict[str, list[Path]]:
    """The bundled sample collections: `samples/<collection>/*` for each declared collection."""
    samples: dict[str, list[Path]] = {}
    for folder in sorted(samples_dir.glob("*")):
        if folder.is_dir() and (collections_dir / f"{folder.name}.yaml").exists():
            samples[folder.name] = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    return samples
