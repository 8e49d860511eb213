"""Haystack's own DocumentStore conformance suites (`haystack.testing.document_store`), for both backends.

`HaystackSuites` gathers every suite Haystack 3.4 ships, base and extended, since both stores offer every
method they test (`HybridDocumentStore`). A backend's test class subclasses it and adds only its
`document_store` fixture. What is overridden here is what haygate does otherwise on purpose, each with why.
"""

from typing import Any

import numpy as np
import pytest
from haystack import Document
from haystack.document_stores.errors import DuplicateDocumentError
from haystack.testing.document_store import (
    CountDocumentsByFilterTest,
    CountUniqueMetadataByFilterTest,
    DocumentStoreBaseExtendedTests,
    GetMetadataFieldMinMaxTest,
    GetMetadataFieldsInfoTest,
    GetMetadataFieldUniqueValuesTest,
)

from haygate.document_stores.query import HybridQuery

EMBEDDING_DIM = 768  # the size of the suites' own embeddings (`create_filterable_docs`)
# Indexes of each kind the suites' filters meet, on the fields they filter on most, as a collection's YAML
# declares them for its tools' filters (a shard builds each one when it is created or recreated).
PAYLOAD_INDEXES = {"meta.name": "keyword", "meta.number": "integer", "meta.date": "datetime"}


def _without_vectors(document: Document) -> dict[str, Any]:
    data = document.to_dict(flatten=False)
    data.pop("embedding")
    return data


def _direction(vector: list[float] | None) -> list[float] | None:
    if vector is None:
        return None
    array = np.asarray(vector, dtype=np.float64)
    return (array / np.linalg.norm(array)).tolist()


class HaystackSuites(
    DocumentStoreBaseExtendedTests,  # count, delete, filter, write; delete_all, delete_by_filter, update_by_filter
    CountDocumentsByFilterTest,
    CountUniqueMetadataByFilterTest,
    GetMetadataFieldsInfoTest,
    GetMetadataFieldMinMaxTest,
    GetMetadataFieldUniqueValuesTest,
):
    """Every Haystack suite; a subclass provides `document_store`, a real, empty store."""

    @staticmethod
    def assert_documents_are_equal(received: list[Document], expected: list[Document]) -> None:
        """Override: order-free (Qdrant returns points by id, not in write order), embeddings by direction
        (a cosine collection stores each vector normalised); every other field exactly."""
        by_id = sorted(received, key=lambda d: d.id), sorted(expected, key=lambda d: d.id)
        assert [_without_vectors(d) for d in by_id[0]] == [_without_vectors(d) for d in by_id[1]]
        for got, wanted in zip(*by_id, strict=True):
            assert _direction(got.embedding) == pytest.approx(_direction(wanted.embedding), abs=1e-6)

    def test_write_documents(self, document_store: Any) -> None:
        """Override (Haystack's asks each store for its own): the default policy, NONE, refuses a duplicate as
        FAIL does, on both backends, as qdrant-haystack's default does."""
        document = Document(content="test doc")
        assert document_store.write_documents([document]) == 1
        with pytest.raises(DuplicateDocumentError):
            document_store.write_documents([document])
        self.assert_documents_are_equal(document_store.filter_documents(), [document])

    def test_get_documents_by_id(self, document_store: Any) -> None:
        """Ours, beside Haystack's suites (qdrant-haystack's method, which `DocumentFetcher` reads whole
        documents with): each stored id once, whatever the order asked, and an id never stored left out."""
        documents = [
            Document(id=f"doc-{i}", content=f"text {i}", meta={"name": f"n{i}", "number": i}) for i in range(5)
        ]
        document_store.write_documents(documents)
        found = document_store.get_documents_by_id(["doc-3", "missing", "doc-0", "doc-3"])
        assert sorted((d.id, d.content, d.meta) for d in found) == [
            ("doc-0", "text 0", {"name": "n0", "number": 0}),
            ("doc-3", "text 3", {"name": "n3", "number": 3}),
        ]
        assert document_store.get_documents_by_id([]) == []

    def test_distinct_values_and_reads_of_some_fields(self, document_store: Any) -> None:
        """Ours: which values a field takes (by its keyword index, or by reading it), and documents read with
        only some of their fields (the skill ranker reads profiles, not texts)."""
        documents = [
            Document(id=f"c{i}", content=f"text {i}", meta={"name": f"n{i % 2}", "number": i}) for i in range(4)
        ]
        document_store.write_documents(documents)
        assert document_store.distinct_values("meta.name") == ["n0", "n1"]  # a keyword index
        late = {"field": "meta.number", "operator": ">=", "value": 3}
        assert document_store.distinct_values("meta.name", late) == ["n1"]
        assert document_store.distinct_values("meta.number") == [0, 1, 2, 3]  # an integer index: read
        assert document_store.distinct_values("meta.name", {"field": "meta.number", "operator": ">", "value": 9}) == []
        read = document_store.meta_by_filter(late, fields=["meta.name"])
        assert [(d.id, d.content, d.meta) for d in read] == [("c3", None, {"name": "n1"})]

    def test_a_score_threshold_leaves_out_what_scores_below_it(self, document_store: Any) -> None:
        """Ours: the engine returns no hit below `score_threshold` (cosines 1, 0.89, 0.71, 0.55 here)."""
        vectors = [[1.0, 0.5 * i] + [0.0] * (EMBEDDING_DIM - 2) for i in range(4)]
        document_store.write_documents(
            [Document(id=f"v{i}", content=f"v {i}", embedding=v) for i, v in enumerate(vectors)]
        )
        query = [1.0] + [0.0] * (EMBEDDING_DIM - 1)
        hits = document_store.hybrid_search(HybridQuery(dense=query, limit=10, score_threshold=0.7))
        assert [hit.payload["id"] for hit in hits] == ["v0", "v1", "v2"]
        assert len(document_store.hybrid_search(HybridQuery(dense=query, limit=10))) == 4
