"""Tiny real stores for component tests."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from haygate.document_stores.edge.document_store import EdgeDocumentStore


@pytest.fixture
def tiny_store(tmp_path: Path) -> Iterator[EdgeDocumentStore]:
    """An empty Qdrant Edge collection with 3-d vectors, a keyword index and text indexes."""
    store = EdgeDocumentStore(
        "tiny",
        str(tmp_path / "data"),
        embedding_dim=3,
        payload_indexes={"meta.record_id": "keyword", "meta.group": "keyword", "meta.terms": "keyword_prefix"},
        text_fields=["content", "meta.title"],
    )
    yield store
    store.close()
