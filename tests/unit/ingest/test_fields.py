"""Typed record fields: what is safely coercible is coerced, the rest refused with the field and why."""

import pytest

from haygate.ingest.fields import FieldSpec, typed_record
from haygate.ingest.schema import RecordMapping

FIELDS = RecordMapping.model_validate(
    {
        "id": "id",
        "content": "text",
        "fields": {
            "id": {"type": "string", "aliases": ["_id"]},
            "entity_type": {"type": "string", "case": "lower"},
            "entity_id": {"type": "string", "prefix": "{{ entity_type }}:"},
            "year": "integer",
            "score": "number",
            "active": "boolean",
            "at": "datetime",
            "topics": {"type": "list", "items": "string", "case": "lower"},
            "content": "object",
            "version": "string",
        },
    }
).fields


@pytest.mark.parametrize(
    ("record", "expected"),
    [
        ({"_id": "a1"}, {"id": "a1"}),
        ({"_id": {"$oid": "65a1f0c2e4b0a1b2c3d4e5f6"}}, {"id": "65a1f0c2e4b0a1b2c3d4e5f6"}),
        ({"id": "kept", "_id": "ignored"}, {"id": "kept"}),
        ({"entity_type": "Feature", "entity_id": 598}, {"entity_type": "feature", "entity_id": "feature:598"}),
        ({"entity_type": "bug", "entity_id": "bug:101"}, {"entity_id": "bug:101"}),
        ({"year": "2024"}, {"year": 2024}),
        ({"year": 2024.0}, {"year": 2024}),
        ({"year": {"$numberLong": "2024"}}, {"year": 2024}),
        ({"score": "0.5"}, {"score": 0.5}),
        ({"active": "TRUE"}, {"active": True}),
        ({"at": {"$date": "2026-03-14T10:30:08Z"}}, {"at": "2026-03-14T10:30:08Z"}),
        ({"at": {"$date": {"$numberLong": "0"}}}, {"at": "1970-01-01T00:00:00Z"}),
        ({"topics": "RAG"}, {"topics": ["rag"]}),
        ({"topics": ["Chunking", "rag"]}, {"topics": ["chunking", "rag"]}),
        ({"other": [1, 2]}, {"other": [1, 2]}),
    ],
)
def test_safe_coercions(record: dict[str, object], expected: dict[str, object]) -> None:
    typed = typed_record(record, FIELDS)
    assert {key: typed[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"year": "twenty"}, "field 'year': expected an integer, got 'twenty'"),
        ({"year": 2024.5}, "field 'year': expected an integer, got 2024.5"),
        ({"year": True}, "field 'year': expected an integer, got True"),
        ({"version": 3.1}, "field 'version': expected a string, got 3.1; quote it as the text you mean"),
        ({"active": "maybe"}, "field 'active': expected true or false, got 'maybe'"),
        ({"at": "yesterday"}, "field 'at': expected an ISO 8601 date or datetime, got 'yesterday'"),
        ({"content": "text"}, "field 'content': expected an object, got 'text'"),
        ({"topics": ["ok", {"a": 1}]}, "field 'topics': expected a string, got dict"),
    ],
)
def test_the_rest_is_refused_with_the_field_and_why(record: dict[str, object], reason: str) -> None:
    with pytest.raises(ValueError) as refused:
        typed_record(record, FIELDS)
    assert str(refused.value) == reason


def test_a_list_field_names_its_item_type() -> None:
    with pytest.raises(ValueError, match="needs `items:`"):
        FieldSpec(type="list")


def test_a_required_field_an_enum_and_a_default() -> None:
    fields = {
        "kind": FieldSpec(type="string", case="lower", enum=["bug", "feature"], required=True),
        "tags": FieldSpec(type="list", items="string", default=[]),
    }
    assert typed_record({"kind": "BUG"}, fields) == {"kind": "bug", "tags": []}
    with pytest.raises(ValueError, match="field 'kind' is required"):
        typed_record({"tags": ["x"]}, fields)
    with pytest.raises(ValueError, match="field 'kind': 'epic' is not one of bug, feature"):
        typed_record({"kind": "epic"}, fields)
