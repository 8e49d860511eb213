"""Pipeline YAML: every pipeline round-trips, only allow-listed types load, problems name file and component."""

from pathlib import Path

import pytest
import yaml
from haystack import Pipeline

from components.errors import ConfigurationError
from haygate.cli import main
from haygate.declarations import load_declaration, load_declarations
from haygate.loader import ALLOWED_MODULES, load_pipeline

PROJECT = Path(__file__).resolve().parents[2]
PIPELINES = sorted((PROJECT / "pipelines").glob("*.yaml"))


@pytest.mark.parametrize("path", PIPELINES, ids=lambda p: p.name)
def test_pipeline_yaml_round_trip(path: Path) -> None:
    pipeline = load_pipeline(path)
    again = Pipeline.loads(pipeline.dumps(), allowed_modules=ALLOWED_MODULES)
    first, second = pipeline.to_dict(), again.to_dict()
    assert first["components"] == second["components"]
    key = lambda c: (c["sender"], c["receiver"])  # noqa: E731
    assert sorted(first["connections"], key=key) == sorted(second["connections"], key=key)
    assert set(pipeline.to_dict()["components"]) == set(yaml.safe_load(path.read_text())["components"])


def test_non_allow_listed_type_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text(
        "components:\n  runner:\n    type: subprocess.Popen\n    init_parameters: {args: [ls]}\nconnections: []\n"
    )
    with pytest.raises(ConfigurationError, match=r"component 'runner': type 'subprocess\.Popen' is not allow-listed"):
        load_pipeline(path)


def test_broken_yaml_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("components:\n  a: [unclosed\n")
    with pytest.raises(ConfigurationError, match=r"broken\.yaml: invalid YAML"):
        load_pipeline(path)


def test_bad_init_parameter_names_the_component(tmp_path: Path) -> None:
    source = yaml.safe_load((PROJECT / "pipelines" / "search_docs.yaml").read_text())
    source["components"]["retriever"]["init_parameters"]["fusion"] = "max"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(source))
    with pytest.raises(ConfigurationError, match="component 'retriever'") as caught:
        load_pipeline(path)
    assert "fusion" in caught.value.message


def test_declaration_requires_descriptions_and_examples(tmp_path: Path) -> None:
    source = yaml.safe_load((PROJECT / "configs" / "tools" / "search_docs.yaml").read_text())
    del source["parameters"]["version"]["description"]
    del source["parameters"]["max_results"]["examples"]
    path = tmp_path / "tool.yaml"
    path.write_text(yaml.safe_dump(source))
    with pytest.raises(ConfigurationError) as caught:
        load_declaration(path)
    assert "parameters.version.description" in caught.value.message
    assert "parameters.max_results.examples" in caught.value.message


def test_one_file_declares_several_tools_through_anchors() -> None:
    declarations = load_declarations(PROJECT / "configs" / "tools" / "knowledge.yaml")
    assert [d.name for d in declarations] == ["get_decisions", "get_patterns", "get_warnings"]
    assert [d.fixed_arguments for d in declarations] == [
        {"extraction_type": "decision"},
        {"extraction_type": "pattern"},
        {"extraction_type": "warning"},
    ]
    assert {d.pipeline for d in declarations} == {"get_extractions.yaml"}
    assert len({str(d.parameters) for d in declarations}) == 1  # shared, not copied
    assert {d.tenant_field for d in declarations} == {"meta.project_id"}


def test_a_fixed_argument_cannot_also_be_a_parameter(tmp_path: Path) -> None:
    source = yaml.safe_load((PROJECT / "configs" / "tools" / "search_docs.yaml").read_text())
    source["fixed_arguments"] = {"version": "3.0"}
    path = tmp_path / "tool.yaml"
    path.write_text(yaml.safe_dump(source))
    with pytest.raises(ConfigurationError, match="a caller could override them"):
        load_declaration(path)
    path.write_text(yaml.safe_dump({"tools": [source], "extra": 1}))
    with pytest.raises(ConfigurationError, match="`x-` anchor keys only"):
        load_declarations(path)


def test_validate_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate"]) == 0
    assert "ok  search_docs" in capsys.readouterr().out
    source = yaml.safe_load((PROJECT / "configs" / "tools" / "search_docs.yaml").read_text())
    source["pipeline"] = "missing.yaml"
    path = tmp_path / "tool.yaml"
    path.write_text(yaml.safe_dump(source))
    assert main(["validate", str(path)]) == 2
    assert "missing.yaml: cannot read pipeline" in capsys.readouterr().out


def test_pipeline_copies_of_documents_are_deep_and_equal() -> None:
    from haystack import Document

    from haygate.loader import _fast_deepcopy

    original = Document(id="x", content="c", meta={"a": {"b": [1]}}, score=0.5, embedding=[0.1, 0.2])
    clone = _fast_deepcopy([original])[0]
    assert clone == original and clone is not original
    clone.meta["a"]["b"].append(2)
    clone.embedding.append(0.3)  # type: ignore[union-attr]
    assert original.meta == {"a": {"b": [1]}} and original.embedding == [0.1, 0.2]
