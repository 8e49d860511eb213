"""Haystack's DocumentStore conformance suites, and ours, on `MemoryDocumentStore`: the third backend, written in
one module against the store contract, passes what Edge and a Qdrant server pass."""

from collections.abc import Iterator

import pytest

from haygate.document_stores.memory import MemoryDocumentStore
from tests.support.store_conformance import EMBEDDING_DIM, PAYLOAD_INDEXES, HaystackSuites


@pytest.fixture(scope="module")
def module_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryDocumentStore]:
    """One collection for the module, held open while it runs (its lock taken and its file read once)."""
    store = MemoryDocumentStore("conformance", str(tmp_path_factory.mktemp("memory")), EMBEDDING_DIM, PAYLOAD_INDEXES)
    yield store
    store.close()


class TestMemoryDocumentStoreConformance(HaystackSuites):
    @pytest.fixture
    def document_store(self, module_store: MemoryDocumentStore) -> MemoryDocumentStore:
        """The module's store, emptied first."""
        module_store.delete_all_documents()
        return module_store
