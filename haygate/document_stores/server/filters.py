"""Haystack filters -> qdrant-client conditions (the checks and semantics live in `FilterConverter`)."""

from typing import Any

from qdrant_client.http import models as rest

from haygate.document_stores.filters import FilterConverter, IdResolver

_TEXT_MATCH: dict[str, Any] = {
    "match": lambda value: rest.MatchText(text=value),
    "phrase": lambda value: rest.MatchPhrase(phrase=value),
    "prefix": lambda value: rest.MatchPrefix(prefix=value),
}


class ServerFilterConverter(FilterConverter[rest.Filter]):
    def _is_filter(self, node: Any) -> bool:
        return isinstance(node, rest.Filter)

    def all_of(self, children: list[Any]) -> rest.Filter:
        return rest.Filter(must=children)

    def any_of(self, children: list[Any]) -> rest.Filter:
        return rest.Filter(should=children)

    def at_least(self, children: list[Any], count: int) -> rest.Filter:
        return rest.Filter(min_should=rest.MinShould(conditions=children, min_count=count))

    def none_of(self, children: list[Any]) -> rest.Filter:
        return rest.Filter(must_not=children)

    def match_value(self, field: str, value: str | int) -> Any:
        return rest.FieldCondition(key=field, match=rest.MatchValue(value=value))

    def match_any(self, field: str, values: list[Any]) -> Any:
        return rest.FieldCondition(key=field, match=rest.MatchAny(any=values))

    def equals_bool(self, field: str, value: bool) -> Any:
        return rest.FieldCondition(key=field, match=rest.MatchValue(value=value))

    def has_ids(self, ids: set[Any]) -> Any:
        return rest.HasIdCondition(has_id=sorted(ids, key=str))

    def is_empty(self, field: str) -> Any:
        return rest.IsEmptyCondition(is_empty=rest.PayloadField(key=field))

    def range_number(self, field: str, **bounds: float) -> Any:
        return rest.FieldCondition(key=field, range=rest.Range(**bounds))

    def range_datetime(self, field: str, **bounds: str) -> Any:
        return rest.FieldCondition(key=field, range=rest.DatetimeRange(**bounds))  # type: ignore[arg-type]

    def text(self, field: str, operator: str, value: str) -> Any:
        return rest.FieldCondition(key=field, match=_TEXT_MATCH[operator](value))


def convert_filters(filters: dict[str, Any] | None, ids_where: IdResolver | None = None) -> rest.Filter | None:
    """Haystack filter dict -> `qdrant_client` Filter, or None for no filter."""
    return ServerFilterConverter(ids_where).convert(filters)
