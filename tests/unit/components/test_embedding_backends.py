"""The embedding runtimes: the ONNX export of the packaged MiniLM against sentence-transformers on torch
(the graph builder itself: test_bert_onnx.py), the export cache, and the micro-batcher that embeds concurrent
queries together."""

import json
import os
import shutil
import threading
import time
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from haygate.components.dense_document_embedder import DenseDocumentEmbedder
from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.components.embedding_backends import (
    MANIFEST,
    PARITY_MIN_COSINE,
    TOKENS_PER_BATCH,
    MicroBatcher,
    OnnxBackend,
    load_backend,
    model_folder,
    onnx_export,
    onnx_providers,
    place_runtime,
)
from haygate.components.models import DEFAULT_MODEL
from haygate.errors import ConfigurationError

TEXTS = [
    "how do NOT filters work",
    "Qdrant Edge keeps shards on local disk",
    "a much longer text about hybrid retrieval, " * 30,
    "Ünïcödé and emoji 🚀 survive tokenisation",
]


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return onnx_export(model_folder(DEFAULT_MODEL), tmp_path_factory.mktemp("models"), DEFAULT_MODEL)


@pytest.mark.slow  # exports the model and runs it on torch beside ONNX Runtime
class TestOnnxExport:
    def test_the_export_is_made_without_torch_and_says_so(self, exported: Path) -> None:
        """The packaged MiniLM is written as a graph and checked by onnx, never loaded on torch at run time
        (its equality with sentence-transformers: test_bert_onnx.py)."""
        manifest = json.loads((exported / MANIFEST).read_text())
        assert manifest["made_by"] == "onnx-graph" and manifest["checked_by"] == "onnx.checker"
        assert "parity_min_cosine" not in manifest
        assert manifest["pooling"] == "mean" and manifest["normalize"] is True and manifest["dimension"] == 384
        assert exported.name.startswith("sentence-transformers-all-MiniLM-L6-v2-")

    def test_a_second_request_reuses_the_export(self, exported: Path) -> None:
        written = (exported / "model.onnx").stat().st_mtime_ns
        assert onnx_export(model_folder(DEFAULT_MODEL), exported.parent, DEFAULT_MODEL) == exported
        assert (exported / "model.onnx").stat().st_mtime_ns == written

    def test_onnx_and_torch_give_the_same_vectors(self, exported: Path) -> None:
        onnx = DenseTextEmbedder(backend="onnx", model_cache_dir=exported.parent).embed_many(TEXTS, cache=False)
        torch = DenseTextEmbedder(backend="torch").embed_many(TEXTS, cache=False)
        assert np.min(np.sum(onnx * torch, axis=1)) >= PARITY_MIN_COSINE

    def test_documents_embed_the_same_on_both_runtimes(self, exported: Path) -> None:
        from haystack import Document

        documents = [Document(content=t, meta={"title": "T"}) for t in TEXTS]
        vectors = {
            backend: np.asarray(
                [
                    d.embedding
                    for d in DenseDocumentEmbedder(
                        backend=backend, meta_fields_to_embed=["title"], model_cache_dir=exported.parent
                    ).run(documents)["documents"]
                ]
            )
            for backend in ("onnx", "torch")
        }
        assert np.min(np.sum(vectors["onnx"] * vectors["torch"], axis=1)) >= PARITY_MIN_COSINE

    def test_a_query_embeds_alone_and_in_a_batch_alike(self, exported: Path) -> None:
        backend = load_backend(DEFAULT_MODEL, "onnx", exported.parent)
        batched = backend.embed(TEXTS)
        for text, row in zip(TEXTS, batched, strict=True):
            assert float(np.dot(backend.embed_one(text), row)) >= PARITY_MIN_COSINE

    def test_long_texts_run_in_smaller_batches_with_the_same_vectors(self, exported: Path) -> None:
        backend = load_backend(DEFAULT_MODEL, "onnx", exported.parent)
        texts = [f"short text {i}" for i in range(80)] + [f"long text {i} " + "retrieval " * 400 for i in range(20)]
        shapes: list[tuple[int, int]] = []
        infer = backend._infer  # type: ignore[attr-defined]

        def recorded(ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
            shapes.append(ids.shape)
            return infer(ids, mask)

        backend._infer = recorded  # type: ignore[attr-defined]
        vectors = backend.embed(texts, batch_size=32)
        assert all(rows * tokens <= TOKENS_PER_BATCH or rows == 1 for rows, tokens in shapes), shapes
        assert shapes[0][1] == 256 and shapes[0][0] == TOKENS_PER_BATCH // 256  # the longest first, fewer at once
        assert max(rows for rows, _ in shapes) == 32  # short texts still fill whole batches
        assert sum(rows for rows, _ in shapes) == len(texts)
        for text, row in zip(texts[::7], vectors[::7], strict=True):  # each text's own vector, in its own place
            assert float(np.dot(backend._run([text])[0], row)) >= PARITY_MIN_COSINE  # type: ignore[attr-defined]

    def test_texts_the_tokenizer_makes_one_sequence_of_run_once(self, exported: Path) -> None:
        """An uncased model reads "Python" and "python" alike: one run, the same vector for both (and a
        repeated text likewise)."""
        backend = load_backend(DEFAULT_MODEL, "onnx", exported.parent)
        rows: list[int] = []
        infer = backend._infer  # type: ignore[attr-defined]
        backend._infer = lambda ids, mask: rows.append(len(ids)) or infer(ids, mask)  # type: ignore[attr-defined]
        texts = ["Python developer", "python developer", "PYTHON  developer", "Java developer", "Python developer"]
        vectors = backend.embed(texts)
        assert sum(rows) == 2  # two sequences
        assert np.array_equal(vectors[0], vectors[1]) and np.array_equal(vectors[0], vectors[4])
        assert float(np.dot(vectors[0], vectors[3])) < 0.99

    def test_an_unknown_runtime_is_a_configuration_error(self) -> None:
        with pytest.raises(ConfigurationError, match="unknown embedding backend 'tensorflow'"):
            load_backend(DEFAULT_MODEL, "tensorflow")
        with pytest.raises(ConfigurationError, match="unknown embedding backend 'tensorflow'"):
            DenseDocumentEmbedder(backend="tensorflow")  # type: ignore[arg-type]  # as YAML may say

    def test_an_unreadable_export_is_made_again(self, exported: Path, tmp_path: Path) -> None:
        broken = tmp_path / exported.name
        shutil.copytree(exported, broken)
        (broken / MANIFEST).write_text("{not json")  # e.g. a disk that filled while it was written
        assert onnx_export(model_folder(DEFAULT_MODEL), tmp_path, DEFAULT_MODEL) == broken
        assert json.loads((broken / MANIFEST).read_text())["checked_by"] == "onnx.checker"  # made and checked anew

    def test_a_missing_model_is_a_configuration_error(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="cannot load embedding model"):
            DenseTextEmbedder(model=str(tmp_path / "missing"), model_cache_dir=tmp_path).warm_up()


class TestMicroBatcher:
    def test_a_single_caller_runs_at_once_alone(self) -> None:
        calls: list[list[str]] = []

        def embed(texts: list[str]) -> np.ndarray:
            calls.append(texts)
            return np.asarray([[len(t)] for t in texts], dtype=np.float32)

        batcher = MicroBatcher(embed)
        assert batcher("abc")[0] == 3
        assert calls == [["abc"]]

    def test_concurrent_callers_share_model_calls_and_get_their_own_vectors(self) -> None:
        started = threading.Event()

        def embed(texts: list[str]) -> np.ndarray:
            started.set()
            time.sleep(0.05)  # a model call long enough for the others to queue behind it
            return np.asarray([[float(t)] for t in texts], dtype=np.float32)

        batcher = MicroBatcher(embed, max_batch=8)
        results: dict[int, float] = {}

        def call(number: int) -> None:
            results[number] = float(batcher(str(number))[0])

        first = threading.Thread(target=call, args=(0,))
        first.start()
        started.wait()
        others = [threading.Thread(target=call, args=(n,)) for n in range(1, 21)]
        for thread in others:
            thread.start()
        for thread in [first, *others]:
            thread.join()
        assert results == {n: float(n) for n in range(21)}
        assert batcher.texts == 21
        assert batcher.batches <= 4  # 1 alone, then 20 queued ones in batches of at most 8

    def test_an_error_reaches_every_caller_of_the_batch_and_the_next_batch_still_runs(self) -> None:
        def embed(texts: list[str]) -> np.ndarray:
            if "bad" in texts:
                raise ValueError("broken input")
            return np.zeros((len(texts), 1), dtype=np.float32)

        batcher = MicroBatcher(embed)
        with pytest.raises(ValueError, match="broken input"):
            batcher("bad")
        assert batcher("good").shape == (1,)


class TestPlacement:
    """Where a process's models run: a Ray actor holds its model to the CPUs it reserved, or to its GPU."""

    @pytest.mark.slow  # exports the model
    def test_a_placed_model_runs_the_threads_it_was_given(self, exported: Path) -> None:
        try:
            place_runtime(threads=1)
            session = OnnxBackend(exported).session
        finally:
            place_runtime()
        assert session.get_session_options().intra_op_num_threads == 1
        assert OnnxBackend(exported).session.get_session_options().intra_op_num_threads == (os.cpu_count() or 1)

    def test_the_cpu_runs_on_the_cpu_provider(self) -> None:
        assert onnx_providers("cpu") == (["CPUExecutionProvider"], [{}])

    def test_a_gpu_without_a_cuda_runtime_is_refused_not_run_on_the_cpu(self) -> None:
        if "CUDAExecutionProvider" in onnxruntime.get_available_providers():
            assert onnx_providers("cuda:1")[1][0] == {"device_id": 1}
            return
        with pytest.raises(ConfigurationError, match="onnxruntime-gpu"):
            onnx_providers("cuda")
