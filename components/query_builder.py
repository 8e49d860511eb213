"""`QueryBuilder`: validated tool arguments -> query text, Haystack filters and retrieval settings.

Everything is declared in the pipeline YAML: which argument is the query, which arguments become which
filter conditions, and which pass through as settings. Server-side filters (`fixed_filters`, and the
tenant condition) are ANDed in last, so no argument can widen them.
"""

from typing import Any

from haystack import component, default_from_dict, default_to_dict
from jinja2 import TemplateSyntaxError
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from components.errors import ConfigurationError, InvalidRequestError
from components.text import slug_path

_TRANSFORMS = {"slug_path": slug_path, "lower": str.lower, "strip": str.strip}


def join_and(items: list[Any] | None) -> str:
    """["a", "b", "c"] -> "a, b and c" for query templates."""
    words = [str(i) for i in items or []]
    return " and ".join(words) if len(words) <= 2 else ", ".join(words[:-1]) + " and " + words[-1]


_JINJA = SandboxedEnvironment(autoescape=False)
_JINJA.filters["join_and"] = join_and
_OPERATORS = ("==", "!=", ">", ">=", "<", "<=", "in", "not in")


class FilterRule(BaseModel):
    """How one argument becomes one filter condition."""

    model_config = ConfigDict(extra="forbid")
    field: str = Field(description="Payload path, e.g. meta.version.")
    operator: str = "=="
    transform: str | None = Field(default=None, description=f"One of {sorted(_TRANSFORMS)}.")
    ignore: list[Any] = Field(default_factory=list, description="Values that mean 'no filter', e.g. mixed.")
    report: bool = Field(default=True, description="List it in applied_filters (false for server-fixed arguments).")


@component
class QueryBuilder:
    def __init__(
        self,
        query_argument: str = "query",
        top_k_argument: str | None = None,
        filters: dict[str, dict[str, Any]] | None = None,
        settings: dict[str, str] | None = None,
        fixed_filters: list[dict[str, Any]] | None = None,
        query_template: str | None = None,
        query_required: bool = True,
    ) -> None:
        """
        :param query_argument: the argument holding the query text.
        :param top_k_argument: the argument holding how many results the caller wants.
        :param filters: argument name -> FilterRule (`field`, `operator`, `transform`, `ignore`).
        :param settings: output name (`rrf_k`, `min_score`) -> argument name.
        :param fixed_filters: Haystack conditions always applied; callers cannot remove them.
        :param query_template: optional Jinja2 template (sandboxed) over the arguments, for tools whose query
            text is composed from structured arguments; `join_and` joins a list as "a, b and c".
        :param query_required: when false, a missing query means "no ranking": the retriever lists by filter.
        """
        self.query_argument = query_argument
        self.top_k_argument = top_k_argument
        self.filters = dict(filters or {})
        self.settings = dict(settings or {})
        self.fixed_filters = list(fixed_filters or [])
        self.query_template = query_template
        self.query_required = query_required
        self._template = None
        if query_template:
            try:
                self._template = _JINJA.from_string(query_template)
            except TemplateSyntaxError as error:
                msg = f"query_template: {error.message} at line {error.lineno}"
                raise ConfigurationError(msg) from error
        try:
            self._rules = {name: FilterRule.model_validate(rule) for name, rule in self.filters.items()}
        except ValidationError as error:
            msg = f"invalid filter rule in query_builder: {error.errors()[0]['msg']}"
            raise ConfigurationError(msg) from error
        for name, rule in self._rules.items():
            if rule.operator not in _OPERATORS:
                msg = f"filter rule '{name}': unknown operator '{rule.operator}'; allowed: {', '.join(_OPERATORS)}"
                raise ConfigurationError(msg)
            if rule.transform is not None and rule.transform not in _TRANSFORMS:
                msg = f"filter rule '{name}': unknown transform '{rule.transform}'; allowed: {sorted(_TRANSFORMS)}"
                raise ConfigurationError(msg)
        unknown_settings = set(self.settings) - {"rrf_k", "min_score"}
        if unknown_settings:
            msg = f"unknown query_builder settings {sorted(unknown_settings)}; allowed: min_score, rrf_k"
            raise ConfigurationError(msg)

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            query_argument=self.query_argument,
            top_k_argument=self.top_k_argument,
            filters=self.filters,
            settings=self.settings,
            fixed_filters=self.fixed_filters,
            query_template=self.query_template,
            query_required=self.query_required,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "QueryBuilder":
        return default_from_dict(cls, data)

    @component.output_types(
        query=str,
        filters=dict[str, Any] | None,
        applied_filters=dict[str, Any],
        top_k=int | None,
        rrf_k=int | None,
        min_score=float | None,
        arguments=dict[str, Any],
    )
    def run(self, arguments: dict[str, Any], server_filters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """
        :param arguments: the tool's validated arguments.
        :param server_filters: conditions the gateway adds (tenant); ANDed like `fixed_filters`.
        """
        query = self._query_text(arguments)
        conditions: list[dict[str, Any]] = []
        applied: dict[str, Any] = {}
        for name, rule in self._rules.items():
            value = arguments.get(name)
            if value is None or value in rule.ignore:
                continue
            if rule.transform:
                value = _TRANSFORMS[rule.transform](value)
            if rule.report:
                applied[name] = value
            conditions.append({"field": rule.field, "operator": rule.operator, "value": value})
        conditions.extend(self.fixed_filters)
        conditions.extend(server_filters or [])
        filters = {"operator": "AND", "conditions": conditions} if conditions else None
        top_k = arguments.get(self.top_k_argument) if self.top_k_argument else None
        return {
            "query": query,
            "filters": filters,
            "applied_filters": applied,
            "top_k": top_k,
            "rrf_k": arguments.get(self.settings["rrf_k"]) if "rrf_k" in self.settings else None,
            "min_score": arguments.get(self.settings["min_score"]) if "min_score" in self.settings else None,
            "arguments": arguments,
        }

    def _query_text(self, arguments: dict[str, Any]) -> str:
        if self._template is not None:
            return " ".join(self._template.render(**arguments).split())
        text = arguments.get(self.query_argument)
        if not self.query_required and (text is None or (isinstance(text, str) and not text.strip())):
            return ""
        if not isinstance(text, str) or not text.strip():
            msg = f"'{self.query_argument}' must be a non-empty string"
            raise InvalidRequestError(msg, {"field": self.query_argument})
        return text.strip()
