"""Hybrid ranking variants on the judged datasets, chosen by leave-one-dataset-out (issue #16).

Each dataset is indexed once by `haygate eval`'s own indexing (the `beir` collection). Per query, the study
keeps what every variant needs: the dense scores of all documents (exact, from the stored vectors), the BM25
list from the store (top `--depth`), and for pseudo-relevance feedback the stored dense and sparse vectors.
Every variant is then scored with ranx on the same lists, so variants differ only in how they rank.

Selection is by leave-one-dataset-out: for each dataset, the variant with the best mean nDCG@10 on the
*other* datasets is scored on it. A variant that wins only where it was chosen does not generalise.

    .venv/bin/python scripts/ranking_study.py [--datasets scifact-dev:train cranfield:test cisi:test] [--out F]

`--floors` reports instead how a dense relevance floor (cosine to the query) sorts the default ranking's top
10: precision and recall of what it keeps, and how many judged and unrelated queries it leaves empty.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import math
import re
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import qdrant_edge as qe
from ranx import Qrels, Run, evaluate

from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder
from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.document_stores.hybrid import HybridQuery
from haygate.document_stores.payload import DENSE_VECTORS_NAME, SPARSE_VECTORS_NAME
from haygate.evaluation.datasets import load_dataset
from haygate.evaluation.runner import EVAL_COLLECTION, ensure_index, eval_settings
from haygate.gateway.loader import Loader
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parents[1]
SHARED = PROJECT.parent / "shared" / "data"
DEFAULT_DATASETS = ["scifact-dev:train", "cranfield:test", "cisi:test"]
Ranking = dict[str, float]


@dataclass
class QueryLists:
    """What every variant of one query ranks from."""

    dense: np.ndarray  # cosine similarity to every document, in `Corpus.ids` order
    sparse: Ranking  # BM25 top `depth`, doc id -> score
    query_vector: np.ndarray
    query_sparse: dict[int, float]


@dataclass
class Corpus:
    ids: list[str]
    vectors: np.ndarray  # unit dense vectors, row per document
    sparse: list[dict[int, float]]  # BM25 document weights per token
    idf: dict[int, float]
    texts: list[str]
    sentence_vectors: np.ndarray | None = None  # unit vectors of every sentence, grouped by document
    sentence_starts: np.ndarray | None = None  # first sentence row of each document

    def best_sentence(self, query_vector: np.ndarray) -> np.ndarray:
        """Per document, the cosine similarity of its sentence closest to the query (MaxP)."""
        assert self.sentence_vectors is not None and self.sentence_starts is not None
        return np.maximum.reduceat(self.sentence_vectors @ query_vector, self.sentence_starts)


SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def embed_sentences(corpus: Corpus, embedder: DenseTextEmbedder, cache: Path) -> None:
    """Every document's title and sentences, embedded once and kept beside the eval index."""
    groups = [[s for s in SENTENCE_BREAK.split(text) if s.strip()] or [text] for text in corpus.texts]
    starts = np.cumsum([0] + [len(g) for g in groups[:-1]])
    if cache.exists():
        vectors = np.load(cache)
    else:
        flat = [s for g in groups for s in g]
        vectors = np.asarray(embedder.embedding_backend.embed(flat, batch_size=64), dtype=np.float32)  # type: ignore[union-attr]
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        np.save(cache, vectors)
    corpus.sentence_vectors, corpus.sentence_starts = vectors, starts


def load_corpus(store: Any) -> Corpus:
    """Every stored point's record id, dense and sparse vector (scrolled from the shard)."""
    ids, vectors, sparse, texts = [], [], [], []
    offset = None
    while True:
        points, offset = store.shard.scroll(
            qe.ScrollRequest(offset=offset, limit=1000, with_payload=["meta.record_id", "content"], with_vector=True)
        )
        for point in points:
            ids.append(str(point.payload["meta"]["record_id"]))
            texts.append(str(point.payload.get("content") or ""))
            vectors.append(point.vector[DENSE_VECTORS_NAME])
            terms = point.vector.get(SPARSE_VECTORS_NAME)
            sparse.append(dict(zip(terms.indices, terms.values, strict=True)) if terms else {})
        if offset is None:
            break
    matrix = np.asarray(vectors, dtype=np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    df: dict[int, int] = {}
    for terms in sparse:
        for token in terms:
            df[token] = df.get(token, 0) + 1
    n = len(ids)
    idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}  # Qdrant's IDF modifier
    return Corpus(ids, matrix, sparse, idf, texts)


def bm25_search(store: Any, terms: dict[int, float], depth: int) -> Ranking:
    from haystack.dataclasses import SparseEmbedding

    if not terms:
        return {}
    query = HybridQuery(
        sparse=SparseEmbedding(indices=list(terms), values=list(terms.values())),
        limit=depth,
        payload_fields=("meta.record_id",),
    )
    return {str(h.payload["meta"]["record_id"]): h.score for h in store.hybrid_search(query)}


# -- fusion ------------------------------------------------------------------------------------------


def top(scores: np.ndarray, ids: list[str], depth: int) -> Ranking:
    best = np.argpartition(-scores, depth)[:depth]
    return {ids[i]: float(scores[i]) for i in best}


def dbsf_norm(ranking: Ranking) -> Ranking:
    """Qdrant's distribution-based score fusion: scores scaled by mean +- 3 sigma of the list."""
    if not ranking:
        return {}
    values = list(ranking.values())
    mean, sd = statistics.fmean(values), statistics.pstdev(values)
    low, high = mean - 3 * sd, mean + 3 * sd
    span = high - low or 1.0
    return {k: (v - low) / span for k, v in ranking.items()}


def minmax_norm(ranking: Ranking) -> Ranking:
    if not ranking:
        return {}
    low, high = min(ranking.values()), max(ranking.values())
    span = high - low or 1.0
    return {k: (v - low) / span for k, v in ranking.items()}


def zscore_norm(ranking: Ranking) -> Ranking:
    if not ranking:
        return {}
    values = list(ranking.values())
    mean, sd = statistics.fmean(values), statistics.pstdev(values) or 1.0
    return {k: (v - mean) / sd for k, v in ranking.items()}


def fuse(lists: list[Ranking], weights: list[float], norm: Callable[[Ranking], Ranking]) -> Ranking:
    fused: Ranking = {}
    for ranking, weight in zip(lists, weights, strict=True):
        for key, value in norm(ranking).items():
            fused[key] = fused.get(key, 0.0) + weight * value
    return fused


def rrf(lists: list[Ranking], weights: list[float], k: int) -> Ranking:
    fused: Ranking = {}
    for ranking, weight in zip(lists, weights, strict=True):
        for rank, key in enumerate(sorted(ranking, key=lambda d: -ranking[d])):
            fused[key] = fused.get(key, 0.0) + weight / (k + rank)
    return fused


# -- pseudo-relevance feedback -----------------------------------------------------------------------


def rocchio(corpus: Corpus, lists: QueryLists, first: Ranking, k: int, beta: float) -> np.ndarray:
    """Dense scores for the query moved toward the mean of the first stage's top k documents."""
    index = {doc: i for i, doc in enumerate(corpus.ids)}
    feedback = [index[d] for d in sorted(first, key=lambda d: -first[d])[:k]]
    vector = lists.query_vector + beta * corpus.vectors[feedback].mean(axis=0)
    vector /= np.linalg.norm(vector)
    return corpus.vectors @ vector


def rm3_terms(corpus: Corpus, lists: QueryLists, first: Ranking, k: int, terms: int, weight: float) -> dict[int, float]:
    """The BM25 query plus the `terms` tokens that weigh most (BM25 weight x IDF) in the top k documents."""
    index = {doc: i for i, doc in enumerate(corpus.ids)}
    scores: dict[int, float] = {}
    for doc in sorted(first, key=lambda d: -first[d])[:k]:
        document = corpus.sparse[index[doc]]
        total = sum(document.values()) or 1.0
        for token, value in document.items():
            scores[token] = scores.get(token, 0.0) + value / total * corpus.idf.get(token, 0.0)
    expansion = sorted((t for t in scores if t not in lists.query_sparse), key=lambda t: -scores[t])[:terms]
    if not expansion:
        return dict(lists.query_sparse)
    scale = weight * sum(lists.query_sparse.values()) / sum(scores[t] for t in expansion)
    return {**lists.query_sparse, **{t: scores[t] * scale for t in expansion}}


# -- the study ---------------------------------------------------------------------------------------


def collect(name: str, split: str, depth: int) -> tuple[Corpus, dict[str, QueryLists], dict[str, Any], Any, Any]:
    dataset = load_dataset(SHARED / name, split)
    settings = eval_settings(Settings(home=PROJECT, watch=False), dataset)
    loader = Loader(settings)
    ensure_index(loader, dataset, progress=False)
    store = loader.store(EVAL_COLLECTION)
    corpus = load_corpus(store)
    embedder = DenseTextEmbedder(backend="onnx", model_cache_dir=str(settings.models_dir))
    embedder.warm_up()
    embed_sentences(corpus, embedder, Path(settings.data_dir) / "study-sentences.npy")
    sparse = Bm25SparseTextEmbedder(language="english")
    texts = list(dataset.queries.values())
    vectors = np.asarray(embedder.embedding_backend.embed(texts, batch_size=64), dtype=np.float32)  # type: ignore[union-attr]
    lists = {}
    for (query_id, text), vector in zip(dataset.queries.items(), vectors, strict=True):
        vector = vector / np.linalg.norm(vector)
        embedding = sparse.run(text)["sparse_embedding"]
        terms = dict(zip(embedding.indices, embedding.values, strict=True))
        lists[query_id] = QueryLists(corpus.vectors @ vector, bm25_search(store, terms, depth), vector, terms)
    return corpus, lists, dataset.qrels, store, loader


def variants(depth: int) -> dict[str, Callable[[Corpus, QueryLists, Any], Ranking]]:
    """Every variant tried: name -> how it ranks one query (given corpus, lists, store)."""
    found: dict[str, Callable[[Corpus, QueryLists, Any], Ranking]] = {}

    def dense_top(c: Corpus, q: QueryLists) -> Ranking:
        return top(q.dense, c.ids, depth)

    found["dense"] = lambda c, q, s: dense_top(c, q)
    found["bm25"] = lambda c, q, s: q.sparse
    for w in (0.3, 0.4, 0.5, 0.6, 0.7):
        found[f"dbsf w_dense={w}"] = lambda c, q, s, w=w: fuse([dense_top(c, q), q.sparse], [w, 1 - w], dbsf_norm)
        found[f"minmax w_dense={w}"] = lambda c, q, s, w=w: fuse([dense_top(c, q), q.sparse], [w, 1 - w], minmax_norm)
        found[f"zscore w_dense={w}"] = lambda c, q, s, w=w: fuse([dense_top(c, q), q.sparse], [w, 1 - w], zscore_norm)
    for k in (2, 10, 60):
        found[f"rrf k={k}"] = lambda c, q, s, k=k: rrf([dense_top(c, q), q.sparse], [1, 1], k)

    def base(c: Corpus, q: QueryLists) -> Ranking:
        return fuse([dense_top(c, q), q.sparse], [0.5, 0.5], dbsf_norm)

    for k in (3, 5, 10):
        for beta in (0.5, 1.0):

            def dense_prf(c: Corpus, q: QueryLists, s: Any, k: int = k, beta: float = beta) -> Ranking:
                moved = top(rocchio(c, q, base(c, q), k, beta), c.ids, depth)
                return fuse([moved, q.sparse], [0.5, 0.5], dbsf_norm)

            found[f"dense prf k={k} beta={beta}"] = dense_prf
    for k in (3, 5, 10):
        for terms, weight in ((10, 0.3), (10, 0.5), (20, 0.5)):

            def sparse_prf(c: Corpus, q: QueryLists, s: Any, k: int = k, t: int = terms, w: float = weight) -> Ranking:
                expanded = bm25_search(s, rm3_terms(c, q, base(c, q), k, t, w), depth)
                return fuse([dense_top(c, q), expanded], [0.5, 0.5], dbsf_norm)

            found[f"bm25 prf k={k} terms={terms} weight={weight}"] = sparse_prf

    found["maxp"] = lambda c, q, s: top(c.best_sentence(q.query_vector), c.ids, depth)
    found["dbsf doc+maxp+bm25"] = lambda c, q, s: fuse(
        [dense_top(c, q), top(c.best_sentence(q.query_vector), c.ids, depth), q.sparse], [1, 1, 1], dbsf_norm
    )
    for w in (0.3, 0.5, 0.7):

        def mixed(c: Corpus, q: QueryLists, s: Any, w: float = w) -> Ranking:
            dense = (1 - w) * q.dense + w * c.best_sentence(q.query_vector)
            return fuse([top(dense, c.ids, depth), q.sparse], [0.5, 0.5], dbsf_norm)

        found[f"dbsf (doc+maxp w={w}) + bm25"] = mixed
    for w in (0.3, 0.5):
        for k, beta in ((3, 0.5), (3, 1.0), (5, 1.0)):

            def mixed_prf(c: Corpus, q: QueryLists, s: Any, w: float = w, k: int = k, beta: float = beta) -> Ranking:
                first = fuse(
                    [top((1 - w) * q.dense + w * c.best_sentence(q.query_vector), c.ids, depth), q.sparse],
                    [0.5, 0.5],
                    dbsf_norm,
                )
                index = {doc: i for i, doc in enumerate(c.ids)}
                feedback = [index[d] for d in sorted(first, key=lambda d: -first[d])[:k]]
                moved = q.query_vector + beta * c.vectors[feedback].mean(axis=0)
                moved /= np.linalg.norm(moved)
                dense = (1 - w) * (c.vectors @ moved) + w * c.best_sentence(moved)
                return fuse([top(dense, c.ids, depth), q.sparse], [0.5, 0.5], dbsf_norm)

            found[f"dbsf (doc+maxp w={w}) + bm25, dense prf k={k} beta={beta}"] = mixed_prf
    for k in (3, 5):

        def both_prf(c: Corpus, q: QueryLists, s: Any, k: int = k) -> Ranking:
            first = base(c, q)
            moved = top(rocchio(c, q, first, k, 1.0), c.ids, depth)
            expanded = bm25_search(s, rm3_terms(c, q, first, k, 10, 0.5), depth)
            return fuse([moved, expanded], [0.5, 0.5], dbsf_norm)

        found[f"both prf k={k}"] = both_prf
    return found


FLOORS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)


def floor_report(
    corpus: Corpus, lists: dict[str, QueryLists], qrels: dict[str, Any], store: Any, unrelated: np.ndarray
) -> dict[str, Any]:
    """How a dense relevance floor (cosine similarity to the query) sorts the default ranking's top 10.

    Judged queries: precision and recall of the hits the floor keeps, and how many queries it empties.
    Unrelated queries (the other datasets' queries against this corpus): how many it empties. A query is
    counted as answered if any document of the corpus reaches the floor, so that share is a lower bound."""
    default = variants(200)["dense prf k=3 beta=1.0"]
    index = {doc: i for i, doc in enumerate(corpus.ids)}
    hits = []
    for query_id, query in lists.items():
        if query_id not in qrels:
            continue
        ranking = default(corpus, query, store)
        for doc in sorted(ranking, key=lambda d: -ranking[d])[:10]:
            hits.append((query_id, float(query.dense[index[doc]]), qrels[query_id].get(doc, 0) > 0))
    best_unrelated = (unrelated @ corpus.vectors.T).max(axis=1)
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


def ndcg(qrels: dict[str, Any], run: dict[str, Ranking]) -> float:
    judged = {q: r or {"__none__": 0.0} for q, r in run.items() if q in qrels}
    return float(evaluate(Qrels({q: qrels[q] for q in judged}), Run(judged), "ndcg@10"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=DEFAULT_DATASETS)
    parser.add_argument("--depth", type=int, default=200, help="candidates per source")
    parser.add_argument("--only", nargs="*", default=[], help="variants whose name starts with one of these")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--floors", action="store_true", help="report dense relevance floors instead")
    args = parser.parse_args()
    if args.floors:
        floors = {}
        for spec in args.datasets:
            name, split = spec.split(":")
            corpus, lists, qrels, store, loader = collect(name, split, args.depth)
            others = [load_dataset(SHARED / o.split(":")[0], o.split(":")[1]) for o in args.datasets if o != spec]
            embedder = DenseTextEmbedder(backend="onnx", model_cache_dir=str(loader.settings.models_dir))
            embedder.warm_up()
            unrelated = embedder.embed_many([t for d in others for t in d.queries.values()], cache=False)
            floors[name] = floor_report(corpus, lists, qrels, store, unrelated)
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
        corpus, lists, qrels, store, loader = collect(name, split, args.depth)
        for variant, rank in variants(args.depth).items():
            if args.only and not any(variant.startswith(p) for p in args.only):
                continue
            run = {q: rank(corpus, ql, store) for q, ql in lists.items()}
            table.setdefault(variant, {})[name] = round(ndcg(qrels, run), 4)
            print(json.dumps({"dataset": name, "variant": variant, "ndcg@10": table[variant][name]}), file=sys.stderr)
        loader.close()
        print(f"{name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    names = [s.split(":")[0] for s in args.datasets]
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
