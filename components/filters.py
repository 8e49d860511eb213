"""Translate Haystack's filter syntax into Qdrant Edge filter conditions.

Haystack filters are trees of logical nodes (`AND`, `OR`, `NOT` over `conditions`) and comparison leaves
(`field`, `operator`, `value`). Field names are payload paths (`meta.version`, `content`, `id`), the same
paths qdrant-haystack uses, so a filter means the same thing on both backends.
"""

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

import qdrant_edge as qe

from components.errors import FilterError

LOGICAL_OPERATORS = ("AND", "OR", "NOT")
COMPARISON_OPERATORS = ("==", "!=", ">", ">=", "<", "<=", "in", "not in", "match", "phrase", "prefix")
# Full-text operators: `match` (every word, stemmed, on a text index), `phrase` (the words in order) and
# `prefix` (a keyword starting with the value; a `keyword_prefix` index makes it fast).
_TEXT_MATCH: dict[str, Callable[[str], qe.MatchText | qe.MatchPhrase | qe.MatchPrefix]] = {
    "match": qe.MatchText,
    "phrase": qe.MatchPhrase,
    "prefix": qe.MatchPrefix,
}
_RANGE_KEYS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}


def filter_fields(filters: dict[str, Any] | None) -> set[str]:
    """Every field a filter tree mentions; used to check fields against a collection's schema."""
    if not filters:
        return set()
    if "conditions" in filters:
        return set().union(*(filter_fields(c) for c in filters["conditions"]))
    return {filters["field"]} if "field" in filters else set()


BoolResolver = Callable[[str, bool], set[Any]]


def convert_filters(filters: dict[str, Any] | None, bool_ids: BoolResolver | None = None) -> qe.Filter | None:
    """Haystack filter dict -> `qdrant_edge.Filter`, or None for no filter.

    qdrant-edge-py 0.9.0 sends a Python bool inside `MatchValue` as an integer, which never matches a
    boolean payload. `bool_ids(field, value)` works around it: it returns the point ids whose field holds
    that boolean, and the condition becomes a `HasIdCondition`.
    """
    if not filters:
        return None
    if not isinstance(filters, dict):
        msg = f"filters must be a dict, got {type(filters).__name__}"
        raise FilterError(msg)
    node = _Converter(bool_ids).node(filters)
    return node if isinstance(node, qe.Filter) else qe.Filter(must=[node])


class _Converter:
    def __init__(self, bool_ids: BoolResolver | None) -> None:
        self.bool_ids = bool_ids

    def node(self, node: dict[str, Any]) -> Any:
        return _convert_node(node, self)

    def equals(self, field: str, value: Any) -> Any:
        if isinstance(value, bool):
            if self.bool_ids is None:
                msg = f"boolean filter on '{field}' needs the store's id resolver"
                raise FilterError(msg, {"field": field})
            return qe.HasIdCondition(self.bool_ids(field, value))
        return _equals(field, value)


def _convert_node(node: dict[str, Any], converter: "_Converter") -> Any:
    if "operator" not in node:
        msg = f"filter node without 'operator': {node!r}"
        raise FilterError(msg, {"node": node})
    operator = node["operator"]
    if "conditions" in node:
        return _convert_logical(operator, node["conditions"], converter)
    if "field" not in node or "value" not in node:
        msg = f"comparison needs 'field', 'operator' and 'value': {node!r}"
        raise FilterError(msg, {"node": node})
    return _convert_comparison(node["field"], operator, node["value"], converter)


def _convert_logical(operator: str, conditions: Iterable[dict[str, Any]], converter: "_Converter") -> qe.Filter:
    if operator not in LOGICAL_OPERATORS:
        msg = f"unknown logical operator '{operator}'; allowed: {', '.join(LOGICAL_OPERATORS)}"
        raise FilterError(msg, {"operator": operator, "allowed": list(LOGICAL_OPERATORS)})
    if not isinstance(conditions, list) or not conditions:
        msg = f"'{operator}' needs a non-empty list of conditions"
        raise FilterError(msg)
    converted = [converter.node(c) for c in conditions]
    if operator == "AND":
        return qe.Filter(must=converted)
    if operator == "OR":
        return qe.Filter(should=converted)
    # Haystack's NOT negates the conjunction of its conditions.
    return qe.Filter(must_not=[qe.Filter(must=converted)])


def _convert_comparison(field: str, operator: str, value: Any, converter: "_Converter") -> Any:
    if operator == "==":
        return converter.equals(field, value)
    if operator == "!=":
        return qe.Filter(must_not=[converter.equals(field, value)])
    if operator in _RANGE_KEYS:
        return _range(field, operator, value)
    if operator in _TEXT_MATCH:
        if not isinstance(value, str) or not value.strip():
            msg = f"'{operator}' on '{field}' needs a non-empty string, got {value!r}"
            raise FilterError(msg, {"field": field, "operator": operator})
        return qe.FieldCondition(field, match=_TEXT_MATCH[operator](value))
    if operator in ("in", "not in"):
        if not isinstance(value, list):
            msg = f"'{operator}' on '{field}' needs a list value, got {type(value).__name__}"
            raise FilterError(msg, {"field": field, "operator": operator})
        any_of = _any_of(field, value, converter)
        return any_of if operator == "in" else qe.Filter(must_not=[any_of])
    msg = f"unknown comparison operator '{operator}'; allowed: {', '.join(COMPARISON_OPERATORS)}"
    raise FilterError(msg, {"field": field, "operator": operator, "allowed": list(COMPARISON_OPERATORS)})


def _equals(field: str, value: Any) -> Any:
    if value is None:
        return qe.IsEmptyCondition(field)
    if isinstance(value, float):
        return qe.FieldCondition(field, range=qe.RangeFloat(gte=value, lte=value))
    if isinstance(value, str | int):
        return qe.FieldCondition(field, match=qe.MatchValue(value))
    msg = f"'==' on '{field}' needs a string, number, boolean or null, got {type(value).__name__}"
    raise FilterError(msg, {"field": field})


def _any_of(field: str, values: list[Any], converter: "_Converter") -> Any:
    if values and all(isinstance(v, str) for v in values):
        return qe.FieldCondition(field, match=qe.MatchAny(values))
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return qe.FieldCondition(field, match=qe.MatchAny(values))
    if not values:
        # "in []" matches nothing: a condition no point satisfies.
        return qe.Filter(must=[qe.HasIdCondition(set())])
    return qe.Filter(should=[converter.equals(field, v) for v in values])


def _range(field: str, operator: str, value: Any) -> Any:
    key = _RANGE_KEYS[operator]
    if isinstance(value, bool) or value is None:
        msg = f"'{operator}' on '{field}' needs a number or an ISO date, got {value!r}"
        raise FilterError(msg, {"field": field, "operator": operator})
    if isinstance(value, int | float):
        return qe.FieldCondition(field, range=qe.RangeFloat(**{key: float(value)}))
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError as error:
            msg = f"'{operator}' on '{field}' needs a number or an ISO 8601 date, got {value!r}"
            raise FilterError(msg, {"field": field, "operator": operator}) from error
        return qe.FieldCondition(field, range=qe.RangeDateTime(**{key: value}))
    msg = f"'{operator}' on '{field}' needs a number or an ISO date, got {type(value).__name__}"
    raise FilterError(msg, {"field": field, "operator": operator})
