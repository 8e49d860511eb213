"""`QueryBuilder`: a tool's query text and Haystack filters, from typed input sockets.

Its sockets are declared in the pipeline YAML, not in code: `query` (the query text), one socket per
filter rule (`version: {field: meta.version}` makes a `version` socket whose value becomes the condition
`meta.version == value`), one per variable of `query_template`, and `server_filters`. Server-side
conditions (`fixed_filters`, and the tenant condition the gateway sends to `server_filters`) are ANDed in
last, so no argument can widen them.
"""

from collections.abc import Callable
from functools import partial
from typing import Any

from haystack import component, default_from_dict, default_to_dict
from jinja2 import TemplateSyntaxError
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from haygate.errors import ConfigurationError, InvalidRequestError
from haygate.text.normalise import slug_path
from haygate.text.templates import compile_template, render_line, variables_of

TRANSFORMS: dict[str, Callable[[str], str]] = {"slug_path": slug_path, "lower": str.lower, "strip": str.strip}
# A switch that leaves something out unless asked: `changelogs: false` -> `meta.changelog != true`.
NEGATE = "negate"
OPERATORS = ("==", "!=", ">", ">=", "<", "<=", "in", "not in")
QUERY = "query"
SERVER_FILTERS = "server_filters"  # the input the gateway feeds the tenant condition to; no caller reaches it


class FilterRule(BaseModel):
    """How one socket's value becomes one filter condition."""

    model_config = ConfigDict(extra="forbid")
    field: str = Field(description="Payload path, e.g. meta.version.")
    operator: str = "=="
    transform: str | list[str] | None = Field(
        default=None, description=f"One of {sorted([*TRANSFORMS, NEGATE])}, or a list of them applied in order."
    )

    @property
    def transforms(self) -> list[str]:
        """The transforms applied to the value, in order."""
        return [self.transform] if isinstance(self.transform, str) else list(self.transform or [])

    ignore: list[Any] = Field(default_factory=list, description="Values that mean 'no filter', e.g. mixed.")
    prefix: str | None = Field(
        default=None,
        description='The canonical prefix of the ids the field holds ("product:"): added to a value (or to each '
        'item of a list) that lacks it, so "598" finds "product:598", as the collection stores it.',
    )
    report: bool = Field(default=True, description="List it in applied_filters (false for server-fixed values).")


@component
class QueryBuilder:
    """Builds a tool's query text and Haystack filters from typed input sockets.

    Its sockets are declared in the pipeline YAML, not in code: `query`, one socket per filter rule
    (`version: {field: meta.version}` makes a `version` socket whose value becomes the condition
    `meta.version == value`), one per variable of `query_template`, and `server_filters`. Server-side
    conditions (`fixed_filters`, and the tenant condition the gateway sends to `server_filters`) are ANDed in
    last, so no argument can widen them.

    ### Usage example

    ```python
    from haygate.components.query_builder import QueryBuilder

    builder = QueryBuilder(
        filters={"version": {"field": "meta.version"}},
        fixed_filters=[{"field": "meta.public", "operator": "==", "value": True}],
    )
    result = builder.run(query="install", version="1.0")
    print(result["query"], result["filters"])
    ```
    """

    stage = "query_building"  # what telemetry times its runs as (haygate.api.Stage)

    def __init__(
        self,
        filters: dict[str, dict[str, Any]] | None = None,
        fixed_filters: list[dict[str, Any]] | None = None,
        query_template: str | None = None,
        query_required: bool = True,
    ) -> None:
        """Check the filter rules and the template; each becomes input sockets.

        :param filters: socket name -> FilterRule (`field`, `operator`, `transform`, `ignore`, `report`).
        :param fixed_filters: Haystack conditions always applied; callers cannot remove them.
        :param query_template: optional sandboxed Jinja template whose variables become sockets, for tools
            whose query text is composed from structured arguments; `join_and` joins a list as "a, b and c".
        :param query_required: when false, a missing query means "no ranking": the retriever lists by filter.
        """
        self.filters = dict(filters or {})
        self.fixed_filters = list(fixed_filters or [])
        self.query_template = query_template
        self.query_required = query_required
        try:
            self._rules = {name: FilterRule.model_validate(rule) for name, rule in self.filters.items()}
        except ValidationError as error:
            msg = f"invalid filter rule in query_builder: {error.errors()[0]['msg']}"
            raise ConfigurationError(msg) from error
        for name, rule in self._rules.items():
            if rule.operator not in OPERATORS:
                msg = f"filter rule '{name}': unknown operator '{rule.operator}'; allowed: {', '.join(OPERATORS)}"
                raise ConfigurationError(msg)
            for transform in rule.transforms:
                if transform not in TRANSFORMS and transform != NEGATE:
                    allowed = sorted([*TRANSFORMS, NEGATE])
                    msg = f"filter rule '{name}': unknown transform '{transform}'; allowed: {allowed}"
                    raise ConfigurationError(msg)
        self._variables: list[str] = []
        if query_template:
            try:
                compile_template(query_template)
            except TemplateSyntaxError as error:
                msg = f"query_template: {error.message} at line {error.lineno}"
                raise ConfigurationError(msg) from error
            self._variables = variables_of(query_template)
        sockets = {QUERY, *self._rules, *self._variables, SERVER_FILTERS}
        for name in sorted(sockets):
            component.set_input_type(self, name, Any, None)

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            filters=self.filters,
            fixed_filters=self.fixed_filters,
            query_template=self.query_template,
            query_required=self.query_required,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "QueryBuilder":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(
        query=str,
        filters=dict[str, Any] | None,
        applied_filters=dict[str, Any],
        checks=dict[str, dict[str, Any]],
        switches=dict[str, dict[str, Any]],
    )
    def run(self, **inputs: Any) -> dict[str, Any]:
        """Build the query text and one AND of every condition.

        :param inputs: `query`, the filter-rule and template sockets, and `server_filters` (conditions the
            gateway adds, such as the tenant; ANDed like `fixed_filters`).
        :returns: `query` (the text to rank by; empty when there is none and `query_required` is false),
            `filters` (one AND of every condition, or None), `applied_filters` (what the caller asked for) and
            `checks`: for each of the caller's filters, that filter alone within the server's conditions, so
            `FilterCheck` can tell a value no record has from a query that found nothing; `switches`: for each
            switch that leaves records out (a `negate` rule: `changelogs: false`), its condition (`switch`) and
            every other one (`others`), so `FilterCheck` can say when the switch alone emptied the answer.
        """
        conditions: list[dict[str, Any]] = []
        applied: dict[str, Any] = {}
        own: dict[str, dict[str, Any]] = {}
        switched: dict[str, dict[str, Any]] = {}
        for name, rule in self._rules.items():
            value = inputs.get(name)
            if value is None or value in rule.ignore:
                continue
            for transform in rule.transforms:  # negate takes a switch; the others change text
                value = (not value) if transform == NEGATE else _each(value, TRANSFORMS[transform])
            reported = value  # as the caller means it: 598, not the stored "product:598"
            if rule.prefix:  # the collection stores typed ids: 598 and "598" become "product:598"
                value = _each(_as_text(value), partial(_prefixed, rule.prefix))
            condition = {"field": rule.field, "operator": rule.operator, "value": value}
            if rule.report:
                applied[name] = reported
                own[name] = condition
            if NEGATE in rule.transforms:
                switched[name] = condition
            conditions.append(condition)
        server = [*self.fixed_filters, *(inputs.get(SERVER_FILTERS) or [])]
        conditions.extend(server)
        return {
            "query": self._query_text(inputs),
            "filters": {"operator": "AND", "conditions": conditions} if conditions else None,
            "applied_filters": applied,
            "checks": {name: {"operator": "AND", "conditions": [c, *server]} for name, c in own.items()},
            "switches": {
                name: {"switch": switch, "others": [c for c in conditions if c is not switch]}
                for name, switch in switched.items()
            },
        }

    def _query_text(self, inputs: dict[str, Any]) -> str:
        if self.query_template is not None:
            return render_line(self.query_template, {name: inputs.get(name) for name in self._variables})
        text = inputs.get(QUERY)
        if not self.query_required and (text is None or (isinstance(text, str) and not text.strip())):
            return ""
        if not isinstance(text, str) or not text.strip():
            msg = f"'{QUERY}' must be a non-empty string"
            raise InvalidRequestError(msg, {"field": QUERY})
        return text.strip()


def _each(value: Any, change: Callable[[str], str]) -> Any:
    """Apply a string change to a value, or to every string of a list value."""
    if isinstance(value, list):
        return [change(v) if isinstance(v, str) else v for v in value]
    return change(value) if isinstance(value, str) else value


def _as_text(value: Any) -> Any:
    """Integers (an id sent as 598) as their decimal text, alone or in a list; anything else as it is."""
    if isinstance(value, list):
        return [_as_text(v) for v in value]
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _prefixed(prefix: str, value: str) -> str:
    return value if value.startswith(prefix) else prefix + value
