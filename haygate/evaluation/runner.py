"""Index a judged corpus once, run every judged query through each pipeline variant, score with ranx.

The query pipelines are loaded with the server's loader and run exactly as a tool call runs them: the
arguments go into `query_builder.arguments`, the ranked list comes out of `formatter.result`.
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
from haystack import Pipeline
from ranx import Qrels, Run, evaluate
from scipy.stats import ttest_rel
from tqdm import tqdm

from components.collections import close_all, schema_for
from components.embedders import DenseTextEmbedder
from components.errors import ConfigurationError, InvalidRequestError
from haygate.evaluation.datasets import Dataset, file_digest
from haygate.ingest import ingest_files
from haygate.loader import load_pipeline
from haygate.settings import get_settings, settings_override

logger = logging.getLogger(__name__)

EVAL_COLLECTION = "beir"
DEFAULT_METRICS = ("ndcg@10", "recall@100", "mrr@10", "map@100")
RUN_DEPTH = 100
EMPTY_CONTENT = "empty or missing content"
PIPELINE_INPUT = ("query_builder", "arguments")
PIPELINE_OUTPUT = ("formatter", "result")


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


def load_variants(paths: Sequence[Path]) -> list[tuple[str, Path, Pipeline]]:
    """Load every pipeline before indexing, so a broken one fails fast; names come from file stems."""
    variants: list[tuple[str, Path, Pipeline]] = []
    for path in paths:
        pipeline = load_pipeline(Path(path))
        names = set(pipeline.to_dict()["components"])
        missing = {PIPELINE_INPUT[0], PIPELINE_OUTPUT[0]} - names
        if missing:
            msg = f"{path}: an evaluated pipeline needs components {sorted(missing)} (role names)"
            raise ConfigurationError(msg, {"file": str(path)})
        name = Path(path).stem
        while name in {v[0] for v in variants}:
            name += "'"
        variants.append((name, Path(path), pipeline))
    return variants


def index_key(dataset: Dataset) -> str:
    """Corpus content + indexing configuration: change either and the eval store is rebuilt."""
    settings = get_settings()
    schema = schema_for(EVAL_COLLECTION)
    parts = [
        file_digest(dataset.corpus_path),
        (settings.collections_dir / f"{EVAL_COLLECTION}.yaml").read_text(),
        (settings.home / "pipelines" / schema.indexing).read_text(),
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def ensure_index(dataset: Dataset, progress: bool = True) -> Path:
    """The isolated eval store for this corpus and indexing configuration, built once and reused."""
    settings = get_settings()
    folder = Path(settings.data_dir) / "eval" / f"{dataset.name}-{index_key(dataset)}"
    marker = folder / "index.json"
    if marker.exists():
        logger.info("reusing eval index %s", folder)
        return folder
    started = time.perf_counter()
    with settings_override(data_dir=str(folder), qdrant_url=None):
        # One batch for the whole corpus: sentence-transformers then sorts every text by length.
        report = ingest_files(EVAL_COLLECTION, [dataset.corpus_path], progress=progress, batch_records=1 << 20)
        close_all()
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
    pipeline: Pipeline,
    dataset: Dataset,
    progress: bool = True,
    depth: int = RUN_DEPTH,
    index: Path | None = None,
) -> VariantResult:
    run: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    component, socket = PIPELINE_INPUT
    out_component, out_socket = PIPELINE_OUTPUT
    pipeline.warm_up()
    for _, instance in pipeline.walk():
        if isinstance(instance, DenseTextEmbedder):
            queries = list(dataset.queries.values())
            # Query vectors are kept beside the eval index: a warm re-run does not load the model's work again.
            if index is not None:
                instance.prefill_from_file(queries, index)
            else:
                instance.prefill(queries)
    for query_id, text in tqdm(dataset.queries.items(), desc=f"query {name}", unit="q", disable=not progress):
        start = time.perf_counter()
        outputs = pipeline.run(
            {component: {socket: {"query": text, "max_results": depth}}}, include_outputs_from={out_component}
        )
        latencies.append((time.perf_counter() - start) * 1000)
        ranked = list(dict.fromkeys(str(r["id"]) for r in outputs[out_component][out_socket]["results"]))
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
    dataset: Dataset,
    pipelines: Sequence[Path],
    metrics: Sequence[str] = DEFAULT_METRICS,
    progress: bool = True,
) -> tuple[list[VariantResult], list[dict[str, Any]]]:
    """Everything is validated first (metrics, pipelines); then index once, then run each variant."""
    metrics = check_metrics(metrics)
    variants = load_variants(pipelines)
    folder = ensure_index(dataset, progress=progress)
    results = []
    with settings_override(data_dir=str(folder), qdrant_url=None):
        try:
            for name, path, pipeline in variants:
                started = time.perf_counter()
                result = run_variant(name, path, pipeline, dataset, progress=progress, index=folder)
                score(result, dataset, metrics)
                results.append(result)
                logger.info("%s: %d queries in %.1f s", name, len(dataset.queries), time.perf_counter() - started)
        finally:
            close_all()
    return results, compare(results, metrics)
