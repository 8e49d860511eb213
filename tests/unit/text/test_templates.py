"""Sandboxed templates for YAML authors."""

import pytest
from jinja2.exceptions import SecurityError

from haygate.text.templates import join_and, render_line, variables_of


def test_join_and() -> None:
    assert [join_and(x) for x in (None, ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b", "a, b and c"]


def test_render_line_folds_whitespace_and_lists_variables() -> None:
    template = "Find {{ level ~ ' ' if level }}people\n with {{ skills | join_and }}"
    assert render_line(template, {"level": None, "skills": ["Go", "SQL"]}) == "Find people with Go and SQL"
    assert variables_of(template) == ["level", "skills"]


def test_templates_are_sandboxed() -> None:
    """Unsafe attributes are not reachable: they render as nothing, and calling into them is refused."""
    assert render_line("{{ x.__class__.__mro__ }}", {"x": 1}) == ""
    with pytest.raises(SecurityError):
        render_line("{{ x.format.__globals__ }}{{ ''.format.__self__.__class__.mro() }}", {"x": "s"})


def test_a_null_field_renders_as_nothing_like_a_missing_one() -> None:
    """A record's `"user_stories": null` must not put the word "None" into the indexed text."""
    template = "{{ title }} {{ user_stories }} {{ absent }}"
    assert render_line(template, {"title": "Checkout", "user_stories": None}) == "Checkout"
    assert render_line("{{ n }} {{ flag }}", {"n": 0, "flag": False}) == "0 False"  # only null is nothing
