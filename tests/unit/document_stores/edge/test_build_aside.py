"""Indexes built in another process (`optimize_aside`): the engine holds the GIL for a whole build, so a build
in the serving process stops every call. These run a real build, on a real shard, in a real child process;
calls timed all through a build are `tests/integration/test_index_build.py`'s."""

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from haystack import Document

from haygate.document_stores.edge.aside import BUILDING
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.query import HybridQuery

DIM = 384
STORAGE: dict[str, int | str] = {"indexing_threshold_kb": 200}  # small segments get their HNSW graph


def unindexed_store(folder: Path, points: int) -> tuple[EdgeDocumentStore, np.ndarray]:
    """A shard of `points` random vectors, written as an ingest leaves them: durable, searchable, unbuilt."""
    store = EdgeDocumentStore("big", str(folder), embedding_dim=DIM, storage=STORAGE)
    vectors = np.random.default_rng(7).standard_normal((points, DIM)).astype(np.float32)
    for start in range(0, points, 2000):
        store.write_documents(
            [
                Document(id=f"d{i}", content=f"document {i}", meta={"n": i}, embedding=vectors[i].tolist())
                for i in range(start, min(points, start + 2000))
            ]
        )
    assert store.needs_optimizing()
    return store, vectors


def nearest(store: EdgeDocumentStore, vector: np.ndarray) -> str:
    [hit] = store.hybrid_search(HybridQuery(dense=vector.tolist(), limit=1))
    return str(hit.payload["id"])


@pytest.mark.slow
def test_a_write_during_the_build_drops_the_stale_copy_and_loses_nothing(tmp_path: Path) -> None:
    store, vectors = unindexed_store(tmp_path, 3_000)
    outcome: list[bool] = []
    builder = threading.Thread(target=lambda: outcome.append(store.optimize_aside()))
    builder.start()
    deadline = time.monotonic() + 30
    while not (tmp_path / BUILDING / "big").exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # the copy is made: the build is under way
    store.write_documents([Document(id="late", content="written during the build", embedding=[1.0] * DIM)])
    builder.join()
    assert outcome == [False]  # the copy did not hold the late write: not swapped in
    assert store.count_documents() == 3_001 and store.needs_optimizing()
    assert store.get_documents_by_id(["late"])[0].content == "written during the build"
    assert store.optimize_aside() and not store.needs_optimizing() and store.count_documents() == 3_001
    assert nearest(store, vectors[2345]) == "d2345"
    assert not (tmp_path / BUILDING / "big").exists()
    store.close()
    reopened = EdgeDocumentStore("big", str(tmp_path), embedding_dim=DIM, storage=STORAGE)
    assert reopened.count_documents() == 3_001 and not reopened.needs_optimizing()  # the built shard is the shard
    reopened.close()


@pytest.mark.slow
def test_a_stopped_build_leaves_the_shard_as_it_was(tmp_path: Path) -> None:
    store, vectors = unindexed_store(tmp_path, 3_000)
    stop, outcome = threading.Event(), []
    builder = threading.Thread(target=lambda: outcome.append(store.optimize_aside(stop)))
    builder.start()
    deadline = time.monotonic() + 30
    while not (tmp_path / BUILDING / "big").exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # the copy is made: the child is on its way
    time.sleep(0.2)
    stop.set()
    asked = time.monotonic()
    builder.join(timeout=10)
    assert not builder.is_alive() and outcome == [False] and time.monotonic() - asked < 2
    assert store.needs_optimizing() and store.count_documents() == 3_000 and nearest(store, vectors[9]) == "d9"
    assert not (tmp_path / BUILDING / "big").exists()
    assert not store.optimize_aside(stop)  # a set stop starts nothing
    store.close()
