"""Typed record fields: each collection says what its fields are, and ingest holds records to it.

Records arrive in many shapes: an id as `598` where the collection keys on strings, an `_id` where it
keys on `id`, a mongoexport `{"$oid": ...}`, a year as `"2024"`. What is safely coercible is coerced; what
is not is refused with the field and the reason, so nothing reaches the store, and through it a tool's
structured result, in a type its schema does not allow.

Safe means no information is lost or invented: an integer becomes its decimal string, a digit string
becomes an integer, one value becomes a one-item list. A float is never turned into a string (`3.10`
would come back as `"3.1"`), nor a non-integral float into an integer.
"""

import re
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from haygate.text.templates import render_line

Scalar = Literal["string", "integer", "number", "boolean", "datetime", "object"]
INTEGER = re.compile(r"^[+-]?\d+$")
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


class FieldSpec(BaseModel):
    """One declared record field."""

    model_config = ConfigDict(extra="forbid")
    type: Scalar | Literal["list"] = Field(description="The field's type; a list names its items' type in `items`.")
    items: Scalar | None = Field(default=None, description="The type of a list's items.")
    aliases: list[str] = Field(default_factory=list, description="Other names the field may arrive under.")
    prefix: str | None = Field(
        default=None,
        description='Canonical prefix of a string id, a template over the record: "product:" or '
        '"{{ entity_type }}:"; added when the value lacks it, so 598 and "product:598" are one id.',
    )
    case: Literal["lower"] | None = Field(default=None, description="Fold strings to lower case.")
    required: bool = Field(default=False, description="A record without it is refused (a tool's result needs it).")
    enum: list[Any] | None = Field(default=None, description="The values it may take (after coercion and case).")
    default: Any = Field(default=None, description="The value a record without it gets, e.g. [] for a list.")

    def model_post_init(self, __context: Any) -> None:
        if self.type == "list" and self.items is None:
            raise ValueError("a list field needs `items:` (the type of its items)")
        if self.type != "list" and self.items is not None:
            raise ValueError("`items:` is for list fields")


def typed_record(record: dict[str, Any], fields: dict[str, FieldSpec]) -> dict[str, Any]:
    """The record with its declared fields in their declared types.

    :raises ValueError: naming the field and why its value cannot be taken.
    """
    typed = dict(record)
    for name, spec in fields.items():
        value = typed.get(name)
        if value is None:
            value = next((typed[a] for a in spec.aliases if typed.get(a) is not None), None)
        if value is None:
            if spec.required:
                raise ValueError(f"field '{name}' is required")
            if spec.default is not None:
                typed[name] = spec.default
            continue
        try:
            typed[name] = _field_value(value, spec, typed)
        except ValueError as error:
            raise ValueError(f"field '{name}': {error}") from None
        if spec.enum is not None and typed[name] not in spec.enum:
            allowed = ", ".join(map(str, spec.enum))
            raise ValueError(f"field '{name}': {typed[name]!r} is not one of {allowed}")
    return typed


def _field_value(value: Any, spec: FieldSpec, record: dict[str, Any]) -> Any:
    if spec.type == "list":
        items = value if isinstance(value, list) else [value]
        assert spec.items is not None
        return [_finish(_scalar(item, spec.items), spec, record) for item in items]
    return _finish(_scalar(value, spec.type), spec, record)


def _finish(value: Any, spec: FieldSpec, record: dict[str, Any]) -> Any:
    if isinstance(value, str):
        if spec.case == "lower":
            value = value.lower()
        if spec.prefix:
            prefix = render_line(spec.prefix, record)
            if prefix and not value.startswith(prefix):
                value = prefix + value
    return value


def _scalar(value: Any, kind: Scalar) -> Any:
    value = _unwrap_extended_json(value)
    coerced = _COERCE[kind](value)
    if coerced is _REFUSED:
        shown = type(value).__name__ if isinstance(value, (dict, list)) else repr(value)
        hint = "; quote it as the text you mean" if kind == "string" and isinstance(value, float) else ""
        raise ValueError(f"expected {_EXPECTED[kind]}, got {shown}{hint}")
    return coerced


_REFUSED = object()


def _as_string(value: Any) -> Any:
    if isinstance(value, str):
        return value
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else _REFUSED


def _as_integer(value: Any) -> Any:
    if isinstance(value, bool):
        return _REFUSED
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return int(value) if isinstance(value, str) and INTEGER.match(value.strip()) else _REFUSED


def _as_number(value: Any) -> Any:
    if isinstance(value, bool):
        return _REFUSED
    if isinstance(value, (int, float)):
        return value
    return float(value) if isinstance(value, str) and NUMBER.match(value.strip()) else _REFUSED


def _as_boolean(value: Any) -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return _REFUSED


def _as_datetime(value: Any) -> Any:
    return value if isinstance(value, str) and _is_iso_datetime(value) else _REFUSED


def _as_object(value: Any) -> Any:
    return value if isinstance(value, dict) else _REFUSED


_COERCE = {
    "string": _as_string,
    "integer": _as_integer,
    "number": _as_number,
    "boolean": _as_boolean,
    "datetime": _as_datetime,
    "object": _as_object,
}
_EXPECTED = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "datetime": "an ISO 8601 date or datetime",
    "object": "an object",
}


def _is_iso_datetime(text: str) -> bool:
    try:
        datetime.fromisoformat(text.strip())
    except ValueError:
        return False
    return True


def _unwrap_extended_json(value: Any) -> Any:
    """mongoexport's extended JSON: `{"$oid": "..."}`, `{"$date": ...}`, `{"$numberLong": "..."}`."""
    if not isinstance(value, dict) or len(value) != 1:
        return value
    ((key, inner),) = value.items()
    if key == "$oid" and isinstance(inner, str):
        return inner
    if key in ("$numberInt", "$numberLong") and isinstance(inner, str) and INTEGER.match(inner):
        return int(inner)
    if key == "$numberDouble" and isinstance(inner, str) and NUMBER.match(inner):
        return float(inner)
    if key == "$date":
        if isinstance(inner, str):
            return inner
        millis = _unwrap_extended_json(inner)
        if isinstance(millis, int) and not isinstance(millis, bool):
            return datetime.fromtimestamp(millis / 1000, tz=UTC).isoformat().replace("+00:00", "Z")
    return value
