"""A retriever's settings and what they make of each call: `HybridSearchPolicy`.

`HybridRetriever` holds one policy, and each run is one call of its `retrieve` on the store: the query built
from the call (and a per-call setting the configuration makes meaningless refused), the filter fields
checked, a listing when there is no query text, the score floors, and one search again with relaxed filters
when the filters find nothing. The retriever itself stays thin, as qdrant-haystack's are; the rules live
here, once, beside the query plan they fill in (`haygate.document_stores.hybrid`).
"""

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, NamedTuple

from haystack import Document
from haystack.dataclasses import SparseEmbedding

from haygate.document_stores.hybrid import HybridDocumentStore, record_of
from haygate.document_stores.query import (
    DEFAULT_FUSION,
    DEFAULT_PREFETCH_LIMIT,
    DEFAULT_RRF_K,
    DENSE,
    FUSIONS,
    PASSAGES,
    SPARSE,
    TERMS,
    TEXT_PREFIX,
    Fusion,
    Hit,
    HybridQuery,
)
from haygate.errors import ConfigurationError, InvalidRequestError


def configured_sources(use_dense: bool, use_sparse: bool, text_fields: list[str] | None) -> list[str]:
    """The sources a retriever so configured fuses, named as `weights` keys (a query may leave some empty)."""
    return [
        *([DENSE] if use_dense else []),
        *([SPARSE] if use_sparse else []),
        *(TEXT_PREFIX + field for field in text_fields or []),
    ]


def ignored_settings(settings: Mapping[str, Any]) -> dict[str, str]:
    """Each of a retriever's settings that cannot change results given the others, with why (naming the other).

    `settings` holds every one of them. Whatever their values: a policy refuses those that are set, a call's
    `rrf_k` among them, and `haygate tune` a grid axis among them (a grid that varies them runs identical points).
    """
    sources = configured_sources(settings["use_dense"], settings["use_sparse"], settings["text_fields"])
    ignored: dict[str, str] = {}
    if settings.get("feedback") and DENSE not in sources:
        ignored["feedback"] = "feedback moves the dense query vector, and use_dense is false"
    if settings.get("passages") and DENSE not in sources:
        ignored["passages"] = "passages are scored against the dense query vector, and use_dense is false"
    floorable = [*sources, *([TERMS] if SPARSE in sources else []), *([PASSAGES] if settings["passages"] else [])]
    if strangers := sorted(set(settings.get("relevance_floor") or {}) - set(floorable)):
        ignored["relevance_floor"] = (
            f"relevance_floor names {strangers}, which use_dense, use_sparse, text_fields and passages do not "
            f"give scores for (floors: {', '.join(floorable)})"
        )
    if len(sources) == 1:
        alone = f"use_dense, use_sparse and text_fields leave one source ({sources[0]}), so nothing is fused"
        return {**ignored, **dict.fromkeys(("fusion", "rrf_k", "weights", "prefetch_limit"), alone)}
    fusion = settings["fusion"] or DEFAULT_FUSION
    if fusion != "rrf":
        ignored["rrf_k"] = f"fusion '{fusion}' takes no rrf_k (only fusion 'rrf' does)"
    if fusion == "dbsf":
        ignored["weights"] = "fusion 'dbsf' takes no weights (Qdrant's DBSF has none; 'rrf' and 'sum' do)"
    elif strangers := sorted(set(settings["weights"] or {}) - set(sources)):
        ignored["weights"] = (
            f"weights name {strangers}, which use_dense, use_sparse and text_fields do not make sources "
            f"(sources: {', '.join(sources)})"
        )
    prefetch_limit, top_k = settings["prefetch_limit"], settings["top_k"]
    if isinstance(prefetch_limit, int) and isinstance(top_k, int) and prefetch_limit < top_k:
        ignored["prefetch_limit"] = (
            f"prefetch_limit {prefetch_limit} is below top_k {top_k}, "
            "and each source always contributes at least top_k candidates"
        )
    return ignored


SINGLE_SOURCES = ("dense", "bm25")  # the one-source rankings a judging pool adds to a tool's own


def one_source(settings: Mapping[str, Any], source: str) -> dict[str, Any]:
    """A retriever's settings (every one of them, as `ignored_settings` takes them) with `source` alone:
    `dense` (the embedding search) or `bm25` (its BM25 sources: the sparse vector and any text index). What the
    other sources alone gave meaning to goes: feedback and passages without the dense source, floors and
    weights naming a source dropped, fusion settings with one source left. A judging pool runs the tool so
    (`haygate.gateway.pooling`), so a set is not judged on the fused ranking alone."""
    changed = dict(settings)
    if source == "dense":
        if not settings["use_dense"]:
            raise ConfigurationError("the retriever has no dense source (use_dense is false)")
        changed.update(use_sparse=False, text_fields=[])
    elif source == "bm25":
        if not (settings["use_sparse"] or settings["text_fields"]):
            raise ConfigurationError("the retriever has no BM25 source (use_sparse is false and no text_fields)")
        changed.update(use_dense=False, feedback=None, passages=None)
    else:
        raise ConfigurationError(f"a single source is one of {', '.join(SINGLE_SOURCES)}, got {source!r}")
    sources = configured_sources(changed["use_dense"], changed["use_sparse"], changed["text_fields"])
    floorable = {*sources, *([TERMS] if SPARSE in sources else []), *([PASSAGES] if changed["passages"] else [])}
    if changed.get("relevance_floor"):
        changed["relevance_floor"] = {k: v for k, v in changed["relevance_floor"].items() if k in floorable} or None
    if changed.get("weights"):
        changed["weights"] = {k: v for k, v in changed["weights"].items() if k in sources} or None
    for name in ignored_settings(changed):
        changed[name] = None
    return changed


def _is_set(value: Any) -> bool:
    """None and an empty mapping mean "not set": the default applies, so nothing is being ignored."""
    return value is not None and value != {}


def _refusal(names: list[str], why: str) -> str:
    """`rrf_k is ignored: <why>; remove it`, for one setting or several with the same cause."""
    one = len(names) == 1
    listed = names[0] if one else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} {'is' if one else 'are'} ignored: {why}; remove {'it' if one else 'them'}"


class Retrieval(NamedTuple):
    """A retriever's output, as `HybridDocumentStore.retrieve` answers one call (`_asdict()` is the output)."""

    documents: list[Document]
    collection_count: int | None  # 0: nothing ingested; None when there are results
    metadata: dict[str, Any]


@dataclass(frozen=True)
class HybridSearchPolicy:
    """A retriever's settings, and what they make of each of its calls (`HybridDocumentStore.retrieve`).

    The settings are kept as the retriever was given them (None where unset; containers copied, an empty
    floor or feedback unset), so the retriever serialises them unchanged. `HybridRetriever` documents each.
    """

    top_k: int
    prefetch_limit: int | None
    fusion: Fusion | None
    rrf_k: int | None
    weights: dict[str, float]
    use_dense: bool
    use_sparse: bool
    text_fields: list[str]
    min_score: float | None
    payload_fields: list[str] | None
    relevance_floor: dict[str, float] | None
    feedback: dict[str, float] | None
    passages: float | None
    one_per_record: bool

    def __post_init__(self) -> None:
        """Copy what a caller could change later; an empty floor or feedback is no floor or feedback."""
        object.__setattr__(self, "weights", dict(self.weights))
        object.__setattr__(self, "text_fields", list(self.text_fields))
        if self.payload_fields is not None:
            object.__setattr__(self, "payload_fields", list(self.payload_fields))
        object.__setattr__(self, "relevance_floor", dict(self.relevance_floor) if self.relevance_floor else None)
        object.__setattr__(self, "feedback", dict(self.feedback) if self.feedback else None)

    def settings(self) -> dict[str, Any]:
        """Every setting by its name, as given (None where unset): a retriever's init parameters but its store."""
        return {setting.name: getattr(self, setting.name) for setting in fields(self)}

    def check(self, store: "HybridDocumentStore") -> None:
        """Refuse a bad value, a text index or passage vectors `store` lacks, and a setting the others make
        irrelevant (naming both), with a ConfigurationError that says what to change."""
        if self.fusion is not None and self.fusion not in FUSIONS:
            msg = f"fusion must be 'rrf', 'dbsf' or 'sum', got {self.fusion!r}"
            raise ConfigurationError(msg)
        counts = {"top_k": self.top_k, "prefetch_limit": self.prefetch_limit, "rrf_k": self.rrf_k}
        if too_small := {name: value for name, value in counts.items() if value is not None and value < 1}:
            msg = f"top_k, prefetch_limit and rrf_k must be >= 1 (got {too_small})"
            raise ConfigurationError(msg)
        if not (self.use_dense or self.use_sparse or self.text_fields):
            msg = "the retriever needs at least one source: use_dense, use_sparse or text_fields"
            raise ConfigurationError(msg)
        if missing := set(self.text_fields) - set(store.text_fields):
            msg = (
                f"retriever: text_fields {sorted(missing)} have no text index in collection "
                f"'{store.collection}'; text-indexed: {store.text_fields}"
            )
            raise ConfigurationError(msg)
        if self.relevance_floor and any(not isinstance(v, int | float) for v in self.relevance_floor.values()):
            msg = f"relevance_floor values must be numbers, got {self.relevance_floor}"
            raise ConfigurationError(msg)
        self._check_feedback()
        self._check_passages(store)
        refused: dict[str, list[str]] = {}
        settings = self.settings()
        for name, why in ignored_settings(settings).items():
            if _is_set(settings[name]):
                refused.setdefault(why, []).append(name)
        if refused:
            raise ConfigurationError("; ".join(_refusal(names, why) for why, names in refused.items()))

    def _check_feedback(self) -> None:
        if self.feedback is None:
            return
        unknown = set(self.feedback) - {"documents", "weight"}
        documents, weight = self.feedback.get("documents"), self.feedback.get("weight", 1.0)
        if unknown or not isinstance(documents, int) or documents < 1 or not isinstance(weight, int | float):
            msg = f"feedback takes {{documents: int >= 1, weight: number}}, got {self.feedback}"
            raise ConfigurationError(msg)
        if weight < 0:
            msg = f"feedback weight must be at least 0, got {weight}"
            raise ConfigurationError(msg)

    def _check_passages(self, store: "HybridDocumentStore") -> None:
        if self.passages is None:
            return
        if not isinstance(self.passages, int | float) or isinstance(self.passages, bool) or self.passages <= 0:
            msg = f"passages is the weight of the passage scores, above 0; got {self.passages!r}"
            raise ConfigurationError(msg)
        if not store.passages:
            msg = (
                f"retriever: passages rescores by passage vectors, and collection '{store.collection}' "
                "keeps none: set `passages: true` in its YAML (and `passages:` on its indexing dense embedder)"
            )
            raise ConfigurationError(msg)

    def query(
        self,
        dense: list[float] | None,
        sparse: SparseEmbedding | None,
        text: str | None,
        filters: dict[str, Any] | None,
        top_k: int | None,
        rrf_k: int | None,
    ) -> HybridQuery:
        """One call's query: its own `top_k` and `rrf_k` over the settings', from the sources these settings use.

        :raises InvalidRequestError: on an `rrf_k` that these settings make irrelevant, naming why.
        """
        if rrf_k is not None and (why := ignored_settings(self.settings()).get("rrf_k")):
            msg = f"'rrf_k' cannot change this search's results: {why}; leave 'rrf_k' out"
            raise InvalidRequestError(msg, {"field": "rrf_k"})
        limit = top_k if top_k is not None else self.top_k
        return HybridQuery(
            dense=dense if self.use_dense else None,
            sparse=sparse if self.use_sparse else None,
            text=text if self.text_fields else None,
            text_fields=tuple(self.text_fields),
            filters=filters,
            limit=limit,
            prefetch_limit=max(self.prefetch_limit or DEFAULT_PREFETCH_LIMIT, limit),
            fusion=self.fusion or DEFAULT_FUSION,
            rrf_k=next((k for k in (rrf_k, self.rrf_k) if k is not None), DEFAULT_RRF_K),
            weights=self.weights,
            payload_fields=tuple(self.payload_fields) if self.payload_fields is not None else None,
            feedback_documents=int((self.feedback or {}).get("documents", 0)),
            feedback_weight=float((self.feedback or {}).get("weight", 1.0)),
            passage_weight=float(self.passages or 0.0),
            with_terms=TERMS in (self.relevance_floor or {}),
        )

    def kept(self, hits: list[Hit], min_score: float | None) -> tuple[list[Document], int]:
        """The hits that reach `min_score` (this call's, else the settings') and the floor, as Documents with
        their provenance in `meta["scores"]`; and how many fell below the floor."""
        threshold = min_score if min_score is not None else self.min_score
        documents, below_floor = [], 0
        for hit in hits:
            if threshold is not None and hit.score < threshold:
                continue
            if not self._above_floor(hit):
                below_floor += 1
                continue
            provenance: dict[str, Any] = {f"{name.replace(':', '_')}_rank": r for name, r in hit.ranks.items()}
            provenance["fused_score"] = hit.fused_score
            if hit.source_scores.get(DENSE) is not None:
                provenance["dense_score"] = hit.source_scores[DENSE]
            if hit.source_scores.get(PASSAGES) is not None:
                provenance["passage_score"] = hit.source_scores[PASSAGES]
            if hit.source_scores.get(TERMS) is not None:
                provenance["terms_share"] = hit.source_scores[TERMS]
            documents.append(hit.to_document({"scores": provenance}))
        return self._distinct(documents), below_floor

    def listed(self, documents: list[Document], limit: int) -> list[Document]:
        """No query text: what the filter alone selects, in a stable order (by id), with no score."""
        first = self._distinct(sorted(documents, key=lambda d: d.id))[:limit]
        return [replace(document, score=None) for document in first]

    def floor_metadata(self, below_floor: int) -> dict[str, Any]:
        """How many hits the relevance floor dropped, with a floor set (nothing without one)."""
        return {"below_relevance_floor": below_floor} if self.relevance_floor else {}

    def _distinct(self, documents: list[Document]) -> list[Document]:
        """With `one_per_record`, each record's first (best) chunk only, in order."""
        if not self.one_per_record:
            return documents
        first: dict[str, Document] = {}
        for document in documents:
            first.setdefault(record_of(document.id), document)
        return list(first.values())

    def _above_floor(self, hit: Hit) -> bool:
        if not self.relevance_floor:
            return True
        return any(
            (score := hit.source_scores.get(source)) is not None and score >= floor and (floor > 0 or score > 0)
            for source, floor in self.relevance_floor.items()
        )

    def retrieve(
        self,
        store: "HybridDocumentStore",
        *,
        dense: list[float] | None = None,
        sparse: SparseEmbedding | None = None,
        text: str | None = None,
        filters: dict[str, Any] | None = None,
        relaxed_filters: dict[str, Any] | None = None,
        top_k: int | None = None,
        rrf_k: int | None = None,
        min_score: float | None = None,
        unmatchable: bool = False,
    ) -> Retrieval:
        """One call of a retriever with these settings, on `store`: the hybrid search, or a listing by `filters`
        when `text` is empty, searched again with `relaxed_filters` when `filters` find nothing.

        A missing collection answers a `collection_count` of 0; a filter on a field the collection cannot
        filter on, and an `unmatchable` query (nothing the index could match), nothing at all (the first with a
        `message` naming the field).
        """
        query = self.query(dense, sparse, text, filters, top_k, rrf_k)
        if not store.exists():
            return Retrieval([], 0, self.floor_metadata(0))
        unfilterable = store.unfilterable_fields(filters, relaxed_filters)
        if unfilterable:
            return Retrieval([], None, {"message": unfilterable_message(store.collection, unfilterable)})
        if unmatchable:
            return Retrieval([], None, {})
        if text is not None and not text.strip():
            documents = self.listed(store.meta_by_filter(filters), query.limit)
            return Retrieval(documents, store.count_documents() if not documents else None, self.floor_metadata(0))
        documents, below_floor = self.kept(store.hybrid_search(query), min_score)
        metadata = self.floor_metadata(below_floor)
        if not documents and relaxed_filters is not None:
            documents, below_floor = self.kept(store.hybrid_search(replace(query, filters=relaxed_filters)), min_score)
            metadata = {**self.floor_metadata(below_floor), **({"relaxed": True} if documents else {})}
        return Retrieval(documents, store.count_documents() if not documents else None, metadata)


def unfilterable_message(collection: str, fields: list[str]) -> str:
    """Why a search filtered on fields the collection cannot filter on found nothing, and what to do."""
    named = ", ".join(fields)
    return (
        f"No results: no record of '{collection}' can be filtered on {named} (the collection has no payload index "
        f"for {'it' if len(fields) == 1 else 'them'}), so nothing can match. Leave that filter out; "
        f"`haygate validate` says how to make it work."
    )
