"""`MemoryDocumentStore`: the `memory` backend, Haystack's `InMemoryDocumentStore` under haygate's store contract.

Written in this one module against `HybridDocumentStore`'s eleven methods, as a third backend would be: it holds
its documents in Haystack's in-memory store and keeps them in one JSON file per collection
(`<data_dir>/<collection>/documents.json`, written whole and atomically when a write or a batch ends), so a
collection survives a restart, as on the other backends. It needs no server and no native engine: for a laptop
demo, a test, a small corpus. One process holds a collection (a lock file beside it, as Edge's shard lock),
and everything is read in Python, so it suits thousands of documents, not millions.

It answers as Qdrant does, so the same pipelines rank alike: the dense source by cosine, the sparse source by
the dot product with Qdrant's IDF modifier, a text index by BM25 over Qdrant's own tokenizer
(`haygate.text.bm25`), the fusion by `haygate.document_stores.query.fuse`, and filters with the semantics every
backend shares (`haygate.document_stores.filters`: list fields element by element, full-text operators).
"""

import contextlib
import dataclasses
import errno
import fcntl
import functools
import json
import math
import os
import re
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, ClassVar

import numpy as np
from haystack import Document, default_from_dict, default_to_dict
from haystack.document_stores.errors import DuplicateDocumentError
from haystack.document_stores.in_memory import InMemoryDocumentStore
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores.backends import Layout, Place
from haygate.document_stores.filters import FilterConverter, IdResolver
from haygate.document_stores.hybrid import BATCH_PENDING, HybridDocumentStore
from haygate.document_stores.payload import document_from_payload, passage_vectors, payload_from_document
from haygate.document_stores.query import (
    DENSE,
    SPARSE,
    TEXT_PREFIX,
    HybridQuery,
    PointId,
    RankedList,
    ScoredPoint,
    fuse,
)
from haygate.errors import (
    ConfigurationError,
    HaygateError,
    StorageError,
    StorageFullError,
    StoreDamagedError,
    StoreInUseError,
)
from haygate.text.bm25 import Bm25Settings, Bm25Tokenizer
from haygate.text.paths import value_at

INDEX_TYPES = ("keyword", "keyword_prefix", "integer", "float", "bool", "datetime", "uuid")  # as Qdrant's
FILE = "documents.json"
LOCK = ".lock"
BM25_K, BM25_B = 1.2, 0.75  # Qdrant's text index scoring
_WORD = re.compile(r"\w+")

Payload = dict[str, Any]
Predicate = Callable[[Payload], bool]


def open_store(layout: Layout, place: Place) -> "MemoryDocumentStore":
    """The `memory` backend (`haygate.document_stores.backends`): a file under the data dir."""
    return MemoryDocumentStore(
        layout.name,
        str(place.data_dir),
        embedding_dim=layout.embedding_dim,
        payload_indexes=layout.payload_indexes,
        text_fields=layout.text_fields,
        passages=layout.passages,
    )


@functools.cache
def _tokenizer() -> Bm25Tokenizer:
    return Bm25Settings().tokenizer()


@dataclass
class Terms:
    """One text field of one document as its text index reads it: term counts, length, and (when a phrase
    asks) the terms in order."""

    text: str
    counts: dict[int, int]
    _order: list[int] | None = None

    @classmethod
    def of(cls, value: Any) -> "Terms":
        text = " ".join(str(v) for v in value) if isinstance(value, list) else "" if value is None else str(value)
        return cls(text, _tokenizer().counts(text))

    @property
    def length(self) -> int:
        return sum(self.counts.values())

    def order(self) -> list[int]:
        if self._order is None:
            self._order = [term for word in _WORD.findall(self.text) for term in _tokenizer().token_ids(word)]
        return self._order


class Snapshot:
    """What reads need of the documents as they are now, built once per change: payloads, the dense matrix and
    the postings of the sparse vectors and of each text field."""

    def __init__(self, documents: dict[str, Document]) -> None:
        self.documents = documents
        self.payloads = {doc_id: payload_from_document(document) for doc_id, document in documents.items()}
        embedded = [doc_id for doc_id, document in documents.items() if document.embedding is not None]
        self.dense_ids = embedded
        vectors = [documents[i].embedding for i in embedded]
        self.dense = np.asarray(vectors, dtype=np.float32) if vectors else np.empty((0, 0), dtype=np.float32)
        self.sparse: dict[int, list[tuple[str, float]]] = {}
        for doc_id, document in documents.items():
            if document.sparse_embedding is not None:
                for term, value in zip(
                    document.sparse_embedding.indices, document.sparse_embedding.values, strict=True
                ):
                    self.sparse.setdefault(int(term), []).append((doc_id, float(value)))
        self._texts: dict[str, dict[str, Terms]] = {}

    def terms(self, field_path: str) -> dict[str, Terms]:
        """Every document's terms in a text field (those that hold some)."""
        if field_path not in self._texts:
            found = {doc_id: Terms.of(value_at(payload, field_path)) for doc_id, payload in self.payloads.items()}
            self._texts[field_path] = {doc_id: terms for doc_id, terms in found.items() if terms.counts}
        return self._texts[field_path]

    def matching(self, predicate: Predicate | None) -> set[str] | None:
        """The ids a filter lets through (None: no filter, every one)."""
        if predicate is None:
            return None
        return {doc_id for doc_id, payload in self.payloads.items() if predicate(payload)}

    def scores(self, source: str, query: HybridQuery, allowed: set[str] | None) -> dict[str, float]:
        """One source's scores of the documents it finds, among those allowed."""
        if source == DENSE:
            return self._dense_scores(query, allowed)
        if source == SPARSE:
            assert query.sparse is not None
            return self._sparse_scores(query.sparse.indices, query.sparse.values, allowed)
        return self._text_scores(source.removeprefix(TEXT_PREFIX), query.text or "", allowed)

    def _dense_scores(self, query: HybridQuery, allowed: set[str] | None) -> dict[str, float]:
        if not self.dense_ids:
            return {}
        vector = np.asarray(query.dense, dtype=np.float32)
        similarities = self.dense @ (vector / (np.linalg.norm(vector) or 1.0))
        found = zip(self.dense_ids, similarities.tolist(), strict=True)
        return {doc_id: score for doc_id, score in found if allowed is None or doc_id in allowed}

    def _sparse_scores(self, terms: list[int], values: list[float], allowed: set[str] | None) -> dict[str, float]:
        """Qdrant's sparse dot product with its IDF modifier: idf = ln(1 + (N - n + 0.5) / (n + 0.5))."""
        total = sum(1 for document in self.documents.values() if document.sparse_embedding is not None)
        scores: dict[str, float] = {}
        for term, weight in zip(terms, values, strict=True):
            postings = self.sparse.get(int(term), [])
            idf = math.log(1 + (total - len(postings) + 0.5) / (len(postings) + 0.5))
            for doc_id, value in postings:
                if allowed is None or doc_id in allowed:
                    scores[doc_id] = scores.get(doc_id, 0.0) + weight * value * idf
        return scores

    def _text_scores(self, field_path: str, text: str, allowed: set[str] | None) -> dict[str, float]:
        """BM25 of the field's text index: a document holding any of the query's terms scores."""
        indexed = self.terms(field_path)
        wanted = _tokenizer().token_ids(text)
        if not indexed or not wanted:
            return {}
        average = sum(terms.length for terms in indexed.values()) / len(indexed)
        holding = {term: sum(1 for terms in indexed.values() if term in terms.counts) for term in wanted}
        scores: dict[str, float] = {}
        for doc_id, terms in indexed.items():
            if allowed is not None and doc_id not in allowed:
                continue
            norm = BM25_K * (1 - BM25_B + BM25_B * terms.length / (average or 1.0))
            score = 0.0
            for term in wanted & terms.counts.keys():
                idf = math.log(1 + (len(indexed) - holding[term] + 0.5) / (holding[term] + 0.5))
                count = terms.counts[term]
                score += idf * count * (BM25_K + 1) / (count + norm)
            if score > 0:
                scores[doc_id] = score
        return scores


@dataclass
class Held:
    """A collection open in this process: shared by every store object of it, closed with the last one."""

    documents: InMemoryDocumentStore
    lock: IO[str]
    holders: int = 0
    dirty: bool = False
    snapshot: Snapshot | None = None
    scans: dict[tuple[str, Hashable], set[Any]] = field(default_factory=dict)

    def changed(self) -> None:
        self.dirty = True
        self.snapshot = None
        self.scans.clear()

    def read(self) -> Snapshot:
        if self.snapshot is None:
            self.snapshot = Snapshot(dict(self.documents.storage))
        return self.snapshot


class MemoryDocumentStore(HybridDocumentStore):
    """Haystack's in-memory store for one collection, kept in `data_dir/<collection>/documents.json`."""

    _pool: ClassVar[dict[Path, Held]] = {}
    _pool_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        collection: str,
        data_dir: str,
        embedding_dim: int = 384,
        payload_indexes: dict[str, str] | None = None,
        text_fields: list[str] | None = None,
        passages: bool = False,
    ) -> None:
        self._set_layout(collection, payload_indexes, text_fields, INDEX_TYPES)
        self.data_dir = str(data_dir)
        self.path = Path(self.data_dir).resolve() / collection
        self.embedding_dim = embedding_dim
        self.passages = passages
        self._held: Held | None = None

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            collection=self.collection,
            data_dir=self.data_dir,
            embedding_dim=self.embedding_dim,
            payload_indexes=self.payload_indexes,
            text_fields=self.text_fields,
            passages=self.passages,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "MemoryDocumentStore":
        return default_from_dict(cls, data)

    # -- opening, keeping, closing -----------------------------------------------------------------

    def _state(self, create: bool) -> Held | None:
        """The collection as this process holds it, opened (and locked) on first use; None when it was never
        written and `create` is False (reads never create it)."""
        if self._held is not None:
            return self._held
        with self._pool_lock:
            held = self._pool.get(self.path)
            if held is None:
                if not create and not self.path.is_dir():
                    return None
                held = self._pool[self.path] = self._open()
            held.holders += 1
            self._held = held
        return held

    def _open(self) -> Held:
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lock = (self.path / LOCK).open("a")
        except OSError as error:
            raise self._storage_error("opening", error) from None
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            msg = f"collection '{self.collection}' is held by another process ({self.path})"
            raise StoreInUseError(msg, {"collection": self.collection, "path": str(self.path)}) from None
        documents = InMemoryDocumentStore(embedding_similarity_function="cosine", shared=False)
        try:
            documents.write_documents(self._load(), DuplicatePolicy.OVERWRITE)
        except BaseException:
            lock.close()
            raise
        return Held(documents, lock)

    def _load(self) -> list[Document]:
        file = self.path / FILE
        if not file.exists():
            return []
        try:
            return [Document.from_dict(data) for data in json.loads(file.read_text())["documents"]]
        except (ValueError, KeyError, TypeError) as error:
            msg = f"collection '{self.collection}': {file} is unreadable ({error}); restore it, or delete it and ingest"
            raise StoreDamagedError(msg, {"collection": self.collection, "file": str(file)}) from None

    def _storage_error(self, action: str, error: OSError) -> HaygateError:
        details = {"collection": self.collection, "path": str(self.path)}
        if error.errno in (errno.ENOSPC, errno.EDQUOT):
            return StorageFullError(
                f"collection '{self.collection}': no space left while {action} {self.path}", details
            )
        return StorageError(f"collection '{self.collection}': {action} {self.path} failed: {error.strerror}", details)

    def close(self) -> None:
        """Let go of the collection; the last store object holding it writes what is unwritten and unlocks it."""
        with self._pool_lock:
            held, self._held = self._held, None
            if held is None:
                return
            held.holders -= 1
            if held.holders:
                return
            del self._pool[self.path]
        try:
            if held.dirty:
                self._save(held)
        finally:
            held.lock.close()

    def _save(self, held: Held) -> None:
        """The whole collection, written beside the file and renamed over it: a kill leaves the old or the new."""
        temporary = self.path / f"{FILE}.tmp"
        data = {"documents": [document.to_dict(flatten=False) for document in held.documents.storage.values()]}
        try:
            with temporary.open("w") as out:
                json.dump(data, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path / FILE)
        except OSError as error:
            temporary.unlink(missing_ok=True)
            raise self._storage_error("writing", error) from None
        held.dirty = False

    def _make_durable(self) -> None:
        held = self._held
        if held is not None and held.dirty:
            self._save(held)

    def _write_or_defer(self, kind: str, first: Any, second: Any = None) -> int | None:
        """A write outside a batch is durable when it returns, as on Edge (whose WAL it is in)."""
        written = super()._write_or_defer(kind, first, second)
        if getattr(self._pending, "ops", None) is None:
            with self._lock.writing():
                self._make_durable()
        return written

    def exists(self) -> bool:
        return (self.path / FILE).is_file() or (self._held is not None and bool(self._held.documents.storage))

    def stats(self) -> dict[str, Any]:
        file = self.path / FILE
        if not self.exists():
            return {"documents": 0, "disk_bytes": 0, "last_write": None}
        written = datetime.fromtimestamp(file.stat().st_mtime, UTC) if file.exists() else None
        return {
            "documents": self.count_documents(),
            "disk_bytes": file.stat().st_size if file.exists() else 0,
            "last_write": written.isoformat(timespec="seconds") if written else None,
        }

    # -- the eleven methods --------------------------------------------------------------------------

    def _consistency_key(self) -> str:
        return f"memory:{self.path}"

    def _snapshot(self) -> Snapshot | None:
        held = self._state(create=False)
        return held.read() if held is not None else None

    def _predicate(self, filters: dict[str, Any] | None) -> Predicate | None:
        return PredicateConverter(self._ids_where, self._terms).convert(filters)

    def _count(self, filters: dict[str, Any] | None) -> int:
        predicate = self._predicate(filters)  # first: a bad filter is named even before anything is written
        snapshot = self._snapshot()
        if snapshot is None:
            return 0
        allowed = snapshot.matching(predicate)
        return len(snapshot.payloads) if allowed is None else len(allowed)

    def _scroll(
        self, filters: dict[str, Any] | None, with_vectors: bool, fields: list[str] | None = None
    ) -> list[Document]:
        predicate = self._predicate(filters)
        snapshot = self._snapshot()
        if snapshot is None:
            return []
        allowed = snapshot.matching(predicate)
        found = []
        for doc_id in sorted(snapshot.payloads if allowed is None else allowed):
            payload = snapshot.payloads[doc_id]
            document = document_from_payload(payload if fields is None else selected(payload, fields), None)
            if with_vectors:
                stored = snapshot.documents[doc_id]
                document = dataclasses.replace(
                    document, embedding=stored.embedding, sparse_embedding=stored.sparse_embedding
                )
            found.append(document)
        return found

    def get_documents_by_id(self, ids: list[str]) -> list[Document]:
        with self._lock.reading():
            snapshot = self._snapshot()
            if snapshot is None:
                return []
            return [
                document_from_payload(snapshot.payloads[i], None) for i in dict.fromkeys(ids) if i in snapshot.payloads
            ]

    def _write(self, documents: list[Document], policy: DuplicatePolicy) -> int:
        unique = {document.id: document for document in documents}
        held = self._state(create=True)
        assert held is not None
        present = [doc_id for doc_id in unique if doc_id in held.documents.storage]
        if present and policy == DuplicatePolicy.FAIL:
            msg = f"documents with ids {sorted(present)[:5]} already exist in '{self.collection}'"
            raise DuplicateDocumentError(msg)
        if policy == DuplicatePolicy.SKIP:
            unique = {doc_id: document for doc_id, document in unique.items() if doc_id not in present}
        stored = [self._stored(document) for document in unique.values()]
        if stored:
            held.documents.write_documents(stored, DuplicatePolicy.OVERWRITE)
            held.changed()
        return len(stored)

    def _stored(self, document: Document) -> Document:
        """The document as kept: its dense vector normalised (a cosine collection's, as Qdrant stores it)."""
        if passage_vectors(document) is not None and not self.passages:
            msg = (
                f"document '{document.id}' brings passage vectors, but collection '{self.collection}' stores "
                "none: set `passages: true` in its YAML, or remove `passages` from its dense embedder"
            )
            raise ConfigurationError(msg, {"collection": self.collection})
        if document.embedding is None:
            return document
        if len(document.embedding) != self.embedding_dim:
            msg = (
                f"document '{document.id}' has a {len(document.embedding)}-dimensional vector; collection "
                f"'{self.collection}' holds {self.embedding_dim} dimensions (`embedding_dim` in its YAML)"
            )
            raise ConfigurationError(msg, {"collection": self.collection})
        vector = np.asarray(document.embedding, dtype=np.float64)
        return dataclasses.replace(document, embedding=(vector / (np.linalg.norm(vector) or 1.0)).tolist())

    def _delete_ids(self, document_ids: list[str]) -> None:
        held = self._state(create=False)
        if held is not None:
            held.documents.delete_documents(document_ids)
            held.changed()

    def _delete_all(self, recreate: bool) -> None:
        held = self._state(create=False)
        if held is not None:
            held.documents.delete_all_documents()
            held.changed()

    def _update_filter(self, filters: dict[str, Any], meta: dict[str, Any]) -> None:
        """In place, in each stored document (its passage vectors, which reads leave out, stay)."""
        self._set_meta([document.id for document in self._scroll(filters, False, ["id"])], lambda old: {**old, **meta})

    def _landed(self, document_ids: list[str]) -> None:
        self._set_meta(document_ids, lambda old: {key: value for key, value in old.items() if key != BATCH_PENDING})

    def _set_meta(self, document_ids: list[str], change: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        held = self._state(create=False)
        if held is None:
            return
        storage = held.documents.storage
        changed = [dataclasses.replace(storage[i], meta=change(storage[i].meta)) for i in document_ids if i in storage]
        if changed:
            held.documents.write_documents(changed, DuplicatePolicy.OVERWRITE)
            held.changed()

    def _dense_vectors(self, point_ids: list[PointId]) -> list[list[float]]:
        snapshot = self._snapshot()
        if snapshot is None:
            return []
        vectors = (snapshot.documents[i].embedding for i in point_ids if i in snapshot.documents)
        return [list(vector) for vector in vectors if vector is not None]

    def _passage_scores(self, vector: list[float], point_ids: list[PointId]) -> dict[PointId, float]:
        """Each point's best passage cosine to `vector` (MaxSim of a one-vector query)."""
        snapshot = self._snapshot()
        query = np.asarray(vector, dtype=np.float32)
        query /= np.linalg.norm(query) or 1.0
        scores: dict[PointId, float] = {}
        for point_id in point_ids:
            document = snapshot.documents.get(str(point_id)) if snapshot is not None else None
            passages = passage_vectors(document) if document is not None else None
            if passages:
                matrix = np.asarray(passages, dtype=np.float32)
                matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
                scores[point_id] = float((matrix @ query).max())
        return scores

    def _query_batch(self, query: HybridQuery, requests: list[RankedList]) -> list[list[ScoredPoint]]:
        """Each source scored in Python, fused as Qdrant fuses (`fuse`)."""
        predicate = self._predicate(query.filters)
        snapshot = self._snapshot()
        if snapshot is None:
            return [[] for _ in requests]
        allowed = snapshot.matching(predicate)

        def ranked(source: str, limit: int) -> list[ScoredPoint]:
            scores = snapshot.scores(source, query, allowed)
            best = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))[:limit]
            return [ScoredPoint(doc_id, score, None) for doc_id, score in best]

        answers = []
        for request in requests:
            if request.fused:
                points = fuse(query, [ranked(name, query.prefetch_limit) for name in request.sources], request.limit)
            else:
                points = ranked(request.sources[0], request.limit)
            if request.score_threshold is not None:
                points = [point for point in points if point.score >= request.score_threshold]
            for point in points:
                payload = snapshot.payloads[str(point.id)]
                if request.with_payload:
                    point.payload = payload if request.with_payload is True else selected(payload, request.with_payload)
                if request.with_terms:
                    sparse = snapshot.documents[str(point.id)].sparse_embedding
                    point.terms = frozenset(sparse.indices) if sparse is not None else frozenset()
            answers.append(points)
        return answers

    # -- what filters ask of the data ------------------------------------------------------------------

    def _ids_where(self, field_path: str, holds: Callable[[Any], bool], key: Hashable) -> set[Any]:
        """The ids whose `field_path` satisfies `holds`: one pass, kept until the documents next change."""
        held = self._state(create=False)
        if held is None:
            return set()
        if (kept := held.scans.get((field_path, key))) is None:
            payloads = held.read().payloads
            kept = held.scans[(field_path, key)] = {i for i, p in payloads.items() if holds(value_at(p, field_path))}
        return kept

    def _terms(self, payload: Payload, field_path: str) -> Terms:
        snapshot = self._snapshot()
        indexed = snapshot.terms(field_path) if snapshot is not None else {}
        return indexed.get(payload.get("id", ""), Terms("", {}))


def selected(payload: Payload, paths: list[str] | Any) -> Payload:
    """Only these paths of a payload (and its id), nested as they were."""
    chosen: Payload = {"id": payload.get("id")}
    for path in paths:
        value = value_at(payload, path)
        if value is None:
            continue
        *parents, last = path.split(".")
        place = chosen
        for parent in parents:
            place = place.setdefault(parent, {})
        place[last] = value
    return chosen


class PredicateConverter(FilterConverter[Predicate]):
    """Filters as Python predicates over a payload, with the semantics every backend shares: a list field
    compared element by element, `== None` matching a missing, null or empty field, dates as instants."""

    def __init__(self, ids_where: IdResolver, terms: Callable[[Payload, str], Terms]) -> None:
        super().__init__(ids_where)
        self.terms = terms

    def _is_filter(self, node: Any) -> bool:
        return True

    def all_of(self, children: list[Predicate]) -> Predicate:
        return lambda payload: all(child(payload) for child in children)

    def any_of(self, children: list[Predicate]) -> Predicate:
        return lambda payload: any(child(payload) for child in children)

    def at_least(self, children: list[Predicate], count: int) -> Predicate:
        return lambda payload: sum(1 for child in children if child(payload)) >= count

    def none_of(self, children: list[Predicate]) -> Predicate:
        return lambda payload: not any(child(payload) for child in children)

    def match_value(self, field: str, value: str | int) -> Predicate:
        return lambda payload: any(_same(item, value) for item in _items(value_at(payload, field)))

    def match_any(self, field: str, values: list[Any]) -> Predicate:
        return lambda payload: any(_same(item, v) for item in _items(value_at(payload, field)) for v in values)

    def equals_bool(self, field: str, value: bool) -> Predicate:
        return lambda payload: any(item is value for item in _items(value_at(payload, field)))

    def has_ids(self, ids: set[Any]) -> Predicate:
        return lambda payload: payload.get("id") in ids

    def is_empty(self, field: str) -> Predicate:
        return lambda payload: value_at(payload, field) in (None, [])

    def range_number(self, field: str, **bounds: float) -> Predicate:
        def holds(payload: Payload) -> bool:
            numbers = [
                v for v in _items(value_at(payload, field)) if isinstance(v, int | float) and type(v) is not bool
            ]
            return any(_within(number, bounds) for number in numbers)

        return holds

    def range_datetime(self, field: str, **bounds: str) -> Predicate:
        limits = {key: _instant(value) for key, value in bounds.items()}

        def holds(payload: Payload) -> bool:
            instants = [_instant(v) for v in _items(value_at(payload, field)) if isinstance(v, str)]
            return any(instant is not None and _within(instant, limits) for instant in instants)

        return holds

    def text(self, field: str, operator: str, value: str) -> Predicate:
        if operator == "prefix":
            return lambda payload: any(
                isinstance(item, str) and item.startswith(value) for item in _items(value_at(payload, field))
            )
        wanted = Terms.of(value)
        if operator == "match":
            return lambda payload: (
                bool(wanted.counts) and wanted.counts.keys() <= self.terms(payload, field).counts.keys()
            )
        phrase = wanted.order()
        return lambda payload: bool(phrase) and _contains(self.terms(payload, field).order(), phrase)


def _items(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def _same(stored: Any, value: Any) -> bool:
    """Qdrant's match: a keyword is the same string, an integer the same integer (never a boolean)."""
    if isinstance(value, str):
        return stored == value
    return type(stored) is int and stored == value


def _within(value: Any, bounds: dict[str, Any]) -> bool:
    checks = {
        "gt": lambda b: value > b,
        "gte": lambda b: value >= b,
        "lt": lambda b: value < b,
        "lte": lambda b: value <= b,
    }
    return all(bound is not None and checks[key](bound) for key, bound in bounds.items())


def _instant(text: str) -> datetime | None:
    """An ISO 8601 date as an instant; one without a zone is UTC, as Qdrant reads it."""
    with contextlib.suppress(ValueError):
        moment = datetime.fromisoformat(text)
        return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return None


def _contains(sequence: list[int], phrase: list[int]) -> bool:
    width = len(phrase)
    return any(sequence[start : start + width] == phrase for start in range(len(sequence) - width + 1))
