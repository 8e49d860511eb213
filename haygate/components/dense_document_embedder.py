"""`DenseDocumentEmbedder`: the document side of dense retrieval; embeds chosen meta fields (the title)
with the content, as sentence-transformers' Haystack embedder does, on the runtime the YAML names.

With `passages`, it also embeds each word window of the content on its own, for the collection's passage
vectors (`haygate.text.passages`): the store keeps them as a multivector, the retriever rescores by them.
"""

from dataclasses import replace
from pathlib import Path
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.components.dense_text_embedder import DenseEmbedding
from haygate.components.embedding_backends import Runtime
from haygate.components.models import DEFAULT_MODEL
from haygate.document_stores.payload import PASSAGE_EMBEDDINGS
from haygate.errors import ConfigurationError
from haygate.text.passages import word_windows


@component
class DenseDocumentEmbedder(DenseEmbedding):
    """Embeds documents for dense retrieval, each with chosen meta fields (the title) before its content.

    The document side of `DenseTextEmbedder`, with the same model and runtime settings (`DenseEmbedding`), as
    sentence-transformers' Haystack document embedder does it but offline and on ONNX Runtime by default. With
    `passages` it also embeds each word window of the content, for the collection's passage vectors.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.dense_document_embedder import DenseDocumentEmbedder

    embedder = DenseDocumentEmbedder(meta_fields_to_embed=["title"])
    embedder.warm_up()  # loads the packaged all-MiniLM-L6-v2
    result = embedder.run(documents=[Document(content="pip install haygate", meta={"title": "Install"})])
    print(len(result["documents"][0].embedding))  # 384
    ```
    """

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
        passages: dict[str, int] | None = None,
        progress_bar: bool = False,
    ) -> None:
        """The model and vector settings are `DenseEmbedding`'s (documented there).

        :param meta_fields_to_embed: meta fields embedded before the content (e.g. the title).
        :param embedding_separator: what joins those fields and the content into the embedded text.
        :param passages: `{words: 48, stride: 24}`: also embed every window of `words` words of the content,
            one every `stride` words, for the collection's passage vectors (its YAML says `passages: true`).
            Ingest embeds about `words / stride` times more text. None: no passages.
        :param progress_bar: kept for YAML written for sentence-transformers' embedder; ingest shows its own.
        """
        self._setup(model, backend, prefix, suffix, batch_size, normalize_embeddings, truncate_dim, model_cache_dir)
        self.meta_fields_to_embed = list(meta_fields_to_embed or [])
        self.embedding_separator = embedding_separator
        self.passages = dict(passages) if passages is not None else None
        if self.passages is not None:
            words, stride = self.passages.get("words"), self.passages.get("stride")
            if set(self.passages) != {"words", "stride"} or not isinstance(words, int) or not isinstance(stride, int):
                raise ConfigurationError(f"passages takes {{words: int, stride: int}}, got {self.passages}")
            try:
                word_windows("", words, stride)
            except ValueError as error:
                raise ConfigurationError(str(error)) from None
        self.progress_bar = progress_bar

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            meta_fields_to_embed=self.meta_fields_to_embed,
            embedding_separator=self.embedding_separator,
            passages=self.passages,
            progress_bar=self.progress_bar,
            **self._settings(),
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DenseDocumentEmbedder":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    def text_to_embed(self, document: Document) -> str:
        """The text a document is embedded as: the chosen meta fields, then the content."""
        meta = [str(document.meta[k]) for k in self.meta_fields_to_embed if document.meta.get(k) is not None]
        return self.embedding_separator.join([*meta, document.content or ""])

    def _embed_once(self, texts: list[str]) -> list[list[float]]:
        """Each distinct text embedded once (repeated boilerplate, a chunk written twice), and one embedded by an
        earlier batch or ingest not again (`haygate.components.kept_vectors`): the model is the cost.
        """
        distinct = list(dict.fromkeys(texts))
        vectors = dict(zip(distinct, self._embed_texts(distinct, kept=True).tolist(), strict=True))
        return [list(vectors[text]) for text in texts]

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        """Add each document's embedding (and its passage vectors, with `passages`)."""
        if not isinstance(documents, list) or any(not isinstance(d, Document) for d in documents):
            raise TypeError("DenseDocumentEmbedder embeds a list of Documents; use DenseTextEmbedder for a string")
        if not documents:
            return {"documents": []}
        vectors = self._embed_once([self.text_to_embed(d) for d in documents])
        if self.passages is None:
            return {"documents": [replace(d, embedding=v) for d, v in zip(documents, vectors, strict=True)]}
        windows = [word_windows(d.content or "", self.passages["words"], self.passages["stride"]) for d in documents]
        flat = self._embed_once([w for group in windows for w in group]) if any(windows) else []
        embedded, start = [], 0
        for document, vector, group in zip(documents, vectors, windows, strict=True):
            meta = {**document.meta, PASSAGE_EMBEDDINGS: flat[start : start + len(group)]}
            embedded.append(replace(document, embedding=vector, meta=meta))
            start += len(group)
        return {"documents": embedded}
