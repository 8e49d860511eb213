import pytest

from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder


class TestBm25SparseTextEmbedder:
    def test_init_rejects_bad_settings(self) -> None:
        with pytest.raises(ValueError, match="invalid BM25 settings"):
            Bm25SparseTextEmbedder(b=2.0)

    def test_to_dict(self) -> None:
        assert Bm25SparseTextEmbedder(query_term_frequency=False).to_dict() == {
            "type": "haygate.components.bm25_sparse_text_embedder.Bm25SparseTextEmbedder",
            "init_parameters": {
                "language": "english",
                "k": 1.2,
                "b": 0.75,
                "avg_len": 256.0,
                "ascii_folding": True,
                "capitalised_stopwords": True,
                "query_term_frequency": False,
            },
        }

    def test_from_dict(self) -> None:
        data = Bm25SparseTextEmbedder(k=1.5).to_dict()
        assert Bm25SparseTextEmbedder.from_dict(data).settings.k == 1.5

    def test_run_counts_repeated_terms(self) -> None:
        counted = Bm25SparseTextEmbedder().run("border borders cafe")["sparse_embedding"]
        assert sorted(counted.values) == [1.0, 2.0]  # "border" twice after stemming
        unique = Bm25SparseTextEmbedder(query_term_frequency=False).run("border borders cafe")["sparse_embedding"]
        assert unique.values == [1.0, 1.0] and set(unique.indices) == set(counted.indices)
