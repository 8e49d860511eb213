"""`DenseTextEmbedder`: the query side of dense retrieval (all-MiniLM-L6-v2 by default), offline."""

import hashlib
import threading
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any

import numpy as np
from haystack import component, default_from_dict, default_to_dict

from haygate.components.embedding_backends import RUNTIMES, EmbeddingBackend, Runtime, load_backend
from haygate.components.models import DEFAULT_MODEL
from haygate.errors import ConfigurationError

# Embeddings are float32, so an array("f") holds them exactly, at 1.5 KB per 384-d query.
_QUERY_CACHE: "OrderedDict[tuple[Any, ...], array[float]]" = OrderedDict()
_QUERY_CACHE_LOCK = threading.Lock()
QUERY_CACHE_SIZE = 32768


def forget_queries() -> None:
    """Empty the query cache: a timed run of real calls (a tool's evaluation) embeds every query itself."""
    with _QUERY_CACHE_LOCK:
        _QUERY_CACHE.clear()


class DenseEmbedding:
    """What the query and document embedders share: the model, its runtime and the vector settings.

    Settings (init parameters of both embedders):
    - `model`: a Hugging Face id (offline: the packaged MiniLM or the local HF cache) or a model folder.
    - `backend`: `onnx` (exported once, checked against torch) or `torch` (sentence-transformers).
    - `prefix`, `suffix`: text put around every text before embedding (instruction-tuned models want them).
    - `batch_size`: the most texts one model call embeds (concurrent queries included).
    - `normalize_embeddings`: L2-normalise the vectors again (MiniLM's own last module already does).
    - `truncate_dim`: keep only the first N dimensions (Matryoshka models); None keeps all.
    - `model_cache_dir`: where the ONNX export is kept; the loader sets it to `HAYGATE_MODEL_CACHE_DIR`.
    """

    embedding_backend: EmbeddingBackend | None

    def _setup(
        self,
        model: str,
        backend: Runtime,
        prefix: str,
        suffix: str,
        batch_size: int,
        normalize_embeddings: bool,
        truncate_dim: int | None,
        model_cache_dir: Path | str | None,
    ) -> None:
        if backend not in RUNTIMES:  # refused when the pipeline loads, naming the component, not at first use
            msg = f"unknown embedding backend '{backend}'; choose one of {', '.join(RUNTIMES)}"
            raise ConfigurationError(msg, {"backend": backend})
        self.model = model
        self.backend = backend
        self.prefix = prefix
        self.suffix = suffix
        self.batch_size = batch_size
        self.normalize_embeddings = normalize_embeddings
        self.truncate_dim = truncate_dim
        self.model_cache_dir = None if model_cache_dir is None else str(model_cache_dir)
        self.embedding_backend = None

    def _settings(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "backend": self.backend,
            "prefix": self.prefix,
            "suffix": self.suffix,
            "batch_size": self.batch_size,
            "normalize_embeddings": self.normalize_embeddings,
            "truncate_dim": self.truncate_dim,
            "model_cache_dir": self.model_cache_dir,
        }

    def warm_up(self) -> None:
        """Load (on first use, export) the model and run one inference, so the first real call is not the
        one that pays for lazy initialisation; the backend is shared with every component using it.
        """
        if self.embedding_backend is None:
            cache = Path(self.model_cache_dir) if self.model_cache_dir else None
            backend = load_backend(self.model, self.backend, cache, max_batch=self.batch_size)
            backend.embed_one(self.prefix + "warm-up" + self.suffix)
            self.embedding_backend = backend

    def _finish(self, vectors: Any) -> np.ndarray:
        """Pooled rows -> the vectors these settings ask for (truncated, optionally re-normalised)."""
        matrix: np.ndarray = np.asarray(vectors, dtype=np.float32)
        if self.truncate_dim:
            matrix = matrix[..., : self.truncate_dim]
        if self.normalize_embeddings:
            norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
            matrix = matrix / np.where(norms == 0, 1.0, norms)
        return matrix

    def _embed_texts(self, texts: list[str], kept: bool = False) -> np.ndarray:
        """The model's vectors for `texts`, in batches of `batch_size`. `kept`: documents' texts, read from and
        added to the vectors kept on disk (`haygate.components.kept_vectors`); no cache otherwise.
        """
        if self.embedding_backend is None:
            self.warm_up()
        backend = self.embedding_backend
        assert backend is not None
        framed = [self.prefix + t + self.suffix for t in texts]
        if kept and backend.kept is not None:
            rows = backend.kept.embed(framed, lambda missing: backend.embed(missing, batch_size=self.batch_size))
        else:
            rows = backend.embed(framed, batch_size=self.batch_size)
        return self._finish(np.asarray(rows, dtype=np.float32).reshape(len(texts), -1))


@component
class DenseTextEmbedder(DenseEmbedding):
    """Embeds a query for dense retrieval; all-MiniLM-L6-v2 on ONNX Runtime by default, offline.

    Use it on the query side of a pipeline whose documents `DenseDocumentEmbedder` embedded with the same model.
    Concurrent queries share one model call (see `MicroBatcher`). Repeated queries (agents retry, evaluation and
    tuning replay the same queries) come from a small process-wide LRU cache keyed by model, runtime, settings
    and text, so a result never depends on the cache.

    ### Usage example

    ```python
    from haygate.components.dense_text_embedder import DenseTextEmbedder

    embedder = DenseTextEmbedder()
    embedder.warm_up()  # loads the packaged all-MiniLM-L6-v2
    result = embedder.run(text="how do I filter by version?")
    print(len(result["embedding"]))  # 384
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
        progress_bar: bool = False,
    ) -> None:
        """The model and vector settings are `DenseEmbedding`'s (documented there).

        :param progress_bar: kept for YAML written for sentence-transformers' embedder; queries show none.
        """
        self._setup(model, backend, prefix, suffix, batch_size, normalize_embeddings, truncate_dim, model_cache_dir)
        self.progress_bar = progress_bar

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, progress_bar=self.progress_bar, **self._settings())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DenseTextEmbedder":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    def _cache_key(self, text: str) -> tuple[Any, ...]:
        return (self.model, self.backend, self.prefix, self.suffix, self.normalize_embeddings, self.truncate_dim, text)

    @staticmethod
    def _remember(key: tuple[Any, ...], embedding: Any) -> None:
        with _QUERY_CACHE_LOCK:
            _QUERY_CACHE[key] = array("f", embedding)
            while len(_QUERY_CACHE) > QUERY_CACHE_SIZE:
                _QUERY_CACHE.popitem(last=False)

    @component.output_types(embedding=list[float])
    def run(self, text: str) -> dict[str, Any]:
        """Embed one query, from the cache when it was embedded before."""
        if not isinstance(text, str):
            raise TypeError("DenseTextEmbedder embeds one string; use DenseDocumentEmbedder for Documents")
        key = self._cache_key(text)
        with _QUERY_CACHE_LOCK:
            cached = _QUERY_CACHE.get(key)
            if cached is not None:
                _QUERY_CACHE.move_to_end(key)
                return {"embedding": cached.tolist()}
        if self.embedding_backend is None:
            self.warm_up()
        assert self.embedding_backend is not None
        vector = self._finish(self.embedding_backend.embed_one(self.prefix + text + self.suffix))
        self._remember(key, vector)
        return {"embedding": vector.tolist()}

    def prefill(self, texts: list[str]) -> None:
        """Embed many queries in batches ahead of time (evaluation): `run` then answers from the cache.

        Same model, same settings; only the batching differs, which changes results by float rounding at most.
        """
        wanted = [t for t in dict.fromkeys(texts) if self._cache_key(t) not in _QUERY_CACHE][:QUERY_CACHE_SIZE]
        if not wanted:
            return
        for text, vector in zip(wanted, self._embed_texts(wanted), strict=True):
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
                self._remember(self._cache_key(text), vector)
            return
        self.prefill(wanted)
        with _QUERY_CACHE_LOCK:
            matrix = np.asarray([_QUERY_CACHE[self._cache_key(t)] for t in wanted], dtype=np.float32)
        np.save(path, matrix)

    def embed_many(self, texts: list[str], cache: bool = True, kept: bool = False) -> np.ndarray:
        """Unit-length embeddings, one row per text, batched; `cache` also serves and keeps them in the LRU;
        `kept` (documents' texts, not queries) reads and adds them to the vectors kept on disk instead.
        """
        rows: Any
        if kept or not cache:
            rows = self._embed_texts(texts, kept=kept)
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
