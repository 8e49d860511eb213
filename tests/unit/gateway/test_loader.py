"""The loader: every bundled pipeline loads and round-trips; stores and paths are injected; only
allow-listed types load; problems name the file and the component; interfaces are checked."""

from pathlib import Path

import pytest
import yaml
from haystack import Pipeline

from components.cv_profiler import CvProfiler
from haygate.components.hybrid_retriever import HybridRetriever
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.server.document_store import QdrantServerStore
from haygate.errors import ConfigurationError
from haygate.gateway.loader import ALLOWED_MODULES, Loader
from haygate.settings import Settings
from tests.support.project import copy_project, make_settings

PROJECT = Path(__file__).resolve().parents[3]
PIPELINES = sorted((PROJECT / "pipelines").rglob("*.yaml"))


@pytest.mark.parametrize("path", PIPELINES, ids=lambda p: str(p.relative_to(PROJECT / "pipelines")))
def test_every_pipeline_loads_and_round_trips(loader: Loader, path: Path) -> None:
    loaded = loader.pipeline(path)
    again = Pipeline.loads(loaded.pipeline.dumps(), allowed_modules=ALLOWED_MODULES)
    first, second = loaded.pipeline.to_dict(), again.to_dict()
    assert first["components"] == second["components"]
    key = lambda c: (c["sender"], c["receiver"])  # noqa: E731
    assert sorted(first["connections"], key=key) == sorted(second["connections"], key=key)
    raw = yaml.safe_load(path.read_text())
    assert set(first["components"]) == set(raw["components"])
    assert set(loaded.inputs) == set(raw["inputs"]) and set(loaded.outputs) == set(raw.get("outputs") or {})


def test_components_of_one_collection_share_one_store(loader: Loader, settings: Settings) -> None:
    loaded = loader.pipeline(PROJECT / "pipelines" / "tools" / "memory_search.yaml")
    retriever, page = loaded.pipeline.get_component("retriever"), loaded.pipeline.get_component("page")
    assert isinstance(retriever, HybridRetriever) and retriever.document_store is page.document_store
    assert retriever.document_store is loader.store("memories")
    store = loader.store("memories")
    assert isinstance(store, EdgeDocumentStore) and store.path == (settings.data_dir / "memories").resolve()


def test_a_qdrant_url_moves_every_store_to_the_server(tmp_path: Path) -> None:
    settings = Settings(home=PROJECT, data_dir=tmp_path, qdrant_url=f"local:{tmp_path / 'q'}", qdrant_api_key="k")
    with Loader(settings) as loader:
        store = loader.store("docs")
        assert isinstance(store, QdrantServerStore) and store.api_key is not None
        assert store.to_dict()["init_parameters"]["api_key"]["env_vars"] == ["HAYGATE_QDRANT_API_KEY"]


def test_path_parameters_are_resolved_against_the_home(loader: Loader) -> None:
    loaded = loader.pipeline(PROJECT / "pipelines" / "indexing" / "candidates.yaml")
    profiler = loaded.pipeline.get_component("profiler")
    # By name: a test's copy of the project may have defined the class of that name last (Haystack's registry).
    assert type(profiler).__qualname__ == CvProfiler.__qualname__
    assert profiler.vocabulary == str(PROJECT / "configs" / "skills.yaml")


def test_the_fingerprint_follows_settings_and_the_files_they_name(tmp_path: Path) -> None:
    home = tmp_path / "home"
    copy_project(home)
    with (
        Loader(Settings(home=home, data_dir=tmp_path / "a")) as one,
        Loader(Settings(home=home, data_dir=tmp_path / "b")) as two,
    ):
        first = one.collection("candidates").fingerprint
        assert two.collection("candidates").fingerprint == first  # the data dir is not configuration
    (home / "configs" / "skills.yaml").write_text((home / "configs" / "skills.yaml").read_text() + "\nZig: [ziglang]\n")
    with Loader(Settings(home=home, data_dir=tmp_path / "a")) as three:
        assert three.collection("candidates").fingerprint != first  # a new skill re-profiles every CV


def test_non_allow_listed_type_is_refused(loader: Loader, tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text(
        "components:\n  runner:\n    type: subprocess.Popen\n    init_parameters: {args: [ls]}\nconnections: []\n"
    )
    with pytest.raises(ConfigurationError, match=r"component 'runner': type 'subprocess\.Popen' is not allow-listed"):
        loader.pipeline(path)


def test_broken_yaml_names_the_file(loader: Loader, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("components:\n  a: [unclosed\n")
    with pytest.raises(ConfigurationError, match=r"broken\.yaml: invalid YAML"):
        loader.pipeline(path)


def test_problems_name_the_component(loader: Loader, tmp_path: Path) -> None:
    source = yaml.safe_load((PROJECT / "pipelines" / "tools" / "search_docs.yaml").read_text())
    source["components"]["retriever"]["init_parameters"]["fusion"] = "max"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(source))
    with pytest.raises(ConfigurationError, match="component 'retriever'") as caught:
        loader.pipeline(path)
    assert "fusion" in caught.value.message
    source["components"]["retriever"]["type"] = "haygate.components.hybrid_retriever.HybridRetreiver"
    path.write_text(yaml.safe_dump(source))
    with pytest.raises(ConfigurationError, match=r"component 'retriever': type '.*HybridRetreiver' does not exist"):
        loader.pipeline(path)
    source["components"]["retriever"]["type"] = "haygate.components.hybrid_retriever.HybridRetriever"
    source["components"]["retriever"]["init_parameters"]["document_store"] = {"collection": "nope"}
    path.write_text(yaml.safe_dump(source))
    with pytest.raises(ConfigurationError, match="component 'retriever': unknown collection 'nope'"):
        loader.pipeline(path)


def test_the_interface_is_checked_against_the_sockets(loader: Loader, tmp_path: Path) -> None:
    source = yaml.safe_load((PROJECT / "pipelines" / "tools" / "search_docs.yaml").read_text())
    source["inputs"]["version"] = "query_builder.verison"
    path = tmp_path / "interface.yaml"
    path.write_text(yaml.safe_dump(source))
    with pytest.raises(
        ConfigurationError, match=r"input 'version' names 'query_builder\.verison', which the pipeline lacks"
    ):
        loader.pipeline(path)
    skills = yaml.safe_load((PROJECT / "pipelines" / "tools" / "search_by_skills.yaml").read_text())
    del skills["inputs"]["required_skills"]
    path.write_text(yaml.safe_dump(skills))
    with pytest.raises(
        ConfigurationError, match=r"'skill_ranker\.required_skills' is required but neither connected nor in"
    ):
        loader.pipeline(path)


def test_the_preview_runs_a_component_with_its_preview_parameters(loader: Loader) -> None:
    """The ids an ingest would write, for a judged set: the CV profiler embeds no phrase there; an ingest's does."""
    preview = loader.preview("candidates")
    assert preview.pipeline is not None
    profiler = preview.pipeline.get_component("profiler")
    assert type(profiler).__name__ == "CvProfiler" and profiler.embed_phrases is False
    assert set(dict(preview.pipeline.walk())) == {"profiler", "splitter", "chunk_ids"}
    assert loader.collection("candidates").indexing.get_component("profiler").embed_phrases is True


def test_model_exports_go_to_the_deployments_model_folder(loader: Loader, settings: Settings) -> None:
    loaded = loader.pipeline(PROJECT / "pipelines" / "indexing" / "candidates.yaml")
    for name in ("profiler", "dense_embedder"):
        assert loaded.pipeline.get_component(name).model_cache_dir == str(settings.models_dir)


def test_without_a_model_folder_setting_exports_live_beside_the_data(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", model_cache_dir=None)
    assert settings.models_dir == tmp_path / "data" / ".models"


SHOUT = '''"""A project's own component."""

from haystack import component


@component
class Shout:
    @component.output_types(text=str)
    def run(self, text: str) -> dict[str, str]:
        return {"text": text.upper()}
'''


def test_a_projects_own_component_is_named_in_yaml_and_nothing_else_is(tmp_path: Path) -> None:
    home = copy_project(tmp_path / "home")
    (home / "components" / "shout.py").write_text(SHOUT)
    pipeline = home / "pipelines" / "shout.yaml"
    interface = "inputs: {text: shout.text}\noutputs: {result: shout.text}\n"
    pipeline.write_text(f"components:\n  shout: {{type: components.shout.Shout}}\nconnections: []\n{interface}")
    with Loader(Settings(home=home, data_dir=tmp_path / "data")) as loader:
        assert loader.pipeline(pipeline).run({"text": "hi"}) == {"result": "HI"}
    pipeline.write_text("components:\n  shout: {type: components.nothere.Shout}\nconnections: []\n")
    with (
        Loader(Settings(home=home, data_dir=tmp_path / "data")) as loader,
        pytest.raises(ConfigurationError, match=r"does not exist \(a project's own components live in its home's"),
    ):
        loader.pipeline(pipeline)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (  # Haystack passes a misspelt component key over: the component would run on its defaults
            "components:\n  q:\n    type: haygate.components.query_builder.QueryBuilder\n"
            "    init_paramters: {query_template: '{{ query }}'}\n",
            "line 4: unknown key 'init_paramters' in component 'q'; did you mean 'init_parameters'?",
        ),
        (
            "components:\n  q:\n    type: haygate.components.ranker.Ranker\n    init_parameters:\n      top_kk: 3\n",
            "line 5: unknown key 'top_kk' in the init_parameters of component 'q'; did you mean 'top_k'?",
        ),
        (
            "components:\n  q:\n    type: haygate.components.ranker.Ranker\nconections: []\n",
            "line 4: unknown key 'conections'; did you mean 'connections'?",
        ),
    ],
)
def test_a_misspelt_key_is_refused_with_its_line_and_the_name_meant(
    loader: Loader, tmp_path: Path, text: str, said: str
) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text(text)
    with pytest.raises(ConfigurationError) as refused:
        loader.pipeline(path)
    assert refused.value.message == f"{path}: {said}"
