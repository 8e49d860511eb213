"""Haystack's DocumentStore conformance suites, and ours, on `MemoryDocumentStore`: the third backend, written in
one module against the store contract, passes what Edge and a Qdrant server pass."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from haygate.document_stores.memory import MemoryDocumentStore
from tests.support.store_conformance import EMBEDDING_DIM, PAYLOAD_INDEXES, HaystackSuites


class TestMemoryDocumentStoreConformance(HaystackSuites):
    @pytest.fixture
    def document_store(self, tmp_path: Path) -> Iterator[MemoryDocumentStore]:
        store = MemoryDocumentStore("conformance", str(tmp_path), EMBEDDING_DIM, PAYLOAD_INDEXES)
        yield store
        store.close()
