"""`HybridRetriever`: dense + BM25 (sparse vector and/or text index) fused inside Qdrant.

Thin, as qdrant-haystack's retrievers are: it checks its store, keeps settings, checks filter fields
against the collection's indexes and calls the store's `hybrid_search`. Each returned Document carries
its provenance in `meta["scores"]`: rank per source and the raw fused score.

A setting that the others make irrelevant (`weights` with DBSF, `rrf_k` without RRF, any fusion setting with
a single source) is refused rather than ignored: `HybridRetriever.ignored_settings` is the one home of that
rule, used by `__init__`, by `run` for per-call values and by `haygate tune` for its grid axes.
"""

import dataclasses
import inspect
from collections.abc import Mapping
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.dataclasses import SparseEmbedding

from haygate.components.chunk_ids import record_of
from haygate.document_stores.filters import filter_fields
from haygate.document_stores.hybrid import (
    DEFAULT_RRF_K,
    DENSE,
    FUSIONS,
    PASSAGES,
    SPARSE,
    TERMS,
    TEXT_PREFIX,
    Fusion,
    Hit,
    HybridDocumentStore,
    HybridQuery,
    check_store,
)
from haygate.errors import ConfigurationError, FilterError, InvalidRequestError

DEFAULT_FUSION: Fusion = "rrf"
DEFAULT_PREFETCH_LIMIT = 100


def _is_set(value: Any) -> bool:
    """None and an empty mapping mean "not set": the default applies, so nothing is being ignored."""
    return value is not None and value != {}


def _refusal(names: list[str], why: str) -> str:
    """`rrf_k is ignored: <why>; remove it`, for one setting or several with the same cause."""
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"{listed} {'is' if len(names) == 1 else 'are'} ignored: {why}; remove {'it' if len(names) == 1 else 'them'}"


@component
class HybridRetriever:
    def __init__(
        self,
        document_store: HybridDocumentStore,
        top_k: int = 50,
        prefetch_limit: int | None = None,
        fusion: Fusion | None = None,
        rrf_k: int | None = None,
        weights: dict[str, float] | None = None,
        use_dense: bool = True,
        use_sparse: bool = True,
        text_fields: list[str] | None = None,
        min_score: float | None = None,
        payload_fields: list[str] | None = None,
        relevance_floor: dict[str, float] | None = None,
        feedback: dict[str, float] | None = None,
        passages: float | None = None,
        one_per_record: bool = True,
    ) -> None:
        """
        :param document_store: the collection's store (the loader builds it from `{collection: name}`).
        :param top_k: fused candidates returned (the over-fetch handed to the ranker).
        :param prefetch_limit: candidates each source contributes to fusion, at least `top_k` (None: 100, or
            `top_k` if larger). Only with two or more sources.
        :param fusion: how two or more sources are fused (None: `rrf`): `rrf` (reciprocal rank fusion, with
            `rrf_k` and `weights`), `dbsf` (unweighted, no `rrf_k`), or `sum`: the weighted sum of the sources'
            own scores (BM25 field boosts, as FTS5's bm25(5.0, 1.0); `weights`, no `rrf_k`).
        :param rrf_k: the RRF constant (None: Qdrant's 60); only with `fusion: rrf`.
        :param weights: per-source weight: `dense`, `sparse`, `text:<field>`; only with `rrf` or `sum`, and only
            for sources this retriever uses.
        :param text_fields: payload fields whose native BM25 text index joins the fusion.
        :param min_score: drop hits whose normalised fused score is below this (0..1).
        :param relevance_floor: per-source floors on the sources' own scores, e.g. `{dense: 0.3, terms: 1.0}`:
            a hit is kept only if some score named here reaches its floor. `dense`: the cosine similarity to
            the query; `passages`: its best passage's cosine (with `passages`); `terms`: the share of the
            query's BM25 terms (stemmed, no stop words) the hit contains, so 1.0 keeps what has every word
            the caller typed (with the sparse source); `sparse`, `text:<field>`: BM25, where any matched term
            scores above 0. Fused scores are relative to one query's candidates, so they cannot tell "the
            best of unrelated items" from a match; these can. Dropped hits are counted in the `metadata`
            output (`below_relevance_floor`).
        :param payload_fields: fetch only these payload paths (e.g. `meta.record_id`) when the rest of the
            pipeline needs nothing else; None fetches whole documents.
        :param feedback: dense pseudo-relevance feedback, `{documents: 3, weight: 1.0}`: the query vector
            moves toward the mean of the first ranking's top `documents` by `weight`, then the query runs
            again (one more store query). Needs the dense source. None: off.
        :param passages: rescore the fused candidates (all `top_k` of them) by their best passage's cosine to
            the query, weighted this much against the fused score (both scaled as DBSF scales a list). Needs
            the dense source and a collection with `passages: true`. With feedback, the feedback documents
            are the rescored list's first. None: off.
        :param one_per_record: a record the indexing pipeline split into chunks (`ChunkIds`: `<id>#chunk3`) comes
            back once, as its best chunk, so the results are distinct records; false returns every chunk (for
            a ranker that reads a record's chunks together, as the skill coverage ranker does).
        :raises ConfigurationError: on a bad value, or a setting the others make irrelevant (naming both).
        """
        self.document_store = check_store(document_store, "retriever")
        if fusion is not None and fusion not in FUSIONS:
            msg = f"fusion must be 'rrf', 'dbsf' or 'sum', got {fusion!r}"
            raise ConfigurationError(msg)
        counts = {"top_k": top_k, "prefetch_limit": prefetch_limit, "rrf_k": rrf_k}
        too_small = {name: value for name, value in counts.items() if value is not None and value < 1}
        if too_small:
            msg = f"top_k, prefetch_limit and rrf_k must be >= 1 (got {too_small})"
            raise ConfigurationError(msg)
        if not (use_dense or use_sparse or text_fields):
            msg = "the retriever needs at least one source: use_dense, use_sparse or text_fields"
            raise ConfigurationError(msg)
        missing = set(text_fields or []) - set(self.document_store.text_fields)
        if missing:
            msg = (
                f"retriever: text_fields {sorted(missing)} have no text index in collection "
                f"'{self.document_store.collection}'; text-indexed: {self.document_store.text_fields}"
            )
            raise ConfigurationError(msg)
        self.top_k = top_k
        self.prefetch_limit = prefetch_limit
        self.fusion = fusion
        self.rrf_k = rrf_k
        self.weights = dict(weights or {})
        self.use_dense = use_dense
        self.use_sparse = use_sparse
        self.text_fields = list(text_fields or [])
        self.min_score = min_score
        self.payload_fields = list(payload_fields) if payload_fields is not None else None
        self.relevance_floor = dict(relevance_floor) if relevance_floor else None
        if self.relevance_floor and any(not isinstance(v, int | float) for v in self.relevance_floor.values()):
            msg = f"relevance_floor values must be numbers, got {self.relevance_floor}"
            raise ConfigurationError(msg)
        self.feedback = dict(feedback) if feedback else None
        if self.feedback is not None:
            unknown = set(self.feedback) - {"documents", "weight"}
            documents, weight = self.feedback.get("documents"), self.feedback.get("weight", 1.0)
            if unknown or not isinstance(documents, int) or documents < 1 or not isinstance(weight, int | float):
                msg = f"feedback takes {{documents: int >= 1, weight: number}}, got {self.feedback}"
                raise ConfigurationError(msg)
            if weight < 0:
                raise ConfigurationError(f"feedback weight must be at least 0, got {weight}")
        number = isinstance(passages, int | float) and not isinstance(passages, bool)
        if passages is not None and (not number or passages <= 0):
            raise ConfigurationError(f"passages is the weight of the passage scores, above 0; got {passages!r}")
        if passages is not None and not self.document_store.passages:
            msg = (
                f"retriever: passages rescores by passage vectors, and collection '{self.document_store.collection}' "
                "keeps none: set `passages: true` in its YAML (and `passages:` on its indexing dense embedder)"
            )
            raise ConfigurationError(msg)
        self.passages = passages
        self.one_per_record = one_per_record
        settings = self._settings()
        refused: dict[str, list[str]] = {}
        for name, why in self.ignored_settings(settings).items():
            if _is_set(settings[name]):
                refused.setdefault(why, []).append(name)
        if refused:
            raise ConfigurationError("; ".join(_refusal(names, why) for why, names in refused.items()))

    @staticmethod
    def ignored_settings(init_parameters: Mapping[str, Any]) -> dict[str, str]:
        """Each setting that cannot change results given the others, with why (naming the other setting).

        Whatever its value: `__init__` refuses those that are set, `run` a per-call `rrf_k` among them, and
        `haygate tune` a grid axis among them (a grid that varies them would run identical points).
        """
        defaults = {
            name: parameter.default
            for name, parameter in inspect.signature(HybridRetriever.__init__).parameters.items()
            if parameter.default is not inspect.Parameter.empty
        }
        settings = {**defaults, **init_parameters}
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

    def _settings(self) -> dict[str, Any]:
        """Every init parameter but the store, as given (None where unset)."""
        return {
            "top_k": self.top_k,
            "prefetch_limit": self.prefetch_limit,
            "fusion": self.fusion,
            "rrf_k": self.rrf_k,
            "weights": self.weights,
            "use_dense": self.use_dense,
            "use_sparse": self.use_sparse,
            "text_fields": self.text_fields,
            "min_score": self.min_score,
            "payload_fields": self.payload_fields,
            "relevance_floor": self.relevance_floor,
            "feedback": self.feedback,
            "passages": self.passages,
            "one_per_record": self.one_per_record,
        }

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, document_store=self.document_store, **self._settings())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HybridRetriever":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document], collection_count=int | None, metadata=dict[str, Any])
    def run(
        self,
        query_embedding: list[float] | None = None,
        query_sparse_embedding: SparseEmbedding | None = None,
        query: str | None = None,
        filters: dict[str, Any] | None = None,
        top_k: int | None = None,
        rrf_k: int | None = None,
        min_score: float | None = None,
        relaxed_filters: dict[str, Any] | None = None,
        unmatchable: bool = False,
    ) -> dict[str, Any]:
        """
        :param query: scoring text for the text-index sources; an empty query lists by filter instead.
        :param unmatchable: the query has nothing the index could match (a full-text query of stop words
            only): no documents, and no search.
        :param relaxed_filters: looser filters searched when `filters` find nothing (a full-text query's
            "any word" for "every word"); the `metadata` output then says `relaxed: true`.
        :param rrf_k: this call's RRF constant; refused (InvalidRequestError) where the configuration ignores it.
        :returns: `documents`, best first; `collection_count` (0 for an empty collection, None when there are
            results), so the formatter can tell "nothing matched" from "nothing ingested"; and `metadata`:
            `{"below_relevance_floor": n}` with a floor set, and `{"relaxed": true}` when the results are those
            of `relaxed_filters`.
        """
        if rrf_k is not None and (why := self.ignored_settings(self._settings()).get("rrf_k")):
            msg = f"'rrf_k' cannot change this search's results: {why}; leave 'rrf_k' out"
            raise InvalidRequestError(msg, {"field": "rrf_k"})
        store = self.document_store
        unknown = (filter_fields(filters) | filter_fields(relaxed_filters)) - store.filterable_fields
        if unknown:
            allowed = sorted(store.filterable_fields)
            msg = f"unknown filter field(s) {', '.join(sorted(unknown))}; filterable: {', '.join(allowed)}"
            raise FilterError(msg, {"fields": sorted(unknown), "allowed": allowed})
        if not store.exists():
            return {"documents": [], "collection_count": 0, "metadata": self._floor_metadata(0)}
        if unmatchable:
            return {"documents": [], "collection_count": None, "metadata": {}}
        limit = top_k if top_k is not None else self.top_k
        if query is not None and not query.strip():
            return self._listing(filters, limit)
        request = HybridQuery(
            dense=query_embedding if self.use_dense else None,
            sparse=query_sparse_embedding if self.use_sparse else None,
            text=query if self.text_fields else None,
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
        threshold = min_score if min_score is not None else self.min_score
        documents, below_floor = self._search(request, threshold)
        metadata = self._floor_metadata(below_floor)
        if not documents and relaxed_filters is not None:
            documents, below_floor = self._search(dataclasses.replace(request, filters=relaxed_filters), threshold)
            metadata = {**self._floor_metadata(below_floor), **({"relaxed": True} if documents else {})}
        count = store.count_documents() if not documents else None
        return {"documents": documents, "collection_count": count, "metadata": metadata}

    def _search(self, request: HybridQuery, threshold: float | None) -> tuple[list[Document], int]:
        """The hits above `threshold` and the floor, as Documents with their provenance; how many fell below
        the floor."""
        documents, below_floor = [], 0
        for hit in self.document_store.hybrid_search(request):
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

    def _floor_metadata(self, below_floor: int) -> dict[str, Any]:
        return {"below_relevance_floor": below_floor} if self.relevance_floor else {}

    def _listing(self, filters: dict[str, Any] | None, limit: int) -> dict[str, Any]:
        """No query text: the filter alone selects, in a stable order (by id), with no score."""
        documents = self._distinct(sorted(self.document_store.meta_by_filter(filters), key=lambda d: d.id))[:limit]
        documents = [dataclasses.replace(d, score=None) for d in documents]
        count = self.document_store.count_documents() if not documents else None
        return {"documents": documents, "collection_count": count, "metadata": self._floor_metadata(0)}


def configured_sources(use_dense: bool, use_sparse: bool, text_fields: list[str] | None) -> list[str]:
    """The sources a retriever so configured fuses, named as `weights` keys (a query may leave some empty)."""
    return [
        *([DENSE] if use_dense else []),
        *([SPARSE] if use_sparse else []),
        *(TEXT_PREFIX + field for field in text_fields or []),
    ]
