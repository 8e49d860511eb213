"""Index a judged corpus once, run every judged query through each pipeline variant, score with ranx.

The query pipelines are loaded with the server's loader and run exactly as a tool call runs them, through
their declared interface: each judged query goes to the input `query` with `max_results` set to the run
depth, and the ranked ids come from the output `result` (`results[].id`). The corpus is indexed by the
`beir` collection's own indexing pipeline into a store of its own: evaluation builds its own `Settings`
with that store's folder as `data_dir`, and one loader serves indexing and querying alike.
"""

import hashlib
import itertools
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from ranx import Qrels, Run, evaluate
from scipy.stats import ttest_rel
from tqdm import tqdm

from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.errors import ConfigurationError, InvalidRequestError
from haygate.evaluation.datasets import Dataset, file_digest
from haygate.gateway.loader import LoadedPipeline, Loader
from haygate.ingest.indexer import ingest_files
from haygate.settings import Settings

logger = logging.getLogger(__name__)

EVAL_COLLECTION = "beir"
DEFAULT_METRICS = ("ndcg@10", "recall@100", "mrr@10", "map@100")
RUN_DEPTH = 100
EMPTY_CONTENT = "empty or missing content"
QUERY_INPUT, DEPTH_INPUT, RESULT_OUTPUT = "query", "max_results", "result"
Variant = tuple[str, Path, LoadedPipeline]


@dataclass
class VariantResult:
    name: str
    pipeline: str
    run: dict[str, dict[str, float]]
    latencies_ms: list[float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)  # metric -> qid -> score
    metrics: dict[str, float] = field(default_factory=dict)

    @property
    def latency(self) -> dict[str, float]:
        values = np.asarray(self.latencies_ms)
        return {"p50": round(float(np.percentile(values, 50)), 2), "p95": round(float(np.percentile(values, 95)), 2)}


def check_metrics(metrics: Sequence[str]) -> list[str]:
    """Ask ranx itself, on a one-query toy run, so an unknown metric fails before any indexing."""
    toy_qrels, toy_run = Qrels({"q": {"d": 1}}), Run({"q": {"d": 1.0}})
    for metric in metrics:
        try:
            evaluate(toy_qrels, toy_run, metric)
        except Exception as error:
            msg = f"unknown metric '{metric}' ({error}); e.g. ndcg@10, recall@100, mrr@10, map@100, precision@5"
            raise InvalidRequestError(msg, {"metric": metric}) from None
    return list(dict.fromkeys(metrics))


def load_variants(loader: Loader, paths: Sequence[Path]) -> list[Variant]:
    """Load every pipeline before indexing, so a broken one fails fast; names come from file stems."""
    variants: list[Variant] = []
    for path in paths:
        loaded = loader.pipeline(Path(path))
        missing = [name for name in (QUERY_INPUT, DEPTH_INPUT) if name not in loaded.inputs]
        if missing or RESULT_OUTPUT not in loaded.outputs:
            msg = (
                f"{path}: an evaluated pipeline declares the inputs `{QUERY_INPUT}` and `{DEPTH_INPUT}` and the "
                f"output `{RESULT_OUTPUT}`; it has inputs {sorted(loaded.inputs)}, outputs {sorted(loaded.outputs)}"
            )
            raise ConfigurationError(msg, {"file": str(path)})
        name = Path(path).stem
        while name in {v[0] for v in variants}:
            name += "'"
        variants.append((name, Path(path), loaded))
    return variants


def eval_settings(settings: Settings, dataset: Dataset) -> Settings:
    """Settings whose data dir is this corpus's own eval store, named by corpus and indexing configuration.

    Any change to the corpus bytes, the `beir` collection schema or its indexing pipeline makes a new store.
    """
    with Loader(settings) as loader:
        fingerprint = loader.collection(EVAL_COLLECTION).fingerprint
    key = hashlib.sha256(f"{file_digest(dataset.corpus_path)}\n{fingerprint}".encode()).hexdigest()[:16]
    folder = Path(settings.data_dir) / "eval" / f"{dataset.name}-{key}"
    return settings.model_copy(update={"data_dir": folder, "qdrant_url": None})


def ensure_index(loader: Loader, dataset: Dataset, progress: bool = True) -> Path:
    """The eval store of `loader`'s settings holds the corpus, built once and reused."""
    folder = Path(loader.settings.data_dir)
    marker = folder / "index.json"
    if marker.exists():
        logger.info("reusing eval index %s", folder)
        return folder
    started = time.perf_counter()
    # One batch for the whole corpus: sentence-transformers then sorts every text by length.
    report = ingest_files(
        loader.collection(EVAL_COLLECTION), [dataset.corpus_path], progress=progress, batch_records=1 << 20
    )
    logger.info("indexed %d documents of %s in %.0f s", report.records, dataset.name, time.perf_counter() - started)
    # Documents without text cannot be indexed (real corpora such as Cranfield have a few): they stay
    # unretrievable and count as misses. Any other rejected record is a real problem.
    serious = [e for e in report.errors if EMPTY_CONTENT not in e]
    if serious:
        msg = f"{dataset.corpus_path}: {len(serious)} records could not be indexed, first: {serious[0]}"
        raise InvalidRequestError(msg)
    if report.errors:
        logger.warning("%s: skipped %d documents without text", dataset.name, len(report.errors))
    marker.write_text(json.dumps({"dataset": str(dataset.root), "documents": report.records}))
    return folder


def run_variant(
    name: str,
    path: Path,
    loaded: LoadedPipeline,
    dataset: Dataset,
    progress: bool = True,
    depth: int = RUN_DEPTH,
    index: Path | None = None,
) -> VariantResult:
    run: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    loaded.pipeline.warm_up()
    for _, instance in loaded.pipeline.walk():
        if isinstance(instance, DenseTextEmbedder):
            queries = list(dataset.queries.values())
            # Query vectors are kept beside the eval index: a warm re-run does not embed them again.
            if index is not None:
                instance.prefill_from_file(queries, index)
            else:
                instance.prefill(queries)
    for query_id, text in tqdm(dataset.queries.items(), desc=f"query {name}", unit="q", disable=not progress):
        start = time.perf_counter()
        result = loaded.run({QUERY_INPUT: text, DEPTH_INPUT: depth})[RESULT_OUTPUT]
        latencies.append((time.perf_counter() - start) * 1000)
        ranked = list(dict.fromkeys(str(r["id"]) for r in result["results"]))
        # Scores from ranks: ranx sorts by score, and this keeps the pipeline's order exactly.
        run[query_id] = {doc_id: 1.0 / rank for rank, doc_id in enumerate(ranked, start=1)} or {"__none__": 0.0}
    return VariantResult(name=name, pipeline=str(path), run=run, latencies_ms=latencies)


def score(result: VariantResult, dataset: Dataset, metrics: Sequence[str]) -> None:
    qrels, run = Qrels(dataset.qrels), Run(result.run)
    evaluate(qrels, run, list(metrics), make_comparable=True)
    result.metrics = {m: round(float(run.mean_scores[m]), 4) for m in metrics}
    result.per_query = {m: {q: float(v) for q, v in run.scores[m].items()} for m in metrics}


def compare(results: Sequence[VariantResult], metrics: Sequence[str]) -> list[dict[str, Any]]:
    """Every pair of variants, every metric: mean difference and a paired two-sided t-test over queries."""
    comparisons = []
    for a, b in itertools.combinations(results, 2):
        for metric in metrics:
            queries = sorted(a.per_query[metric])
            left = np.array([a.per_query[metric][q] for q in queries])
            right = np.array([b.per_query[metric].get(q, 0.0) for q in queries])
            # Identical per-query scores have no variance to test: call that p = 1.
            p_value = 1.0 if np.allclose(left, right) else float(ttest_rel(right, left).pvalue)
            comparisons.append(
                {
                    "a": a.name,
                    "b": b.name,
                    "metric": metric,
                    "delta": round(float(right.mean() - left.mean()), 4),
                    "p_value": round(p_value, 6),
                }
            )
    return comparisons


def evaluate_variants(
    settings: Settings,
    dataset: Dataset,
    pipelines: Sequence[Path],
    metrics: Sequence[str] = DEFAULT_METRICS,
    progress: bool = True,
) -> tuple[list[VariantResult], list[dict[str, Any]]]:
    """Everything is validated first (metrics, pipelines); then index once, then run each variant."""
    metrics = check_metrics(metrics)
    with Loader(eval_settings(settings, dataset)) as loader:
        variants = load_variants(loader, pipelines)
        folder = ensure_index(loader, dataset, progress=progress)
        results = []
        for name, path, loaded in variants:
            started = time.perf_counter()
            result = run_variant(name, path, loaded, dataset, progress=progress, index=folder)
            score(result, dataset, metrics)
            results.append(result)
            logger.info("%s: %d queries in %.1f s", name, len(dataset.queries), time.perf_counter() - started)
    return results, compare(results, metrics)
