"""A Haystack user's own pipeline, served as Haystack saved it, and the mistakes a new tool's author makes,
each caught by `haygate validate` (and left out of a server, named in /health) with a message that says
what to change."""

from contextlib import chdir
from pathlib import Path

import httpx
import pytest
import yaml
from fastmcp import Client

from haygate.cli import main
from haygate.components.envelope import DOCUMENTS_ENVELOPE_SCHEMA
from haygate.extras import extra_command
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.server.apps import OPEN_RECORD
from tests.support.docs import block
from tests.support.project import copy_project, make_settings
from tests.support.serving import http_for, mcp_for, serve

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def readme_pipeline(home: Path) -> str:
    """The README's `save_pipeline.py` as written, run from the project folder: what a Haystack user has."""
    program = block("# save_pipeline.py").text
    with chdir(home):
        exec(compile(program, "save_pipeline.py", "exec"), {"__name__": "__main__"})
    return (home / "pipelines" / "tools" / "haystack_docs_search.yaml").read_text()


def home_with_readme_tool(tmp_path: Path) -> Path:
    """A copy of the project whose one tool is the README's: its declaration, its pipeline as Haystack saved it."""
    home = copy_project(tmp_path / "home")
    for declared in (home / "configs" / "tools").glob("*.yaml"):
        declared.unlink()  # this tool alone: what the test is about
    declaration = block("# configs/tools/haystack_docs_search.yaml").text
    (home / "configs" / "tools" / "haystack_docs_search.yaml").write_text(declaration)
    pipeline = yaml.safe_load(readme_pipeline(home))
    assert "inputs" not in pipeline and "outputs" not in pipeline  # Haystack's own format, nothing added
    return home


@pytest.mark.budget(60, "torch and sentence-transformers load for the user's own embedder")
async def test_a_pipeline_saved_by_haystack_is_served_as_it_is(tmp_path: Path, samples_dir: Path) -> None:
    home = home_with_readme_tool(tmp_path)
    with Loader(make_settings(samples_dir, home=home)) as loader:
        gateway = Gateway.load(loader)
        gateway.warm_up()
        async with Client(mcp_for(gateway)) as client:
            [tool] = [t for t in await client.list_tools() if t.name != OPEN_RECORD]
            answer = await client.call_tool("haystack_docs_search", {"text": "bearer token", "top_k": 2})
        for url in serve(http_for(gateway)):  # the same tool over REST, on real HTTP
            async with httpx.AsyncClient() as http:
                rest = await http.post(
                    f"{url}/api/tools/haystack_docs_search", json={"text": "bearer token", "top_k": 2}
                )
        explained, why = gateway.get("haystack_docs_search").explain({"text": "bearer token", "top_k": 2})
    # The console's provenance of a Haystack pipeline's Documents: each row's own id and score.
    assert [w["id"] for w in why if w] == [r["id"] for r in explained["results"]]
    assert [w["score"] for w in why if w] == [r["score"] for r in explained["results"]]
    assert tool.outputSchema == DOCUMENTS_ENVELOPE_SCHEMA
    result = answer.structured_content
    assert result["metadata"] == {
        "query": "bearer token",
        "result_count": 2,
        "message": "2 result(s) for 'bearer token'.",
    }
    assert rest.status_code == 200 and rest.json() == result
    first = result["results"][0]
    assert first["meta"]["section_path"].endswith("bearer-tokens") and first["score"] > 0.3, first


def broken(tmp_path: Path, change: str) -> Path:
    """The project with search_docs alone, and one mistake planted in it."""
    home = copy_project(tmp_path / "home")
    for declared in (home / "configs" / "tools").glob("*.yaml"):
        if declared.name != "search_docs.yaml":
            declared.unlink()
    declaration_file = home / "configs" / "tools" / "search_docs.yaml"
    pipeline_file = home / "pipelines" / "tools" / "search_docs.yaml"
    declaration, pipeline = yaml.safe_load(declaration_file.read_text()), yaml.safe_load(pipeline_file.read_text())
    if change == "output_schema":
        declaration["output_schema"]["required"] = ["results", "answers"]
    elif change == "meta_key":
        pipeline["components"]["formatter"]["init_parameters"]["fields"]["source"] = "meta.sorce_name"
    elif change == "description":
        declaration["parameters"]["query"]["description"] = "query"
    declaration_file.write_text(yaml.safe_dump(declaration))
    pipeline_file.write_text(yaml.safe_dump(pipeline))
    return home


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (
            "output_schema",
            'tool \'search_docs\': its example call {"query": "how do I serialize a pipeline to YAML"} gave a '
            "result outside its output_schema: (root): 'answers' is a required property",
        ),
        (
            "meta_key",
            "tool 'search_docs': formatter field 'source' reads meta.sorce_name, which none of",
        ),
        ("description", "parameters.query.description: String should have at least 10 characters"),
    ],
)
def test_validate_names_each_planted_mistake(
    change: str,
    said: str,
    tmp_path: Path,
    samples_copy: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    home = broken(tmp_path, change)
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(samples_copy))  # the examples run on the project's data
    assert main(["validate", "--home", str(home)]) == 2
    printed = capsys.readouterr().out
    assert said in printed and "ok  search_docs" not in printed, printed
    if change == "meta_key":
        declared = "its declared meta keys: anchor, anchors, changelog, content_type, dialects, doc_title"
        assert f"collection 'docs' does not declare; {declared}" in printed


def test_a_server_leaves_out_a_tool_that_would_answer_500_and_says_so_in_health(
    tmp_path: Path, samples_copy: Path
) -> None:
    from haygate.server.service import GatewayService

    service = GatewayService(make_settings(samples_copy, home=broken(tmp_path, "output_schema")))
    service.start(background=False)
    try:
        assert "search_docs" not in service.listing()
        assert any("gave a result outside its output_schema" in p for p in service.health()["problems"])
    finally:
        service.close()


@pytest.mark.budget(60, "torch and sentence-transformers load for the user's own embedder")
def test_a_hybrid_haystack_pipeline_fuses_dense_and_bm25_over_the_collection(
    tmp_path: Path, samples_dir: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """qdrant-haystack's hybrid retriever over the collection's dense and BM25 vectors (haygate's BM25 query
    embedder makes the sparse side): one `text` input feeds both embedders, as Haystack would run it. The
    saved pipeline asks for the embedder's progress bar (`progress_bar: true`): served, it draws none."""
    from haystack import Pipeline
    from haystack_integrations.components.embedders.sentence_transformers import SentenceTransformersTextEmbedder
    from haystack_integrations.components.retrievers.qdrant import QdrantHybridRetriever
    from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

    from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder

    store = QdrantDocumentStore(location=":memory:", index="docs", embedding_dim=384, use_sparse_embeddings=True)
    pipeline = Pipeline()
    pipeline.add_component("dense", SentenceTransformersTextEmbedder(model="sentence-transformers/all-MiniLM-L6-v2"))
    pipeline.add_component("sparse", Bm25SparseTextEmbedder())
    pipeline.add_component("retriever", QdrantHybridRetriever(document_store=store, top_k=5))
    pipeline.connect("dense.embedding", "retriever.query_embedding")
    pipeline.connect("sparse.sparse_embedding", "retriever.query_sparse_embedding")
    home = copy_project(tmp_path / "home")
    for declared in (home / "configs" / "tools").glob("*.yaml"):
        declared.unlink()
    declaration = yaml.safe_load(block("# configs/tools/haystack_docs_search.yaml").text)
    (home / "configs" / "tools" / "haystack_docs_search.yaml").write_text(yaml.safe_dump(declaration))
    (home / "pipelines" / "tools" / "haystack_docs_search.yaml").write_text(pipeline.dumps())
    with Loader(make_settings(samples_dir, home=home)) as loader:
        gateway = Gateway.load(loader)
        gateway.warm_up()
        capfd.readouterr()
        result = gateway.call("haystack_docs_search", {"text": "HAYGATE_TOKEN bearer token", "top_k": 3})
    drawn = capfd.readouterr()
    assert "progress_bar: true" in pipeline.dumps()
    assert "%|" not in drawn.err + drawn.out, drawn.err[-500:]  # no "Batches: 100%|..." from the embedder
    ids = [r["id"] for r in result["results"]]
    assert len(ids) == 3 == len(set(ids)) and "Bearer tokens" in ids[0], ids
    assert all(r["score"] > 0 for r in result["results"])  # RRF scores, best first
    assert [r["score"] for r in result["results"]] == sorted((r["score"] for r in result["results"]), reverse=True)


def test_a_filter_that_can_never_match_says_which_field_or_value(tmp_path: Path, samples_dir: Path) -> None:
    """An empty answer of a Haystack pipeline, as of haygate's own tools: a filter on a field no record has, or
    a value none holds, is named (not "Try other or fewer words")."""
    home = home_with_readme_tool(tmp_path)
    path = home / "configs" / "tools" / "haystack_docs_search.yaml"
    declaration = yaml.safe_load(path.read_text())
    declaration["parameters"]["filters"] = {
        "type": "object",
        "description": "A Haystack filter on the sections' metadata.",
        "examples": [{"field": "meta.version", "operator": "==", "value": "1.1"}],
    }
    path.write_text(yaml.safe_dump(declaration))
    with Loader(make_settings(samples_dir, home=home)) as loader:
        gateway = Gateway.load(loader)
        call = {"text": "bearer token", "top_k": 2}
        no_field = gateway.call(
            "haystack_docs_search", {**call, "filters": {"field": "meta.year", "operator": "==", "value": 2024}}
        )
        no_value = gateway.call(
            "haystack_docs_search", {**call, "filters": {"field": "meta.version", "operator": "==", "value": "9.9"}}
        )
        found = gateway.call(
            "haystack_docs_search", {**call, "filters": {"field": "meta.version", "operator": "==", "value": "1.1"}}
        )
    assert no_field["results"] == [] and "no record has the field 'meta.year'" in no_field["metadata"]["message"]
    assert (
        no_value["results"] == []
        and "no record has meta.version == '9.9' ('1.0', '1.1'" in no_value["metadata"]["message"]
    )
    assert found["results"]


def test_a_pipeline_over_a_store_nothing_fills_fails_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Haystack pipeline over a new InMemoryDocumentStore (which nothing ingests into) is named, not served
    as a tool that finds nothing."""
    from haystack import Pipeline
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    home = home_with_readme_tool(tmp_path)
    pipeline = Pipeline()
    pipeline.add_component("retriever", InMemoryBM25Retriever(document_store=InMemoryDocumentStore(), top_k=3))
    (home / "pipelines" / "tools" / "haystack_docs_search.yaml").write_text(pipeline.dumps())
    path = home / "configs" / "tools" / "haystack_docs_search.yaml"
    declaration = yaml.safe_load(path.read_text())
    declaration["parameters"] = {"query": declaration["parameters"]["text"]}
    path.write_text(yaml.safe_dump(declaration))
    monkeypatch.setenv("HAYGATE_HOME", str(home))
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
    assert main(["validate"]) == 2
    out = capsys.readouterr().out
    assert "ERR tool 'haystack_docs_search': component 'retriever' reads a InMemoryDocumentStore" in out, out
    assert "nothing ingests into it" in out and "ok  haystack_docs_search" not in out


def test_without_torch_validate_names_the_component_and_the_extra(tmp_path: Path) -> None:
    """The README's pipeline embeds with Haystack's SentenceTransformers component. Where the `torch` extra is
    not installed (here: its modules made unimportable), `validate` names the component and the extra."""
    import os
    import subprocess
    import sys

    home = home_with_readme_tool(tmp_path)
    # As where the extra is not installed: no torch, and no Haystack integration of embedders at all.
    modules = ("torch", "transformers", "sentence_transformers", "haystack_integrations.components.embedders")
    blocked = "; ".join(f"sys.modules['{m}'] = None" for m in modules)
    program = f"import sys; {blocked}; from haygate.cli import main; sys.exit(main(['validate']))"
    env = {**os.environ, "HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "component 'embedder'" in done.stdout or "component 'embedder'" in done.stderr, done.stdout + done.stderr
    assert extra_command("torch") in done.stdout + done.stderr  # for the way haygate was installed
