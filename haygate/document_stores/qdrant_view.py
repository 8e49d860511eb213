"""A declared collection as qdrant-haystack's `QdrantDocumentStore`, for a Haystack user's own pipeline.

A pipeline saved with `Pipeline.dumps()` names `QdrantDocumentStore(index=X)` in its retrievers. When X is a
declared collection the loader gives those retrievers that collection's store: on a Qdrant server the store
already is a `QdrantDocumentStore` (`QdrantServerStore`); on the embedded default (Qdrant Edge, which
qdrant-client cannot open) it is this view, which answers the retrievers' queries through the collection's own
hybrid search. Dense vectors are the collection's embedder's, and its sparse vectors are haygate's BM25
(`haygate.components.bm25_sparse_text_embedder.BM25SparseTextEmbedder` makes the query side).
"""

import math
from collections.abc import Callable
from typing import Any

from haystack import Document
from haystack.dataclasses import SparseEmbedding
from haystack.document_stores.types import DuplicatePolicy
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.document_stores.payload import document_from_payload
from haygate.document_stores.query import DEFAULT_RRF_K, DENSE, SPARSE, HybridQuery
from haygate.errors import InvalidRequestError


class CollectionAsQdrantStore(QdrantDocumentStore):  # type: ignore[misc]
    """What qdrant-haystack's retrievers call (`_query_by_embedding`, `_query_by_sparse`, `_query_hybrid`) and
    the DocumentStore protocol, on one collection's store. No qdrant-client is made: the retrievers check the
    type and call these methods only."""

    def __init__(self, store: HybridDocumentStore, index: str) -> None:
        self.store, self.index = store, index
        self.embedding_dim = getattr(store, "embedding_dim", 384)
        self.use_sparse_embeddings = True
        self.similarity = "cosine"

    def __deepcopy__(self, memo: dict[int, Any]) -> "CollectionAsQdrantStore":
        return self  # a handle on shared data, as the store itself

    def to_dict(self) -> dict[str, Any]:
        """As `Pipeline.dumps()` wrote it: a QdrantDocumentStore on this index."""
        return {
            "type": "haystack_integrations.document_stores.qdrant.document_store.QdrantDocumentStore",
            "init_parameters": {"index": self.index, "embedding_dim": self.embedding_dim},
        }

    def close(self) -> None:
        """The loader closes the collection's store; a pipeline's retriever does not."""

    # -- the DocumentStore protocol ----------------------------------------------------------------

    def count_documents(self) -> int:
        return self.store.count_documents()

    def filter_documents(self, filters: Any = None) -> list[Document]:
        return self.store.filter_documents(_filters(filters, None))

    def write_documents(self, documents: list[Document], policy: DuplicatePolicy = DuplicatePolicy.FAIL) -> int:
        return self.store.write_documents(documents, policy)

    def delete_documents(self, document_ids: list[str]) -> None:
        self.store.delete_documents(document_ids)

    # -- what the retrievers call ------------------------------------------------------------------

    def _query_by_embedding(
        self,
        query_embedding: list[float],
        filters: Any = None,
        top_k: int = 10,
        scale_score: bool = False,
        return_embedding: bool = False,
        score_threshold: float | None = None,
        group_by: str | None = None,
        group_size: int | None = None,
    ) -> list[Document]:
        query = HybridQuery(dense=list(query_embedding), filters=_filters(filters, group_by), limit=top_k)
        return self._ranked(query, DENSE, lambda s: (s + 1) / 2 if scale_score else s, score_threshold)

    def _query_by_sparse(
        self,
        query_sparse_embedding: SparseEmbedding,
        filters: Any = None,
        top_k: int = 10,
        scale_score: bool = False,
        return_embedding: bool = False,
        score_threshold: float | None = None,
        group_by: str | None = None,
        group_size: int | None = None,
    ) -> list[Document]:
        query = HybridQuery(sparse=query_sparse_embedding, filters=_filters(filters, group_by), limit=top_k)
        return self._ranked(query, SPARSE, lambda s: _expit(s / 100) if scale_score else s, score_threshold)

    def _query_hybrid(
        self,
        query_embedding: list[float],
        query_sparse_embedding: SparseEmbedding,
        filters: Any = None,
        top_k: int = 10,
        return_embedding: bool = False,
        score_threshold: float | None = None,
        group_by: str | None = None,
        group_size: int | None = None,
        rrf_k: int | None = None,
        rrf_weights: list[float] | None = None,
    ) -> list[Document]:
        """Reciprocal rank fusion of the dense and sparse lists, as qdrant-haystack's hybrid retriever does."""
        weights = dict(zip((DENSE, SPARSE), rrf_weights, strict=False)) if rrf_weights else {}
        query = HybridQuery(
            dense=list(query_embedding),
            sparse=query_sparse_embedding,
            filters=_filters(filters, group_by),
            limit=top_k,
            prefetch_limit=max(top_k, 50),
            fusion="rrf",
            weights=weights,
            rrf_k=rrf_k or DEFAULT_RRF_K,
        )
        return self._ranked(query, None, lambda s: s, score_threshold)

    def _ranked(
        self, query: HybridQuery, source: str | None, scaled: Callable[[float], float], threshold: float | None
    ) -> list[Document]:
        """The hits as Documents scored by `source`'s own score (the fused one for a hybrid query)."""
        documents = []
        for hit in self.store.hybrid_search(query):
            raw = hit.source_scores.get(source) if source is not None else hit.fused_score
            score = float(scaled(raw if raw is not None else hit.score))
            if threshold is None or score >= threshold:
                documents.append(document_from_payload(hit.payload, score))
        return documents


def _filters(filters: Any, group_by: str | None) -> dict[str, Any] | None:
    """Haystack's filter dicts only: qdrant-client `Filter` objects and grouping need a Qdrant server."""
    if group_by is not None:
        msg = "group_by needs a Qdrant server (HAYGATE_QDRANT_URL); the embedded store does not group"
        raise InvalidRequestError(msg, {"field": "group_by"})
    if filters is not None and not isinstance(filters, dict):
        msg = "filters on the embedded store are Haystack filter dicts, not qdrant-client Filter objects"
        raise InvalidRequestError(msg, {"field": "filters"})
    return filters or None


def _expit(value: float) -> float:
    return 1 / (1 + math.exp(-value))
