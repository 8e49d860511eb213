"""Dotted document paths."""

import pytest
from haystack import Document

from haygate.text.paths import check_document_path, document_text, document_value, value_at


def test_value_at_walks_nested_mappings() -> None:
    assert value_at({"a": {"b": [1]}}, "a.b") == [1]
    assert value_at({"a": 1}, "a.b") is None and value_at({}, "x") is None


def test_document_paths() -> None:
    document = Document(id="x", content="body", meta={"title": "T", "tags": ["a", "b"], "n": {"m": 2}}, score=0.5)
    assert [document_value(document, p) for p in ("id", "content", "score", "meta.n.m")] == ["x", "body", 0.5, 2]
    assert document_text(document, "meta.tags") == "a b" and document_text(document, "meta.missing") == ""
    with pytest.raises(ValueError, match="unknown document path 'embedding'"):
        check_document_path("embedding")
