"""HAYGATE_QDRANT_URL moves every pipeline to qdrant-haystack's QdrantDocumentStore, with the same layout.

qdrant-client's local mode speaks the server API, so it stands in for a Qdrant server here.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

from components.collections import close_all, open_collection
from components.server_store import QdrantServerStore
from haygate.gateway import Gateway
from haygate.ingest import ingest_files, sample_files
from haygate.settings import settings_override

pytestmark = pytest.mark.integration


@pytest.fixture
def server_env(tmp_path: Path) -> Iterator[Path]:
    with settings_override(qdrant_url=f"local:{tmp_path / 'qdrant'}"):
        yield tmp_path / "qdrant"
        close_all()


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_same_pipeline_runs_on_qdrant_server_store(server_env: Path) -> None:
    store = open_collection("docs")
    assert isinstance(store, QdrantServerStore) and isinstance(store, QdrantDocumentStore)
    report = ingest_files("docs", sample_files()["docs"], progress=False)
    assert report.written > 50 and not report.errors
    assert ingest_files("docs", sample_files()["docs"], progress=False).unchanged == report.written

    result = Gateway.load().call(
        "search_docs", {"query": "comparison operators", "version": "1.0", "section_path": "filters"}
    )
    assert result["results"]
    assert {r["version"] for r in result["results"]} == {"1.0"}
    assert all(r["section_path"].startswith("filters") for r in result["results"])
    assert result["results"][0]["scores"]["dense_rank"] is not None

    info = store._client.get_collection("docs")
    assert set(info.config.params.vectors) == {"text-dense"}
    assert set(info.config.params.sparse_vectors) == {"text-sparse"}
