"""`SharedDocumentWriter` on a tiny Edge store: each write adds its records to the stored point's list."""

import pytest
import yaml
from haystack import Document

from haygate.components.shared_document_writer import SharedDocumentWriter
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.errors import ConfigurationError
from haygate.ingest.mapping import SHARED_BY
from tests.support import PROJECT


def phrase(*records: str) -> Document:
    return Document(
        id="p1",
        content="Python engineer",
        meta={"document_type": "phrase", "record_ids": list(records)},
        embedding=[1.0, 0.0, 0.0],
    )


class TestSharedDocumentWriter:
    def test_init_refuses_what_is_not_a_meta_key(self, tiny_store: EdgeDocumentStore) -> None:
        for bad in ("", "meta.record_ids"):
            with pytest.raises(ConfigurationError, match="field must be a meta key such as 'record_ids'"):
                SharedDocumentWriter(tiny_store, bad)
        with pytest.raises(ConfigurationError, match="document_store must be a haygate document store, got dict"):
            SharedDocumentWriter({}, "record_ids")  # type: ignore[arg-type]

    def test_to_dict(self, tiny_store: EdgeDocumentStore) -> None:
        assert SharedDocumentWriter(tiny_store, "record_ids").to_dict() == {
            "type": "haygate.components.shared_document_writer.SharedDocumentWriter",
            "init_parameters": {"document_store": tiny_store.to_dict(), "field": "record_ids"},
        }

    def test_from_dict(self, tiny_store: EdgeDocumentStore) -> None:
        writer = SharedDocumentWriter.from_dict(SharedDocumentWriter(tiny_store, "record_ids").to_dict())
        assert writer.field == "record_ids" and isinstance(writer.document_store, EdgeDocumentStore)

    def test_run_adds_to_the_stored_list(self, tiny_store: EdgeDocumentStore) -> None:
        writer = SharedDocumentWriter(tiny_store, "record_ids")
        assert writer.run(documents=[phrase("cv-2")]) == {"documents_written": 1}
        assert writer.run(documents=[phrase("cv-1"), phrase("cv-3")]) == {"documents_written": 1}
        [stored] = tiny_store.get_documents_by_id(["p1"])
        assert stored.meta["record_ids"] == ["cv-1", "cv-2", "cv-3"] and stored.content == "Python engineer"
        assert writer.run(documents=[]) == {"documents_written": 0}

    def test_the_candidates_pipeline_names_ingests_field(self) -> None:
        """The field ingest takes a deleted CV off (`haygate.api.SHARED_BY`) is the one the phrases are added to."""
        pipeline = yaml.safe_load((PROJECT / "pipelines" / "indexing" / "candidates.yaml").read_text())
        writer = pipeline["components"]["phrase_writer"]
        assert writer["type"] == "haygate.components.shared_document_writer.SharedDocumentWriter"
        assert writer["init_parameters"]["field"] == SHARED_BY
