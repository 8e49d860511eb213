"""Every component's class docstring has a usage example (Haystack's `### Usage example`), and it runs.

The components are haygate's (`haygate.components.*`) and this project's (`components.*`): each example is
executed as written, in a fresh namespace, in a temporary folder (where its stores and files go).
"""

import importlib
import inspect
import os
import pkgutil
import re
from pathlib import Path

import pytest
from haystack.core.component import Component

import components
import haygate.components

USAGE = re.compile(r"### Usage example\n\s*```python\n(.*?)\n\s*```", re.S)


def component_classes() -> list[type]:
    """Every public `@component` class defined in the two packages (not one they import)."""
    found: list[type] = []
    for package in (haygate.components, components):
        for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for name, value in vars(module).items():
                if (
                    inspect.isclass(value)
                    and isinstance(value, Component)
                    and value.__module__ == module.__name__
                    and not name.startswith("_")
                ):
                    found.append(value)
    return sorted(found, key=lambda cls: f"{cls.__module__}.{cls.__name__}")


CLASSES = component_classes()


def usage_example(cls: type) -> str:
    docstring = inspect.getdoc(cls) or ""
    summary = docstring.split("\n", 1)[0]
    assert summary.endswith("."), f"{cls.__name__}: the docstring opens with a one-line summary, got {summary!r}"
    found = USAGE.search(docstring)
    assert found, f"{cls.__name__}: no `### Usage example` with a ```python block in its class docstring"
    return inspect.cleandoc(found.group(1))


def test_both_packages_are_seen() -> None:
    modules = {cls.__module__.split(".")[0] for cls in CLASSES}
    assert modules == {"haygate", "components"} and len(CLASSES) >= 20


@pytest.mark.budget(6, "the embedders' and CV components' examples load the packaged model (about 1 s)")
@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_the_usage_example_runs(cls: type, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = usage_example(cls)
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": f"usage_example_{cls.__name__}"}
    exec(compile(code, f"<{cls.__name__} usage example>", "exec"), namespace)
    assert os.getcwd() == str(tmp_path)
