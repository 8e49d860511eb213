"""Haystack filters, checked once and translated by each backend.

Haystack filters are trees of logical nodes (`AND`, `OR`, `NOT` over `conditions`) and comparison leaves
(`field`, `operator`, `value`). Field names are payload paths (`meta.version`, `content`, `id`), so a
filter means the same on both backends. `FilterConverter` walks and checks the tree and decides what each
operator means; a backend subclass only builds its own condition objects. Every problem is a
`FilterError` that names the field and what to send instead.

Besides Haystack's operators there are full-text ones for fields with a text index: `match` (every word,
stemmed), `phrase` (the words in order) and `prefix` (a keyword starting with the value). An `OR` node may
say `at_least: k`: k of its conditions must hold (Qdrant's `min_should`), not just one.
"""

from abc import ABC, abstractmethod
from datetime import datetime
from typing import Any, Generic, TypeVar

from haygate.errors import FilterError

LOGICAL_OPERATORS = ("AND", "OR", "NOT")
TEXT_OPERATORS = ("match", "phrase", "prefix")
COMPARISON_OPERATORS = ("==", "!=", ">", ">=", "<", "<=", "in", "not in", *TEXT_OPERATORS)
RANGE_KEYS = {">": "gt", ">=": "gte", "<": "lt", "<=": "lte"}

Condition = TypeVar("Condition")


def filter_fields(filters: dict[str, Any] | None) -> set[str]:
    """Every field a filter tree mentions; used to check fields against a collection's indexes."""
    if not filters:
        return set()
    if "conditions" in filters and isinstance(filters["conditions"], list):
        return set().union(*(filter_fields(c) for c in filters["conditions"] if isinstance(c, dict)))
    return {filters["field"]} if "field" in filters else set()


class FilterConverter(ABC, Generic[Condition]):
    """Haystack filter dict -> one backend's filter, or None for no filter."""

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
        if isinstance(value, bool):
            return self.equals_bool(field, value)
        if value is None:
            return self.is_empty(field)
        if isinstance(value, float):
            return self.range_number(field, gte=value, lte=value)
        if isinstance(value, str | int):
            return self.match_value(field, value)
        msg = f"'==' on '{field}' needs a string, number, boolean or null, got {type(value).__name__}"
        raise FilterError(msg, {"field": field})

    def _any_value(self, field: str, values: list[Any]) -> Any:
        if not values:
            return self.nothing()  # "in []" matches no document
        if all(isinstance(v, str) for v in values) or all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            return self.match_any(field, values)
        return self.any_of([self._equals(field, v) for v in values])

    def _range(self, field: str, operator: str, value: Any) -> Any:
        bound = {RANGE_KEYS[operator]: value}
        if isinstance(value, bool) or value is None:
            msg = f"'{operator}' on '{field}' needs a number or an ISO date, got {value!r}"
            raise FilterError(msg, {"field": field, "operator": operator})
        if isinstance(value, int | float):
            return self.range_number(field, **{k: float(v) for k, v in bound.items()})
        if isinstance(value, str):
            try:
                datetime.fromisoformat(value)
            except ValueError as error:
                msg = f"'{operator}' on '{field}' needs a number or an ISO 8601 date, got {value!r}"
                raise FilterError(msg, {"field": field, "operator": operator}) from error
            return self.range_datetime(field, **bound)
        msg = f"'{operator}' on '{field}' needs a number or an ISO date, got {type(value).__name__}"
        raise FilterError(msg, {"field": field, "operator": operator})

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
    def is_empty(self, field: str) -> Any: ...

    @abstractmethod
    def range_number(self, field: str, **bounds: float) -> Any: ...

    @abstractmethod
    def range_datetime(self, field: str, **bounds: str) -> Any: ...

    @abstractmethod
    def text(self, field: str, operator: str, value: str) -> Any: ...

    @abstractmethod
    def nothing(self) -> Any:
        """A condition no document satisfies."""
