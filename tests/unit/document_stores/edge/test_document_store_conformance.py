"""Haystack's DocumentStore conformance suites on `EdgeDocumentStore`, a real Qdrant Edge shard on disk."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from haygate.document_stores.edge.document_store import EdgeDocumentStore
from tests.support.store_conformance import EMBEDDING_DIM, PAYLOAD_INDEXES, HaystackSuites

COLLECTION = "conformance"


def make_store(folder: Path) -> EdgeDocumentStore:
    return EdgeDocumentStore(COLLECTION, str(folder), embedding_dim=EMBEDDING_DIM, payload_indexes=PAYLOAD_INDEXES)


@pytest.fixture(scope="module")
def shard_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One shard for the module, held open while it runs: creating and closing a shard syncs it to disk, about
    0.2 s a test here (17 s for the 83, a quarter of the fast profile's budget); emptying it takes milliseconds."""
    folder = tmp_path_factory.mktemp("edge-conformance")
    holder = make_store(folder)
    holder.shard  # noqa: B018  (opens it)
    yield folder
    holder.close()


class TestEdgeDocumentStoreConformance(HaystackSuites):
    @pytest.fixture
    def document_store(self, shard_folder: Path) -> Iterator[EdgeDocumentStore]:
        """A store object of its own for each test, on the module's shard, emptied first."""
        store = make_store(shard_folder)
        store.delete_all_documents()
        yield store
        store.close()
