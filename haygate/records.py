"""Read records from JSONL, CSV and Markdown, and map them to Documents by a collection schema.

Every record carries the file and line it came from, so a bad one is reported precisely while the good
ones still land.
"""

import csv
import datetime as dt
import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from haystack import Document
from jinja2 import ChainableUndefined, Template, TemplateError
from jinja2.sandbox import SandboxedEnvironment

from components.collections import CollectionSchema
from components.fulltext import terms_of
from components.skills import SkillVocabulary, cv_profile
from components.text import content_type, path_prefixes, slug_path
from haygate.settings import get_settings

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class SourceRecord:
    file: str
    line: int
    data: dict[str, Any] | None
    error: str | None = None


class RecordError(ValueError):
    """A record that cannot become a Document; the message says which field and why."""


def read_records(path: Path) -> Iterator[SourceRecord]:
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        yield from _read_jsonl(path)
    elif suffix == ".csv":
        yield from _read_csv(path)
    elif suffix in (".md", ".markdown", ".mdx"):
        yield from _read_markdown(path)
    else:
        yield SourceRecord(str(path), 0, None, f"unsupported file type '{suffix}'; use .jsonl, .csv or .md")


def _read_jsonl(path: Path) -> Iterator[SourceRecord]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError as error:
                yield SourceRecord(str(path), number, None, f"invalid JSON: {error.msg} at column {error.colno}")
                continue
            if not isinstance(data, dict):
                yield SourceRecord(str(path), number, None, f"expected a JSON object, got {type(data).__name__}")
                continue
            yield SourceRecord(str(path), number, data)


def _read_csv(path: Path) -> Iterator[SourceRecord]:
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            if None in row:
                yield SourceRecord(str(path), reader.line_num, None, "more values than header columns")
                continue
            yield SourceRecord(str(path), reader.line_num, {k: v for k, v in row.items() if v not in (None, "")})


def _read_markdown(path: Path) -> Iterator[SourceRecord]:
    """One record per heading section; front matter supplies version, source and title."""
    lines = path.read_text(encoding="utf-8").splitlines()
    front: dict[str, Any] = {}
    start = 0
    if lines and lines[0].strip() == "---":
        end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if end is None:
            yield SourceRecord(str(path), 1, None, "front matter starts with '---' but never ends")
            return
        try:
            front = yaml.safe_load("\n".join(lines[1:end])) or {}
        except yaml.YAMLError as error:
            yield SourceRecord(str(path), 1, None, f"invalid front matter: {error}")
            return
        start = end + 1
    sections = _split_by_headings(lines, start)
    doc_title = str(front.get("title") or next((s[1][0] for s in sections if s[1]), path.stem))
    seen: dict[str, int] = {}
    for line_no, heading_path, body in sections:
        text = body.strip()
        if not text:
            continue
        key = "/".join(heading_path) or doc_title
        seen[key] = seen.get(key, 0) + 1
        suffix = f"#{seen[key]}" if seen[key] > 1 else ""
        data = {
            "_id": f"{front.get('source', 'file')}:{path.name}#{key}{suffix}",
            "title": " > ".join(heading_path) or doc_title,
            "heading_path": heading_path or [doc_title],
            "doc_title": doc_title,
            "path": path.name,
            "text": text,
            "source": str(front.get("source", path.parent.name or "file")),
        }
        if "version" in front:
            data["version"] = str(front["version"])
        yield SourceRecord(str(path), line_no, data)


def _split_by_headings(lines: list[str], start: int) -> list[tuple[int, list[str], str]]:
    sections: list[tuple[int, list[str], str]] = []
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    section_line = start + 1
    in_fence = False
    for index in range(start, len(lines)):
        line = lines[index]
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            sections.append((section_line, [t for _, t in stack], "\n".join(body)))
            level = len(match.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, match.group(2).strip()))
            body = []
            section_line = index + 1
        else:
            body.append(line)
    sections.append((section_line, [t for _, t in stack], "\n".join(body)))
    return sections


# -- mapping ---------------------------------------------------------------------------------------

Derivation = Callable[[dict[str, Any], dict[str, Any], str], None]


def _derive_source_name(record: dict[str, Any], meta: dict[str, Any], text: str) -> None:
    source = str(record.get("source_name") or record.get("source") or "")
    meta["source_name"] = re.split(r"[@:]", source, maxsplit=1)[0] if source else None


def _derive_section_path(record: dict[str, Any], meta: dict[str, Any], text: str) -> None:
    heading = record.get("heading_path") or record.get("title") or ""
    path = slug_path(heading) if heading else ""
    meta["section_path"] = path
    meta["section_path_prefixes"] = path_prefixes(path)


def _derive_content_type(record: dict[str, Any], meta: dict[str, Any], text: str) -> None:
    meta["content_type"] = content_type(text)


def _derive_cv_profile(record: dict[str, Any], meta: dict[str, Any], text: str) -> None:
    """Skills (via configs/skills.yaml), years of experience and level; "Present" means the record's
    `as_of` date when it has one, else today."""
    vocabulary = SkillVocabulary.load(get_settings().home / "configs" / "skills.yaml")
    as_of = record.get("as_of")
    try:
        reference = dt.date.fromisoformat(str(as_of)[:10]) if as_of else dt.date.today()
    except ValueError as error:
        raise RecordError(f"as_of must be an ISO date, got {as_of!r}") from error
    meta.update(cv_profile(text, vocabulary, reference).as_meta())


def _derive_terms(record: dict[str, Any], meta: dict[str, Any], text: str) -> None:
    """The record's distinct folded words, for `prefix*` queries on a keyword_prefix index."""
    meta["terms"] = terms_of(text)


DERIVATIONS: dict[str, Derivation] = {
    "source_name": _derive_source_name,
    "section_path": _derive_section_path,
    "content_type": _derive_content_type,
    "cv_profile": _derive_cv_profile,
    "terms": _derive_terms,
}


def _field_text(record: dict[str, Any], fields: str | list[str]) -> str:
    names = [fields] if isinstance(fields, str) else fields
    parts = [record.get(name) for name in names]
    return "\n".join(str(p) for p in parts if p not in (None, ""))


_JINJA = SandboxedEnvironment(autoescape=False, undefined=ChainableUndefined)


@functools.cache
def _template(source: str) -> Template:
    return _JINJA.from_string(source)


def _record_text(record: dict[str, Any], schema: CollectionSchema) -> str:
    if schema.record.content is not None:
        return _field_text(record, schema.record.content)
    try:
        return " ".join(_template(schema.record.content_template or "").render(**record).split())
    except TemplateError as error:
        raise RecordError(f"content_template failed: {error}") from error


def record_id(record: dict[str, Any], schema: CollectionSchema, text: str) -> str:
    spec = schema.record.id
    if spec is None:
        return hashlib.sha256(text.encode()).hexdigest()[:32]
    names = [spec] if isinstance(spec, str) else spec
    missing = [n for n in names if record.get(n) in (None, "")]
    if missing:
        raise RecordError(f"missing id field(s) {', '.join(missing)}")
    return ":".join(str(record[n]) for n in names)


def to_documents(record: dict[str, Any], schema: CollectionSchema) -> list[Document]:
    """One record -> one Document, or overlapping chunks of it, all sharing `meta.record_id`."""
    text = _record_text(record, schema).strip()
    if not text:
        source = schema.record.content or "content_template"
        raise RecordError(f"empty or missing content field {source!r}")
    rid = record_id(record, schema, text)
    meta = {
        name: record[field] for name, field in schema.record.meta_fields.items() if record.get(field) not in (None, "")
    }
    meta.update(schema.record.constants)
    for name in schema.record.derive:
        if name not in DERIVATIONS:
            raise RecordError(f"unknown derivation '{name}'; known: {', '.join(DERIVATIONS)}")
        DERIVATIONS[name](record, meta, text)
    fingerprint = json.dumps(
        [text, meta, schema.split.model_dump() if schema.split else None], sort_keys=True, default=str
    )
    meta["record_id"] = rid
    meta["record_hash"] = hashlib.sha256(fingerprint.encode()).hexdigest()[:32]
    chunks = _chunks(text, schema)
    if len(chunks) == 1:
        return [Document(id=rid, content=text, meta=meta)]
    return [
        Document(id=f"{rid}#chunk{i}", content=chunk, meta={**meta, "chunk_index": i, "chunk_count": len(chunks)})
        for i, chunk in enumerate(chunks)
    ]


def _chunks(text: str, schema: CollectionSchema) -> list[str]:
    if schema.split is None:
        return [text]
    words = text.split(" ")
    size, overlap = schema.split.max_words, min(schema.split.overlap_words, schema.split.max_words // 2)
    if len(words) <= size:
        return [text]
    step = size - overlap
    return [" ".join(words[i : i + size]) for i in range(0, max(len(words) - overlap, 1), step)]
