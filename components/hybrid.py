"""The backend-neutral description of one hybrid query, and what comes back from it.

Both stores (Qdrant Edge in-process, a Qdrant server through qdrant-haystack) take a `HybridQuery` and
return `Hit`s, so retrievers, evaluation and the gateway never care which backend answered.
"""

from dataclasses import dataclass, field
from typing import Any, Literal

from haystack import Document
from haystack.dataclasses import SparseEmbedding

from components.errors import InvalidRequestError

Fusion = Literal["rrf", "dbsf", "sum"]
DENSE = "dense"
SPARSE = "sparse"
TEXT_PREFIX = "text:"


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
    rrf_k: int = 60
    weights: dict[str, float] = field(default_factory=dict)
    payload_fields: tuple[str, ...] | None = None  # None: the whole payload; else only these paths (and id)

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
        unknown = set(self.weights) - {DENSE, SPARSE} - {TEXT_PREFIX + f for f in self.text_fields}
        if unknown:
            msg = f"weights for unknown sources {sorted(unknown)}; sources: {self.sources()}"
            raise InvalidRequestError(msg)


@dataclass(frozen=True)
class Hit:
    """A fused result with its provenance: the rank it had in each source list (1-based, None if absent).

    It keeps the raw payload and builds its Document on demand, so each hit is turned into a Document
    once, with whatever extra meta the caller adds (the retriever adds provenance).
    """

    payload: dict[str, Any]
    fused_score: float
    score: float
    ranks: dict[str, int | None]

    def to_document(self, extra_meta: dict[str, Any] | None = None) -> Document:
        return document_from_payload(self.payload, self.score, extra_meta)

    @property
    def document(self) -> Document:
        return self.to_document()


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
    """Map a fused score onto [0, 1], so `min_score` means the same for every fusion setting.

    Qdrant's RRF scores a point `sum_i w_i / (k + r_i)` with 0-based ranks r_i (Cormack et al. 2009), so the
    best possible score is `sum_i w_i / k`. DBSF sums per-source scores already scaled to [0, 1].
    """
    if n_sources <= 1:
        return fused
    if query.fusion == "rrf":
        best = sum(query.weight_list()) / query.rrf_k
        return fused / best if best > 0 else 0.0
    if query.fusion == "sum":
        return fused  # raw weighted BM25: unbounded; callers that need 0..1 use the rank
    return fused / n_sources


def document_from_payload(payload: dict[str, Any], score: float, extra_meta: dict[str, Any] | None = None) -> Document:
    """Rebuild a Document from a qdrant-haystack payload (`Document.to_dict(flatten=False)` minus vectors)."""
    # Direct construction: `Document.from_dict` costs twice as much, and this runs per hit per query.
    meta = payload.get("meta") or {}
    return Document(
        id=payload.get("id", ""),
        content=payload.get("content"),
        meta={**meta, **extra_meta} if extra_meta else meta,
        score=score,
    )


def payload_from_document(document: Document) -> dict[str, Any]:
    """The payload qdrant-haystack writes for a Document, so both backends hold the same data."""
    payload = document.to_dict(flatten=False)
    payload.pop("embedding", None)
    payload.pop("sparse_embedding", None)
    return payload
