"""The site's Reference pages (docs/reference.py, rendered without building the site) hold everything the code
declares: every command and option, setting, YAML key, error code and component.

Each expectation is read from the code here, independently of how the pages are rendered: the parser, the
models' fields, the error classes' codes and the exit status `haygate` really returns for each, and the
`@component` classes found in the source.
"""

import argparse
import ast
import html
import json
import re
from pathlib import Path
from types import ModuleType

import pytest
from haystack import Pipeline
from pydantic import BaseModel

from haygate import cli, errors
from haygate.components.chunk_ids import ChunkIds
from haygate.errors import ExitCode
from haygate.gateway.declarations import ParameterSpec, ToolDeclaration
from haygate.gateway.loader import INTERFACE_KEYS
from haygate.ingest.fields import FieldSpec
from haygate.ingest.report import IngestReport, Refusal
from haygate.ingest.schema import CollectionSchema, RecordMapping, StorageSettings
from haygate.settings import Settings
from tests.support.project import docs_reference

PROJECT = Path(__file__).resolve().parents[2]
# Each YAML model and the section of the YAML page that lists its keys.
YAML_MODELS: dict[type[BaseModel], str] = {
    ToolDeclaration: "tool",
    ParameterSpec: "tool-parameters-name",
    CollectionSchema: "collection",
    RecordMapping: "collection-record",
    FieldSpec: "collection-record-fields-name",
    StorageSettings: "collection-storage",
}


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    return docs_reference()


@pytest.fixture(scope="module")
def pages(reference: ModuleType) -> dict[str, str]:
    return {path: render() for path, render in reference.PAGES.items()}


def plain(markdown: str) -> str:
    """Markdown as a reader sees its words: backslash escapes and entities undone."""
    return html.unescape(re.sub(r"\\(.)", r"\1", markdown))


def sections(page: str, level: str = "## ") -> dict[str, str]:
    """Heading text (without its `{#id}`) -> the text up to the next heading of that level or above."""
    found: dict[str, str] = {}
    parts = re.split(rf"^({re.escape(level)}.*)$", page, flags=re.M)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        found[re.sub(r"\s*\{#[^}]*\}$", "", heading[len(level) :])] = body
    return found


def section_by_id(page: str, anchor: str) -> str:
    """The text under the heading whose id is `anchor`, up to the next heading."""
    match = re.search(rf"^#+ .*\{{#{re.escape(anchor)}\}}$\n(.*?)(?=^#+ |\Z)", page, flags=re.M | re.S)
    assert match, f"no heading with id {anchor}"
    return match.group(1)


def row(section: str, first_cell: str) -> str:
    """The table row whose first cell is `first_cell` (as written, code span included)."""
    match = re.search(rf"^\| {re.escape(first_cell)} \|.*$", section, flags=re.M)
    assert match, f"no row for {first_cell}"
    return match.group(0)


def argument_row(section: str, argument: str) -> str:
    """The row of a CLI table whose first cell writes `argument` (alone, among its flags, or before a value)."""
    match = re.search(rf"^\| `(?:[^`]*, )?{re.escape(argument)}(?:[ ,][^`]*)?` \|.*$", section, flags=re.M)
    return match.group(0) if match else ""


def test_every_page_of_the_nav_is_rendered(reference: ModuleType) -> None:
    nav = re.findall(r"^\s+- [^:\n]+: (reference/\S+\.md)$", (PROJECT / "mkdocs.yml").read_text(), flags=re.M)
    assert nav and sorted(reference.PAGES) == sorted(nav)


def test_settings_page_has_every_variable_with_its_description(pages: dict[str, str]) -> None:
    page = pages["reference/settings.md"]
    for name, field in Settings.model_fields.items():
        assert field.description, f"Settings.{name} has no description"
        line = row(page, f"`HAYGATE_{name.upper()}`")
        assert plain(field.description) in plain(line)
        if field.default_factory is None:
            shown = json.dumps(field.default, default=str)
            assert f"| `{shown}` |" in line, f"HAYGATE_{name.upper()}: default {field.default!r} not shown"


def test_no_page_shows_a_path_of_the_machine_that_renders_it(pages: dict[str, str]) -> None:
    for path, page in pages.items():
        for local in {str(PROJECT), str(Path.cwd()), str(Path.home())} - {"/"}:
            assert local not in page, f"{path} shows {local}"


def test_cli_page_has_a_section_per_command_with_each_option(pages: dict[str, str]) -> None:
    page = pages["reference/cli.md"]
    parser = cli.build_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    found = {
        title.removeprefix("haygate "): body for title, body in sections(page).items() if title.startswith("haygate ")
    }
    assert list(found) == list(subparsers.choices), "one section per command, in the parser's order"
    assert re.search(r"^## haygate ingest \{#haygate-ingest\}$", page, flags=re.M)
    for name, sub in subparsers.choices.items():
        assert_arguments_shown(name, sub, plain(found[name]))
    in_groups = sections(page, "### ")  # a command group's commands (`haygate judged import trec`)
    for name, sub in leaves(parser):
        assert f"haygate {name}" in in_groups, f"haygate {name}: no section"
        assert_arguments_shown(name, sub, plain(in_groups[f"haygate {name}"]))


def leaves(parser: argparse.ArgumentParser, prefix: str = "") -> list[tuple[str, argparse.ArgumentParser]]:
    """The commands inside command groups, by their whole names."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                nested = leaves(sub, f"{prefix}{name} ")
                found += nested or ([(prefix + name, sub)] if prefix else [])
    return found


def assert_arguments_shown(name: str, sub: argparse.ArgumentParser, body: str) -> None:
    for action in sub._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        for option in action.option_strings or [action.metavar or action.dest]:
            assert argument_row(body, option), f"haygate {name}: {option}"
        if action.help:
            assert action.help in body, f"haygate {name}: help of {action.dest}"
        for choice in action.choices or []:
            assert f"`{choice}`" in body, f"haygate {name}: choice {choice}"
        if action.option_strings and action.default not in (None, False, [], argparse.SUPPRESS):
            assert f"| `{action.default}` |" in argument_row(body, action.option_strings[0]), f"{name}: {option}"


def test_cli_page_gives_every_field_of_the_ingest_report_the_writer_fills(pages: dict[str, str]) -> None:
    report = sections(pages["reference/cli.md"])["The ingest report"]
    written = IngestReport("docs", refused=[Refusal(0, "a.jsonl:1", "no id")]).as_dict()
    for name in [*written, *written["refused"][0]]:
        assert re.search(rf"^\| `{name}` \| `\w+` \| \S", report, flags=re.M), name


def test_cli_page_says_which_options_exclude_each_other(pages: dict[str, str]) -> None:
    evaluate = sections(pages["reference/cli.md"])["haygate eval"]
    assert "Give exactly one of `--dataset`, `--judged`." in evaluate


@pytest.mark.parametrize("code", sorted(errors.BY_CODE))
def test_errors_page_gives_each_code_its_status_and_the_exit_status_haygate_returns(
    code: str, pages: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The exit status is what `haygate.cli.main` really returns when a command raises the error."""
    cls = errors.BY_CODE[code]

    def raising(args: argparse.Namespace) -> int:
        raise cls(f"a {code} for the test", {})

    monkeypatch.setattr(cli, "run", raising)
    monkeypatch.setattr("haygate.logs.configure_logging", lambda *_, **__: None)
    monkeypatch.setattr(cli.faulthandler, "enable", lambda: None)
    monkeypatch.setattr(errors.logger, "disabled", True)
    status = cli.main(["stats"])
    capsys.readouterr()
    cells = [cell.strip() for cell in row(sections(pages["reference/errors.md"])["Codes"], f"`{code}`").split("|")]
    assert cells[2:4] == [str(errors.HTTP_STATUS[code]), str(status)]
    assert plain(" ".join((cls.__doc__ or "").split())) in plain(cells[5])


def test_errors_page_shows_the_envelope_and_every_exit_status(reference: ModuleType, pages: dict[str, str]) -> None:
    page = pages["reference/errors.md"]
    assert re.search(r'"error": \{\s+"code": "NOT_FOUND",\s+"message": .*,\s+"details": \{', page)
    names = {member.name: member.value for member in ExitCode}
    assert set(reference.EXIT_MEANINGS) == set(names), "every exit status has its meaning, and only those"
    exits = sections(page)["Exit codes"]
    for name, value in names.items():
        assert row(exits, str(value)).startswith(f"| {value} | `ExitCode.{name}` |")


def test_yaml_page_has_every_key_of_every_model(pages: dict[str, str]) -> None:
    page = pages["reference/yaml.md"]
    for model, anchor in YAML_MODELS.items():
        keys = section_by_id(page, anchor)
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"
            line = row(keys, f"`{name}`")
            assert plain(field.description) in plain(line), f"{model.__name__}.{name}"
            assert ("| required |" in line) == field.is_required(), f"{model.__name__}.{name}"


def test_pipeline_keys_are_those_the_loader_and_haystack_read(reference: ModuleType, pages: dict[str, str]) -> None:
    keys = {key.name for key in reference.PIPELINE_KEYS}
    assert keys == set(INTERFACE_KEYS) | set(Pipeline().to_dict()), "the table names what is read, and only that"
    one = Pipeline()
    one.add_component("ids", ChunkIds())
    assert {key.name for key in reference.COMPONENT_KEYS} == set(one.to_dict()["components"]["ids"])
    page = section_by_id(pages["reference/yaml.md"], "pipeline-keys")
    for key in keys:
        row(page, f"`{key}`")


def declared_components(package: str, folder: Path) -> set[str]:
    """`package.module.Class` of every class decorated `@component` in the folder's source."""
    found = set()
    for path in folder.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            decorators = [d.func if isinstance(d, ast.Call) else d for d in getattr(node, "decorator_list", [])]
            if isinstance(node, ast.ClassDef) and any(
                getattr(d, "id", None) == "component" or getattr(d, "attr", None) == "component" for d in decorators
            ):
                found.add(f"{package}.{path.stem}.{node.name}")
    return found


def test_components_page_documents_every_component(reference: ModuleType, pages: dict[str, str]) -> None:
    expected = declared_components("haygate.components", PROJECT / "haygate" / "components")
    expected |= declared_components("components", PROJECT / "components")
    page = pages["reference/components.md"]
    assert set(re.findall(r"^::: (\S+)$", page, flags=re.M)) == expected
    assert f"## {reference.OTHER}" not in page, "a new haygate component belongs in one of GROUPS"
    modules = {path.rpartition(".")[0].rpartition(".")[2] for path in expected}
    assert {m for group in reference.GROUPS.values() for m in group} <= modules, "GROUPS names no module gone"
    assert "## Project components" in page


def test_prose_is_escaped_outside_code_spans(reference: ModuleType) -> None:
    assert reference.text("qrels/<split>.tsv, `a|b <c>`, *.yaml [x]") == (
        r"qrels/&lt;split&gt;.tsv, `a|b <c>`, \*.yaml \[x\]"
    )
