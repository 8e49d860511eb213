"""Records -> Documents, as a collection schema says: the id, the text, the meta.

A record becomes one Document whose id is the record id; splitting it into chunks, and deriving meta
from its text, happen in the collection's indexing pipeline. `meta.record_hash` covers the text, the meta
and the indexing configuration, so ingest can skip a record that has not changed.
"""

import hashlib
import json
from typing import Any

from haystack import Document
from jinja2 import TemplateError

from haygate.errors import InvalidRecordError
from haygate.ingest.fields import typed_record
from haygate.ingest.schema import CollectionSchema
from haygate.text.templates import render_line

RECORD_ID = "record_id"
RECORD_HASH = "record_hash"
# A point several records share (one CV phrase, stored once for every CV that says it) names them in this
# list, not in `record_id`: deleting a record takes it off the list, and the point goes with its last record.
SHARED_BY = "record_ids"


def record_text(record: dict[str, Any], schema: CollectionSchema) -> str:
    if schema.record.content is not None:
        names = [schema.record.content] if isinstance(schema.record.content, str) else schema.record.content
        return "\n".join(str(record[n]) for n in names if record.get(n) not in (None, ""))
    try:
        return render_line(schema.record.content_template or "", record)
    except TemplateError as error:
        raise InvalidRecordError(f"content_template failed: {error}") from error


def record_id(record: dict[str, Any], schema: CollectionSchema, text: str) -> str:
    spec = schema.record.id
    if spec is None:
        return hashlib.sha256(text.encode()).hexdigest()[:32]
    names = [spec] if isinstance(spec, str) else spec
    missing = [n for n in names if record.get(n) in (None, "")]
    if missing:
        has = ", ".join(sorted(map(str, record))) or "no fields"
        raise InvalidRecordError(f"missing id field(s) {', '.join(missing)}; the record has: {has}")
    return ":".join(str(record[n]) for n in names)


def id_of(record: dict[str, Any], schema: CollectionSchema) -> str | None:
    """The id `record` gets in a collection of `schema`, or None where it would be refused."""
    try:
        return record_id(record, schema, record_text(typed_record(record, schema.record.fields), schema).strip())
    except (InvalidRecordError, ValueError):
        return None


def to_document(record: dict[str, Any], schema: CollectionSchema, fingerprint: str = "") -> Document:
    """One record -> one Document with `meta.record_id` and `meta.record_hash`, its declared fields typed
    (`haygate.ingest.fields`).

    :param fingerprint: of the indexing configuration; a changed pipeline changes every record's hash.
    """
    broken = unencodable(record)
    if broken is not None:
        msg = (
            f"field '{broken}' holds a lone surrogate (a JSON escape such as \\ud800 with no pair), which is not "
            "text a store can hold; send valid Unicode"
        )
        raise InvalidRecordError(msg, {"field": broken})
    try:
        record = typed_record(record, schema.record.fields)
    except ValueError as error:
        raise InvalidRecordError(str(error)) from None
    text = record_text(record, schema).strip()
    if not text:
        source = schema.record.content or "content_template"
        has = ", ".join(sorted(map(str, record))) or "no fields"
        raise InvalidRecordError(f"empty or missing content field {source!r}; the record has: {has}")
    rid = record_id(record, schema, text)
    meta = {
        name: record[field] for name, field in schema.record.meta_fields.items() if record.get(field) not in (None, "")
    }
    meta.update(schema.record.constants)
    digest = hashlib.sha256(json.dumps([text, meta, fingerprint], sort_keys=True, default=str).encode())
    meta[RECORD_ID] = rid
    meta[RECORD_HASH] = digest.hexdigest()[:32]
    return Document(id=rid, content=text, meta=meta)


def unencodable(value: Any, path: str = "") -> str | None:
    """The first field (`title`, `links[2].key`) whose text UTF-8 cannot encode: JSON lets an escape name half
    of a surrogate pair, and no store takes it."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(the record)"
        return None
    children = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in children:
        name = str(key).encode("utf-8", "backslashreplace").decode()  # a key may be the broken text itself
        where = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{name}".lstrip(".")
        found = (where if name != key and isinstance(key, str) else None) or unencodable(child, where)
        if found:
            return found
    return None
