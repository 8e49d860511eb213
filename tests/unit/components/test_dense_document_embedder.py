import pytest
from haystack import Document

from haygate.components.dense_document_embedder import DenseDocumentEmbedder
from haygate.document_stores.payload import PASSAGE_EMBEDDINGS
from haygate.errors import ConfigurationError


class TestDenseDocumentEmbedder:
    def test_to_dict_and_from_dict(self) -> None:
        data = DenseDocumentEmbedder(meta_fields_to_embed=["title"]).to_dict()
        assert data["type"] == "haygate.components.dense_document_embedder.DenseDocumentEmbedder"
        assert DenseDocumentEmbedder.from_dict(data).meta_fields_to_embed == ["title"]

    def test_run_embeds_title_and_content(self) -> None:
        [doc] = DenseDocumentEmbedder(meta_fields_to_embed=["title"]).run(
            [Document(content="hybrid retrieval with qdrant", meta={"title": "Retrieval"})]
        )["documents"]
        assert doc.embedding is not None and len(doc.embedding) == 384

    def test_run_embeds_every_passage_for_the_passage_vectors(self) -> None:
        text = " ".join(f"w{i}" for i in range(10))  # windows of 4 every 3 words: w0-w3, w3-w6, w6-w9
        embedder = DenseDocumentEmbedder(passages={"words": 4, "stride": 3})
        [doc, empty] = embedder.run([Document(content=text), Document(content="")])["documents"]
        passages = doc.meta[PASSAGE_EMBEDDINGS]
        assert len(passages) == 3 and all(len(p) == 384 for p in passages)
        alone = DenseDocumentEmbedder().run([Document(content="w3 w4 w5 w6")])["documents"][0].embedding
        assert passages[1] == pytest.approx(alone, abs=1e-5)  # the second window, embedded on its own
        assert empty.meta[PASSAGE_EMBEDDINGS] == []
        assert DenseDocumentEmbedder.from_dict(embedder.to_dict()).passages == {"words": 4, "stride": 3}

    @pytest.mark.parametrize("passages", [{"words": 4}, {"words": 4, "stride": 5}, {"words": "4", "stride": 2}])
    def test_init_refuses_passage_settings_that_make_no_windows(self, passages: dict) -> None:
        with pytest.raises(ConfigurationError, match="passages"):
            DenseDocumentEmbedder(passages=passages)
