"""Document vectors kept on disk by their text: served again without the model, never wrong, never in the way."""

import logging
import os
from pathlib import Path

import numpy as np
import pytest
from haystack import Document

from haygate.components import kept_vectors
from haygate.components.dense_document_embedder import DenseDocumentEmbedder
from haygate.components.embedding_backends import load_backend
from haygate.components.kept_vectors import KeptVectors
from haygate.document_stores.payload import PASSAGE_EMBEDDINGS
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from tests.support import PROJECT
from tests.support.project import EMBEDDING_MODEL, make_settings


class Model:
    """Stands in for the model alone (the file is the real SQLite): a text's vector is its length, then ones."""

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def __call__(self, texts: list[str]) -> np.ndarray:
        self.embedded += texts
        return np.asarray([[len(text), 1.0, 1.0] for text in texts], dtype=np.float32)


def test_a_text_is_embedded_once_across_calls_and_processes(tmp_path: Path) -> None:
    model, path = Model(), tmp_path / "vectors" / "m.sqlite"
    first = KeptVectors(path, 3).embed(["a", "bb", "a"], model)
    assert model.embedded == ["a", "bb", "a"]  # a repeat within one call is the caller's to fold (`_embed_once`)
    again = KeptVectors(path, 3)  # another process opening the same file
    rows = again.embed(["bb", "ccc", "a"], model)
    assert model.embedded[3:] == ["ccc"]
    assert rows.tolist() == [[2, 1, 1], [3, 1, 1], [1, 1, 1]]
    assert first.tolist() == [[1, 1, 1], [2, 1, 1], [1, 1, 1]]
    assert (again.hits, again.misses) == (2, 1)


def test_a_file_that_is_no_database_is_started_afresh(tmp_path: Path) -> None:
    path = tmp_path / "m.sqlite"
    path.write_bytes(b"not a database at all" * 100)
    model = Model()
    assert KeptVectors(path, 3).embed(["a"], model).tolist() == [[1, 1, 1]]
    assert KeptVectors(path, 3).embed(["a"], model).tolist() == [[1, 1, 1]] and model.embedded == ["a"]


def test_a_file_that_cannot_be_written_leaves_the_vectors_right_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    kept, model = KeptVectors(blocked / "vectors" / "m.sqlite", 3), Model()
    with caplog.at_level(logging.WARNING, logger="haygate.components.kept_vectors"):
        assert kept.embed(["a", "bb"], model).tolist() == [[1, 1, 1], [2, 1, 1]]
        assert kept.embed(["a"], model).tolist() == [[1, 1, 1]]
    assert model.embedded == ["a", "bb", "a"]
    [warning] = [record.getMessage() for record in caplog.records if "not kept" in record.getMessage()]
    assert str(blocked / "vectors" / "m.sqlite") in warning and "embedded as usual" in warning


def test_a_row_of_another_width_is_never_served(tmp_path: Path) -> None:
    path, model = tmp_path / "m.sqlite", Model()
    KeptVectors(path, 3).embed(["a"], model)
    assert KeptVectors(path, 4).embed(["a"], lambda texts: np.ones((len(texts), 4))).tolist() == [[1, 1, 1, 1]]


def test_the_file_keeps_the_latest_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kept_vectors, "MAX_VECTORS", 3)
    kept, model = KeptVectors(tmp_path / "m.sqlite", 3), Model()
    kept.embed(["a", "b", "c", "d", "e"], model)
    model.embedded.clear()
    kept.embed(["a", "b", "c", "d", "e"], model)
    assert model.embedded == ["a", "b"]  # the oldest two had gone


def test_a_reingest_reads_every_vector_back_and_they_are_the_models() -> None:
    """The real embedder on the packaged model: a second embedding of the same documents runs no model call, and
    each vector (and passage vector) equals what the model made."""
    documents = [Document(content=f"section {n} on hybrid retrieval with qdrant and bm25") for n in range(5)]
    models = Path(os.environ["HAYGATE_MODEL_CACHE_DIR"])  # the suite's exports (tests/conftest.py)
    first = DenseDocumentEmbedder(passages={"words": 4, "stride": 2}, model_cache_dir=models)
    made = first.run(documents)["documents"]
    second = DenseDocumentEmbedder(passages={"words": 4, "stride": 2}, model_cache_dir=models)
    second.warm_up()
    backend = second.embedding_backend
    assert backend is not None and backend.kept is not None and (models / "vectors").is_dir()
    misses = backend.kept.misses
    read = second.run(documents)["documents"]
    assert backend.kept.misses == misses  # nothing went to the model
    for a, b in zip(made, read, strict=True):
        assert a.embedding == b.embedding and a.meta[PASSAGE_EMBEDDINGS] == b.meta[PASSAGE_EMBEDDINGS]


def test_the_cv_collection_ingested_again_elsewhere_embeds_nothing(tmp_path: Path) -> None:
    """The recruiter's CVs ingested into a second, empty data dir (as after a vocabulary edit, which changes every
    record's hash and no text): every chunk, passage and phrase vector is read back, and the points are the same."""

    cvs = tmp_path / "cvs.jsonl"
    cvs.write_text("".join((PROJECT / "samples" / "candidates" / "cvs.jsonl").read_text().splitlines(True)[:4]))
    stored = []
    for n in range(2):
        with Loader(make_settings(tmp_path / f"data-{n}")) as loader:
            collection = loader.collection("candidates")
            collection.indexing.warm_up()
            kept = load_backend(EMBEDDING_MODEL, "onnx", Path(os.environ["HAYGATE_MODEL_CACHE_DIR"])).kept
            assert kept is not None
            before = (kept.hits, kept.misses)
            report = ingest_files(collection, [cvs], progress=False)
            assert report.written > 0 and not report.errors
            stored.append({d.id: d.embedding for d in collection.store.filter_documents() if d.embedding})
    assert kept.misses == before[1] and kept.hits > before[0]  # the second ingest: no text went to the model
    assert stored[0] == stored[1] and len(stored[0]) > 8
