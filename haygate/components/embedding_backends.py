"""Runtimes for dense embedding models, chosen per pipeline in YAML (`backend: onnx` or `backend: torch`).

- `torch`: sentence-transformers on PyTorch, the reference.
- `onnx`: the same model as an ONNX graph, made once from its local folder, cached under `model_cache_dir`,
  and run on ONNX Runtime with `tokenizers`, mean or CLS pooling and an L2 norm. A BERT encoder (the packaged
  all-MiniLM-L6-v2 among them) is written from `config.json` and `model.safetensors` with onnx's own API
  (`bert_onnx`), in a second and without torch; any other transformer is exported with `torch.onnx.export`.
  Where torch is installed the export is checked against `SentenceTransformer.encode` (cosine >= 0.9999);
  elsewhere `onnx.checker` checks the graph, and the tests hold it to sentence-transformers. It embeds a query faster
  than `SentenceTransformer.encode` (docs/results/benchmarks.md) with cosine >= 0.99999, and embedding with a BERT model
  needs no torch at all. (sentence-transformers' own `backend="onnx"` needs optimum-onnx, which needs transformers <
  4.58 and does not install beside our pins.)

Backends are shared process-wide per model folder, runtime and cache: every pipeline that names the same
model uses one loaded model, and concurrent single-text calls are batched together (`MicroBatcher`).
"""

import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import numpy as np

from haygate.components.kept_vectors import KeptVectors, kept_vectors
from haygate.components.models import model_folder
from haygate.errors import ConfigurationError
from haygate.extras import add_extra

logger = logging.getLogger(__name__)

Runtime = Literal["onnx", "torch"]
RUNTIMES: tuple[str, ...] = ("onnx", "torch")
EXPORT_FORMAT = 2  # bump when the exported graph or its metadata change: old exports are then re-made
PARITY_MIN_COSINE = 0.9999
MANIFEST = "haygate-onnx.json"
TOKENS_PER_BATCH = 4096  # an ingest batch's texts times its longest text's tokens, at most (see OnnxBackend.embed)
# Probe texts for the export check: short, long and non-English, so padding and truncation are exercised.
PROBES = [
    "hybrid retrieval",
    "How do NOT filters work in Haystack pipelines?",
    "Qdrant Edge runs Qdrant's engine in-process; writes go to a write-ahead log before segments.",
    "Die Suche kombiniert dichte Vektoren mit BM25. " * 40,
]


def default_cache_dir() -> Path:
    """Where exports go when no pipeline says (components built outside the loader)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "haygate" / "models"


class EmbeddingBackend(Protocol):
    """What the dense embedders call: texts -> one float32 row per text (pooled, not yet normalised)."""

    runtime: str
    dimension: int
    kept: KeptVectors | None  # its document vectors on disk, by text (`load_backend` sets it)

    def embed(self, data: list[str], batch_size: int = 32, **kwargs: Any) -> Any:
        """One row per text, `batch_size` texts a model call."""
        ...

    def embed_one(self, text: str) -> np.ndarray:
        """One text's row; concurrent callers share model calls (`MicroBatcher`)."""
        ...


# -- micro-batching ---------------------------------------------------------------------------------------


@dataclass
class _Pending:
    text: str
    done: threading.Event = field(default_factory=threading.Event)
    vector: np.ndarray | None = None
    error: BaseException | None = None
    leads: bool = False


class MicroBatcher:
    """Embeds concurrent single texts together.

    A caller that finds the model idle embeds its text at once, alone: a single caller waits for nothing.
    Callers that arrive while a batch runs queue up, and when it ends the first of them embeds up to
    `max_batch` queued texts in one model call for all of them. The wait is therefore bounded by one batch,
    and under load each model call serves many requests, so throughput grows with concurrency.
    """

    def __init__(self, embed_batch: Callable[[list[str]], np.ndarray], max_batch: int = 32) -> None:
        self.embed_batch = embed_batch
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._queue: list[_Pending] = []
        self._busy = False
        self.batches = 0  # model calls made, for benchmarks and tests
        self.texts = 0

    def __call__(self, text: str) -> np.ndarray:
        """Embed one text, with whichever texts are waiting when the model is free."""
        pending = _Pending(text)
        with self._lock:
            self._queue.append(pending)
            if not self._busy:
                self._busy = pending.leads = True
        if not pending.leads:
            pending.done.wait()
        if pending.leads:  # the first caller, or one promoted by the batch before: run a batch
            self._run_batch()
        if pending.error is not None:
            raise pending.error
        assert pending.vector is not None
        return pending.vector

    def _run_batch(self) -> None:
        with self._lock:
            batch, self._queue = self._queue[: self.max_batch], self._queue[self.max_batch :]
        try:
            vectors = self.embed_batch([p.text for p in batch])
            for pending, vector in zip(batch, vectors, strict=True):
                pending.vector = vector
        except BaseException as error:
            for pending in batch:
                pending.error = error
        finally:
            self.batches += 1
            self.texts += len(batch)
            with self._lock:
                if self._queue:
                    self._queue[0].leads = True
                    self._queue[0].done.set()  # hand over: it runs the next batch
                else:
                    self._busy = False
            for pending in batch:
                pending.leads = False
                pending.done.set()


# -- the two runtimes --------------------------------------------------------------------------------------


@dataclass
class Placement:
    """Where this process's models run: every core and the CPU by default. A Ray actor that reserves one CPU
    (or a GPU) says so before it loads its model (`place_runtime`), so actors sharing a node do not each
    start a thread per core of it.
    """

    threads: int | None = None  # None: one per core of the machine
    device: str = "cpu"  # or "cuda" / "cuda:N"


_PLACEMENT = Placement()


def place_runtime(threads: int | None = None, device: str = "cpu") -> None:
    """Models this process loads from now on use `threads` runtime threads on `device` (`cpu`, `cuda[:N]`)."""
    _PLACEMENT.threads, _PLACEMENT.device = threads, device


def onnx_providers(device: str) -> tuple[list[str], list[dict[str, Any]]]:
    """ONNX Runtime's execution providers for `device`, with the CPU last for what a GPU provider lacks; a GPU
    asked of an onnxruntime built without CUDA is refused, not run on the CPU in silence.
    """
    if device == "cpu":
        return ["CPUExecutionProvider"], [{}]
    import onnxruntime as ort

    if "CUDAExecutionProvider" not in ort.get_available_providers():
        msg = (
            f"the embedding model was placed on {device}, and this onnxruntime has no CUDA provider: install "
            "onnxruntime-gpu in place of onnxruntime on the GPU nodes, or use `backend: torch`"
        )
        raise ConfigurationError(msg, {"device": device})
    _, _, index = device.partition(":")
    return ["CUDAExecutionProvider", "CPUExecutionProvider"], [{"device_id": int(index or 0)}, {}]


class OnnxBackend:
    """An exported model on ONNX Runtime: tokenizers -> graph -> pooling."""

    runtime = "onnx"

    def __init__(self, folder: Path, max_batch: int = 32) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        manifest = json.loads((folder / MANIFEST).read_text())
        self.folder = folder
        self.dimension = int(manifest["dimension"])
        self.pooling = str(manifest["pooling"])
        self.normalize = bool(manifest["normalize"])
        self.inputs = list(manifest["inputs"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(int(manifest["max_seq_length"]))
        self.tokenizer.enable_padding(pad_id=int(manifest["pad_id"]), pad_token=str(manifest["pad_token"]))
        options = ort.SessionOptions()
        options.intra_op_num_threads = _PLACEMENT.threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Idle intra-op threads sleep instead of spinning: on a small machine the gateway's own Python work
        # (and the other requests) need those cores between model calls.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        providers, provider_options = onnx_providers(_PLACEMENT.device)
        self.session = ort.InferenceSession(
            str(folder / "model.onnx"), options, providers=providers, provider_options=provider_options
        )
        self.embed_one = MicroBatcher(self._run, max_batch)
        self.identity = folder.name  # the export's folder: the model's name and its files' fingerprint
        self.kept: KeptVectors | None = None

    def _run(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        return self._infer(
            np.asarray([e.ids for e in encodings], dtype=np.int64),
            np.asarray([e.attention_mask for e in encodings], dtype=np.int64),
        )

    def _infer(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        tokens = self.session.run(None, {name: feeds[name] for name in self.inputs})[0]
        if self.pooling == "cls":
            pooled = tokens[:, 0]
        else:
            weights = mask[..., None].astype(np.float32)
            pooled = (tokens * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        if self.normalize:
            pooled = pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        return pooled.astype(np.float32, copy=False)

    def embed(self, data: list[str], batch_size: int = 32, **_: Any) -> np.ndarray:
        """Tokenized once; each distinct token sequence run once, longest first, in batches of at most
        `batch_size` texts and `TOKENS_PER_BATCH` tokens: a batch's working memory grows with its texts times
        their length squared (attention), so 32 texts of 256 tokens held about 900 MB where 16 hold half.
        """
        rows = np.zeros((len(data), self.dimension), dtype=np.float32)
        if not data:
            return rows
        encodings = self.tokenizer.encode_batch(data)  # padded to the longest text: each batch is cut to its own
        # Texts the tokenizer makes one sequence of ("Python" and "python", to an uncased model) are one text
        # to the model: each sequence is run once and its vector given to every text that made it.
        first: dict[tuple[int, ...], int] = {}
        owner = [first.setdefault(tuple(e.ids), i) for i, e in enumerate(encodings)]
        distinct = sorted(set(owner))
        ids = np.asarray([encodings[i].ids for i in distinct], dtype=np.int64)
        mask = np.asarray([encodings[i].attention_mask for i in distinct], dtype=np.int64)
        lengths = mask.sum(axis=1)
        computed = np.zeros((len(distinct), self.dimension), dtype=np.float32)
        order = np.argsort(-lengths, kind="stable")
        start = 0
        while start < len(order):
            longest = max(1, int(lengths[order[start]]))
            size = max(1, min(batch_size, TOKENS_PER_BATCH // longest))
            batch = order[start : start + size]
            computed[batch] = self._infer(ids[batch, :longest], mask[batch, :longest])
            start += size
        position = {index: row for row, index in enumerate(distinct)}
        rows[:] = computed[[position[index] for index in owner]]
        return rows


class TorchBackend:
    """sentence-transformers on PyTorch (any model it loads, including ones ONNX export does not cover)."""

    runtime = "torch"

    def __init__(self, folder: str, max_batch: int = 32) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as error:
            msg = f"`backend: torch` runs sentence-transformers, which is not installed: {add_extra('torch')}"
            raise ConfigurationError(msg, {"backend": "torch"}) from error

        if _PLACEMENT.threads:
            import torch

            torch.set_num_threads(_PLACEMENT.threads)
        self.model = SentenceTransformer(folder, device=_PLACEMENT.device)
        self.dimension = int(self.model.get_embedding_dimension() or 0)
        self.embed_one = MicroBatcher(lambda texts: self.embed(texts, batch_size=len(texts)), max_batch)
        self.identity = f"torch-{Path(folder).name}-{_fingerprint(Path(folder))}"
        self.kept: KeptVectors | None = None

    def embed(self, data: list[str], batch_size: int = 32, **_: Any) -> np.ndarray:
        """One float32 row per text, as sentence-transformers' `encode` pools it."""
        vectors = self.model.encode(data, batch_size=batch_size, show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32).reshape(len(data), -1)


# -- export ------------------------------------------------------------------------------------------------


def _fingerprint(folder: Path) -> str:
    """Changes when the model folder's files change (name, size, modification time)."""
    parts = [str(folder.resolve()), str(EXPORT_FORMAT)]
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            stat = path.stat()
            parts.append(f"{path.relative_to(folder)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class _Layout:
    """What a sentence-transformers folder says beside its transformer, read from its files (no torch)."""

    transformer: Path  # the folder of config.json, the weights and tokenizer.json
    pooling: str
    normalize: bool
    max_seq_length: int | None  # sentence_bert_config.json's, when it sets one


def _read_layout(source: Path) -> _Layout:
    """modules.json, the pooling config and sentence_bert_config.json, as sentence-transformers reads them; a
    folder without modules.json is a plain transformer, which sentence-transformers mean-pools.
    """
    from haygate.components.bert_onnx import UnsupportedModelError

    modules_file = source / "modules.json"
    try:
        modules = json.loads(modules_file.read_text()) if modules_file.is_file() else []
        pooling_config = json.loads((source / str(modules[1]["path"]) / "config.json").read_text()) if modules else {}
    except (OSError, ValueError, LookupError, TypeError) as error:  # sentence-transformers may still read it
        msg = f"modules.json or the pooling config is not as the graph builder reads them ({error})"
        raise UnsupportedModelError(msg, {"model": str(source)}) from error
    kinds = [str(m.get("type", "")).rsplit(".", 1)[-1] for m in modules]
    if modules and (kinds[:2] != ["Transformer", "Pooling"] or any(k != "Normalize" for k in kinds[2:])):
        msg = f"modules.json lists {kinds}; the graph builder covers a transformer, pooling and a normalisation"
        raise UnsupportedModelError(msg, {"modules": kinds})
    transformer = source / str(modules[0].get("path", "")) if modules else source
    pooling = "mean"
    if modules:
        legacy = [mode for key, mode in _LEGACY_POOLING.items() if pooling_config.get(key)]
        found = pooling_config.get("pooling_mode", legacy if legacy else "mean")
        modes = [found] if isinstance(found, str) else list(found)
        if len(modes) != 1 or modes[0] not in ("mean", "cls"):
            msg = f"the model pools with {modes}; the ONNX runtime does mean or cls. Use `backend: torch`."
            raise ConfigurationError(msg, {"model": str(source), "pooling": modes})
        pooling = modes[0]
    settings_file = transformer / "sentence_bert_config.json"
    settings = json.loads(settings_file.read_text()) if settings_file.is_file() else {}
    if settings.get("do_lower_case"):
        msg = "sentence_bert_config.json sets do_lower_case, which the tokenizer file does not carry"
        raise UnsupportedModelError(msg, {"model": str(source)})
    length = settings.get("max_seq_length")
    return _Layout(transformer, pooling, "Normalize" in kinds, None if length is None else int(length))


# sentence-transformers' pooling_mode_* flags of older configs, and the mode each means.
_LEGACY_POOLING = {
    "pooling_mode_cls_token": "cls",
    "pooling_mode_max_tokens": "max",
    "pooling_mode_mean_tokens": "mean",
    "pooling_mode_mean_sqrt_len_tokens": "mean_sqrt_len_tokens",
    "pooling_mode_weightedmean_tokens": "weightedmean",
    "pooling_mode_lasttoken": "lasttoken",
}


def _torch_installed() -> bool:
    """Whether torch and sentence-transformers could be imported here (without importing them)."""
    try:
        return all(importlib.util.find_spec(name) is not None for name in ("torch", "sentence_transformers"))
    except (ImportError, ValueError):  # a finder that refuses them, or a stand-in module without a spec
        return False


def export_onnx(source: Path, target: Path) -> dict[str, Any]:
    """Make `target` (model.onnx, tokenizer.json and a manifest) from the sentence-transformers model in
    `source`: a BERT encoder is written as an ONNX graph from its weights (`bert_onnx`, no torch), checked by
    `onnx.checker`, its embeddings of `PROBES` finite and non-zero; any other transformer is exported with
    `torch.onnx.export`, and ONNX Runtime's embeddings of `PROBES` checked against sentence-transformers'.
    """
    from haygate.components.bert_onnx import UnsupportedModelError  # onnx is imported only to make a model

    target.mkdir(parents=True, exist_ok=True)
    try:
        manifest = _graph_export(source, target)
    except UnsupportedModelError as reason:
        if not _torch_installed():
            msg = (
                f"model '{source.name}' needs torch for its ONNX export ({reason.message}), and torch is not "
                "installed: install torch, or use a BERT model"
            )
            raise ConfigurationError(msg, {"model": str(source), **reason.details}) from reason
        logger.info("%s: %s; exporting with torch.onnx.export", source.name, reason.message)
        return _torch_export(source, target)
    # No parity check against torch here, even where torch is installed: the run time never loads it (seconds
    # and its memory at a first start), and the graph's equality with sentence-transformers is the test
    # suite's to prove (tests/unit/components/test_bert_onnx.py, cosine >= 0.99999 on fixed texts).
    vectors = OnnxBackend(target).embed(PROBES)
    if not np.isfinite(vectors).all() or not np.linalg.norm(vectors, axis=1).all():
        msg = f"the ONNX graph of '{source.name}' gives non-finite or zero vectors; use `backend: torch`"
        raise ConfigurationError(msg, {"model": str(source)})
    manifest["checked_by"] = "onnx.checker"
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


def _graph_export(source: Path, target: Path) -> dict[str, Any]:
    """The ONNX graph of a BERT sentence-transformer written from its files, its manifest not yet checked."""
    import onnx
    from tokenizers import Tokenizer

    from haygate.components.bert_onnx import INPUTS, UnsupportedModelError, write_bert_onnx

    layout = _read_layout(source)
    if not (layout.transformer / "tokenizer.json").is_file():
        msg = f"'{source.name}' has no tokenizer.json (a fast tokenizer), which the ONNX runtime reads"
        raise UnsupportedModelError(msg, {"model": str(source)})
    shape = write_bert_onnx(layout.transformer, target / "model.onnx")
    tokenizer = Tokenizer.from_file(str(layout.transformer / "tokenizer.json"))
    tokenizer.save(str(target / "tokenizer.json"))
    special: dict[str, Any] = {}
    for name in ("special_tokens_map.json", "tokenizer_config.json"):  # the second wins, as in transformers
        if (layout.transformer / name).is_file():
            special.update(json.loads((layout.transformer / name).read_text()))
    pad = special.get("pad_token") or "[PAD]"
    pad_token = str(pad.get("content", "[PAD]") if isinstance(pad, dict) else pad)
    pad_id = tokenizer.token_to_id(pad_token)
    limit = int(special.get("model_max_length") or shape.positions)
    manifest = {
        "format": EXPORT_FORMAT,
        "source": str(source),
        "made_by": "onnx-graph",
        "dimension": shape.hidden,
        "pooling": layout.pooling,
        "normalize": layout.normalize,
        "max_seq_length": min(layout.max_seq_length or limit, shape.positions),
        "pad_id": int(pad_id or 0),
        "pad_token": pad_token,
        "inputs": list(INPUTS),
        "onnx": onnx.__version__,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


def _torch_export(source: Path, target: Path) -> dict[str, Any]:
    """A transformer the graph builder does not cover, exported by tracing it with `torch.onnx.export`."""
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(source), device="cpu")
    modules: list[Any] = list(model)
    kinds = [type(m).__name__ for m in modules]
    if kinds[:2] != ["Transformer", "Pooling"] or any(k != "Normalize" for k in kinds[2:]):
        msg = (
            f"model '{source.name}' has modules {kinds}; the ONNX runtime covers a transformer, pooling and "
            "an optional normalisation. Use `backend: torch` for it."
        )
        raise ConfigurationError(msg, {"model": str(source)})
    pooling = str(modules[1].get_config_dict().get("pooling_mode", "mean"))
    if pooling not in ("mean", "cls"):
        msg = f"model '{source.name}' pools with '{pooling}'; the ONNX runtime does mean or cls. Use `backend: torch`."
        raise ConfigurationError(msg, {"model": str(source)})
    transformer = modules[0].auto_model.eval()
    tokenizer = model.tokenizer
    inputs = [n for n in ("input_ids", "attention_mask", "token_type_ids") if n in tokenizer.model_input_names]

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = transformer

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            return self.inner(**dict(zip(inputs, tensors, strict=True))).last_hidden_state  # type: ignore[no-any-return]

    example = tuple(torch.ones(2, 8, dtype=torch.long) for _ in inputs)
    axes = {name: {0: "batch", 1: "tokens"} for name in [*inputs, "last_hidden_state"]}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            LastHiddenState(),
            example,
            str(target / "model.onnx"),
            input_names=inputs,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )
    tokenizer.backend_tokenizer.save(str(target / "tokenizer.json"))
    manifest = {
        "format": EXPORT_FORMAT,
        "source": str(source),
        "made_by": "torch.onnx.export",
        "dimension": int(model.get_embedding_dimension() or 0),
        "pooling": pooling,
        "normalize": "Normalize" in kinds,
        "max_seq_length": int(model.max_seq_length or 512),
        "pad_id": int(tokenizer.pad_token_id or 0),
        "pad_token": str(tokenizer.pad_token or "[PAD]"),
        "inputs": inputs,
        "torch": torch.__version__,
        "exported_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return _checked_against_torch(source, target, manifest, model)


def _checked_against_torch(source: Path, target: Path, manifest: dict[str, Any], model: Any) -> dict[str, Any]:
    """The manifest, once ONNX Runtime's embeddings of `PROBES` match `model.encode` (sentence-transformers)."""
    expected = np.asarray(model.encode(PROBES, convert_to_numpy=True, show_progress_bar=False), dtype=np.float32)
    got = OnnxBackend(target).embed(PROBES)
    cosine = float(np.min(_cosines(expected, got)))
    if cosine < PARITY_MIN_COSINE:
        msg = f"the ONNX export of '{source.name}' differs from torch (cosine {cosine:.6f}); use `backend: torch`"
        raise ConfigurationError(msg, {"model": str(source)})
    manifest["parity_min_cosine"] = cosine
    manifest["checked_by"] = "sentence-transformers"
    (target / MANIFEST).write_text(json.dumps(manifest, indent=2))
    return manifest


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.asarray((a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)))


@contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """One export per model at a time, across processes (a server and an ingest may start together)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _checked_export(target: Path) -> bool:
    """Whether `target` holds a finished export that passed its check (an unreadable one is redone)."""
    try:
        return "checked_by" in json.loads((target / MANIFEST).read_text())
    except (OSError, ValueError):
        return False


def onnx_export(source: Path, cache_dir: Path, name: str) -> Path:
    """The cached export of `source` (the model `name`) under `cache_dir`, made and checked on first use."""
    target = cache_dir / f"{re.sub(r'[^A-Za-z0-9._-]+', '-', name).strip('-')}-{_fingerprint(source)}"
    if _checked_export(target):
        return target
    with _exclusive(cache_dir / f".{target.name}.lock"):
        if _checked_export(target):
            return target
        started = time.perf_counter()
        work = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=cache_dir))
        try:
            manifest = export_onnx(source, work)
            work.chmod(0o755)
            shutil.rmtree(target, ignore_errors=True)
            os.replace(work, target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        parity = manifest.get("parity_min_cosine")
        checked = manifest["checked_by"] + (f", min cosine {parity:.6f}" if parity is not None else "")
        logger.info(
            "exported %s to ONNX with %s in %.1f s (checked by %s): %s",
            source.name,
            manifest["made_by"],
            time.perf_counter() - started,
            checked,
            target,
        )
    return target


# -- one backend per model and runtime, shared ---------------------------------------------------------------

_BACKENDS: dict[tuple[str, str, str], EmbeddingBackend] = {}
_BACKENDS_LOCK = threading.Lock()


def load_backend(model: str, runtime: str, cache_dir: Path | None = None, max_batch: int = 32) -> EmbeddingBackend:
    """The shared backend for `model` on `runtime`, loaded (and for ONNX exported) on first use, offline."""
    if runtime not in RUNTIMES:
        msg = f"unknown embedding backend '{runtime}'; choose one of {', '.join(RUNTIMES)}"
        raise ConfigurationError(msg, {"backend": runtime})
    try:
        folder = model_folder(model)
    except ConfigurationError as error:
        raise ConfigurationError(f"cannot load embedding model: {error.message}", error.details) from error
    cache = cache_dir or default_cache_dir()
    key = (str(folder), runtime, str(cache) if runtime == "onnx" else "")
    with _BACKENDS_LOCK:
        backend = _BACKENDS.get(key)
        if backend is not None:
            return backend
        try:
            backend = (
                OnnxBackend(onnx_export(folder, cache, model), max_batch)
                if runtime == "onnx"
                else TorchBackend(str(folder), max_batch)
            )
        except ConfigurationError:
            raise
        except Exception as error:
            msg = f"cannot load embedding model '{model}' offline ({runtime}): {type(error).__name__}: {error}"
            raise ConfigurationError(msg, {"model": model, "backend": runtime}) from error
        backend.kept = kept_vectors(cache, backend.identity, backend.dimension)
        _BACKENDS[key] = backend
        return backend
