"""Index a judged corpus once, run every judged query through each pipeline variant, score with ranx.

The query pipelines are loaded with the server's loader and run exactly as a tool call runs them, through
their declared interface: each judged query goes to the input `query` with `max_results` set to the run
depth, and the ranked ids come from the output `result` (`results[].id`). The corpus is indexed by the
`beir` collection's own indexing pipeline into a store of its own: evaluation builds its own `Settings`
with that store's folder as `data_dir`, and one loader serves indexing and querying alike.
"""

import hashlib
import json
import logging
import math
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from haystack import Pipeline
from tqdm import tqdm

from haygate.components.dense_text_embedder import DenseEmbedding, DenseTextEmbedder
from haygate.errors import ConfigurationError, InvalidRequestError
from haygate.evaluation import coverage, significance
from haygate.evaluation.datasets import CorpusSample, Dataset, file_digest
from haygate.gateway.loader import LoadedPipeline, Loader
from haygate.ingest.indexer import ingest_records
from haygate.ingest.mapping import id_of
from haygate.ingest.readers import SourceRecord, count_records, read_records
from haygate.ingest.schema import CollectionSchema
from haygate.progress import progress_bar
from haygate.settings import Settings

logger = logging.getLogger(__name__)

EVAL_COLLECTION = "beir"
DEFAULT_METRICS = ("ndcg@10", "recall@100", "mrr@10", "map@100")
RUN_DEPTH = 100
EMPTY_CONTENT = "empty or missing content"
QUERY_INPUT, DEPTH_INPUT, RESULT_OUTPUT = "query", "max_results", "result"
STAT_TEST = "student"  # ranx's two-sided paired Student's t-test over queries
SIGNIFICANCE = 0.05
Variant = tuple[str, Path, LoadedPipeline]
# Given the number of texts one embedding call is about to embed: a bar (context manager) to advance per batch.
BarFor = Callable[[int], AbstractContextManager[Any]]


@dataclass
class VariantResult:
    name: str
    pipeline: str
    run: dict[str, dict[str, float]]
    latencies_ms: list[float]
    per_query: dict[str, dict[str, float]] = field(default_factory=dict)  # metric -> qid -> score
    metrics: dict[str, float] = field(default_factory=dict)
    # Queries judged to have no relevant document (a tool's set: "nothing matches this"): qid -> results.
    unjudged: dict[str, int] = field(default_factory=dict)
    # A tool's set: results that counted as a judged record or section of their query, over every query.
    judged_hits: int | None = None
    judged_k: int = 10  # judged@k's k: the first metric's cutoff
    judged_at: dict[str, float] = field(default_factory=dict)  # qid -> share of its top k that has a grade
    condensed: dict[str, float] = field(default_factory=dict)  # metric -> mean, unjudged results removed

    @property
    def latency(self) -> dict[str, float]:
        values = np.asarray(self.latencies_ms)
        return {"p50": round(float(np.percentile(values, 50)), 2), "p95": round(float(np.percentile(values, 95)), 2)}


@dataclass(frozen=True)
class Comparison:
    """One variant against the baseline (the first variant) on one metric, as ranx's `compare` reports it.

    `delta` is variant minus baseline; `better`/`tied`/`worse` count the queries where the variant scores
    above, equal to or below the baseline.
    """

    baseline: str
    variant: str
    metric: str
    baseline_value: float
    variant_value: float
    delta: float
    p_value: float
    significant: bool
    better: int
    tied: int
    worse: int
    delta_interval: tuple[float, float] = (0.0, 0.0)  # the 95% t interval of the mean paired difference
    effect_size: float | None = 0.0  # d_z: the mean difference in standard deviations of the differences
    effect_interval: tuple[float, float] | None = (0.0, 0.0)
    p_randomization: float = 1.0  # the paired randomization test's p
    p_holm: float = 1.0  # the t-test's p, Holm-adjusted over every comparison of the run
    significant_holm: bool = False  # p_holm <= alpha: what survives the run's many tests


def check_metrics(metrics: Sequence[str]) -> list[str]:
    """Ask ranx itself, on a one-query toy run, so an unknown metric fails before any indexing."""
    from ranx import Qrels, Run, evaluate  # seconds of imports (numba, SciPy, matplotlib): when scoring begins

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
    """Settings whose data dir is this corpus's own eval store, named by corpus and indexing configuration."""
    return store_settings(settings, dataset.store_name, [dataset.corpus_path], EVAL_COLLECTION)


def corpus_key(settings: Settings, corpus: Sequence[Path], collection: str) -> str:
    """Of the corpus bytes and the collection's indexing configuration (its schema, its pipeline and the files
    that reads): what the corpus's eval store, and the ids an ingest of it would write, are kept under."""
    with Loader(settings) as loader:
        fingerprint = loader.collection(collection).fingerprint
    digests = "\n".join(file_digest(path) for path in corpus)
    return hashlib.sha256(f"{digests}\n{fingerprint}".encode()).hexdigest()[:16]


def store_settings(
    settings: Settings, name: str, corpus: Sequence[Path], collection: str, key: str | None = None
) -> Settings:
    """Settings whose data dir is an eval store of its own for `corpus` indexed into `collection`.

    Any change to the corpus bytes, the collection's schema or its indexing pipeline makes a new store (`key`:
    `corpus_key`, when already known).
    """
    key = key or corpus_key(settings, corpus, collection)
    folder = Path(settings.data_dir) / "eval" / f"{name}-{key}"
    return settings.model_copy(update={"data_dir": folder, "qdrant_url": None})


def ensure_index(loader: Loader, dataset: Dataset, progress: bool = True) -> Path:
    """The eval store of `loader`'s settings holds the BEIR corpus, built once and reused."""
    return ensure_corpus_index(loader, dataset.name, [dataset.corpus_path], EVAL_COLLECTION, progress, dataset.sample)


def sampled(records: Iterator[SourceRecord], schema: CollectionSchema, sample: CorpusSample) -> Iterator[SourceRecord]:
    """The records of `sample`: every judged one, and the first `sample.others` of the rest."""
    others = 0
    for record in records:
        record_id = id_of(record.data, schema) if record.data is not None else None
        if record_id in sample.judged:
            yield record
        elif others < sample.others:
            others += 1
            yield record


def ensure_corpus_index(
    loader: Loader,
    name: str,
    corpus: Sequence[Path],
    collection_name: str,
    progress: bool | None = True,
    sample: CorpusSample | None = None,
) -> Path:
    """The eval store of `loader`'s settings holds `corpus` (or its `sample`) in `collection_name`, built once
    and reused."""
    folder = Path(loader.settings.data_dir)
    marker = folder / "index.json"
    if marker.exists():
        logger.info("reusing eval index %s", folder)
        return folder
    started = time.perf_counter()
    collection = loader.collection(collection_name)
    options = collection.schema.read_options()
    total = (
        sum(count_records(path, options) for path in corpus) if sample is None else len(sample.judged) + sample.others
    )

    def embedding_bar(texts: int) -> Any:
        """One bar per embedding call, exact: the documents, then (if the collection keeps them) passages."""
        return tqdm(total=texts, desc=f"embed {name}", unit="text", disable=not progress)

    with progress_bar(total, f"index {name}", "doc", progress) as bar:  # no terminal: a line now and then
        # One ingest batch for the whole corpus: BM25's `avg_len: auto` is measured on it, and
        # the embedder sorts every text by length. Its embedding bars move with each embedded batch.
        records: Iterator[SourceRecord] = (record for path in corpus for record in read_records(path, options))
        if sample is not None:
            records = sampled(records, collection.schema, sample)
        with counted_embeddings(collection.indexing, embedding_bar):
            report = ingest_records(collection, records, batch_records=1 << 20, on_batch=bar.update)
        bar.total = report.records  # the line count was an estimate (blank lines)
        bar.refresh()
    logger.info("indexed %d records of %s in %.0f s", report.records, name, time.perf_counter() - started)
    # Documents without text cannot be indexed (real corpora such as Cranfield have a few): they stay
    # unretrievable and count as misses. Any other rejected record is a real problem.
    serious = [e for e in report.errors if EMPTY_CONTENT not in e]
    if serious:
        msg = f"{name}: {len(serious)} records could not be indexed, first: {serious[0]}"
        raise InvalidRequestError(msg)
    if report.errors:
        logger.warning("%s: skipped %d documents without text", name, len(report.errors))
    marker.write_text(json.dumps({"corpus": [str(path) for path in corpus], "documents": report.records}))
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
    loaded.pipeline.warm_up()
    queries = list(dataset.queries.values())

    def embedding_bar(texts: int) -> Any:
        return tqdm(total=texts, desc=f"embed queries {name}", unit="q", disable=not progress)

    with counted_embeddings(loaded.pipeline, embedding_bar):
        for _, instance in loaded.pipeline.walk():
            if isinstance(instance, DenseTextEmbedder):
                # Query vectors are kept beside the eval index: a warm re-run does not embed them again.
                if index is not None:
                    instance.prefill_from_file(queries, index)
                else:
                    instance.prefill(queries)

    def ranked(_: str, text: str) -> list[str]:
        result = loaded.run({QUERY_INPUT: text, DEPTH_INPUT: depth})[RESULT_OUTPUT]
        return [str(r["id"]) for r in result["results"]]

    return run_queries(name, path, dataset, ranked, progress)


def run_queries(
    name: str, path: Path, dataset: Dataset, ranked: Callable[[str, str], list[str]], progress: bool = True
) -> VariantResult:
    """Every judged query through `ranked(query id, text)`, timed; the ids it returns are the run, best first."""
    run: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    for query_id, text in tqdm(dataset.queries.items(), desc=f"query {name}", unit="q", disable=not progress):
        start = time.perf_counter()
        ids = ranked(query_id, text)
        latencies.append((time.perf_counter() - start) * 1000)
        # Scores from ranks: ranx sorts by score, and this keeps the pipeline's order exactly.
        ordered = dict.fromkeys(ids)
        run[query_id] = {doc_id: 1.0 / rank for rank, doc_id in enumerate(ordered, start=1)} or {"__none__": 0.0}
    return VariantResult(name=name, pipeline=str(path), run=run, latencies_ms=latencies)


def score(result: VariantResult, dataset: Dataset, metrics: Sequence[str]) -> None:
    """Every metric per query and on average; then judged@k and every metric again on condensed lists (what the
    figures rest on: `haygate.evaluation.coverage`)."""
    from ranx import Qrels, Run, evaluate

    qrels, run = Qrels(dataset.qrels), Run(result.run)
    evaluate(qrels, run, list(metrics), make_comparable=True)
    result.metrics = {m: round(float(run.mean_scores[m]), 4) for m in metrics}
    result.per_query = {m: {q: float(v) for q, v in run.scores[m].items()} for m in metrics}
    result.judged_k = coverage.cutoff(metrics)
    result.judged_at = coverage.judged_at(result.run, dataset.judgments, result.judged_k)
    kept = Run(coverage.condensed(result.run, dataset.judgments))
    evaluate(Qrels(dataset.qrels), kept, list(metrics), make_comparable=True)
    result.condensed = {m: round(float(kept.mean_scores[m]), 4) for m in metrics}


def compare_with_baseline(
    results: Sequence[VariantResult], dataset: Dataset, metrics: Sequence[str]
) -> list[Comparison]:
    """Every variant after the first against the first (the baseline), every metric, with ranx's `compare`.

    Only these pairs are tested: the report answers "did this change beat the baseline", not every pair.
    """
    if not results:
        return []
    from ranx import Qrels, Run, compare

    qrels, baseline = Qrels(dataset.qrels), results[0]
    baseline_run = Run(baseline.run, name=baseline.name)
    comparisons = []
    for variant in results[1:]:
        with warnings.catch_warnings():
            # One query, or identical per-query scores, leave the test undefined: SciPy warns and ranx gives
            # NaN, which is read below as no evidence of a difference.
            warnings.simplefilter("ignore", RuntimeWarning)
            report = compare(
                qrels,
                [baseline_run, Run(variant.run, name=variant.name)],
                list(metrics),
                stat_test=STAT_TEST,
                max_p=SIGNIFICANCE,
                make_comparable=True,
            )
        tests = report.comparisons[{baseline.name, variant.name}]
        for metric in metrics:
            p_value = float(tests[metric]["p_value"])
            p_value = 1.0 if math.isnan(p_value) else p_value
            baseline_value = float(report.results[baseline.name][metric])
            variant_value = float(report.results[variant.name][metric])
            counts = report.win_tie_loss[(variant.name, baseline.name)][metric]
            queries = sorted(baseline.per_query[metric])
            differences = [variant.per_query[metric].get(q, 0.0) - baseline.per_query[metric][q] for q in queries]
            effect, effect_interval = significance.effect_size(differences)
            comparisons.append(
                Comparison(
                    baseline=baseline.name,
                    variant=variant.name,
                    metric=metric,
                    baseline_value=round(baseline_value, 4),
                    variant_value=round(variant_value, 4),
                    delta=round(variant_value - baseline_value, 4),
                    p_value=float(f"{p_value:.4g}"),  # significant digits: a tiny p is not 0
                    significant=bool(tests[metric]["significant"]),
                    better=int(counts["W"]),
                    tied=int(counts["T"]),
                    worse=int(counts["L"]),
                    delta_interval=rounded(significance.mean_interval(differences)),
                    effect_size=None if effect is None else round(effect, 4),
                    effect_interval=None if effect_interval is None else rounded(effect_interval),
                    p_randomization=float(f"{significance.randomization_p(differences):.4g}"),
                )
            )
    adjusted = significance.holm([c.p_value for c in comparisons])
    return [
        replace(c, p_holm=float(f"{p:.4g}"), significant_holm=p <= SIGNIFICANCE)
        for c, p in zip(comparisons, adjusted, strict=True)
    ]


def rounded(pair: tuple[float, float]) -> tuple[float, float]:
    return round(pair[0], 4), round(pair[1], 4)


class CountingBackend:
    """Stands in for a dense embedding backend and advances a bar after every batch.

    The texts are sorted by length, as one `encode` call sorts them, and embedded one batch per call, so
    the batches are those a single call makes; the vectors come back in the caller's order.
    """

    def __init__(self, backend: Any, bar_for: BarFor) -> None:
        self.backend = backend
        self.bar_for = bar_for

    def embed(self, data: list[Any], batch_size: int = 32, **kwargs: Any) -> list[Any]:
        order = sorted(range(len(data)), key=lambda i: -len(data[i]))
        vectors: list[Any] = [None] * len(data)
        with self.bar_for(len(data)) as bar:
            for start in range(0, len(order), batch_size):
                batch = order[start : start + batch_size]
                embedded = self.backend.embed([data[i] for i in batch], batch_size=batch_size, **kwargs)
                for position, vector in zip(batch, embedded, strict=True):
                    vectors[position] = vector
                bar.update(len(batch))
        return vectors

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)


@contextmanager
def counted_embeddings(pipeline: Pipeline, bar_for: BarFor) -> Iterator[None]:
    """While inside, the pipeline's dense embedders advance a bar per embedded batch.

    Embedding is most of the time of indexing and of query prefill, and it happens in one call: without
    this, a bar would sit still until the whole corpus is embedded. Backends are shared between
    components, so each component gets a wrapper of its own and its backend back afterwards.
    """
    wrapped = []
    for _, instance in pipeline.walk():
        if isinstance(instance, DenseEmbedding):
            if instance.embedding_backend is None:
                instance.warm_up()
            wrapped.append((instance, instance.embedding_backend))
            instance.embedding_backend = CountingBackend(instance.embedding_backend, bar_for)
    try:
        yield
    finally:
        for instance, backend in wrapped:
            instance.embedding_backend = backend


def evaluate_variants(
    settings: Settings,
    dataset: Dataset,
    pipelines: Sequence[Path],
    metrics: Sequence[str] = DEFAULT_METRICS,
    progress: bool = True,
) -> tuple[list[VariantResult], list[Comparison]]:
    """Everything is validated first (metrics, pipelines); then index once, then run each variant.

    The first pipeline is the baseline: every other variant is compared with it.
    """
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
    return results, compare_with_baseline(results, dataset, metrics)
