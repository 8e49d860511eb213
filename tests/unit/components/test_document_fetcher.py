"""`DocumentFetcher` after a retriever that read ids only: the kept documents come back whole, in the
ranker's order, with their scores and provenance; a candidate deleted meanwhile is left out."""

from haystack import Document
from haystack.dataclasses import SparseEmbedding

from haygate.components.document_fetcher import DocumentFetcher
from haygate.components.hybrid_retriever import HybridRetriever
from haygate.document_stores.edge.document_store import EdgeDocumentStore


def test_ids_only_then_whole_documents_for_the_kept(tiny_store: EdgeDocumentStore) -> None:
    tiny_store.write_documents(
        [
            Document(
                id=f"d{i}",
                content=f"text number {i}",
                meta={"record_id": f"d{i}", "title": f"T{i}", "group": "a"},
                embedding=[1.0, float(i), 0.0],
                sparse_embedding=SparseEmbedding(indices=[i], values=[1.0]),
            )
            for i in range(1, 7)
        ]
    )
    retriever = HybridRetriever(tiny_store, top_k=6, payload_fields=[])
    found = retriever.run(query_embedding=[1.0, 5.0, 0.0], query_sparse_embedding=SparseEmbedding([5], [1.0]))
    candidates = found["documents"]
    assert len(candidates) == 6 and all(d.content is None and set(d.meta) == {"scores"} for d in candidates)
    kept = candidates[:3]
    tiny_store.delete_documents([kept[1].id])  # deleted between the search and the fetch
    whole = DocumentFetcher(tiny_store).run(documents=kept)["documents"]
    assert [d.id for d in whole] == [kept[0].id, kept[2].id]
    first = whole[0]
    assert first.id == "d5" and first.content == "text number 5" and first.meta["title"] == "T5"
    assert first.score == kept[0].score and first.meta["scores"] == kept[0].meta["scores"]
    assert DocumentFetcher(tiny_store).run(documents=[])["documents"] == []
