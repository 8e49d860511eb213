"""Records -> one Document each, by schema."""

from pathlib import Path

import pytest

from haygate.errors import InvalidRecordError
from haygate.ingest.mapping import to_document, unencodable
from haygate.ingest.schema import schema_for

COLLECTIONS = Path(__file__).resolve().parents[3] / "configs" / "collections"


def test_fields_id_meta_and_constants() -> None:
    document = to_document(
        {
            "id": "e1",
            "type": "decision",
            "project_id": "p",
            "content": {"question": "Why?"},
            "topics": ["rag"],
            **{"source_id": "s1", "source_title": "S", "chunk_id": "c1"},
        },
        schema_for("knowledge", COLLECTIONS),
    )
    assert document.id == "e1" and document.content is not None and document.content.startswith("Why?.")
    assert document.meta["extraction_type"] == "decision" and document.meta["content_type"] == "extraction"
    assert document.meta["record_id"] == "e1" and len(document.meta["record_hash"]) == 32


def test_the_hash_covers_text_meta_and_indexing_configuration() -> None:
    schema = schema_for("docs", COLLECTIONS)
    record = {"_id": "r", "text": "body", "title": "T"}
    first = to_document(record, schema, fingerprint="a").meta["record_hash"]
    assert to_document(record, schema, fingerprint="a").meta["record_hash"] == first
    assert to_document(record, schema, fingerprint="b").meta["record_hash"] != first
    assert to_document({**record, "title": "U"}, schema, fingerprint="a").meta["record_hash"] != first


def test_missing_content_or_id_is_an_invalid_record() -> None:
    schema = schema_for("docs", COLLECTIONS)
    with pytest.raises(InvalidRecordError, match="content"):
        to_document({"_id": "x", "title": "t"}, schema)
    with pytest.raises(InvalidRecordError, match="missing id"):
        to_document({"text": "body"}, schema)


def test_text_no_store_can_hold_is_an_invalid_record_naming_its_field() -> None:
    schema = schema_for("docs", COLLECTIONS)
    with pytest.raises(InvalidRecordError, match=r"field 'title' holds a lone surrogate") as caught:
        to_document({"_id": "x", "text": "body", "title": "half \ud800 a pair"}, schema)
    assert caught.value.details == {"field": "title"}
    assert unencodable({"links": [{"key": "ok"}, {"key": "\udc00"}]}) == "links[1].key"
    assert unencodable({"k\udc00": 1}) == "k\\udc00" and unencodable({"a": ["fine", 1, None]}) is None


def test_templates_render_nested_records_on_one_line() -> None:
    document = to_document(
        {
            "entity_type": "bug",
            "entity_id": "bug:1",
            "product_id": 1,
            "title": "Crash",
            "actual_result": "It\ncrashes",
            "expected_result": "It works",
        },
        schema_for("entities", COLLECTIONS),
    )
    assert document.content == "Crash It crashes It works"
