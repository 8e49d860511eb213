from typing import Any

import pytest
from haystack import Document
from haystack.dataclasses import SparseEmbedding

from haygate.components.hybrid_retriever import HybridRetriever
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.errors import ConfigurationError, FilterError


def fill(store: EdgeDocumentStore) -> None:
    store.write_documents(
        [
            Document(
                id=f"d{i}",
                content=f"text number {i}" + (" border" if i == 2 else ""),
                meta={"group": "a" if i < 4 else "b", "record_id": f"d{i}", "title": f"T{i}"},
                embedding=[1.0, float(i), 0.0],
                sparse_embedding=SparseEmbedding(indices=[i], values=[1.0]),
            )
            for i in range(1, 7)
        ]
    )


class TestHybridRetriever:
    def test_init_validates(self, tiny_store: EdgeDocumentStore) -> None:
        with pytest.raises(ConfigurationError, match="fusion"):
            HybridRetriever(tiny_store, fusion="max")  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match="at least one source"):
            HybridRetriever(tiny_store, use_dense=False, use_sparse=False)
        with pytest.raises(ConfigurationError, match="no text index"):
            HybridRetriever(tiny_store, text_fields=["meta.group"])
        with pytest.raises(ConfigurationError, match="must be a haygate document store"):
            HybridRetriever({"collection": "docs"})  # type: ignore[arg-type]

    def test_to_dict(self, tiny_store: EdgeDocumentStore) -> None:
        assert HybridRetriever(tiny_store, rrf_k=2).to_dict() == {
            "type": "haygate.components.hybrid_retriever.HybridRetriever",
            "init_parameters": {
                "document_store": tiny_store.to_dict(),
                "top_k": 50,
                "prefetch_limit": 100,
                "fusion": "rrf",
                "rrf_k": 2,
                "weights": {},
                "use_dense": True,
                "use_sparse": True,
                "text_fields": [],
                "min_score": None,
                "payload_fields": None,
            },
        }

    def test_from_dict(self, tiny_store: EdgeDocumentStore) -> None:
        retriever = HybridRetriever.from_dict(HybridRetriever(tiny_store, weights={"dense": 2.0}).to_dict())
        assert retriever.weights == {"dense": 2.0} and isinstance(retriever.document_store, EdgeDocumentStore)
        assert retriever.document_store.path == tiny_store.path

    def test_run_on_an_empty_collection_says_so(self, tiny_store: EdgeDocumentStore) -> None:
        assert HybridRetriever(tiny_store).run(query_embedding=[0.1] * 3) == {"documents": [], "collection_count": 0}

    def test_run_rejects_unknown_filter_field(self, tiny_store: EdgeDocumentStore) -> None:
        with pytest.raises(FilterError, match="unknown filter field"):
            HybridRetriever(tiny_store).run(
                query_embedding=[0.1] * 3, filters={"field": "meta.yaer", "operator": "==", "value": 1}
            )

    def test_run_fuses_filters_and_records_provenance(self, tiny_store: EdgeDocumentStore) -> None:
        fill(tiny_store)
        out = HybridRetriever(tiny_store, top_k=3, text_fields=["content"]).run(
            query_embedding=[1.0, 2.0, 0.0],
            query_sparse_embedding=SparseEmbedding(indices=[2], values=[1.0]),
            query="borders",
            filters={"field": "meta.group", "operator": "==", "value": "a"},
        )
        docs = out["documents"]
        assert [d.id for d in docs][:1] == ["d2"] and out["collection_count"] is None
        assert {d.meta["group"] for d in docs} == {"a"}
        assert docs[0].meta["scores"].keys() == {"dense_rank", "sparse_rank", "text_content_rank", "fused_score"}
        assert [d.score for d in docs] == sorted((d.score for d in docs), reverse=True)

    def test_run_overrides_and_min_score(self, tiny_store: EdgeDocumentStore) -> None:
        fill(tiny_store)
        retriever = HybridRetriever(tiny_store, top_k=6)
        args: dict[str, Any] = {
            "query_embedding": [1.0, 2.0, 0.0],
            "query_sparse_embedding": SparseEmbedding(indices=[2], values=[1.0]),
        }
        assert len(retriever.run(**args, top_k=2)["documents"]) == 2
        kept = retriever.run(**args, min_score=0.9)["documents"]
        assert [d.id for d in kept] == ["d2"]  # first in both lists: normalised score 1.0

    def test_run_without_query_text_lists_by_filter(self, tiny_store: EdgeDocumentStore) -> None:
        fill(tiny_store)
        out = HybridRetriever(tiny_store, use_dense=False, use_sparse=False, text_fields=["content"]).run(
            query="", filters={"field": "meta.group", "operator": "==", "value": "b"}
        )
        assert [d.id for d in out["documents"]] == ["d4", "d5", "d6"] and {d.score for d in out["documents"]} == {None}
