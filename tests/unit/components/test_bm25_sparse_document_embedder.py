import pytest
import qdrant_edge as qe
from haystack import Document

from haygate.components.bm25_sparse_document_embedder import Bm25SparseDocumentEmbedder
from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder
from haygate.errors import ConfigurationError


class TestBm25SparseDocumentEmbedder:
    def test_init_rejects_bad_field(self) -> None:
        with pytest.raises(ValueError, match="unknown document path"):
            Bm25SparseDocumentEmbedder(fields=["title"])

    def test_to_dict(self) -> None:
        assert Bm25SparseDocumentEmbedder(fields=["meta.title", "content"], k=1.5).to_dict() == {
            "type": "haygate.components.bm25_sparse_document_embedder.Bm25SparseDocumentEmbedder",
            "init_parameters": {
                "fields": ["meta.title", "content"],
                "language": "english",
                "k": 1.5,
                "b": 0.75,
                "avg_len": 256.0,
                "ascii_folding": True,
                "capitalised_stopwords": True,
            },
        }

    def test_from_dict(self) -> None:
        data = Bm25SparseDocumentEmbedder(fields=["meta.title", "content"]).to_dict()
        assert Bm25SparseDocumentEmbedder.from_dict(data).fields == ["meta.title", "content"]

    def test_run_weights_equal_qdrants(self) -> None:
        texts = ["Borders and borders of the border town", "A short cafe", "Résumé of a café with borders " * 5]
        ours = Bm25SparseDocumentEmbedder(k=1.3, b=0.6, avg_len=7.0).run([Document(content=t) for t in texts])
        model = qe.Bm25(qe.Bm25Config(k=1.3, b=0.6, avg_len=7.0, language="english", ascii_folding=True))
        for text, document in zip(texts, ours["documents"], strict=True):
            reference = model.embed_document(text)
            assert document.sparse_embedding is not None
            got = dict(zip(document.sparse_embedding.indices, document.sparse_embedding.values, strict=True))
            assert got == pytest.approx(dict(zip(reference.indices, reference.values, strict=True)), rel=1e-5)

    def test_run_auto_avg_len_is_the_mean_document_length(self) -> None:
        documents = [Document(content="border " * 3), Document(content="border town " * 4)]  # 3 and 8 tokens
        auto = Bm25SparseDocumentEmbedder(avg_len="auto").run(documents)["documents"]
        fixed = Bm25SparseDocumentEmbedder(avg_len=5.5).run(documents)["documents"]
        assert [d.sparse_embedding for d in auto] == [d.sparse_embedding for d in fixed]

    def test_query_and_document_share_tokens(self) -> None:
        query = Bm25SparseTextEmbedder().run("Cafés borders")["sparse_embedding"]
        [doc] = Bm25SparseDocumentEmbedder(fields=["meta.title", "content"]).run(
            [Document(content="the cafe border", meta={"title": "x"})]
        )["documents"]
        assert doc.sparse_embedding is not None and set(query.indices) <= set(doc.sparse_embedding.indices)

    def test_field_weights_count_a_title_word_that_many_times(self) -> None:
        """BM25F: a title word weighted 3 counts as three occurrences, before saturation and in the length."""
        document = Document(content="border town", meta={"title": "border"})
        weighted = Bm25SparseDocumentEmbedder(fields={"meta.title": 3, "content": 1}, k=1.2, b=0.75, avg_len=5.0)
        counts = weighted.term_counts(document)
        border, town = (Bm25SparseTextEmbedder().run(w)["sparse_embedding"].indices[0] for w in ("border", "town"))
        assert counts == {border: 4.0, town: 1.0}
        [embedded] = weighted.run([document])["documents"]
        assert embedded.sparse_embedding is not None
        weights = dict(zip(embedded.sparse_embedding.indices, embedded.sparse_embedding.values, strict=True))
        norm = 1.2 * (1 - 0.75 + 0.75 * 5 / 5.0)
        assert weights[border] == pytest.approx(4 * 2.2 / (4 + norm)) and weights[town] == pytest.approx(
            2.2 / (1 + norm)
        )

    def test_field_weights_must_be_positive_numbers(self) -> None:
        with pytest.raises(ConfigurationError, match=r"weight of 'meta\.title' must be a number above 0"):
            Bm25SparseDocumentEmbedder(fields={"meta.title": 0, "content": 1})
