from haystack import Document

from haygate.components.dense_document_embedder import DenseDocumentEmbedder


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
