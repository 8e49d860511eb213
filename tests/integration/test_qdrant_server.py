"""HAYGATE_QDRANT_URL moves every pipeline to qdrant-haystack's QdrantDocumentStore, with the same layout.

qdrant-client's local mode speaks the server API, so it stands in for a Qdrant server here.
"""

import json
from pathlib import Path

import pytest
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

from haygate.document_stores.server.document_store import QdrantServerStore
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import delete_records, ingest_files
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

        info = store.client.get_collection("docs")
        assert set(info.config.params.vectors) == {"text-dense"}  # type: ignore[arg-type]
        assert set(info.config.params.sparse_vectors) == {"text-sparse"}  # type: ignore[arg-type]


def test_a_changed_and_a_deleted_cv_leave_each_phrase_its_cvs(tmp_path: Path) -> None:
    """The candidates' phrases on the server backend: written by per-record adds (the profiler names a batch's
    CVs only), a changed CV taken off the phrases it no longer says, a deleted one off all of its own."""
    settings = make_settings(tmp_path / "data", qdrant_url=f"local:{tmp_path / 'qdrant'}")
    cvs = [
        {"id": "cv-1", "name": "A", "text": "Python engineer.\nKept the lights on."},
        {"id": "cv-2", "name": "B", "text": "Python engineer.\nShipped the billing system."},
        {"id": "cv-3", "name": "C", "text": "Python engineer."},
    ]
    source = tmp_path / "cvs.jsonl"

    def ingest(records: list[dict[str, str]]) -> None:
        source.write_text("".join(json.dumps(record) + "\n" for record in records))
        assert not ingest_files(loader.collection("candidates"), [source], progress=False).errors

    def phrases() -> dict[str, list[str]]:
        stored = loader.store("candidates").meta_by_filter(
            {"field": "meta.document_type", "operator": "==", "value": "phrase"}
        )
        return {d.content or "": d.meta["record_ids"] for d in stored}

    with Loader(settings) as loader:
        ingest(cvs[:2])
        ingest(cvs[2:])  # another batch: its CV is added to the stored phrase
        assert phrases() == {
            "Python engineer": ["cv-1", "cv-2", "cv-3"],
            "Kept the lights on": ["cv-1"],
            "Shipped the billing system": ["cv-2"],
        }
        ingest([{**cvs[0], "text": "Kept the lights on."}])  # no longer says "Python engineer."
        store = loader.store("candidates")
        with store.batch():
            assert delete_records(store, ["cv-2"]) == (2 + 1, [])  # its chunk, its profile, the phrase only it said
        assert phrases() == {"Python engineer": ["cv-3"], "Kept the lights on": ["cv-1"]}
