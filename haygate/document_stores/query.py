"""One hybrid query, as every backend runs it.

A `HybridQuery` names its sources: the dense vector, the BM25 sparse vector and the native BM25 text index
of some payload fields. `plan` turns it into ranked lists: the fused one (every source prefetched with the
same filter, then fused by RRF, DBSF or a weighted score sum) and each source alone, whose ranks become
every hit's provenance. A backend only translates those lists into its own requests and runs them as one
batch (`HybridDocumentStore._query_batch`); what comes back becomes `Hit`s in a stable order. A backend whose
engine does not fuse (Haystack's in-memory store) fuses here (`fuse`), as Qdrant does.
"""

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np
from haystack.dataclasses import Document, SparseEmbedding

from haygate.document_stores.payload import document_from_payload
from haygate.errors import InvalidRequestError

Fusion = Literal["rrf", "dbsf", "sum"]
FUSIONS: tuple[Fusion, ...] = ("rrf", "dbsf", "sum")
DENSE = "dense"
SPARSE = "sparse"
TEXT_PREFIX = "text:"
PASSAGES = "passages"  # not a source of the fusion: the rescoring of its candidates (`HybridQuery.passage_weight`)
TERMS = "terms"  # not a source either: the share of the query's BM25 terms a hit contains (`HybridQuery.with_terms`)
DEFAULT_RRF_K = 60  # Qdrant's own k for reciprocal rank fusion
DEFAULT_FUSION: Fusion = "rrf"
DEFAULT_PREFETCH_LIMIT = 100


@dataclass(frozen=True)
class HybridQuery:
    """One retrieval request. Every source (prefetch) carries the same filters."""

    dense: list[float] | None = None
    sparse: SparseEmbedding | None = None
    text: str | None = None
    text_fields: tuple[str, ...] = ()
    filters: dict[str, Any] | None = None
    limit: int = 10
    prefetch_limit: int = 50
    fusion: Fusion = "rrf"
    rrf_k: int = DEFAULT_RRF_K
    weights: dict[str, float] = field(default_factory=dict)
    payload_fields: tuple[str, ...] | None = None  # None: the whole payload; else only these paths (and id)
    feedback_documents: int = 0
    """Dense pseudo-relevance feedback (Rocchio): the query vector moves toward the mean vector of the
    first fused ranking's top `feedback_documents`, by `feedback_weight`, and the query runs again. 0: off."""
    feedback_weight: float = 1.0
    original_dense: list[float] | None = None
    """The query's own vector when feedback has moved `dense`: passages are scored against it (measured:
    scoring them against the moved vector lost 0.003-0.013 nDCG@10 on the three judged sets)."""
    with_terms: bool = False
    """Give every hit the share of the query's BM25 terms (stemmed, without stop words) that it contains, as
    `source_scores["terms"]`: 1.0 means it has every word the caller typed, whatever the words mean."""
    score_threshold: float | None = None
    """Only hits whose fused score (a single source's own score, when there is one) reaches this come back:
    the engine stops there, so nothing below it is read (a phrase search of a whole CV collection)."""
    passage_weight: float = 0.0
    """Rescore the fused candidates by their best passage (MaxP, Dai & Callan 2019): the candidates' fused
    scores and their best-passage cosines are each scaled by the candidates' mean +- 3 sigma (Qdrant's DBSF)
    and added, the passages weighted by this. With feedback, the feedback documents are the rescored list's
    first. 0: off. Needs the dense vector, and a store that keeps passage vectors."""

    def payload_selector(self) -> list[str] | bool:
        return True if self.payload_fields is None else sorted({"id", *self.payload_fields})

    def sources(self) -> list[str]:
        """Names of the ranked lists this query fuses, in a fixed order."""
        names = []
        if self.dense is not None:
            names.append(DENSE)
        if self.sparse is not None and self.sparse.indices:
            names.append(SPARSE)
        if self.text and self.text.strip():
            names.extend(TEXT_PREFIX + f for f in self.text_fields)
        return names

    def weight_list(self) -> list[float]:
        return [float(self.weights.get(name, 1.0)) for name in self.sources()]

    def validate(self) -> None:
        if self.rrf_k < 1:
            msg = f"rrf_k must be at least 1, got {self.rrf_k}"
            raise InvalidRequestError(msg, {"field": "rrf_k", "minimum": 1})
        if self.limit < 1 or self.prefetch_limit < 1:
            msg = "limit and prefetch_limit must be at least 1"
            raise InvalidRequestError(msg)
        if self.feedback_documents < 0 or self.feedback_weight < 0 or self.passage_weight < 0:
            msg = "feedback_documents, feedback_weight and passage_weight must be at least 0"
            raise InvalidRequestError(msg)
        unknown = set(self.weights) - {DENSE, SPARSE} - {TEXT_PREFIX + f for f in self.text_fields}
        if unknown:
            msg = f"weights for unknown sources {sorted(unknown)}; sources: {self.sources()}"
            raise InvalidRequestError(msg)


@dataclass(frozen=True)
class RankedList:
    """One request of a plan: a single source ranked alone, or several fused into one list."""

    sources: tuple[str, ...]
    limit: int
    with_payload: list[str] | bool
    with_terms: bool = False  # bring each point's BM25 terms (its sparse vector's indices)
    score_threshold: float | None = None  # the engine returns no point scoring below this

    @property
    def fused(self) -> bool:
        return len(self.sources) > 1


PointId = Hashable
"""A point's id as a backend names it in a search (Edge: its UUID's 128-bit int; a server: the string it
hands over), compared, never printed."""


# ScoredPoint and Hit are not frozen: a search makes about 300 of them, and a frozen dataclass's __init__ sets each
# field through object.__setattr__, three times a plain one's cost (docs/results/benchmarks.md, "Where a call's time
# goes").
@dataclass(slots=True)
class ScoredPoint:
    """What a backend returns per point: its id, score and payload."""

    id: PointId
    score: float
    payload: dict[str, Any] | None
    terms: frozenset[int] | None = None  # the point's BM25 terms, when the request asked for them


@dataclass(slots=True)
class Hit:
    """A fused result with its provenance: the rank and score it had in each source list (None if absent).

    It keeps the raw payload and builds its Document on demand, so each hit is turned into a Document
    once, with whatever extra meta the caller adds (the retriever adds provenance).
    """

    payload: dict[str, Any]
    fused_score: float
    score: float
    ranks: dict[str, int | None]
    source_scores: dict[str, float | None] = field(default_factory=dict)
    """Each source's own score (dense: cosine similarity; BM25: its sum), None where the hit is absent."""

    def to_document(self, extra_meta: dict[str, Any] | None = None) -> Document:
        return document_from_payload(self.payload, self.score, extra_meta)

    @property
    def document(self) -> Document:
        return self.to_document()


def plan(query: HybridQuery) -> list[RankedList]:
    """The fused list first, then each source alone (ids only), all run in one batch."""
    sources = tuple(query.sources())
    fused = RankedList(
        sources,
        query.limit,
        query.payload_selector(),
        query.with_terms and query.sparse is not None,
        query.score_threshold,
    )
    return [fused, *(RankedList((name,), query.prefetch_limit, False) for name in sources)]


def ranked(points: list[ScoredPoint]) -> dict[PointId, tuple[int, float]]:
    """Each point's 1-based rank and score in one source's list. Tied scores share a rank ("1224"), so a rank
    never depends on the order Qdrant happens to return tied points in (which changes when a collection is
    rebuilt)."""
    table: dict[PointId, tuple[int, float]] = {}
    previous: float | None = None
    rank = 0
    for position, point in enumerate(points, start=1):
        score = point.score
        if score != previous:
            rank, previous = position, score
        table[point.id] = (rank, score)
    return table


ABSENT = (None, None)  # a point's rank and score in a source's list that does not hold it


def stable_order(hits: list[Hit]) -> list[Hit]:
    """Fused scores tie often (rank 3 in one list scores as rank 3 in the other), and Qdrant returns tied
    points in no fixed order. Break ties by the best single-source rank, then by id, so a query always
    returns the same list.
    """

    def key(hit: Hit) -> tuple[float, int, str]:
        best = min((r for r in hit.ranks.values() if r is not None), default=1 << 30)
        return (-hit.fused_score, best, str(hit.payload.get("id", "")))

    return sorted(hits, key=key)


def normalized_score(fused: float, query: HybridQuery, n_sources: int) -> float:
    """Map a fused score onto [0, 1], so `min_score` means the same for every fusion setting (`normalizer`)."""
    return normalizer(query, n_sources)(fused)


def normalizer(query: HybridQuery, n_sources: int) -> Callable[[float], float]:
    """The map of one query's fused scores onto [0, 1], worked out once for all its hits.

    Qdrant's RRF scores a point `sum_i w_i / (k + r_i)` with 0-based ranks r_i (Cormack et al. 2009), so the
    best possible score is `sum_i w_i / k`. DBSF sums per-source scores scaled by mean +- 3 sigma.
    """
    if n_sources <= 1:
        # One source alone (a query with no BM25 terms, such as ":", leaves only the dense one): a cosine
        # similarity lies in [-1, 1], and below 0 it only says "unrelated". BM25 alone is unbounded.
        return (lambda fused: min(1.0, max(0.0, fused))) if query.sources() == [DENSE] else float
    if query.fusion == "sum":
        return float  # raw weighted BM25: unbounded; callers that need 0..1 use the rank
    if query.fusion == "rrf":
        best = sum(query.weight_list()) / query.rrf_k
        scale = 1 / best if best > 0 else 0.0
    else:
        scale = 1 / n_sources  # DBSF's per-source scores lie past [0, 1] for points beyond 3 sigma
    return lambda fused: min(1.0, max(0.0, fused * scale))  # float rounding puts a first-everywhere hit at 1.00000005


def dbsf_scaled(scores: list[float], ddof: int = 0) -> list[float]:
    """Scores scaled as Qdrant's distribution-based score fusion scales a list: by its mean +- 3 sigma. Qdrant's own
    fusion takes the sample deviation (`ddof=1`: the memory backend's fused scores then equal Edge's to four
    decimals, and differ in the third without it); the passage rescoring keeps the population one its figures were
    measured with."""
    values = np.asarray(scores, dtype=np.float64)
    mean, sigma = float(values.mean()), float(values.std(ddof=ddof)) if len(values) > ddof else 0.0
    low, span = mean - 3 * sigma, (6 * sigma) or 1.0
    return ((values - low) / span).tolist()


def rescored(hits: list[Hit], passage_scores: dict[PointId, float], weight: float, ids: list[PointId]) -> list[Hit]:
    """The hits ordered by DBSF of their fused score and their best passage's cosine (weighted `weight`).

    `ids[i]` is `hits[i]`'s point id. A hit without passage vectors adds nothing for them, as a point missing
    from one of DBSF's lists does. The normalised score is the sum over its maximum, 1 + weight."""
    if not hits:
        return hits
    fused = dbsf_scaled([hit.fused_score for hit in hits])
    found = [passage_scores[i] for i in ids if i in passage_scores]
    scale = dict(zip([i for i in ids if i in passage_scores], dbsf_scaled(found), strict=True)) if found else {}
    order = sorted(found, reverse=True)
    ranks = {i: order.index(passage_scores[i]) + 1 for i in scale}  # tied scores share a rank
    out = []
    for hit, point_id, first in zip(hits, ids, fused, strict=True):
        combined = first + weight * scale.get(point_id, 0.0)
        out.append(
            replace(
                hit,
                fused_score=combined,
                score=min(1.0, max(0.0, combined / (1 + weight))),
                ranks={**hit.ranks, PASSAGES: ranks.get(point_id)},
                source_scores={**hit.source_scores, PASSAGES: passage_scores.get(point_id)},
            )
        )
    return out


def term_share(query: HybridQuery, terms: frozenset[int] | None) -> float | None:
    """The share of the query's distinct BM25 terms among `terms` (None when the query has none)."""
    wanted = set(query.sparse.indices) if query.sparse is not None else set()
    if not wanted:
        return None
    return len(wanted & (terms or frozenset())) / len(wanted)


def fuse(query: HybridQuery, lists: list[list[ScoredPoint]], limit: int) -> list[ScoredPoint]:
    """The sources' ranked lists fused as Qdrant fuses prefetches, best first: RRF scores a point
    `sum_i w_i / (k + r_i)` with 0-based ranks; DBSF sums each list's scores scaled by its mean +- 3 sigma; `sum`
    adds the weighted scores (0 where a list misses the point). Ties keep the first list's order."""
    weights = query.weight_list()
    fused: dict[PointId, float] = {}
    first: dict[PointId, ScoredPoint] = {}
    for weight, points in zip(weights, lists, strict=True):
        if query.fusion == "rrf":
            scores = [weight / (query.rrf_k + rank) for rank in range(len(points))]
        elif query.fusion == "dbsf":
            scores = dbsf_scaled([point.score for point in points], ddof=1) if points else []
        else:
            scores = [weight * point.score for point in points]
        for point, score in zip(points, scores, strict=True):
            first.setdefault(point.id, point)
            fused[point.id] = fused.get(point.id, 0.0) + score
    order = sorted(fused, key=lambda point_id: -fused[point_id])[:limit]
    return [replace(first[point_id], score=fused[point_id]) for point_id in order]
