"""DenseTextEmbedder with the packaged all-MiniLM-L6-v2, offline."""

from pathlib import Path

import pytest

import haygate.components.dense_text_embedder as dense_text_module
from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.errors import ConfigurationError

MODEL = "sentence-transformers/all-MiniLM-L6-v2"


class TestDenseTextEmbedder:
    def test_init_is_light(self) -> None:
        assert DenseTextEmbedder().embedding_backend is None

    def test_to_dict_keeps_the_model_id(self) -> None:
        data = DenseTextEmbedder().to_dict()
        assert data["type"] == "haygate.components.dense_text_embedder.DenseTextEmbedder"
        assert data["init_parameters"]["model"] == MODEL and data["init_parameters"]["progress_bar"] is False

    def test_from_dict(self) -> None:
        assert DenseTextEmbedder.from_dict(DenseTextEmbedder().to_dict()).model == MODEL

    def test_run_offline(self) -> None:
        embedder = DenseTextEmbedder()
        embedder.warm_up()
        assert len(embedder.run("hybrid retrieval")["embedding"]) == 384
        assert embedder.model == MODEL  # the id survives warm-up

    def test_query_vectors_kept_beside_an_index_are_reused(self, tmp_path: Path) -> None:
        embedder = DenseTextEmbedder()
        queries = ["what is a pipeline", "hybrid retrieval with qdrant"]
        embedder.prefill_from_file(queries, tmp_path)
        [saved] = list(tmp_path.glob("query-embeddings-*.npy"))
        expected = embedder.run(queries[1])["embedding"]
        dense_text_module._QUERY_CACHE.clear()
        embedder.prefill_from_file(queries, tmp_path)  # served from the file: the cache is full again
        assert embedder._cache_key(queries[1]) in dense_text_module._QUERY_CACHE
        assert embedder.run(queries[1])["embedding"] == pytest.approx(expected, abs=1e-6)
        assert list(tmp_path.glob("query-embeddings-*.npy")) == [saved]

    def test_missing_model_fails_with_configuration_error(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="cannot load embedding model"):
            DenseTextEmbedder(model=str(tmp_path / "missing")).warm_up()
