"""Whether an int8 export of the embedding model could be offered: its vectors, its speed and its retrieval
quality beside the fp32 export, on the judged corpora.

The fp32 export is the one haygate runs (`load_backend(..., "onnx")`); the int8 one is the same graph after
ONNX Runtime's dynamic quantization (weights int8 per channel, activations quantized at run time), in a copy of
the export folder. Both run with the same session settings, threads and batches. For each judged corpus
(Cranfield, CISI, SciFact dev by default) both embed the corpus (title, a newline, the text) and the judged
queries; then each ranks the whole corpus by cosine for each query (exact, in numpy, no store), and ranx
scores nDCG@10. The dense ranking alone is where a change of model shows most: the tools fuse it with BM25.
Prints JSON: per corpus, the texts/s of each export and their ratio, the cosine of each text's two vectors
(mean and lowest), and nDCG@10 of each, with the load average beside every timing. Figures:
docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.studies.int8_export [--datasets cranfield cisi scifact-dev]`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from onnxruntime.quantization import QuantType, quantize_dynamic
from ranx import Qrels, Run, evaluate

from haygate.components.embedding_backends import OnnxBackend, load_backend
from haygate.components.models import DEFAULT_MODEL
from haygate.evaluation.datasets import load_dataset
from scripts import PROJECT
from scripts.measure import load_average

DATA = PROJECT.parent / "shared" / "data"
CACHE = PROJECT / "data" / ".models"
SPLIT = "test"  # the qrels file these corpora ship (see ../shared/data/README.md)


def load() -> float:
    return load_average()[0]


def corpus_texts(path: Path) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    with path.open() as lines:
        for line in lines:
            record = json.loads(line)
            ids.append(str(record["_id"]))
            texts.append("\n".join(part for part in (record.get("title"), record.get("text")) if part))
    return ids, texts


def timed_embed(backend: OnnxBackend, texts: list[str]) -> tuple[np.ndarray, dict[str, float]]:
    started = time.perf_counter()
    vectors = backend.embed(texts, batch_size=32)
    seconds = time.perf_counter() - started
    return vectors, {"seconds": round(seconds, 1), "texts_per_s": round(len(texts) / seconds, 1), "load": load()}


def ndcg(doc_ids: list[str], documents: np.ndarray, queries: np.ndarray, query_ids: list[str], qrels: Any) -> float:
    scores = queries @ documents.T
    run: dict[str, dict[str, float]] = {}
    for row, query_id in enumerate(query_ids):
        best = np.argpartition(-scores[row], 100)[:100]
        run[query_id] = {doc_ids[i]: float(scores[row, i]) for i in best}
    return round(float(evaluate(Qrels(qrels), Run(run), "ndcg@10")), 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=["cranfield", "cisi", "scifact-dev"])
    args = parser.parse_args()
    fp32 = load_backend(DEFAULT_MODEL, "onnx", CACHE)
    assert isinstance(fp32, OnnxBackend)
    report: dict[str, Any] = {"load_at_start": load()}
    with tempfile.TemporaryDirectory(prefix="haygate-int8-") as scratch:
        folder = Path(scratch) / fp32.folder.name
        shutil.copytree(fp32.folder, folder)
        started = time.perf_counter()
        quantize_dynamic(
            fp32.folder / "model.onnx", folder / "model.onnx", weight_type=QuantType.QInt8, per_channel=True
        )
        report["quantize_seconds"] = round(time.perf_counter() - started, 1)
        report["model_mb"] = {
            "fp32": round((fp32.folder / "model.onnx").stat().st_size / 2**20, 1),
            "int8": round((folder / "model.onnx").stat().st_size / 2**20, 1),
        }
        int8 = OnnxBackend(folder)
        for backend in (fp32, int8):
            backend.embed(["warm up the session"] * 8)
        for name in args.datasets:
            dataset = load_dataset(DATA / name, SPLIT)
            doc_ids, texts = corpus_texts(dataset.corpus_path)
            query_ids = list(dataset.queries)
            query_texts = [dataset.queries[q] for q in query_ids]
            documents_fp32, speed_fp32 = timed_embed(fp32, texts)
            documents_int8, speed_int8 = timed_embed(int8, texts)
            queries_fp32, queries_int8 = fp32.embed(query_texts), int8.embed(query_texts)
            cosines = np.sum(documents_fp32 * documents_int8, axis=1)
            report[name] = {
                "documents": len(texts),
                "queries": len(query_ids),
                "fp32": {
                    **speed_fp32,
                    "ndcg@10": ndcg(doc_ids, documents_fp32, queries_fp32, query_ids, dataset.qrels),
                },
                "int8": {
                    **speed_int8,
                    "ndcg@10": ndcg(doc_ids, documents_int8, queries_int8, query_ids, dataset.qrels),
                },
                "speedup": round(speed_fp32["seconds"] / speed_int8["seconds"], 2),
                "cosine_fp32_int8": {"mean": round(float(cosines.mean()), 4), "min": round(float(cosines.min()), 4)},
            }
            report[name]["ndcg_change"] = round(report[name]["int8"]["ndcg@10"] - report[name]["fp32"]["ndcg@10"], 4)
            print(json.dumps({name: report[name]}), flush=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
