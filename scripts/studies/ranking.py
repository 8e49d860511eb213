"""Hybrid ranking variants on the judged datasets, chosen by leave-one-dataset-out.

Each dataset is indexed once by `haygate eval`'s own indexing (the `beir` collection). The study then holds,
as matrices, what every variant ranks from: the stored dense vectors of every document, each document's
term counts per field (title, body) from the same tokenizer the indexing uses, and the dense vectors of
each document's passages (word windows, embedded once and kept beside the index). Every variant computes
its sources exactly (BM25 with any k, b and field weights; cosine to documents or passages), cuts each
source to the store's prefetch depth, fuses as Qdrant does, and is scored with ranx on the same judged
queries, so variants differ only in how they rank. `bm25 k=1.2 b=0.75` reproduces the store's own BM25.

Selection is by leave-one-dataset-out: for each dataset, the variant with the best mean nDCG@10 on the
*other* datasets is scored on it. A variant that wins only where it was chosen does not generalise.

    .venv/bin/python -m scripts.studies.ranking [--datasets scifact-dev:train cranfield:test cisi:test] [--out F]
        [--only PREFIX ...]

`--floors` reports instead how a dense relevance floor (cosine to the query) sorts the default ranking's top
10: precision and recall of what it keeps, and how many judged and unrelated queries it leaves empty.

Prints JSON (also written to `--out`): nDCG@10 per variant and dataset, and the leave-one-dataset-out choices.
The figures and what was chosen from them are in docs/results/evaluation.md.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe
from ranx import Qrels, Run, evaluate
from scipy import sparse as sp

from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.document_stores.payload import DENSE_VECTORS_NAME
from haygate.evaluation.datasets import load_dataset
from haygate.evaluation.runner import EVAL_COLLECTION, ensure_index, eval_settings
from haygate.gateway.loader import Loader
from haygate.settings import Settings
from haygate.text.bm25 import Bm25Tokenizer
from scripts import PROJECT

SHARED = PROJECT.parent / "shared" / "data"
DEFAULT_DATASETS = ["scifact-dev:train", "cranfield:test", "cisi:test"]
DEPTH = 200  # candidates per source, as the served BEIR pipeline prefetches
RUN_DEPTH = 100
Ranking = dict[str, float]
# Passage schemes: (words per window, stride). Word windows need no sentence punctuation (Cranfield has none).
PASSAGES = {"w48": (48, 24), "w96": (96, 48)}


@dataclass
class Corpus:
    ids: list[str]
    vectors: np.ndarray  # unit dense vectors (title + text, as indexed), row per document
    titles: sp.csr_matrix  # term counts of the title, row per document
    bodies: sp.csr_matrix  # term counts of the text
    texts: list[str]
    passages: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # scheme -> (vectors, starts)

    def bm25(
        self,
        queries: sp.csr_matrix,
        k: float = 1.2,
        b: float = 0.75,
        title_weight: float = 1.0,
        body_weight: float = 1.0,
    ) -> np.ndarray:
        """BM25 scores (queries x documents), Qdrant's IDF modifier, BM25F-style weights on the fields.

        Each field's counts are multiplied by its weight before saturation (Robertson et al. 2004, "Simple
        BM25 extension to multiple weighted fields"); weights 1 and 1 are the indexed "title\\ntext".
        """
        tf = (self.titles * title_weight + self.bodies * body_weight).tocsr()
        tf.eliminate_zeros()
        lengths = np.asarray(tf.sum(axis=1)).ravel()
        norm = k * (1 - b + b * lengths / max(lengths.mean(), 1.0))
        weights = tf.copy()
        rows = np.repeat(np.arange(tf.shape[0]), np.diff(tf.indptr))
        weights.data = tf.data * (k + 1) / (tf.data + norm[rows])
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        n = tf.shape[0]
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        return np.asarray((queries.multiply(idf[None, :]) @ weights.T).todense())

    def best_passage(self, scheme: str, query_vectors: np.ndarray) -> np.ndarray:
        """Per document, the cosine similarity of its passage closest to each query (MaxP), queries x docs."""
        vectors, starts = self.passages[scheme]
        out = np.empty((len(query_vectors), len(self.ids)), dtype=np.float32)
        for first in range(0, len(query_vectors), 64):
            block = query_vectors[first : first + 64] @ vectors.T
            out[first : first + 64] = np.maximum.reduceat(block, starts, axis=1)
        return out


def windows(text: str, size: int, stride: int) -> list[str]:
    words = text.split()
    if len(words) <= size:
        return [" ".join(words)] if words else [""]
    return [" ".join(words[i : i + size]) for i in range(0, len(words) - size + stride, stride) if words[i : i + size]]


def embed_passages(corpus: Corpus, embedder: DenseTextEmbedder, folder: Path) -> None:
    for scheme, (size, stride) in PASSAGES.items():
        groups = [windows(text, size, stride) for text in corpus.texts]
        starts = np.cumsum([0] + [len(g) for g in groups[:-1]])
        cache = folder / f"study-passages-{scheme}.npy"
        if cache.exists():
            vectors = np.load(cache)
        else:
            started = time.perf_counter()
            flat = [p for g in groups for p in g]
            vectors = embedder.embed_many(flat, cache=False).astype(np.float32)
            np.save(cache, vectors)
            print(f"embedded {len(flat)} passages ({scheme}) in {time.perf_counter() - started:.0f} s", file=sys.stderr)
        corpus.passages[scheme] = (vectors, starts)


def counts_matrix(texts: list[str], tokenizer: Bm25Tokenizer, vocabulary: dict[int, int]) -> sp.csr_matrix:
    rows, cols, values = [], [], []
    for row, text in enumerate(texts):
        for token, n in tokenizer.counts(text).items():
            rows.append(row)
            cols.append(vocabulary.setdefault(token, len(vocabulary)))
            values.append(float(n))
    return sp.csr_matrix((values, (rows, cols)), shape=(len(texts), 1 << 22))


def load_corpus(store: Any, tokenizer: Bm25Tokenizer, vocabulary: dict[int, int]) -> Corpus:
    """Every stored point's record id, dense vector, title and text (scrolled from the shard)."""
    ids, vectors, titles, texts = [], [], [], []
    offset = None
    while True:
        points, offset = store.shard.scroll(
            qe.ScrollRequest(
                offset=offset, limit=1000, with_payload=["meta.record_id", "meta.title", "content"], with_vector=True
            )
        )
        for point in points:
            meta = point.payload["meta"]
            ids.append(str(meta["record_id"]))
            titles.append(str(meta.get("title") or ""))
            texts.append(str(point.payload.get("content") or ""))
            vectors.append(point.vector[DENSE_VECTORS_NAME])
        if offset is None:
            break
    matrix = np.asarray(vectors, dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return Corpus(
        ids, matrix, counts_matrix(titles, tokenizer, vocabulary), counts_matrix(texts, tokenizer, vocabulary), texts
    )


# -- fusion (as Qdrant does it: every source cut to its prefetch depth first) ----------------------------


def top(scores: np.ndarray, depth: int = DEPTH) -> np.ndarray:
    """Indices of the `depth` best scores, best first."""
    depth = min(depth, len(scores))
    best = np.argpartition(-scores, depth - 1)[:depth]
    return best[np.argsort(-scores[best], kind="stable")]


def dbsf(lists: list[tuple[np.ndarray, np.ndarray]], weights: list[float] | None = None) -> dict[int, float]:
    """Distribution-based score fusion (Qdrant's): each list's scores scaled by its mean +- 3 sigma, summed.
    `lists` holds (indices, scores of those indices); a missing document adds nothing."""
    fused: dict[int, float] = {}
    for position, (indices, scores) in enumerate(lists):
        if len(indices) == 0:
            continue
        mean, sd = float(scores.mean()), float(scores.std())
        low, span = mean - 3 * sd, (6 * sd) or 1.0
        weight = 1.0 if weights is None else weights[position]
        for i, s in zip(indices.tolist(), ((scores - low) / span).tolist(), strict=True):
            fused[i] = fused.get(i, 0.0) + weight * s
    return fused


def rrf(lists: list[tuple[np.ndarray, np.ndarray]], k: int) -> dict[int, float]:
    fused: dict[int, float] = {}
    for indices, _ in lists:
        for rank, i in enumerate(indices.tolist()):
            fused[i] = fused.get(i, 0.0) + 1 / (k + rank)
    return fused


def source(scores: np.ndarray, depth: int = DEPTH) -> tuple[np.ndarray, np.ndarray]:
    best = top(scores, depth)
    best = best[scores[best] > 0] if scores.min() >= 0 else best  # BM25: documents with no term are not hits
    return best, scores[best]


def ranked(fused: dict[int, float], depth: int = RUN_DEPTH) -> list[int]:
    return sorted(fused, key=lambda i: -fused[i])[:depth]


# -- the study ---------------------------------------------------------------------------------------


@dataclass
class Study:
    """One dataset's matrices, and per query what the variants share (computed lazily, kept)."""

    name: str
    corpus: Corpus
    query_ids: list[str]
    query_vectors: np.ndarray
    query_terms: sp.csr_matrix
    qrels: dict[str, dict[str, int]]
    _cache: dict[Any, np.ndarray] = field(default_factory=dict)

    def dense(self) -> np.ndarray:
        return self._memo("dense", lambda: self.query_vectors @ self.corpus.vectors.T)

    def bm25(self, k: float = 1.2, b: float = 0.75, title_weight: float = 1.0) -> np.ndarray:
        return self._memo(("bm25", k, b, title_weight), lambda: self.corpus.bm25(self.query_terms, k, b, title_weight))

    def title_bm25(self) -> np.ndarray:
        """BM25 over the title alone (its own length normalisation and IDF)."""
        return self._memo("title", lambda: self.corpus.bm25(self.query_terms, body_weight=0.0))

    def maxp(self, scheme: str, vectors: np.ndarray | None = None) -> np.ndarray:
        if vectors is not None:
            return self.corpus.best_passage(scheme, vectors)
        return self._memo(("maxp", scheme), lambda: self.corpus.best_passage(scheme, self.query_vectors))

    def _memo(self, key: Any, make: Callable[[], np.ndarray]) -> np.ndarray:
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]


Variant = Callable[[Study], list[list[int]]]  # a ranking (document indices, best first) per query


def fused_variant(
    dense: Callable[[Study], np.ndarray] | None,
    bm25: Callable[[Study], np.ndarray] | None,
    extra: Callable[[Study], np.ndarray] | None = None,
    fusion: str = "dbsf",
    weights: list[float] | None = None,
    feedback: tuple[int, float] | None = None,
    dense_after_feedback: Callable[[Study, np.ndarray], np.ndarray] | None = None,
    rerank: str | None = None,
    rerank_depth: int = 50,
    rerank_weight: float = 1.0,
    feedback_from_rerank: bool = False,
    rerank_moved: bool = False,
) -> Variant:
    """Sources fused as Qdrant fuses them; optionally dense Rocchio feedback (k docs, weight beta), and a
    rerank of the fused top `rerank_depth` by DBSF of the fused score with the best passage's cosine (passage
    scheme `rerank`, weighted `rerank_weight`). `feedback_from_rerank` takes the feedback documents from the
    reranked first stage; `rerank_moved` scores passages against the moved query vector."""

    def fuse(lists: list[tuple[np.ndarray, np.ndarray]]) -> dict[int, float]:
        return dbsf(lists, weights) if fusion == "dbsf" else rrf(lists, int(fusion.removeprefix("rrf")))

    def reranked(study: Study, q: int, fused: dict[int, float], vector: np.ndarray | None) -> dict[int, float]:
        assert rerank is not None
        head = np.asarray(ranked(fused, rerank_depth))
        passages = study.maxp(rerank)[q] if vector is None else study.maxp(rerank, vector[None, :])[0]
        first = np.asarray([fused[i] for i in head.tolist()])
        again = dbsf([(head, first), (head, passages[head])], [1.0, rerank_weight])
        low = min(again.values(), default=0.0) - 1.0  # the rest keep their order below the head
        return {**{i: low - n for n, i in enumerate(ranked(fused)) if i not in again}, **again}

    def run(study: Study) -> list[list[int]]:
        matrices = [m(study) for m in (dense, bm25, extra) if m is not None]
        out = []
        for q in range(len(study.query_ids)):
            lists = [source(m[q]) for m in matrices]
            fused = fuse(lists)
            vector = None
            if feedback is not None:
                k, beta = feedback
                first = ranked(reranked(study, q, fused, None) if feedback_from_rerank else fused, k)
                vector = study.query_vectors[q] + beta * study.corpus.vectors[first].mean(axis=0)
                vector /= np.linalg.norm(vector)
                new_dense = (
                    dense_after_feedback(study, vector[None, :])[0]
                    if dense_after_feedback is not None
                    else study.corpus.vectors @ vector
                )
                fused = fuse([source(new_dense), *lists[1:]])
            if rerank is not None:
                fused = reranked(study, q, fused, vector if rerank_moved else None)
            out.append(ranked(fused))
        return out

    return run


def mix(study: Study, scheme: str, w: float, vectors: np.ndarray | None = None) -> np.ndarray:
    """Whole-document cosine mixed with the best passage's: (1 - w) doc + w MaxP."""
    doc = study.dense() if vectors is None else vectors @ study.corpus.vectors.T
    return (1 - w) * doc + w * study.maxp(scheme, vectors)


def variants() -> dict[str, Variant]:
    """Every variant tried: name -> how it ranks every query of a study."""
    dense = Study.dense
    bm25 = Study.bm25
    found: dict[str, Variant] = {
        "dense": fused_variant(dense, None),
        "bm25 k=1.2 b=0.75": fused_variant(None, bm25),
        "dbsf": fused_variant(dense, bm25),
        "rrf k=60": fused_variant(dense, bm25, fusion="rrf60"),
        "rrf k=10": fused_variant(dense, bm25, fusion="rrf10"),
        "dbsf + dense prf 3/1.0": fused_variant(dense, bm25, feedback=(3, 1.0)),
        "dbsf + dense prf 3/0.5": fused_variant(dense, bm25, feedback=(3, 0.5)),
    }
    for w in (0.4, 0.6):
        found[f"dbsf w_dense={w}"] = fused_variant(dense, bm25, weights=[w * 2, (1 - w) * 2])
    # BM25 parameters: saturation k and length normalisation b.
    for k in (0.9, 1.2, 1.5, 2.0):
        for b in (0.4, 0.6, 0.75, 0.9):
            if (k, b) == (1.2, 0.75):
                continue
            found[f"bm25 k={k} b={b}"] = fused_variant(None, partial(Study.bm25, k=k, b=b))
            found[f"dbsf bm25 k={k} b={b}"] = fused_variant(dense, partial(Study.bm25, k=k, b=b))
    # Field weights: the title counted `tw` times (BM25F), or as a BM25 source of its own.
    for tw in (2.0, 3.0, 5.0):
        found[f"bm25 title x{tw:g}"] = fused_variant(None, partial(Study.bm25, title_weight=tw))
        found[f"dbsf bm25 title x{tw:g}"] = fused_variant(dense, partial(Study.bm25, title_weight=tw))
    found["dbsf + title bm25 source"] = fused_variant(dense, bm25, Study.title_bm25)
    # Passages: the best passage's cosine (MaxP, Dai & Callan 2019), alone, mixed into the dense source,
    # as a third source, or as a rerank of the fused top 50.
    for scheme in PASSAGES:
        found[f"maxp {scheme}"] = fused_variant(partial(Study.maxp, scheme=scheme), None)
        found[f"dbsf dense+bm25+maxp {scheme}"] = fused_variant(dense, bm25, partial(Study.maxp, scheme=scheme))
        for w in (0.3, 0.5, 0.7):
            mixed = lambda s, sc=scheme, w=w: mix(s, sc, w)  # noqa: E731
            after = lambda s, v, sc=scheme, w=w: mix(s, sc, w, v)  # noqa: E731
            found[f"dbsf mix {scheme} w={w}"] = fused_variant(mixed, bm25)
            found[f"dbsf mix {scheme} w={w} + prf 3/1.0"] = fused_variant(
                mixed, bm25, feedback=(3, 1.0), dense_after_feedback=after
            )
            found[f"dbsf mix {scheme} w={w} + prf 3/0.5"] = fused_variant(
                mixed, bm25, feedback=(3, 0.5), dense_after_feedback=after
            )
        for rw in (0.5, 1.0):
            found[f"dbsf + rerank50 maxp {scheme} x{rw:g}"] = fused_variant(
                dense, bm25, rerank=scheme, rerank_weight=rw
            )
            found[f"dbsf + prf 3/1.0 + rerank50 maxp {scheme} x{rw:g}"] = fused_variant(
                dense, bm25, feedback=(3, 1.0), rerank=scheme, rerank_weight=rw
            )
    # Round 2: the passage rerank with the feedback and field weights around it (w48, the better scheme).
    for depth in (30, 50, 100):
        for rw in (0.5, 0.75):
            for beta in (0.5, 1.0):
                for tw in (1.0, 3.0):
                    for order in ("fused", "reranked"):
                        name = f"r2 d={depth} x{rw:g} prf 3/{beta:g} title x{tw:g} prf from {order}"
                        found[name] = fused_variant(
                            dense,
                            partial(Study.bm25, title_weight=tw),
                            feedback=(3, beta),
                            rerank="w48",
                            rerank_depth=depth,
                            rerank_weight=rw,
                            feedback_from_rerank=order == "reranked",
                        )
    for moved in (False, True):
        found[f"r2 d=50 x0.5 prf 3/1 moved={moved}"] = fused_variant(
            dense, bm25, feedback=(3, 1.0), rerank="w48", rerank_weight=0.5, rerank_moved=moved
        )
    return found


def collect(name: str, split: str) -> tuple[Study, Loader]:
    dataset = load_dataset(SHARED / name, split)
    settings = eval_settings(Settings(home=PROJECT, watch=False), dataset)
    loader = Loader(settings)
    ensure_index(loader, dataset, progress=False)
    store = loader.store(EVAL_COLLECTION)
    tokenizer = Bm25Tokenizer("english", ascii_folding=True, capitalised_stopwords=True)
    vocabulary: dict[int, int] = {}
    corpus = load_corpus(store, tokenizer, vocabulary)
    embedder = DenseTextEmbedder(backend="onnx", model_cache_dir=settings.models_dir)
    embedder.warm_up()
    embed_passages(corpus, embedder, Path(settings.data_dir))
    judged = [q for q in dataset.queries if q in dataset.qrels]
    texts = [dataset.queries[q] for q in judged]
    vectors = embedder.embed_many(texts, cache=False)
    terms = counts_matrix(texts, tokenizer, vocabulary)
    width = len(vocabulary)
    corpus.titles, corpus.bodies = corpus.titles[:, :width], corpus.bodies[:, :width]
    study = Study(name, corpus, judged, vectors, terms[:, :width], dataset.qrels)
    return study, loader


def ndcg(study: Study, rankings: list[list[int]]) -> float:
    ids = study.corpus.ids
    run = {
        q: {ids[i]: float(len(r) - n) for n, i in enumerate(r)} or {"__none__": 0.0}
        for q, r in zip(study.query_ids, rankings, strict=True)
    }
    return float(evaluate(Qrels({q: study.qrels[q] for q in study.query_ids}), Run(run), "ndcg@10"))


FLOORS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def floor_report(study: Study, default: Variant, unrelated: np.ndarray) -> dict[str, Any]:
    """How a dense relevance floor (cosine similarity to the query) sorts the default ranking's top 10.

    Judged queries: precision and recall of the hits the floor keeps, and how many queries it empties.
    Unrelated queries (the other datasets' queries against this corpus): how many it empties. A query is
    counted as answered if any document of the corpus reaches the floor, so that share is a lower bound."""
    dense = study.dense()
    hits = []
    for q, ranking in enumerate(default(study)):
        query_id = study.query_ids[q]
        for i in ranking[:10]:
            hits.append((query_id, float(dense[q, i]), study.qrels[query_id].get(study.corpus.ids[i], 0) > 0))
    best_unrelated = (unrelated @ study.corpus.vectors.T).max(axis=1)
    report = {}
    for floor in FLOORS:
        kept = [h for h in hits if h[1] >= floor]
        relevant = sum(h[2] for h in hits)
        answered = {h[0] for h in kept}
        report[str(floor)] = {
            "precision": round(sum(h[2] for h in kept) / max(len(kept), 1), 4),
            "recall": round(sum(h[2] for h in kept) / max(relevant, 1), 4),
            "judged_queries_emptied": round(1 - len(answered) / len({h[0] for h in hits}), 4),
            "unrelated_queries_emptied": round(float((best_unrelated < floor).mean()), 4),
        }
    return report


DEFAULT_VARIANT = "r2 d=100 x0.75 prf 3/1 title x3 prf from reranked"  # beir_hybrid.yaml


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=DEFAULT_DATASETS)
    parser.add_argument("--only", nargs="*", default=[], help="variants whose name starts with one of these")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--floors", action="store_true", help="report dense relevance floors instead")
    args = parser.parse_args()
    names = [s.split(":")[0] for s in args.datasets]
    if args.floors:
        floors = {}
        for spec in args.datasets:
            name, split = spec.split(":")
            study, loader = collect(name, split)
            other_sets = [load_dataset(SHARED / o.split(":")[0], o.split(":")[1]) for o in args.datasets if o != spec]
            embedder = DenseTextEmbedder(backend="onnx", model_cache_dir=loader.settings.models_dir)
            embedder.warm_up()
            unrelated = embedder.embed_many([t for d in other_sets for t in d.queries.values()], cache=False)
            floors[name] = floor_report(study, variants()[DEFAULT_VARIANT], unrelated)
            print(json.dumps({name: floors[name]}), file=sys.stderr)
            loader.close()
        print(json.dumps(floors, indent=1))
        if args.out:
            args.out.write_text(json.dumps(floors, indent=1))
        return
    table: dict[str, dict[str, float]] = {}
    for spec in args.datasets:
        name, split = spec.split(":")
        started = time.perf_counter()
        study, loader = collect(name, split)
        loader.close()
        for variant, rank in variants().items():
            if args.only and not any(variant.startswith(p) for p in args.only):
                continue
            table.setdefault(variant, {})[name] = round(ndcg(study, rank(study)), 4)
            print(json.dumps({"dataset": name, "variant": variant, "ndcg@10": table[variant][name]}), file=sys.stderr)
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    complete = {v: s for v, s in table.items() if all(n in s for n in names)}
    held_out = {}
    for name in names:
        others = [n for n in names if n != name]
        chosen = max(complete, key=lambda v: statistics.fmean(complete[v][n] for n in others))
        held_out[name] = {"chosen_on_others": chosen, "ndcg@10": complete[chosen][name]}
    report = {
        "variants": {v: {**s, "mean": round(statistics.fmean(s.values()), 4)} for v, s in complete.items()},
        "leave_one_dataset_out": held_out,
    }
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
