"""Sandboxed Jinja templates for YAML authors: a record's text, a tool's query sentence."""

from functools import cache
from typing import Any

from jinja2 import ChainableUndefined, Template
from jinja2.meta import find_undeclared_variables
from jinja2.sandbox import SandboxedEnvironment


def join_and(items: list[Any] | None) -> str:
    """["a", "b", "c"] -> "a, b and c"."""
    words = [str(i) for i in items or []]
    return " and ".join(words) if len(words) <= 2 else ", ".join(words[:-1]) + " and " + words[-1]


def _shown(value: Any) -> Any:
    """A null field prints as nothing, as a missing one does (Jinja would print "None", and index it)."""
    return "" if value is None else value


# Missing and null fields render as empty, so one template serves records of several shapes.
ENVIRONMENT = SandboxedEnvironment(autoescape=False, undefined=ChainableUndefined, finalize=_shown)
ENVIRONMENT.filters["join_and"] = join_and


@cache
def compile_template(source: str) -> Template:
    """A compiled template; raises jinja2.TemplateSyntaxError with the line of the problem."""
    return ENVIRONMENT.from_string(source)


def variables_of(source: str) -> list[str]:
    """The names a template reads, sorted: they become a component's input sockets."""
    return sorted(find_undeclared_variables(ENVIRONMENT.parse(source)))


def render_line(source: str, values: dict[str, Any]) -> str:
    """Render and fold all whitespace to single spaces: templates span YAML lines, the result is one line."""
    return " ".join(compile_template(source).render(**values).split())
