"""Dotted paths into nested data: `meta.extraction.question`, the way filters and YAML name a field.

A document path is `id`, `content`, `score` or `meta.<key>[.<key>...]`, the same paths the stores'
payloads and filters use. This is the one place that walks them.
"""

from collections.abc import Callable
from operator import attrgetter
from typing import Any, Protocol

DOCUMENT_FIELDS = ("id", "content", "score")


class HasFields(Protocol):
    """What a document path reads: Haystack's Document, without importing Haystack."""

    id: str
    content: str | None
    score: float | None
    meta: dict[str, Any]


def value_at(data: Any, path: str) -> Any:
    """The value at a dotted path in nested mappings; None where any step is missing or not a mapping."""
    return _walk(data, path.split("."))


def _walk(data: Any, keys: list[str]) -> Any:
    value = data
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def is_document_path(path: str) -> bool:
    return path in DOCUMENT_FIELDS or (path.startswith("meta.") and len(path) > len("meta."))


def check_document_path(path: str) -> str:
    """The path itself, or ValueError naming what a document path may be."""
    if not is_document_path(path):
        msg = f"unknown document path '{path}'; use id, content, score or meta.<field>"
        raise ValueError(msg)
    return path


def document_reader(path: str) -> Callable[[HasFields], Any]:
    """What reads a document path from a document, the path checked and split once: for code that reads the
    same paths of many documents (a formatter's fields, 10 results x 9 fields a call)."""
    if path in DOCUMENT_FIELDS:
        return attrgetter(path)
    keys = check_document_path(path).removeprefix("meta.").split(".")
    return lambda document: _walk(document.meta, keys)


def document_value(document: HasFields, path: str) -> Any:
    """Value at a document path; `meta.a.b` walks nested meta."""
    return document_reader(path)(document)


def document_text(document: HasFields, path: str) -> str:
    """The text at a document path: lists are joined with spaces, a missing value is empty."""
    value = document_value(document, path)
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)
