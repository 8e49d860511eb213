"""Haystack filters -> `qdrant_edge` conditions (the checks and semantics live in `FilterConverter`)."""

from collections.abc import Callable
from typing import Any

import qdrant_edge as qe

from haygate.document_stores.filters import FilterConverter, IdResolver

_TEXT_MATCH: dict[str, Callable[[str], Any]] = {
    "match": qe.MatchText,
    "phrase": qe.MatchPhrase,
    "prefix": qe.MatchPrefix,
}


class EdgeFilterConverter(FilterConverter[qe.Filter]):
    """qdrant-edge-py 0.9.0 sends a Python bool inside `MatchValue` as an integer, which never matches a
    boolean payload: a boolean condition is resolved by the store's scan (`ids_where`) into the ids of the
    points whose field holds that boolean (or a list with it), as a `HasIdCondition`.
    """

    def _is_filter(self, node: Any) -> bool:
        return isinstance(node, qe.Filter)

    def all_of(self, children: list[Any]) -> qe.Filter:
        return qe.Filter(must=children)

    def any_of(self, children: list[Any]) -> qe.Filter:
        return qe.Filter(should=children)

    def at_least(self, children: list[Any], count: int) -> qe.Filter:
        return qe.Filter(min_should=qe.MinShould(children, count))

    def none_of(self, children: list[Any]) -> qe.Filter:
        return qe.Filter(must_not=children)

    def match_value(self, field: str, value: str | int) -> Any:
        return qe.FieldCondition(field, match=qe.MatchValue(value))

    def match_any(self, field: str, values: list[Any]) -> Any:
        return qe.FieldCondition(field, match=qe.MatchAny(values))

    def equals_bool(self, field: str, value: bool) -> Any:
        def holds(stored: Any) -> bool:
            return stored is value or (isinstance(stored, list) and any(item is value for item in stored))

        return self.has_ids(self._ids(field, holds, ("bool", value)))

    def has_ids(self, ids: set[Any]) -> Any:
        return qe.HasIdCondition(ids)

    def is_empty(self, field: str) -> Any:
        return qe.IsEmptyCondition(field)

    def range_number(self, field: str, **bounds: float) -> Any:
        return qe.FieldCondition(field, range=qe.RangeFloat(**bounds))

    def range_datetime(self, field: str, **bounds: str) -> Any:
        return qe.FieldCondition(field, range=qe.RangeDateTime(**bounds))

    def text(self, field: str, operator: str, value: str) -> Any:
        return qe.FieldCondition(field, match=_TEXT_MATCH[operator](value))


def convert_filters(filters: dict[str, Any] | None, ids_where: IdResolver | None = None) -> qe.Filter | None:
    """Haystack filter dict -> `qdrant_edge.Filter`, or None for no filter."""
    return EdgeFilterConverter(ids_where).convert(filters)
