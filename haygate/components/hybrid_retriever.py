"""`HybridRetriever`: dense + BM25 (sparse vector and/or text index) fused inside Qdrant.

Thin, as qdrant-haystack's retrievers are: it checks its store, keeps settings, checks filter fields
against the collection's indexes and calls the store's `hybrid_search`. Each returned Document carries
its provenance in `meta["scores"]`: rank per source and the raw fused score.
"""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.dataclasses import SparseEmbedding

from haygate.document_stores.filters import filter_fields
from haygate.document_stores.hybrid import FUSIONS, Fusion, HybridDocumentStore, HybridQuery, check_store
from haygate.errors import ConfigurationError, FilterError


@component
class HybridRetriever:
    def __init__(
        self,
        document_store: HybridDocumentStore,
        top_k: int = 50,
        prefetch_limit: int = 100,
        fusion: Fusion = "rrf",
        rrf_k: int = 60,
        weights: dict[str, float] | None = None,
        use_dense: bool = True,
        use_sparse: bool = True,
        text_fields: list[str] | None = None,
        min_score: float | None = None,
        payload_fields: list[str] | None = None,
    ) -> None:
        """
        :param document_store: the collection's store (the loader builds it from `{collection: name}`).
        :param top_k: fused candidates returned (the over-fetch handed to the ranker).
        :param prefetch_limit: candidates each source contributes to fusion.
        :param fusion: `rrf` (reciprocal rank fusion, with `rrf_k` and `weights`), `dbsf`, or `sum`: the
            weighted sum of the sources' own scores (BM25 field boosts, as FTS5's bm25(5.0, 1.0)).
        :param weights: per-source weight: `dense`, `sparse`, `text:<field>`.
        :param text_fields: payload fields whose native BM25 text index joins the fusion.
        :param min_score: drop hits whose normalised fused score is below this (0..1).
        :param payload_fields: fetch only these payload paths (e.g. `meta.record_id`) when the rest of the
            pipeline needs nothing else; None fetches whole documents.
        """
        self.document_store = check_store(document_store, "retriever")
        if fusion not in FUSIONS:
            msg = f"fusion must be 'rrf', 'dbsf' or 'sum', got {fusion!r}"
            raise ConfigurationError(msg)
        if top_k < 1 or prefetch_limit < 1 or rrf_k < 1:
            msg = f"top_k, prefetch_limit and rrf_k must be >= 1 (got {top_k}, {prefetch_limit}, {rrf_k})"
            raise ConfigurationError(msg)
        if not (use_dense or use_sparse or text_fields):
            msg = "the retriever needs at least one source: use_dense, use_sparse or text_fields"
            raise ConfigurationError(msg)
        missing = set(text_fields or []) - set(self.document_store.text_fields)
        if missing:
            msg = (
                f"retriever: text_fields {sorted(missing)} have no text index in collection "
                f"'{self.document_store.collection}'; text-indexed: {self.document_store.text_fields}"
            )
            raise ConfigurationError(msg)
        self.top_k = top_k
        self.prefetch_limit = prefetch_limit
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.weights = dict(weights or {})
        self.use_dense = use_dense
        self.use_sparse = use_sparse
        self.text_fields = list(text_fields or [])
        self.min_score = min_score
        self.payload_fields = list(payload_fields) if payload_fields is not None else None

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            document_store=self.document_store,
            top_k=self.top_k,
            prefetch_limit=self.prefetch_limit,
            fusion=self.fusion,
            rrf_k=self.rrf_k,
            weights=self.weights,
            use_dense=self.use_dense,
            use_sparse=self.use_sparse,
            text_fields=self.text_fields,
            min_score=self.min_score,
            payload_fields=self.payload_fields,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HybridRetriever":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document], collection_count=int | None)
    def run(
        self,
        query_embedding: list[float] | None = None,
        query_sparse_embedding: SparseEmbedding | None = None,
        query: str | None = None,
        filters: dict[str, Any] | None = None,
        top_k: int | None = None,
        rrf_k: int | None = None,
        min_score: float | None = None,
    ) -> dict[str, Any]:
        """
        :param query: scoring text for the text-index sources; an empty query lists by filter instead.
        :returns: `documents`, best first, and `collection_count` (0 for an empty collection, None when
            there are results), so the formatter can tell "nothing matched" from "nothing ingested".
        """
        store = self.document_store
        unknown = filter_fields(filters) - store.filterable_fields
        if unknown:
            allowed = sorted(store.filterable_fields)
            msg = f"unknown filter field(s) {', '.join(sorted(unknown))}; filterable: {', '.join(allowed)}"
            raise FilterError(msg, {"fields": sorted(unknown), "allowed": allowed})
        if not store.exists():
            return {"documents": [], "collection_count": 0}
        limit = top_k if top_k is not None else self.top_k
        if query is not None and not query.strip():
            return self._listing(filters, limit)
        request = HybridQuery(
            dense=query_embedding if self.use_dense else None,
            sparse=query_sparse_embedding if self.use_sparse else None,
            text=query if self.text_fields else None,
            text_fields=tuple(self.text_fields),
            filters=filters,
            limit=limit,
            prefetch_limit=max(self.prefetch_limit, limit),
            fusion=self.fusion,
            rrf_k=rrf_k if rrf_k is not None else self.rrf_k,
            weights=self.weights,
            payload_fields=tuple(self.payload_fields) if self.payload_fields is not None else None,
        )
        threshold = min_score if min_score is not None else self.min_score
        documents = []
        for hit in store.hybrid_search(request):
            if threshold is not None and hit.score < threshold:
                continue
            provenance: dict[str, Any] = {f"{name.replace(':', '_')}_rank": r for name, r in hit.ranks.items()}
            provenance["fused_score"] = hit.fused_score
            documents.append(hit.to_document({"scores": provenance}))
        count = store.count_documents() if not documents else None
        return {"documents": documents, "collection_count": count}

    def _listing(self, filters: dict[str, Any] | None, limit: int) -> dict[str, Any]:
        """No query text: the filter alone selects, in a stable order (by id), with no score."""
        documents = sorted(self.document_store.meta_by_filter(filters), key=lambda d: d.id)[:limit]
        documents = [dataclasses.replace(d, score=None) for d in documents]
        count = self.document_store.count_documents() if not documents else None
        return {"documents": documents, "collection_count": count}
