"""`DenseTextEmbedder`: the query side of dense retrieval (all-MiniLM-L6-v2 by default), offline."""

import hashlib
import threading
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
from haystack import component
from haystack_integrations.components.embedders.sentence_transformers import SentenceTransformersTextEmbedder

from haygate.components.models import DEFAULT_MODEL, warm_up_offline

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
            warm_up_offline(self, lambda: SentenceTransformersTextEmbedder.warm_up(self))

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
        wanted = [t for t in dict.fromkeys(texts) if self._cache_key(t) not in _QUERY_CACHE][:QUERY_CACHE_SIZE]
        if not wanted:
            return
        for text, vector in zip(wanted, self._embed_batch(wanted), strict=True):
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
            rows = self._embed_batch(texts)
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

    def _embed_batch(self, texts: list[str]) -> Any:
        """The model's vectors for `texts`, batched, with this component's settings (no cache)."""
        if self.embedding_backend is None:
            self.warm_up()
        assert self.embedding_backend is not None
        return self.embedding_backend.embed(
            [self.prefix + t + self.suffix for t in texts],
            batch_size=self.batch_size,
            show_progress_bar=False,
            normalize_embeddings=self.normalize_embeddings,
            precision=self.precision,
        )
