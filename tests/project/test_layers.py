"""The package's layers import only downward, only the loader (and the entry points) read Settings, and a
project's components import haygate's public API alone.

Every `import` in every module counts, including imports inside functions, so a cycle cannot hide.
Run alone: `pytest tests/project/test_layers.py`.
"""

import ast
from pathlib import Path

import pytest

from haygate.templates import CHECKOUT, TEMPLATES

PACKAGE = Path(__file__).resolve().parents[2] / "haygate"
PUBLIC_API = "haygate.api"

# Lowest first. A module may import its own layer and the layers below it.
LAYERS = [
    [
        "haygate",
        "haygate._env",
        "haygate.compat",  # Haystack's internals; imports no other haygate module (tests/unit/test_compat.py)
        "haygate.errors",
        "haygate.extras",
        "haygate.settings",
        "haygate.templates",
        "haygate.logs",
        "haygate.home",
        "haygate.yamlfile",
    ],
    ["haygate.text"],
    ["haygate.document_stores"],
    ["haygate.components"],
    ["haygate.ingest"],
    ["haygate.api"],  # what a project's components may import: re-exports of the layers below
    ["haygate.gateway"],
    ["haygate.server"],  # the service, MCP, the REST routes, the client
    ["haygate.console"],  # the console's pages, Judge tab and routes, on the server's core
    ["haygate.serve"],  # `haygate serve`: the apps that mount both, and their transports
    ["haygate.evaluation"],
    ["haygate.cli", "haygate.commands", "haygate.remote"],
]
SETTINGS_READERS = {
    "haygate.gateway.loader",
    "haygate.gateway.catalog",
    "haygate.gateway.workspace",  # an operation run here: the loader it opens is built from the settings
    "haygate.gateway.operations",  # a workspace's settings: where the project's declaration files are
    "haygate.server.service",
    "haygate.server.telemetry",  # the service's logs, metrics and traces: built with it, from the same settings
    "haygate.commands",
    "haygate.remote",
    "haygate.logs",  # the log format a deployment chooses (HAYGATE_LOG_FORMAT)
    "haygate.evaluation.runner",
    "haygate.evaluation.tune",
    "haygate.evaluation.tools",
    "haygate.cli",
}


def layer_of(module: str) -> int:
    best, level = -1, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, level = len(prefix), index
    assert level >= 0, f"{module} is in no layer; add it to LAYERS"
    return level


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every haygate module a file imports, at any depth of the file (functions included)."""
    return {name for name in _all_imports(path) if name == "haygate" or name.startswith("haygate.")}


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: module_name(p))
def test_imports_point_down(path: Path) -> None:
    module = module_name(path)
    upward = [name for name in imports_of(path) if layer_of(name) > layer_of(module)]
    assert not upward, f"{module} (layer {layer_of(module)}) imports higher layers: {upward}"


def test_only_the_loader_and_entry_points_read_settings() -> None:
    readers = {module_name(p) for p in MODULES if "haygate.settings" in imports_of(p)}
    assert readers <= SETTINGS_READERS, readers - SETTINGS_READERS


def test_nothing_writes_the_environment() -> None:
    """Settings travel as objects; only the offline defaults are set (with setdefault) at import."""
    for path in MODULES:
        text = path.read_text()
        if module_name(path) != "haygate._env":
            assert "os.environ[" not in text and "os.environ.pop" not in text, module_name(path)


def test_the_checker_sees_an_upward_import(tmp_path: Path) -> None:
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text("def f():\n    from haygate.gateway.loader import Loader\n")
    assert imports_of(sneaky) == {"haygate.gateway.loader"}
    assert layer_of("haygate.gateway.loader") > layer_of("haygate.components.query_builder")


def test_the_package_never_imports_a_project() -> None:
    """`haygate` is the machinery; the top-level `components` package is one project's (its home's), which
    the loader imports by name for that project's pipelines, never by an import in haygate's code."""
    importers = [module_name(p) for p in MODULES if any(n.split(".")[0] == "components" for n in _all_imports(p))]
    assert importers == [], importers


def _all_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def project_component_files() -> list[Path]:
    """This repository's `components/` and every Python file `haygate init` copies into a new project."""
    copied = {CHECKOUT / "components"} | {CHECKOUT / p for t in TEMPLATES.values() for p in t.paths}
    files = {f for root in copied for f in ([root] if root.is_file() else root.rglob("*.py")) if f.suffix == ".py"}
    return sorted(files)


def test_there_are_project_components_to_check() -> None:
    assert any(path.parent.name == "components" for path in project_component_files())


@pytest.mark.parametrize("path", project_component_files(), ids=lambda p: str(p.relative_to(CHECKOUT)))
def test_a_project_imports_only_the_public_api(path: Path) -> None:
    """What a project's components may use of haygate is `haygate.api`: the rest may change under them."""
    inner = sorted(name for name in imports_of(path) if name != PUBLIC_API)
    assert not inner, f"{path.relative_to(CHECKOUT)} imports {inner}; import them from {PUBLIC_API}"


def test_the_public_api_names_what_it_exports() -> None:
    import haygate.api

    assert sorted(haygate.api.__all__) == sorted(set(haygate.api.__all__))
    assert all(hasattr(haygate.api, name) for name in haygate.api.__all__)


# -- the tests' own layout ----------------------------------------------------------------------------------------

TESTS = Path(__file__).resolve().parents[1]


def mirrored_module(test: Path) -> str | None:
    """The package module a unit test module stands for (`tests/unit/server/test_service.py` ->
    `haygate/server/service.py`; `test_<module>_<aspect>.py` where one module has several), or None."""
    folder = PACKAGE / test.parent.relative_to(TESTS / "unit")
    name = test.stem.removeprefix("test_")
    modules = [p.stem for p in folder.glob("*.py")] + [p.name for p in folder.iterdir() if (p / "__init__.py").exists()]
    found = [m for m in modules if name == m.lstrip("_") or name.startswith(m.lstrip("_") + "_")]
    return str(folder.relative_to(PACKAGE.parent) / max(found, key=len)) if found else None


@pytest.mark.parametrize("test", sorted((TESTS / "unit").rglob("test_*.py")), ids=lambda p: p.name)
def test_unit_tests_mirror_the_package(test: Path) -> None:
    assert mirrored_module(test), f"{test.relative_to(TESTS)} tests no module of haygate/ at its place"


def test_the_mirror_check_sees_a_test_out_of_place() -> None:
    assert mirrored_module(TESTS / "unit" / "server" / "test_service.py") == "haygate/server/service"
    assert mirrored_module(TESTS / "unit" / "gateway" / "test_service.py") is None


def test_no_test_imports_the_conftest() -> None:
    """Fixtures come from conftest.py by name; what tests import lives in tests/support/."""
    importing = [str(path.relative_to(TESTS)) for path in TESTS.rglob("*.py") if "tests.conftest" in _all_imports(path)]
    assert importing == []


MAX_MODULE_LINES = 700
MAX_FUNCTION_LINES = 80


def test_no_module_is_over_700_lines_nor_a_function_over_80() -> None:
    """Rooms a newcomer can read whole: a module that grows past this is split by concern, a function by step."""
    long_modules, long_functions = [], []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        where = path.relative_to(PACKAGE.parent)
        if text.count("\n") > MAX_MODULE_LINES:
            long_modules.append(f"{where}: {text.count(chr(10))} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long_functions.append(f"{where}:{node.lineno} {node.name}: {lines} lines")
    assert long_modules == [] and long_functions == []
