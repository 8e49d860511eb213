"""The memory backend as a deployment meets it: kept in a file across restarts, held by one process, a damaged
file named, and chosen by name through the backend registry."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from haystack import Document

from haygate.document_stores import backends
from haygate.document_stores.backends import Layout, Place
from haygate.document_stores.memory import FILE, MemoryDocumentStore
from haygate.document_stores.query import HybridQuery
from haygate.errors import ConfigurationError, StoreDamagedError, StoreInUseError
from haygate.gateway.loader import Loader
from tests.support.project import make_settings

LAYOUT = Layout("notes", 4, {"meta.kind": "keyword"}, ["content"])


def store_in(folder: Path) -> MemoryDocumentStore:
    return MemoryDocumentStore(LAYOUT.name, str(folder), LAYOUT.embedding_dim, LAYOUT.payload_indexes, ["content"])


def notes() -> list[Document]:
    return [
        Document(id="a", content="Redis keeps the queue", meta={"kind": "ops"}, embedding=[1.0, 0.0, 0.0, 0.0]),
        Document(id="b", content="Postgres keeps the invoices", meta={"kind": "db"}, embedding=[0.0, 1.0, 0.0, 0.0]),
    ]


def test_what_was_written_is_read_back_after_a_restart_and_reads_create_nothing(tmp_path: Path) -> None:
    reader = store_in(tmp_path)
    assert reader.count_documents() == 0 and not reader.exists() and not (tmp_path / "notes").exists()
    reader.close()
    store = store_in(tmp_path)
    store.write_documents(notes())
    assert (tmp_path / "notes" / FILE).is_file()  # durable when the write returns, before any close
    store.close()
    again = store_in(tmp_path)
    assert sorted(d.id for d in again.filter_documents()) == ["a", "b"]
    hits = again.hybrid_search(HybridQuery(dense=[0.9, 0.1, 0.0, 0.0], text="redis", text_fields=("content",)))
    assert hits[0].payload["id"] == "a" and hits[0].ranks["text:content"] == 1
    assert again.stats()["documents"] == 2 and again.stats()["disk_bytes"] > 0
    again.close()


def test_a_batch_that_fails_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    store = store_in(tmp_path)
    store.write_documents(notes()[:1])
    with pytest.raises(RuntimeError), store.batch():
        store.write_documents(notes()[1:])
        raise RuntimeError("killed")
    store.close()
    assert [d.id for d in store_in(tmp_path).filter_documents()] == ["a"]


@pytest.mark.slow  # a second Python process, which imports Haystack
def test_another_process_holding_the_collection_is_named(tmp_path: Path) -> None:
    holder = textwrap.dedent(f"""
        import sys, time
        from haystack import Document
        from haygate.document_stores.memory import MemoryDocumentStore
        store = MemoryDocumentStore("notes", {str(tmp_path)!r}, 4)
        store.write_documents([Document(id="x", content="held")])
        print("held", flush=True)
        sys.stdin.read()
    """)
    child = subprocess.Popen([sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "held"
        with pytest.raises(StoreInUseError, match="held by another process"):
            store_in(tmp_path).write_documents(notes())
    finally:
        child.communicate("")
    store = store_in(tmp_path)
    assert store.write_documents(notes()) == 2  # released with the process
    store.close()


def test_a_damaged_file_is_named_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / FILE).write_text('{"documents": [')
    with pytest.raises(StoreDamagedError, match=r"is unreadable .* restore it, or delete it and ingest"):
        store_in(tmp_path).count_documents()


def test_the_registry_opens_each_backend_by_name_and_refuses_an_unknown_one(tmp_path: Path) -> None:
    assert backends.names()[:3] == ["edge", "qdrant", "memory"]
    assert backends.chosen(None, None) == "edge" and backends.chosen(None, "http://q:6333") == "qdrant"
    store = backends.open_store("memory", LAYOUT, Place(tmp_path))
    assert isinstance(store, MemoryDocumentStore) and store.text_fields == ["content"]
    with pytest.raises(ConfigurationError, match=r"no store backend 'redis' .*backends: edge, qdrant, memory"):
        backends.opener("redis")
    with pytest.raises(ConfigurationError, match="needs the server's URL"):
        backends.open_store("qdrant", LAYOUT, Place(tmp_path))


def test_the_loader_builds_the_backend_the_settings_name(tmp_path: Path) -> None:
    with Loader(make_settings(tmp_path / "data", store="memory")) as loader:
        store = loader.store("memories")
        assert isinstance(store, MemoryDocumentStore) and store.path == (tmp_path / "data" / "memories").resolve()
    with Loader(make_settings(tmp_path / "data", store="nothing")) as loader, pytest.raises(ConfigurationError):
        loader.store("memories")
