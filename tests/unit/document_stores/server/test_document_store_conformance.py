"""Haystack's DocumentStore conformance suites on `QdrantServerStore`, over qdrant-client's local mode."""

from collections.abc import Iterator

import pytest

from haygate.document_stores.server.document_store import QdrantServerStore
from tests.support.store_conformance import EMBEDDING_DIM, PAYLOAD_INDEXES, HaystackSuites

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # local mode: "payload indexes have no effect"


@pytest.fixture(scope="module")
def module_store() -> Iterator[QdrantServerStore]:
    """One in-memory collection for the module: a new client parses qdrant-client's schemas (about 30 ms a
    test), and on a `local:` folder every write is pickled to disk (0.4 s a test here)."""
    store = QdrantServerStore("conformance", ":memory:", embedding_dim=EMBEDDING_DIM, payload_indexes=PAYLOAD_INDEXES)
    yield store
    store.close()


class TestQdrantServerStoreConformance(HaystackSuites):
    @pytest.fixture
    def document_store(self, module_store: QdrantServerStore) -> QdrantServerStore:
        """The module's store, emptied first."""
        module_store.delete_all_documents()
        return module_store
