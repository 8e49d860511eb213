"""`DenseDocumentEmbedder`: the document side of dense retrieval; embeds chosen meta fields (the title)
with the content, as sentence-transformers' Haystack embedder does, on the runtime the YAML names."""

from dataclasses import replace
from pathlib import Path
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.components.dense_text_embedder import DenseEmbedding
from haygate.components.embedding_backends import Runtime
from haygate.components.models import DEFAULT_MODEL


@component
class DenseDocumentEmbedder(DenseEmbedding):
    """Document embedder; embeds `meta_fields_to_embed` (e.g. the title) with the content."""

    def __init__(
        self,
        *,
        model: str = DEFAULT_MODEL,
        backend: Runtime = "onnx",
        prefix: str = "",
        suffix: str = "",
        batch_size: int = 32,
        normalize_embeddings: bool = False,
        truncate_dim: int | None = None,
        model_cache_dir: Path | None = None,
        meta_fields_to_embed: list[str] | None = None,
        embedding_separator: str = "\n",
        progress_bar: bool = False,
    ) -> None:
        """
        The model and vector settings are `DenseEmbedding`'s (documented there).

        :param meta_fields_to_embed: meta fields embedded before the content (e.g. the title).
        :param embedding_separator: what joins those fields and the content into the embedded text.
        :param progress_bar: kept for YAML written for sentence-transformers' embedder; ingest shows its own.
        """
        self._setup(model, backend, prefix, suffix, batch_size, normalize_embeddings, truncate_dim, model_cache_dir)
        self.meta_fields_to_embed = list(meta_fields_to_embed or [])
        self.embedding_separator = embedding_separator
        self.progress_bar = progress_bar

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            meta_fields_to_embed=self.meta_fields_to_embed,
            embedding_separator=self.embedding_separator,
            progress_bar=self.progress_bar,
            **self._settings(),
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DenseDocumentEmbedder":
        return default_from_dict(cls, data)

    def text_to_embed(self, document: Document) -> str:
        meta = [str(document.meta[k]) for k in self.meta_fields_to_embed if document.meta.get(k) is not None]
        return self.embedding_separator.join([*meta, document.content or ""])

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        if not isinstance(documents, list) or any(not isinstance(d, Document) for d in documents):
            raise TypeError("DenseDocumentEmbedder embeds a list of Documents; use DenseTextEmbedder for a string")
        if not documents:
            return {"documents": []}
        vectors = self._embed_texts([self.text_to_embed(d) for d in documents])
        return {"documents": [replace(d, embedding=v) for d, v in zip(documents, vectors.tolist(), strict=True)]}
