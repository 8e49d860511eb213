"""Tool declarations: typed, described parameters; several tools per file; checked against the pipeline."""

import os
import shutil
import subprocess
from pathlib import Path
from typing import Annotated

import pytest
import yaml
from pydantic import Field, ValidationError

from haygate.cli import main
from haygate.errors import ConfigurationError
from haygate.gateway.declarations import load_declaration, load_declarations
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import load_tools
from tests.support.installed import require
from tests.support.project import copy_project

PROJECT = Path(__file__).resolve().parents[3]
TOOLS = PROJECT / "configs" / "tools"
NODE_22 = PROJECT / ".venv" / "mcp-conformance" / "node_modules" / ".bin"


def declaration_file(tmp_path: Path, source: dict) -> Path:  # type: ignore[type-arg]
    path = tmp_path / "tool.yaml"
    path.write_text(yaml.safe_dump(source))
    return path


def search_docs() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((TOOLS / "search_docs.yaml").read_text())


def test_declaration_requires_descriptions_and_examples(tmp_path: Path) -> None:
    source = search_docs()
    del source["parameters"]["version"]["description"]
    del source["parameters"]["max_results"]["examples"]
    with pytest.raises(ConfigurationError) as caught:
        load_declaration(declaration_file(tmp_path, source))
    assert "parameters.version.description" in caught.value.message
    assert "parameters.max_results.examples" in caught.value.message


def test_one_file_declares_several_tools_through_anchors() -> None:
    declarations = load_declarations(TOOLS / "knowledge.yaml")
    assert [d.name for d in declarations] == ["get_decisions", "get_patterns", "get_warnings"]
    assert [d.fixed_arguments for d in declarations] == [
        {"extraction_type": "decision"},
        {"extraction_type": "pattern"},
        {"extraction_type": "warning"},
    ]
    assert {d.pipeline_file for d in declarations} == {"tools/get_extractions.yaml"}
    assert len({str(d.parameters) for d in declarations}) == 1  # shared, not copied
    assert {d.tenant_field for d in declarations} == {"meta.project_id"}


def test_a_tools_pipeline_is_named_after_it() -> None:
    assert load_declaration(TOOLS / "search.yaml").pipeline_file == "tools/search.yaml"


def test_a_fixed_argument_cannot_also_be_a_parameter(tmp_path: Path) -> None:
    source = search_docs()
    source["fixed_arguments"] = {"version": "3.0"}
    with pytest.raises(ConfigurationError, match="a caller could override them"):
        load_declaration(declaration_file(tmp_path, source))
    with pytest.raises(ConfigurationError, match="`x-` anchor keys only"):
        load_declarations(declaration_file(tmp_path, {"tools": [search_docs()], "extra": 1}))


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (
            lambda s: s["parameters"].update(versoin=s["parameters"].pop("version")),
            "declares ['versoin'], which are not inputs",
        ),
        (
            lambda s: s["parameters"].pop("rrf_k"),
            "pipeline inputs ['rrf_k'] are neither parameters nor fixed_arguments",
        ),
        (lambda s: s.update(output="answer"), "returns output 'answer' (`output:` in the declaration"),
        (
            lambda s: s.update(tenant_field="meta.project_id"),
            "tenant-scoped, but the pipeline has no `server_filters` input",
        ),
    ],
)
def test_the_declaration_and_the_pipeline_must_agree(loader: Loader, tmp_path: Path, change, fragment: str) -> None:  # type: ignore[no-untyped-def]
    source = search_docs()
    change(source)
    _, problems = load_tools(loader, [declaration_file(tmp_path, source)], include_hidden=True)
    assert len(problems) == 1 and fragment in problems[0], problems


def test_validate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
    assert main(["validate"]) == 0
    out = capsys.readouterr().out  # nothing ingested: every check but what the examples find
    assert "part search_docs: built and warmed up; not checked: whether its examples find anything" in out
    assert "ok  search_docs" not in out
    source = search_docs()
    source["pipeline"] = "missing.yaml"
    assert main(["validate", str(declaration_file(tmp_path, source))]) == 2
    assert "missing.yaml: cannot read pipeline" in capsys.readouterr().out


@pytest.fixture
def project_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the bundled project, the one `haygate` works on, with a scratch data dir."""
    home = tmp_path / "home"
    copy_project(home)
    monkeypatch.setenv("HAYGATE_HOME", str(home))
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
    return home


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} is no longer in {path}"
    path.write_text(text.replace(old, new, 1))


@pytest.mark.slow  # validates the whole bundled project: every tool's pipeline and model loaded and warmed up
def test_validate_makes_every_check_serve_makes(
    project_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model that cannot load, a misspelt collection, a tenant tool: validate sees what serve would."""
    edit(project_home / "pipelines" / "tools" / "search_docs.yaml", "model: null", "model: /nowhere/cross-encoder")
    (project_home / "configs" / "collections" / "broken.yaml").write_text("name: broken\nrecord: {id: id}\n")
    assert main(["validate"]) == 2
    out = capsys.readouterr().out
    assert "part get_decisions:" in out and "part search:" in out  # tenant tools are validated too
    assert "search_docs" not in out.split("ERR")[0] and "ERR tool 'search_docs': warm-up failed" in out
    assert "ERR " in out and "broken.yaml: invalid collection schema" in out
    assert not (tmp_path / "data").exists()  # a scratch data dir: it runs beside a live server


def test_validate_fails_a_filter_on_a_field_the_collection_cannot_filter_on_and_says_how_to_fix_it(
    project_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = project_home / "pipelines" / "tools" / "search_docs.yaml"
    declaration = project_home / "configs" / "tools" / "search_docs.yaml"
    edit(docs, "{field: meta.version}", "{field: meta.release}")
    assert main(["validate", str(declaration)]) == 2
    out = capsys.readouterr().out
    assert (
        "ERR tool 'search_docs': parameter 'version' filters on meta.release, which collection 'docs' cannot filter "
        "on: add `meta.release: keyword` under payload_indexes in configs/collections/docs.yaml" in out
    ), out
    assert "meta.version" in out.split("meta.release: keyword")[1]  # the fields it can filter on
    pipeline = docs.read_text().splitlines()
    lines = [n for n, line in enumerate(pipeline, 1) if "meta.release" in line or "query_builder.version" in line]
    declared = declaration.read_text().splitlines()
    first = declared.index("  version:") + 1
    last = first + next(n for n, line in enumerate(declared[first:], 1) if not line.startswith("    ")) - 1
    assert (
        f"take the parameter out: configs/tools/search_docs.yaml:{first}-{last} (the parameter), "
        f"pipelines/tools/search_docs.yaml:{lines[1]} (its pipeline input), "
        f"pipelines/tools/search_docs.yaml:{lines[0]} (the filter it fed) (`haygate validate --fix` does it)" in out
    ), out
    # --fix shows every cut as a diff and writes it when told; then the project validates (every line went)
    assert main(["validate", str(declaration), "--fix", "--yes"]) == 2  # the report as found
    fixed = capsys.readouterr()
    assert "-  version:\n" in fixed.out and "-  version: query_builder.version\n" in fixed.out, fixed.out
    assert f"wrote {docs}" in fixed.err
    assert "version" not in yaml.safe_load(declaration.read_text())["parameters"]
    assert main(["validate", str(declaration)]) == 0, capsys.readouterr().out


def stray_keys(node: object, path: str = "") -> list[str]:
    """Keys an unquoted comma split off a flow mapping's text: `{description: a, b}` makes a key `b` with no value."""
    if isinstance(node, dict):
        found = [
            f"{path}/{key}" for key, value in node.items() if isinstance(key, str) and " " in key and value is None
        ]
        return found + [s for key, value in node.items() for s in stray_keys(value, f"{path}/{key}")]
    if isinstance(node, list):
        return [s for i, item in enumerate(node) for s in stray_keys(item, f"{path}/{i}")]
    return []


@pytest.mark.parametrize("path", sorted([*TOOLS.glob("*.yaml"), *(PROJECT / "pipelines").rglob("*.yaml")]), ids=str)
def test_no_text_was_split_by_an_unquoted_comma(path: Path) -> None:
    assert stray_keys(yaml.safe_load(path.read_text())) == []


# Every code point but the surrogates: what the not-blank pattern must say of each one alone.
CODE_POINTS = [code for code in range(0x110000) if not 0xD800 <= code < 0xE000]


def test_the_not_blank_pattern_means_what_str_strip_means_in_every_regex_dialect() -> None:
    """A string that must have a character may not be what Python's `str.strip()` empties (the tools strip
    their text). The published pattern says exactly that in the three dialects that read it: Python's `re`,
    Rust's (pydantic checks the arguments with it, jsonschema-rs the results) and ECMA-262 (a client's JSON
    Schema validator, here Node.js's). `\\s` would not: ECMA's lacks \\x85 and has \\ufeff."""
    import re

    import jsonschema_rs
    from pydantic import TypeAdapter

    from haygate.gateway.declarations import NOT_BLANK

    kept = {code for code in CODE_POINTS if chr(code).strip()}
    python = re.compile(NOT_BLANK)
    assert {code for code in CODE_POINTS if python.search(chr(code))} == kept
    rust = jsonschema_rs.validator_for({"type": "string", "pattern": NOT_BLANK})
    assert {code for code in CODE_POINTS if rust.is_valid(chr(code))} == kept
    pydantic = TypeAdapter(Annotated[str, Field(pattern=NOT_BLANK)])
    refused = [chr(code) for code in CODE_POINTS if code not in kept]
    for blank in refused:
        with pytest.raises(ValidationError):
            pydantic.validate_python(blank)
    assert pydantic.validate_python("\ufeff") == "\ufeff"  # kept by strip(), so admitted

    node = shutil.which("node", path=f"{NODE_22}{os.pathsep}{os.environ.get('PATH', '')}")
    require(node is not None, "Node.js", "`make test` installs Node.js 22 with the MCP conformance suite")
    script = (
        "const re = new RegExp(process.argv[1], 'u'); const kept = [];"
        "for (let c = 0; c < 0x110000; c++) { if (c >= 0xd800 && c < 0xe000) continue;"
        " if (re.test(String.fromCodePoint(c))) kept.push(c); } console.log(kept.length, kept.slice(0, 40).join(','));"
    )
    done = subprocess.run([str(node), "-e", script, NOT_BLANK], capture_output=True, text=True, timeout=60)
    count, first = done.stdout.split()
    assert int(count) == len(kept) and [int(c) for c in first.split(",")] == sorted(kept)[:40], done.stderr


def test_a_misspelt_key_of_a_declaration_names_its_line_and_the_key_meant(tmp_path: Path) -> None:
    source = yaml.safe_load((TOOLS / "search_docs.yaml").read_text())
    source["descripton"] = source.pop("description")
    source["parameters"]["query"]["exmples"] = source["parameters"]["query"].pop("examples")
    with pytest.raises(ConfigurationError) as refused:
        load_declaration(declaration_file(tmp_path, source))
    message = refused.value.message
    assert "unknown key 'descripton'; did you mean 'description'?" in message
    assert "unknown key 'exmples'; did you mean 'examples'?" in message
    assert message.startswith(f"{tmp_path / 'tool.yaml'}: invalid tool declaration 'search_docs': ")
    assert "line " in message
