"""HAYGATE_QDRANT_URL moves every pipeline to qdrant-haystack's QdrantDocumentStore, with the same layout.

qdrant-client's local mode speaks the server API, so it stands in for a Qdrant server here.
"""

from pathlib import Path

import pytest
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

from haygate.document_stores.server.document_store import QdrantServerStore
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import sample_files
from tests.support.project import PROJECT, make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_same_pipeline_runs_on_qdrant_server_store(tmp_path: Path) -> None:
    settings = make_settings(tmp_path / "data", qdrant_url=f"local:{tmp_path / 'qdrant'}")
    docs = sample_files(PROJECT / "samples", settings.collections_dir)["docs"]
    with Loader(settings) as loader:
        store = loader.store("docs")
        assert isinstance(store, QdrantServerStore) and isinstance(store, QdrantDocumentStore)
        report = ingest_files(loader.collection("docs"), docs, progress=False)
        assert report.written == len(docs) and not report.errors
        assert ingest_files(loader.collection("docs"), docs, progress=False).unchanged == report.written

        result = Gateway.load(loader).call(
            "search_docs", {"query": "comparison operators", "version": "1.0", "section_path": "filters"}
        )
        assert result["results"]
        assert {r["version"] for r in result["results"]} == {"1.0"}
        assert all(r["section_path"].startswith("filters") for r in result["results"])
        assert result["results"][0]["scores"]["dense_rank"] is not None

        info = store._client.get_collection("docs")  # type: ignore[union-attr]
        assert set(info.config.params.vectors) == {"text-dense"}  # type: ignore[arg-type]
        assert set(info.config.params.sparse_vectors) == {"text-sparse"}  # type: ignore[arg-type]
