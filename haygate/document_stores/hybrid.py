"""The document store every backend is: Haystack's DocumentStore protocol, the hybrid search of a `HybridQuery`
(`haygate.document_stores.query`), and consistency (a reader never sees half a batch; shared points change by
per-record operations), written once here over a small set of primitives a backend supplies.

A retriever's settings are one `HybridSearchPolicy` (`haygate.document_stores.policy`), which applies them to
each call on a store, so the retriever itself stays thin, as qdrant-haystack's are.
"""

import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, ClassVar

import numpy as np
from haystack import Document
from haystack.core.serialization import allow_deserialization_module
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores import shared
from haygate.document_stores.filters import filter_fields
from haygate.document_stores.payload import payload_from_document
from haygate.document_stores.query import (
    ABSENT,
    TERMS,
    TEXT_PREFIX,
    Hit,
    HybridQuery,
    PointId,
    RankedList,
    ScoredPoint,
    normalizer,
    plan,
    ranked,
    rescored,
    stable_order,
    term_share,
)
from haygate.errors import ConfigurationError
from haygate.text.paths import value_at

# A component's `to_dict` holds its store, so `from_dict` rebuilds it, in a pipeline or not: Haystack's
# deserialization allowlist admits our stores (and nothing else of ours; the loader admits components).
allow_deserialization_module("haygate.document_stores")

# Meta key every point a `batch()` writes reads with (`meta_by_filter`) until the batch's last operation takes it
# off: a point that still does was written by a batch that did not finish (a killed process, a failed write).
BATCH_PENDING = "batch_pending"
CHUNK_MARK = "#chunk"  # a record split into chunks is stored as `<id>#chunk0`, `<id>#chunk1`, ...
_CHUNK_SUFFIX = re.compile(re.escape(CHUNK_MARK) + r"\d+$")


def record_of(document_id: str) -> str:
    """The id of the record a stored part belongs to: `<id>#chunk3` -> `<id>`; a whole record's id is its own."""
    return _CHUNK_SUFFIX.sub("", document_id)


def _value_type(value: Any) -> str:
    """A meta value's type by qdrant-haystack's names (`get_metadata_fields_info`)."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "long"
    return "float" if isinstance(value, float) else "keyword"


def _distinct_key(value: Any) -> tuple[str, Any]:
    """What tells two meta values apart: their type and value (`1 == 1.0 == True` in Python), lists and
    objects by their JSON."""
    hashable = json.dumps(value, sort_keys=True, default=str) if isinstance(value, list | dict) else value
    return type(value).__name__, hashable


def _pending(documents: list[Document]) -> list[Document]:
    """The documents a batch writes, each marked as written by an unfinished batch (`BATCH_PENDING`)."""
    return [replace(document, meta={**document.meta, BATCH_PENDING: True}) for document in documents]


def check_store(document_store: Any, owner: str) -> "HybridDocumentStore":
    """The store a component was given, or a ConfigurationError naming what it got (type-checked at init,
    as qdrant-haystack's retrievers check theirs)."""
    if not isinstance(document_store, HybridDocumentStore):
        msg = f"{owner}: document_store must be a haygate document store, got {type(document_store).__name__}"
        raise ConfigurationError(msg)
    return document_store


class ReadWriteLock:
    """Many readers at once, or one writer; a waiting writer goes before readers that come after it."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._readers = 0
        self._writing = False
        self._writers_waiting = 0

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._condition:
            self._condition.wait_for(lambda: not self._writing and not self._writers_waiting)
            self._readers += 1
        try:
            yield
        finally:
            with self._condition:
                self._readers -= 1
                self._condition.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self._condition:
            self._writers_waiting += 1
            self._condition.wait_for(lambda: not self._writing and not self._readers)
            self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._condition:
                self._writing = False
                self._condition.notify_all()


class HybridDocumentStore(ABC):
    """Haystack's DocumentStore protocol and the methods of its extended stores (`delete_all_documents`,
    `delete_by_filter`, `update_by_filter`, `count_documents_by_filter` and the metadata overviews), plus the
    hybrid search, filter-field checks and cheap meta reads our components need. Components take one of these
    in `__init__` (the loader builds it from settings).

    Consistency lives here, for every backend: reads share a collection, writes take it alone (one lock per
    collection and process, whichever store object holds it), and the writes of a `batch()` become visible
    together, durably, when it ends, so a reader never sees half of a batch. A point several records share
    changes only by per-record operations (`add_holders`, `remove_holders`), which stay safe when writers in
    other processes share the collection, where this process's lock does not reach.
    """

    collection: str
    payload_indexes: dict[str, str]
    text_fields: list[str]
    passages: bool = False  # the collection keeps a passage multivector per document (`text-passages`)

    _locks: ClassVar[dict[str, ReadWriteLock]] = {}
    _locks_guard: ClassVar[threading.Lock] = threading.Lock()

    def _set_layout(
        self, collection: str, payload_indexes: dict[str, str] | None, text_fields: list[str] | None, index_types: Any
    ) -> None:
        """The collection's name and indexes, the same on every backend; index types are checked here."""
        unknown = set((payload_indexes or {}).values()) - set(index_types)
        if unknown:
            msg = f"unknown payload index types {sorted(unknown)}; allowed: {sorted(index_types)}"
            raise ValueError(msg)
        self.collection = collection
        self.payload_indexes = dict(payload_indexes or {})
        self.text_fields = list(text_fields or [])
        self._pending = threading.local()

    def __deepcopy__(self, memo: dict[int, Any]) -> "HybridDocumentStore":
        """A store is a handle on shared data: a copy of a pipeline's settings keeps the same handle."""
        return self

    @property
    def filterable_fields(self) -> set[str]:
        """Payload paths a filter may name: the id, the declared payload indexes and the text indexes."""
        return {"id", *self.payload_indexes, *self.text_fields}

    # -- consistency -----------------------------------------------------------------------------

    @property
    def _lock(self) -> ReadWriteLock:
        key = self._consistency_key()
        with self._locks_guard:
            return self._locks.setdefault(key, ReadWriteLock())

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Writes inside (of this thread) are held back, then applied together and made durable at the end;
        if the block fails, none is applied.

        Applying them is several operations (a server's requests, Edge's updates), and a process killed among
        them leaves those before: so every point written reads with `meta.batch_pending` until one last
        operation, after all the others, takes it off the batch's points. A point that reads so was written by
        a batch that did not finish (ingest writes its record again)."""
        if getattr(self._pending, "ops", None) is not None:
            yield  # already batching: the outer batch applies everything
            return
        self._pending.ops = []
        try:
            yield
            ops: list[tuple[str, Any, Any]] = self._pending.ops
        finally:
            self._pending.ops = None
        if ops:
            written = list(dict.fromkeys(d.id for kind, first, _ in ops if kind == "write" for d in first))
            with self._lock.writing():
                if written:
                    self._landing(written)
                for kind, first, second in ops:
                    self._apply(kind, self._as_pending(first) if kind == "write" else first, second)
                if written:
                    self._apply("landed", written, None)
                self._make_durable()

    def _write_or_defer(self, kind: str, first: Any, second: Any = None) -> int | None:
        """Apply now (returning what the backend reports), or hold back inside a batch (returning None)."""
        ops = getattr(self._pending, "ops", None)
        if ops is not None:
            ops.append((kind, first, second))
            return None
        with self._lock.writing():
            return self._apply(kind, first, second)

    def _apply(self, kind: str, first: Any, second: Any) -> int | None:
        """One write, with the lock held; a write by filter counts its documents under the same lock."""
        if kind == "write":
            return self._write(first, second)
        if kind == "delete_ids":
            self._delete_ids(first)
            return None
        if kind == "delete_all":
            self._delete_all(recreate=first)
            return None
        if kind == "add_holders":
            shared.add(self, first, second)
            return None
        if kind == "remove_holders":
            return shared.remove(self, first, second)
        if kind == "landed":
            self._landed(first)
            return None
        matching = self._count(first)
        if matching and kind == "delete_filter":
            self._delete_filter(first)
        elif matching and kind == "update_filter":
            self._update_filter(first, second)
        return matching

    # -- the DocumentStore protocol, for every backend -------------------------------------------

    def count_documents(self, filters: dict[str, Any] | None = None) -> int:
        with self._lock.reading():
            return self._count(filters)

    def filter_documents(self, filters: dict[str, Any] | None = None) -> list[Document]:
        with self._lock.reading():
            return self._scroll(filters, with_vectors=True)

    def page(
        self, limit: int, after: str | None = None, filters: dict[str, Any] | None = None
    ) -> tuple[list[Document], str | None]:
        """Up to `limit` documents without vectors, in the store's own order, from the cursor `after` on (none:
        from the start); and the cursor of the next page (none: this was the last). A browser of what a
        collection holds reads it page by page, never whole."""
        with self._lock.reading():
            return self._scroll_page(filters, after, limit)

    def change_count(self) -> Hashable | None:
        """A value that changes whenever this store's points change, for a reader that keeps what it read until
        then (a CV's profile); None keeps nothing: the default, and a Qdrant server's (other processes write it)."""
        return None

    def meta_by_filter(self, filters: dict[str, Any] | None, fields: list[str] | None = None) -> list[Document]:
        """Documents without vectors: cheap reads for change detection and whole-record views. `fields`: only
        these payload paths (and the id), for a caller that needs a profile and not a text."""
        with self._lock.reading():
            return self._scroll(filters, with_vectors=False, fields=fields)

    def distinct_values(self, field: str, filters: dict[str, Any] | None = None) -> list[Any]:
        """The distinct values of a payload field (`meta.record_id`) among the documents matching `filters`,
        in order: which records hold something. Edge counts them in the field's keyword index, reading no
        document; without such an index, the documents' field is read."""
        with self._lock.reading():
            return sorted(self._distinct(field, filters), key=str)

    def write_documents(self, documents: list[Document], policy: DuplicatePolicy = DuplicatePolicy.NONE) -> int:
        """Write by `policy`: `OVERWRITE` upserts, `SKIP` leaves duplicates be, and `FAIL`, like the default
        `NONE` on every backend (qdrant-haystack's own default), refuses them. Inside `batch()`, at its end."""
        policy = DuplicatePolicy.FAIL if policy == DuplicatePolicy.NONE else policy
        for document in documents:
            if not isinstance(document, Document):
                msg = f"write_documents expects Documents, got {type(document).__name__}"
                raise ValueError(msg)
        if not documents:
            return 0
        written = self._write_or_defer("write", list(documents), policy)
        return written if written is not None else len({d.id for d in documents})

    def delete_documents(self, document_ids: list[str]) -> None:
        if document_ids:
            self._write_or_defer("delete_ids", list(document_ids))

    def delete_by_filter(self, filters: dict[str, Any]) -> int:
        """Delete every document matching `filters` (never all of them: `delete_all_documents` says so);
        returns how many there were. Inside `batch()`, counted when called and deleted at the batch's end."""
        if not filters:
            msg = "delete_by_filter needs a filter; refusing to delete the whole collection (delete_all_documents does)"
            raise ValueError(msg)
        deleted = self._write_or_defer("delete_filter", filters)
        return deleted if deleted is not None else self.count_documents(filters)

    def delete_all_documents(self, recreate_index: bool = False) -> None:
        """Delete every document. `recreate_index` also drops the collection and creates it again, with the
        vectors and payload indexes its declaration says now (as qdrant-haystack's `recreate_index` does)."""
        self._write_or_defer("delete_all", recreate_index)

    def update_by_filter(self, filters: dict[str, Any], meta: dict[str, Any]) -> int:
        """Merge `meta` into the meta of every document matching `filters`, in place (vectors untouched);
        returns how many matched. Inside `batch()`, counted when called and applied at the batch's end."""
        if not filters:
            msg = "update_by_filter needs a filter; to change every document, filter on what they share"
            raise ValueError(msg)
        if not isinstance(meta, dict) or not all(isinstance(key, str) and key for key in meta):
            msg = f"update_by_filter needs meta as a dict with field names as keys, got {meta!r}"
            raise ValueError(msg)
        if not meta:
            return self.count_documents(filters)
        updated = self._write_or_defer("update_filter", filters, dict(meta))
        return updated if updated is not None else self.count_documents(filters)

    def add_holders(self, documents: list[Document], field: str) -> int:
        """Write points several records share, each naming its records in the list `meta.<field>`: a point
        already stored gains these records and keeps the others, one not stored is inserted. Safe with other
        writers of the collection, in this process or another (`haygate.document_stores.shared`): the stored
        list is never overwritten. Returns the points given; inside `batch()`, applied at its end."""
        if not documents:
            return 0
        self._write_or_defer("add_holders", list(documents), field)
        return len({document.id for document in documents})

    def remove_holders(self, record_ids: list[str], field: str) -> int:
        """Take these records off every point that names them in `meta.<field>`, deleting a point that no
        record holds any more; safe with other writers, as `add_holders`. Returns the points deleted; inside
        `batch()`, counted when called (from what is stored then) and applied at its end."""
        if not record_ids:
            return 0
        deleted = self._write_or_defer("remove_holders", list(record_ids), field)
        if deleted is not None:
            return deleted
        naming = self.meta_by_filter(shared.naming(field, record_ids), fields=[f"meta.{field}"])
        return shared.orphaned(naming, record_ids, field)

    def count_documents_by_filter(self, filters: dict[str, Any]) -> int:
        """`count_documents(filters)` under the name Haystack's extended stores give it."""
        return self.count_documents(filters)

    # -- metadata overviews (Haystack's extended store methods), from the payloads -----------------

    def get_metadata_fields_info(self) -> dict[str, dict[str, str]]:
        """Each meta field a document holds, with the type of its values (qdrant-haystack's names: keyword,
        long, float, boolean); a field whose values differ in type takes the last one read."""
        fields: dict[str, dict[str, str]] = {}
        for document in self.meta_by_filter(None):
            for name, value in document.meta.items():
                if value is not None:
                    fields[name] = {"type": _value_type(value)}
        return fields

    def get_metadata_field_min_max(self, metadata_field: str) -> dict[str, Any]:
        """The smallest and largest value of a meta field (numbers or strings; `meta.` prefix optional);
        None for both when no document holds a value, or the values do not compare."""
        name = metadata_field.removeprefix("meta.")
        values = [
            value
            for document in self.meta_by_filter(None)
            if isinstance(value := document.meta.get(name), int | float | str) and not isinstance(value, bool)
        ]
        try:
            return {"min": min(values), "max": max(values)} if values else {"min": None, "max": None}
        except TypeError:  # numbers and strings in one field
            return {"min": None, "max": None}

    def count_unique_metadata_by_filter(self, filters: dict[str, Any], metadata_fields: list[str]) -> dict[str, int]:
        """How many distinct values each meta field has among the documents matching `filters` (1, 1.0, "1"
        and True are four values)."""
        names = [field.removeprefix("meta.") for field in metadata_fields]
        distinct: dict[str, set[tuple[str, Any]]] = {name: set() for name in names}
        for document in self.meta_by_filter(filters or None):
            for name in names:
                value = document.meta.get(name)
                if value is not None:
                    distinct[name].add(_distinct_key(value))
        return {name: len(values) for name, values in distinct.items()}

    def get_metadata_field_unique_values(
        self,
        metadata_field: str,
        search_term: str | None = None,
        from_: int = 0,
        size: int = 10,
        filters: dict[str, Any] | None = None,
    ) -> tuple[list[Any], int]:
        """One page of a meta field's distinct values among the documents matching `filters`, whose text
        contains `search_term` (any case), ordered by their text; and how many there are in all."""
        name = metadata_field.removeprefix("meta.")
        found: dict[tuple[str, Any], Any] = {}
        for document in self.meta_by_filter(filters or None):
            value = document.meta.get(name)
            if value is not None and (not search_term or search_term.lower() in str(value).lower()):
                found.setdefault(_distinct_key(value), value)
        ordered = sorted(found.items(), key=lambda pair: (str(pair[1]), pair[0][0]))
        return [value for _, value in ordered[from_ : from_ + size]], len(ordered)

    def unfilterable_fields(self, *filters: dict[str, Any] | None) -> list[str]:
        """The fields these filters name that this collection cannot filter on (no payload index): no record can
        match a condition on them, so a search under them finds nothing, and says why."""
        return sorted(set().union(*(filter_fields(tree) for tree in filters)) - self.filterable_fields)

    def hybrid_search(self, query: HybridQuery) -> list[Hit]:
        """Fuse every source of `query` inside Qdrant, and rank each source alone for provenance; then
        rescore by passages when the query asks."""
        query.validate()
        sources = query.sources()
        if not sources:
            return []
        missing = [
            s for s in sources if s.startswith(TEXT_PREFIX) and s.removeprefix(TEXT_PREFIX) not in self.text_fields
        ]
        if missing:
            msg = f"{missing} have no text index in '{self.collection}'; text-indexed: {self.text_fields}"
            raise ConfigurationError(msg)
        if query.passage_weight and not self.passages:
            msg = f"collection '{self.collection}' keeps no passage vectors (`passages: true` in its YAML)"
            raise ConfigurationError(msg)
        with self._lock.reading():
            if query.feedback_documents and query.dense is not None:
                query = self._with_feedback(query)
            fused, *alone = self._query_batch(query, plan(query))
            passages = self._passages_of(query, fused)
        tables = [(name, ranked(points)) for name, points in zip(sources, alone, strict=True)]
        normalized = normalizer(query, len(sources))
        hits = []
        for point in fused:  # per hit, each source's rank and own score: 50 hits x 2 sources on every call
            ranks: dict[str, int | None] = {}
            scores: dict[str, float | None] = {}
            for name, table in tables:
                ranks[name], scores[name] = table.get(point.id, ABSENT)
            if query.with_terms:
                scores[TERMS] = term_share(query, point.terms)
            hits.append(Hit(point.payload or {}, point.score, normalized(point.score), ranks, scores))
        if passages is not None:
            hits = rescored(hits, passages, query.passage_weight, [point.id for point in fused])
        return stable_order(hits)

    def _passages_of(self, query: HybridQuery, fused: list[ScoredPoint]) -> dict[PointId, float] | None:
        """The candidates' best-passage cosines, when the query rescores by passages (None otherwise)."""
        vector = query.original_dense if query.original_dense is not None else query.dense
        if not (query.passage_weight and vector is not None and fused):
            return None
        return self._passage_scores(list(vector), [point.id for point in fused])

    def _with_feedback(self, query: HybridQuery) -> HybridQuery:
        """The query with its dense vector moved toward its own best documents (Rocchio, vector PRF).

        The best documents are those of the first ranking, rescored by passages if the query rescores.
        Chosen by leave-one-dataset-out over SciFact, Cranfield and CISI (scripts/studies/ranking.py): alone,
        it helped Cranfield (+0.009 nDCG@10) and CISI (+0.005) and left SciFact level (-0.002, not
        significant), where BM25 feedback (RM3) cost SciFact up to 0.046; taking the documents from the
        passage-rescored ranking instead of the fused one added 0.002-0.004 on SciFact and CISI."""
        rescoring = bool(query.passage_weight)
        first = RankedList(tuple(query.sources()), query.limit if rescoring else query.feedback_documents, False)
        [top] = self._query_batch(query, [first])
        passages = self._passages_of(query, top)
        if passages is not None:
            again = rescored(
                [Hit({}, p.score, p.score, {}) for p in top], passages, query.passage_weight, [p.id for p in top]
            )
            top = [point for _, point in sorted(zip(again, top, strict=True), key=lambda pair: -pair[0].fused_score)]
        vectors = self._dense_vectors([point.id for point in top[: query.feedback_documents]])
        if not vectors:
            return query
        dense = np.asarray(query.dense, dtype=np.float32)
        dense = dense / (np.linalg.norm(dense) or 1.0)
        feedback = np.asarray(vectors, dtype=np.float32)
        feedback /= np.maximum(np.linalg.norm(feedback, axis=1, keepdims=True), 1e-12)
        moved = dense + query.feedback_weight * feedback.mean(axis=0)
        moved /= np.linalg.norm(moved) or 1.0
        return replace(query, dense=moved.tolist(), feedback_documents=0, original_dense=query.dense)

    # -- what a backend must do (called with the lock held) --------------------------------------
    # Eleven methods: a search batch, reads, writes by id and the backend's own lifecycle. Everything else above
    # and below is written over these, and a backend overrides a default only where its engine does better.

    @abstractmethod
    def _consistency_key(self) -> str:
        """What identifies this collection's data in this process (a shard's path, a server collection)."""

    @abstractmethod
    def _query_batch(self, query: HybridQuery, requests: list[RankedList]) -> list[list[ScoredPoint]]:
        """Run every ranked list of the plan in one batch; one list of points per request, best first (a
        backend whose engine does not fuse fuses with `haygate.document_stores.query.fuse`)."""

    @abstractmethod
    def _dense_vectors(self, point_ids: list[PointId]) -> list[list[float]]:
        """The stored dense vectors of these points (as `_query_batch` names them), in any order."""

    @abstractmethod
    def get_documents_by_id(self, ids: list[str]) -> list[Document]:
        """The stored documents with these ids, in any order; an id not stored is left out (Haystack's and
        qdrant-haystack's method). A search reads its candidates' payloads only as far as its ranker needs
        (`payload_fields`), and a pipeline reads whole documents here for the few it returns (`DocumentFetcher`)."""

    @abstractmethod
    def _count(self, filters: dict[str, Any] | None) -> int: ...

    @abstractmethod
    def _scroll(
        self, filters: dict[str, Any] | None, with_vectors: bool, fields: list[str] | None = None
    ) -> list[Document]:
        """The documents matching `filters`; without vectors unless asked, and with only these payload paths
        (and the id) when `fields` names some."""

    @abstractmethod
    def _write(self, documents: list[Document], policy: DuplicatePolicy) -> int:
        """Write by `policy` (FAIL raises `DuplicateDocumentError`, SKIP leaves a stored one, OVERWRITE
        replaces it); returns how many were written."""

    @abstractmethod
    def _delete_ids(self, document_ids: list[str]) -> None: ...

    @abstractmethod
    def _delete_all(self, recreate: bool) -> None:
        """Delete every point; `recreate`: drop the collection and create it again from this store's layout."""

    @abstractmethod
    def close(self) -> None:
        """Release what this instance holds (a shard, a client)."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]: ...

    # -- what a backend may do better (defaults written over the eleven) ---------------------------

    def _passage_scores(self, vector: list[float], point_ids: list[PointId]) -> dict[PointId, float]:
        """The best passage cosine to `vector` of each of these points that has passage vectors (asked only of a
        collection that keeps them: `passages`)."""
        msg = f"collection '{self.collection}': this backend keeps no passage vectors"
        raise ConfigurationError(msg, {"collection": self.collection})

    def _distinct(self, field: str, filters: dict[str, Any] | None) -> set[Any]:
        """The distinct values of `field` among the documents matching `filters` (lists count per item)."""
        values: set[Any] = set()
        for document in self._scroll(filters, False, [field]):
            value = value_at(payload_from_document(document), field)
            values.update(value if isinstance(value, list) else [] if value is None else [value])
        return values

    def _scroll_page(
        self, filters: dict[str, Any] | None, after: str | None, limit: int
    ) -> tuple[list[Document], str | None]:
        """One page in id order, from the id after `after`; the cursor is the page's last id."""
        documents = sorted(self._scroll(filters, False), key=lambda document: document.id)
        if after is not None:
            documents = [document for document in documents if document.id > after]
        page = documents[:limit]
        return page, page[-1].id if len(documents) > limit else None

    def _delete_filter(self, filters: dict[str, Any]) -> None:
        self._delete_ids([document.id for document in self._scroll(filters, False, ["id"])])

    def _update_filter(self, filters: dict[str, Any], meta: dict[str, Any]) -> None:
        """Set these keys of `meta` in the payload of every point matching `filters` (Qdrant's set_payload)."""
        matching = self._scroll(filters, True)
        self._write([replace(d, meta={**d.meta, **meta}) for d in matching], DuplicatePolicy.OVERWRITE)

    def _landing(self, document_ids: list[str]) -> None:
        """Before a batch's operations: these points are about to be written (Edge notes them in a file)."""
        return None

    def _as_pending(self, documents: list[Document]) -> list[Document]:
        """The documents as a batch writes them: marked `BATCH_PENDING` in their payload (a server's way)."""
        return _pending(documents)

    def _landed(self, document_ids: list[str]) -> None:
        """The batch's last operation: these points no longer read as `BATCH_PENDING`."""
        landed = self._scroll({"field": "id", "operator": "in", "value": document_ids}, True)
        unmarked = [replace(d, meta={k: v for k, v in d.meta.items() if k != BATCH_PENDING}) for d in landed]
        self._write(unmarked, DuplicatePolicy.OVERWRITE)

    def _make_durable(self) -> None:
        """Return only once what was written survives a killed process (Edge: the WAL is flushed)."""
        return None

    def exists(self) -> bool:
        """Whether the collection has been created (reads never create it)."""
        return True

    def optimize(self) -> bool:
        """Merge segments and build indexes after a bulk load; a server does this itself."""
        return False

    # -- shared points: what `haygate.document_stores.shared` asks (`ConditionalWrites`) ------------
    # Each default is one operation under this process's write lock: atomic where no other process writes the
    # collection (Edge, memory). A backend that other processes write (a server) overrides them with its
    # engine's conditional operations.

    def _shared_ids(self, field: str, record_ids: list[str]) -> list[str]:
        return [document.id for document in self._scroll(shared.naming(field, record_ids), False, ["id"])]

    def _shared_states(self, document_ids: list[str], field: str) -> dict[str, shared.Stored]:
        """The holders and revision of each of these points that is stored, by id."""
        fields = [f"meta.{field}", f"meta.{shared.REVISION}"]
        stored = self._scroll({"field": "id", "operator": "in", "value": document_ids}, False, fields)
        return {d.id: shared.Stored(shared.holders_of(d.meta, field), d.meta.get(shared.REVISION)) for d in stored}

    def _insert_absent(self, documents: list[Document]) -> None:
        """Insert each document whose point is not stored; leave a stored one as it is."""
        self._write(documents, DuplicatePolicy.SKIP)

    def _apply_if(self, changes: list[shared.Change]) -> None:
        """Apply each change if its point's revision is the change's, each atomically, in order."""
        for change in changes:
            if change.meta is None:
                self._delete_filter(shared.condition(change))
            else:
                self._update_filter(shared.condition(change), change.meta)

    def optimize_aside(self, stop: threading.Event | None = None) -> bool:
        """`optimize()` without holding up this process's calls meanwhile (Edge builds in another process);
        False when nothing was built, what was built was stale by the time it was done, or `stop` was set."""
        return False if stop is not None and stop.is_set() else self.optimize()

    def needs_optimizing(self) -> bool:
        """Whether writes since the last `optimize()` wait for it (a Qdrant server optimizes by itself)."""
        return False

    def stats(self) -> dict[str, Any]:
        """What an operator asks of a collection: documents (points), bytes on disk, last durable write.
        A server's disk and write time are the server's to say: None here."""
        return {
            "documents": self.count_documents() if self.exists() else 0,
            "disk_bytes": None,
            "last_write": None,
        }
