"""Haystack filters, checked once and translated by each backend.

Haystack filters are trees of logical nodes (`AND`, `OR`, `NOT` over `conditions`) and comparison leaves
(`field`, `operator`, `value`). Field names are payload paths (`meta.version`, `content`, `id`), so a
filter means the same on both backends. `FilterConverter` walks and checks the tree and decides what each
operator means; a backend subclass only builds its own condition objects. Every problem is a
`FilterError` that names the field and what to send instead.

The semantics are Haystack's (`haystack.utils.filters.document_matches_filter`, which its conformance suites
hold every store to): `==`/`!=` with None test for a missing or null field; `>`, `>=`, `<`, `<=` with None
match nothing, and with a string only take an ISO 8601 date (anything else is a `FilterError`); `in` and
`not in` take a list and nothing else; `==` on an ISO date matches the same instant however it is written;
`==` on a list or an object matches that exact value. Where Qdrant cannot say it, the store resolves the
condition to point ids (`IdResolver`, one scan of the collection).

Two differences are Qdrant's and deliberate. A field holding a list is compared element by element: `==`,
`in` and the full-text operators match when one element does (haygate's own filters rely on it: `meta.skills
in [...]` finds a CV with any of those skills), where Haystack compares the whole list; and `== None` also
matches an empty list (Qdrant's `is_empty`). A comparison cannot check a payload's type when the filter is
translated: `> 1` on a field holding strings matches nothing, where Haystack raises `FilterError` on reading
one.

Besides Haystack's operators there are full-text ones for fields with a text index: `match` (every word,
stemmed), `phrase` (the words in order) and `prefix` (a keyword starting with the value). An `OR` node may
say `at_least: k`: k of its conditions must hold (Qdrant's `min_should`), not just one.
"""

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Any, Generic, TypeVar

from haygate.errors import FilterError

LOGICAL_OPERATORS = ("AND", "OR", "NOT")
TEXT_OPERATORS = ("match", "phrase", "prefix")
COMPARISON_OPERATORS = ("==", "!=", ">", ">=", "<", "<=", "in", "not in", *TEXT_OPERATORS)
RANGE_KEYS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}

Condition = TypeVar("Condition")
IdResolver = Callable[[str, Callable[[Any], bool], Hashable], set[Any]]  # field, test, a key naming the test
"""`(field, holds) -> point ids` whose payload value at `field` satisfies `holds` (None where it is missing)."""


def looks_like_date(value: Any) -> bool:
    """Haystack's test (`_looks_like_iso_date`) for a string `==` compares as an instant, not as text: it starts
    with a whole `YYYY-MM-DD` date ("2025" is a year, not a date)."""
    return (
        isinstance(value, str)
        and len(value) >= 10
        and value[:4].isdigit()
        and value[4] == "-"
        and value[5:7].isdigit()
        and value[7] == "-"
        and value[8:10].isdigit()
        and (len(value) == 10 or value[10] in "Tt ")
    )


def iso_instant(value: str) -> str | None:
    """An ISO 8601 date written the one way both Qdrants parse (`2024-01-10T00:00:00`; they refuse some of
    what Python reads, such as `2024-01-10T12` or `20240110`), or None if it is no ISO date."""
    try:
        return datetime.fromisoformat(value).isoformat()
    except ValueError:
        return None


def filter_fields(filters: dict[str, Any] | None) -> set[str]:
    """Every field a filter tree mentions; used to check fields against a collection's indexes."""
    if not filters:
        return set()
    if "conditions" in filters and isinstance(filters["conditions"], list):
        return set().union(*(filter_fields(c) for c in filters["conditions"] if isinstance(c, dict)))
    return {filters["field"]} if "field" in filters else set()


class FilterConverter(ABC, Generic[Condition]):
    """Haystack filter dict -> one backend's filter, or None for no filter.

    `ids_where` is the store's scan for conditions Qdrant cannot express (see `IdResolver`); without it,
    such a filter is a `FilterError`.
    """

    def __init__(self, ids_where: IdResolver | None = None) -> None:
        self.ids_where = ids_where

    def convert(self, filters: dict[str, Any] | None) -> Condition | None:
        if not filters:
            return None
        if not isinstance(filters, dict):
            msg = f"filters must be a dict, got {type(filters).__name__}"
            raise FilterError(msg)
        node = self._node(filters)
        return node if self._is_filter(node) else self.all_of([node])

    def _node(self, node: dict[str, Any]) -> Any:
        if not isinstance(node, dict) or "operator" not in node:
            msg = f"filter node without 'operator': {node!r}"
            raise FilterError(msg, {"node": node})
        operator = node["operator"]
        if "conditions" in node:
            at_least = node.get("at_least", 1)
            if at_least != 1:
                return self._at_least(operator, node["conditions"], at_least)
            return self._logical(operator, node["conditions"])
        if "field" not in node or "value" not in node:
            msg = f"comparison needs 'field', 'operator' and 'value': {node!r}"
            raise FilterError(msg, {"node": node})
        return self._comparison(node["field"], operator, node["value"])

    def _logical(self, operator: str, conditions: Any) -> Any:
        if operator not in LOGICAL_OPERATORS:
            msg = f"unknown logical operator '{operator}'; allowed: {', '.join(LOGICAL_OPERATORS)}"
            raise FilterError(msg, {"operator": operator, "allowed": list(LOGICAL_OPERATORS)})
        if not isinstance(conditions, list) or not conditions:
            msg = f"'{operator}' needs a non-empty list of conditions"
            raise FilterError(msg)
        children = [self._node(c) for c in conditions]
        if operator == "AND":
            return self.all_of(children)
        if operator == "OR":
            return self.any_of(children)
        # Haystack's NOT negates the conjunction of its conditions.
        return self.none_of([self.all_of(children)])

    def _at_least(self, operator: str, conditions: Any, count: Any) -> Any:
        if operator != "OR" or isinstance(count, bool) or not isinstance(count, int) or count < 1:
            msg = f"'at_least' goes on an OR node, with a whole number of 1 or more; got {operator} at_least={count!r}"
            raise FilterError(msg, {"operator": operator})
        if not isinstance(conditions, list) or count > len(conditions):
            msg = f"'at_least: {count}' needs at least {count} conditions"
            raise FilterError(msg)
        return self.at_least([self._node(c) for c in conditions], count)

    def _comparison(self, field: str, operator: str, value: Any) -> Any:
        if operator == "==":
            return self._equals(field, value)
        if operator == "!=":
            return self.none_of([self._equals(field, value)])
        if operator in RANGE_KEYS:
            return self._range(field, operator, value)
        if operator in TEXT_OPERATORS:
            if not isinstance(value, str) or not value.strip():
                msg = f"'{operator}' on '{field}' needs a non-empty string, got {value!r}"
                raise FilterError(msg, {"field": field, "operator": operator})
            return self.text(field, operator, value)
        if operator in ("in", "not in"):
            if not isinstance(value, list):
                msg = f"'{operator}' on '{field}' needs a list value, got {type(value).__name__}"
                raise FilterError(msg, {"field": field, "operator": operator})
            any_of = self._any_value(field, value)
            return any_of if operator == "in" else self.none_of([any_of])
        msg = f"unknown comparison operator '{operator}'; allowed: {', '.join(COMPARISON_OPERATORS)}"
        raise FilterError(msg, {"field": field, "operator": operator, "allowed": list(COMPARISON_OPERATORS)})

    def _equals(self, field: str, value: Any) -> Any:
        if value is None:
            return self.is_empty(field)
        if isinstance(value, bool):
            return self.equals_bool(field, value)
        if isinstance(value, datetime):
            value = value.isoformat()
        if isinstance(value, float):
            return self.range_number(field, gte=value, lte=value)
        instant = iso_instant(value) if looks_like_date(value) else None
        if instant is not None:  # the same instant, however it is written ("2024-01-10" or "...T00:00:00")
            return self.any_of([self.match_value(field, value), self.range_datetime(field, gte=instant, lte=instant)])
        if isinstance(value, str | int):
            return self.match_value(field, value)
        if isinstance(value, list | dict):  # that exact value: Qdrant would match a list by its elements
            key = ("equals", json.dumps(value, sort_keys=True, default=str))
            return self.has_ids(self._ids(field, lambda stored: stored == value, key))
        msg = (
            f"'==' on '{field}' needs a string, number, boolean, date, list, object or null, got {type(value).__name__}"
        )
        raise FilterError(msg, {"field": field})

    def _any_value(self, field: str, values: list[Any]) -> Any:
        if not values:
            return self.nothing()  # "in []" matches no document
        keywords = all(isinstance(v, str) and not looks_like_date(v) for v in values)
        if keywords or all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return self.match_any(field, values)
        return self.any_of([self._equals(field, v) for v in values])

    def _range(self, field: str, operator: str, value: Any) -> Any:
        if value is None:
            return self.nothing()  # Haystack: nothing compares with None
        if isinstance(value, datetime):
            value = value.isoformat()
        if isinstance(value, bool):
            msg = f"'{operator}' on '{field}' needs a number or an ISO date, got {value!r}"
            raise FilterError(msg, {"field": field, "operator": operator})
        if isinstance(value, int | float):
            return self.range_number(field, **{RANGE_KEYS[operator]: float(value)})
        if isinstance(value, str):
            instant = iso_instant(value)
            if instant is None:  # Haystack orders strings only as dates
                msg = f"'{operator}' on '{field}' needs a number or an ISO 8601 date, got {value!r}"
                raise FilterError(msg, {"field": field, "operator": operator})
            return self.range_datetime(field, **{RANGE_KEYS[operator]: instant})
        msg = f"'{operator}' on '{field}' needs a number or an ISO date, got {type(value).__name__}"
        raise FilterError(msg, {"field": field, "operator": operator})

    def _ids(self, field: str, holds: Callable[[Any], bool], key: Hashable) -> set[Any]:
        """The points whose `field` satisfies `holds` (`key` names the test, so a store may keep the scan)."""
        if self.ids_where is None:
            msg = f"this filter on '{field}' needs the store to scan it; filter through the store"
            raise FilterError(msg, {"field": field})
        return self.ids_where(field, holds, key)

    def nothing(self) -> Any:
        """A condition no document satisfies."""
        return self.all_of([self.has_ids(set())])

    # -- what a backend builds -------------------------------------------------------------------

    @abstractmethod
    def _is_filter(self, node: Any) -> bool:
        """Whether `node` is already a whole filter (else it is wrapped in `all_of`)."""

    @abstractmethod
    def all_of(self, children: list[Any]) -> Any: ...

    @abstractmethod
    def any_of(self, children: list[Any]) -> Any: ...

    @abstractmethod
    def at_least(self, children: list[Any], count: int) -> Any:
        """Whether `count` or more of the children hold."""

    @abstractmethod
    def none_of(self, children: list[Any]) -> Any: ...

    @abstractmethod
    def match_value(self, field: str, value: str | int) -> Any: ...

    @abstractmethod
    def match_any(self, field: str, values: list[Any]) -> Any: ...

    @abstractmethod
    def equals_bool(self, field: str, value: bool) -> Any: ...

    @abstractmethod
    def has_ids(self, ids: set[Any]) -> Any:
        """Whether the point is one of `ids`."""

    @abstractmethod
    def is_empty(self, field: str) -> Any: ...

    @abstractmethod
    def range_number(self, field: str, **bounds: float) -> Any: ...

    @abstractmethod
    def range_datetime(self, field: str, **bounds: str) -> Any: ...

    @abstractmethod
    def text(self, field: str, operator: str, value: str) -> Any: ...
