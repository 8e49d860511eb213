"""`EdgeDocumentStore`: Haystack's DocumentStore protocol on a Qdrant Edge shard, in-process.

The layout is qdrant-haystack's (see `payload.py`), so the same data runs against a Qdrant server through
`QdrantServerStore`. Qdrant Edge lets one process own a shard, and a process may hold many stores of one
collection (every pipeline that reads it): stores share open shards through a pool keyed by path, and a
shard closes when the last store holding it is closed.

Storage faults are named, never met as a crash (`faults.py`): free space is checked before every open and
write, Edge's own errors are read as `STORE_IN_USE`, `STORAGE_FULL`, `STORAGE_ERROR` or `STORE_DAMAGED`,
and a manifest beside the shard (`haygate-shard.json`: the points at the last durable write) lets an open
notice a shard that came back with fewer points than were written, instead of serving what is left.
"""

import dataclasses
import json
import logging
import os
import shutil
import threading
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar
from uuid import UUID

import qdrant_edge as qe
from haystack import Document, default_from_dict, default_to_dict
from haystack.document_stores.errors import DuplicateDocumentError
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores.backends import Layout, Place
from haygate.document_stores.edge.aside import build_aside, return_freed_memory
from haygate.document_stores.edge.faults import (
    CONFIG,
    DEFAULT_RESERVE_BYTES,
    appendable_bytes,
    check_manifest,
    check_space,
    damaged,
    growth_bytes,
    read_manifest,
    translate,
    write_bytes_estimate,
    write_manifest,
)
from haygate.document_stores.edge.filters import convert_filters
from haygate.document_stores.edge.points import (
    point_key,
    point_uuids,
    query_request,
    shard_config,
    text_index_params,
    to_document,
    to_point,
)
from haygate.document_stores.hybrid import BATCH_PENDING, HybridDocumentStore
from haygate.document_stores.payload import (
    DENSE_VECTORS_NAME,
    PASSAGE_VECTORS_NAME,
    convert_id,
    document_from_payload,
    sparse_terms,
)
from haygate.document_stores.query import HybridQuery, PointId, RankedList, ScoredPoint
from haygate.errors import ConfigurationError, HaygateError
from haygate.text.paths import value_at

logger = logging.getLogger(__name__)

_SCROLL_PAGE = 1000
# Writes go to Edge in chunks: while Edge applies one (in Rust, without the GIL), the next is converted.
WRITE_CHUNK = 512
_APPLIER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="haygate-edge-write")
INDEX_TYPES: dict[str, Any] = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "keyword_prefix": qe.KeywordIndexParams(prefix=True),
    "integer": qe.PayloadSchemaType.Integer,
    "float": qe.PayloadSchemaType.Float,
    "bool": qe.PayloadSchemaType.Bool,
    "datetime": qe.PayloadSchemaType.Datetime,
    "uuid": qe.PayloadSchemaType.Uuid,
}


@dataclass
class OpenShard:
    """A shard open in this process, shared by every store of its collection (the pool, keyed by path)."""

    shard: qe.EdgeShard
    holders: int
    dirty: bool = False  # written since the manifest last said how many points the shard holds
    writes: int = 0  # changes since it opened: a copy built aside is stale once this moves on
    pending: set[str] | None = None  # the ids `PENDING` holds (None: not read yet)
    building: threading.Lock = field(default_factory=threading.Lock)  # one build of a shard at a time
    changes: int = 0  # moves at the start and at the end of every change to the points
    scans: dict[tuple[str, Hashable], set[Any]] = field(default_factory=dict)  # `_ids_where`'s, until a change


# The actions that change a shard's points (`_edge`): each forgets the scans kept.
_CHANGES = frozenset(
    ["writing", "deleting", "updating", "restoring points", "recreating the shard", "swapping in the built shard"]
)
PENDING = "haygate-pending.json"  # in the shard: the ids of points written by batches that did not end


class EdgeDocumentStore(HybridDocumentStore):
    """A Qdrant Edge shard for one collection, in `data_dir/<collection>`.

    The shard opens on first use, so building the store (e.g. while validating YAML) costs nothing and
    never takes the shard's lock.
    """

    _pool: ClassVar[dict[Path, OpenShard]] = {}
    _pool_lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        collection: str,
        data_dir: str,
        embedding_dim: int = 384,
        payload_indexes: dict[str, str] | None = None,
        text_fields: list[str] | None = None,
        disk_reserve_bytes: int = DEFAULT_RESERVE_BYTES,
        storage: dict[str, int | str] | None = None,
        passages: bool = False,
    ) -> None:
        """
        :param passages: the shard holds a multivector of passage embeddings per document (`text-passages`,
            MaxSim, no HNSW graph: it only rescores candidates the other vectors found).
        :param storage: Edge indexing settings (`StorageSettings` of the collection schema: hnsw_m,
            hnsw_ef_construct, hnsw_payload_m, full_scan_threshold_kb, indexing_threshold_kb, max_segment_size_kb,
            default_segment_number, max_indexing_threads, vector_memory, quantization); unset ones keep
            Edge's defaults.
        """
        self._set_layout(collection, payload_indexes, text_fields, INDEX_TYPES)
        self.storage = dict(storage or {})
        if disk_reserve_bytes < 0:
            msg = f"disk_reserve_bytes must be >= 0, got {disk_reserve_bytes}"
            raise ValueError(msg)
        self.data_dir = str(data_dir)
        self._path = Path(self.data_dir).resolve() / collection  # resolved once: every read names its lock by it
        self.embedding_dim = embedding_dim
        self.passages = passages
        self.disk_reserve_bytes = disk_reserve_bytes
        self._held = False
        self._shard_lock = threading.Lock()

    @property
    def path(self) -> Path:
        return self._path

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            collection=self.collection,
            data_dir=self.data_dir,
            embedding_dim=self.embedding_dim,
            payload_indexes=self.payload_indexes,
            text_fields=self.text_fields,
            disk_reserve_bytes=self.disk_reserve_bytes,
            storage=self.storage,
            passages=self.passages,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EdgeDocumentStore":
        return default_from_dict(cls, data)

    # -- shard lifecycle -------------------------------------------------------------------------

    @property
    def shard(self) -> qe.EdgeShard:
        """The open shard, shared with every other store of this process on the same path."""
        if not self._held:
            with self._shard_lock:
                if not self._held:
                    shard = self._acquire()
                    self._ensure_indexes(shard)
                    self._held = True
        return self._pool[self.path].shard

    def exists(self) -> bool:
        """Whether the shard has been created on disk (without opening it); a shard this store holds open does
        (no file is looked at then: every search asks)."""
        return self._held or (self.path / CONFIG).exists() or (self.path / "segments").exists()

    @property
    def _open_shard(self) -> OpenShard:
        self.shard  # noqa: B018  (opens it on first use)
        return self._pool[self.path]

    def _acquire(self) -> qe.EdgeShard:
        with self._pool_lock:
            open_shard = self._pool.get(self.path)
            if open_shard is None:
                open_shard = self._pool[self.path] = OpenShard(self._open(), 0)
            open_shard.holders += 1
            return open_shard.shard

    def edge_config(self) -> qe.EdgeConfig:
        """The shard's vector layout and indexing settings, as the collection's YAML declares them."""
        return shard_config(self.storage, self.embedding_dim, self.passages)

    def _open(self) -> qe.EdgeShard:
        """Open (or create) the shard, or raise the operator error that says why it cannot be."""
        self._check_space("opening the shard", self._appendable_bytes())
        existed = self.exists()
        if existed and not (self.path / CONFIG).exists():
            raise damaged(self.collection, self.path, f"{CONFIG} is missing", self.path / CONFIG)
        if existed:
            self._check_layout()
        with self._edge("opening the shard"):
            if existed:  # indexing settings from YAML replace the stored ones; the layout is checked
                shard = qe.EdgeShard.load(str(self.path), self.edge_config() if self.storage else None)
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                shard = qe.EdgeShard.create(str(self.path), self.edge_config())
        try:
            self._check_manifest(shard)
        except BaseException:
            shard.close()
            raise
        return shard

    def _check_layout(self) -> None:
        """The shard's vectors are those the collection's YAML declares (Edge fixes them at creation)."""
        try:
            stored = set(json.loads((self.path / CONFIG).read_text()).get("vectors") or {})
        except (OSError, ValueError):
            return  # unreadable: opening it names the damage
        if self.passages != (PASSAGE_VECTORS_NAME in stored):
            now = "declares" if self.passages else "no longer declares"
            msg = (
                f"collection '{self.collection}' {now} `passages`, but its shard was created "
                f"{'without' if self.passages else 'with'} passage vectors; a shard's vectors are fixed when it is "
                f"created: move {self.path} away (or delete it) and ingest the collection again"
            )
            raise ConfigurationError(msg, {"collection": self.collection, "path": str(self.path)})

    # -- faults ----------------------------------------------------------------------------------

    def _appendable_bytes(self) -> int:
        return appendable_bytes(len(self.text_fields), len(self.payload_indexes))

    def _check_space(self, action: str, needed: int) -> None:
        check_space(self.path, self.collection, action, needed, self.disk_reserve_bytes)

    @contextmanager
    def _edge(self, action: str) -> Iterator[None]:
        """Edge's storage errors as operator errors (`faults.translate`); our own errors pass through. A change
        to the points forgets the scans kept (`_ids_where`) as it starts and as it ends."""
        changing = action in _CHANGES
        if changing:
            self._forget_scans()
        try:
            yield
        except HaygateError:
            raise
        except Exception as error:
            translated = translate(error, self.collection, self.path, action)
            if translated is error:
                raise
            raise translated from error
        finally:
            if changing:
                self._forget_scans()

    def change_count(self) -> Hashable | None:
        """The open shard's count of changes (which moves as every write, delete or update starts and ends),
        with the shard itself: a reopened shard counts afresh."""
        open_shard = self._pool.get(self.path)
        return None if open_shard is None else (id(open_shard), open_shard.changes)

    def _forget_scans(self) -> None:
        open_shard = self._pool.get(self.path)
        if open_shard is not None:
            open_shard.changes += 1
            open_shard.scans.clear()

    def manifest(self) -> dict[str, Any] | None:
        """What the last durable write left beside the shard: points, whether it was clean, and when."""
        return read_manifest(self.path)

    def _write_manifest(self, shard: qe.EdgeShard, clean: bool, optimized: bool | None = None) -> None:
        """`optimized`: whether the last change was followed by `optimize()` (None: as the manifest said)."""
        with self._edge("writing the manifest"):
            write_manifest(self.path, int(shard.count(qe.CountRequest(exact=True))), clean, optimized)

    def stats(self) -> dict[str, Any]:
        if not self.exists():
            return {"documents": 0, "disk_bytes": 0, "last_write": None}
        disk = 0  # blocks in use, not apparent sizes: Qdrant's WAL and mmap files are sparse, preallocated
        for file in self.path.rglob("*"):
            with suppress(OSError):  # a segment merged away while we walk
                disk += file.stat().st_blocks * 512 if file.is_file() else 0
        return {
            "documents": self.count_documents(),
            "disk_bytes": disk,
            "last_write": (self.manifest() or {}).get("written_at"),
        }

    def needs_optimizing(self) -> bool:
        """Written since the last `optimize()`: an ingest that did not wait leaves the HNSW build to a server."""
        return self.exists() and (self.manifest() or {}).get("optimized", True) is False

    def _check_manifest(self, shard: qe.EdgeShard) -> None:
        """A shard that was closed cleanly holds what its manifest says; fewer points mean lost data."""
        if read_manifest(self.path) is None:
            self._write_manifest(shard, clean=True)  # shards from before the manifest: watched from now on
        else:
            check_manifest(self.collection, self.path, int(shard.count(qe.CountRequest(exact=True))))

    def _will_write(self, action: str, needed: int) -> None:
        """Before any change: room for it, and a manifest that no longer claims a clean count."""
        self._check_space(action, needed)
        open_shard = self._open_shard
        open_shard.writes += 1
        if not open_shard.dirty:
            self._write_manifest(open_shard.shard, clean=False, optimized=False)
            open_shard.dirty = True

    def _ensure_indexes(self, shard: qe.EdgeShard) -> None:
        existing = set(shard.info().payload_schema)
        wanted: dict[str, Any] = {"id": qe.PayloadSchemaType.Keyword}
        wanted.update({name: INDEX_TYPES[kind] for name, kind in self.payload_indexes.items()})
        wanted.update({name: text_index_params() for name in self.text_fields})
        for name, schema in wanted.items():
            if name not in existing:
                shard.update(qe.UpdateOperation.create_field_index(name, schema))

    def close(self) -> None:
        """Let go of the shard; the last store holding it flushes and closes it."""
        with self._shard_lock:
            if not self._held:
                return
            self._held = False
            with self._pool_lock:
                open_shard = self._pool[self.path]
                open_shard.holders -= 1
                if open_shard.holders == 0:
                    del self._pool[self.path]
                    with self._edge("closing the shard"):
                        open_shard.shard.flush()
                        if open_shard.dirty:
                            self._write_manifest(open_shard.shard, clean=True)
                        open_shard.shard.close()

    def optimize(self) -> bool:
        """Merge segments and build HNSW; run after bulk loads. It rewrites segments, so it needs their size free."""
        shard = self.shard
        points = int(shard.count(qe.CountRequest(exact=True)))
        rewritten = points * (self.embedding_dim * 4 * 2 + 4096)  # vectors and graph, payload and indexes
        self._check_space("optimizing", rewritten + self._appendable_bytes())
        with self._edge("optimizing"):
            changed = bool(shard.optimize())
            self._write_manifest(shard, clean=bool((self.manifest() or {}).get("clean")), optimized=True)
        return_freed_memory()
        return changed

    def optimize_aside(self, stop: threading.Event | None = None) -> bool:
        """`optimize()` in another process while this one goes on answering (`haygate.document_stores.edge.aside`)."""
        return build_aside(self, stop)

    def restore_points(self, points: list[qe.Point]) -> None:
        """Write points as they were read from another shard (vectors and payload untouched), durably, then
        compact: how `repair` refills a rebuilt shard without embedding anything again."""
        shard = self.shard
        try:
            with self._lock.writing():
                for start in range(0, len(points), 1024):
                    self._will_write("restoring points", 0)
                    with self._edge("restoring points"):
                        shard.update(qe.UpdateOperation.upsert_points(points[start : start + 1024]))
                self._open_shard.dirty = True
                self._make_durable()
            if points:
                self.optimize()
        finally:
            self.close()

    # -- what the base class asks of a backend (the lock is held) -------------------------------

    def _consistency_key(self) -> str:
        return f"edge:{self.path}"

    def _readable(self) -> bool:
        """Reads of a collection that was never written answer 'nothing' without creating it."""
        return self._held or self.exists()

    def _count(self, filters: dict[str, Any] | None) -> int:
        condition = self._filter(filters)  # first: a bad filter is named even before anything is written
        if not self._readable():
            return 0
        with self._edge("counting"):
            return int(self.shard.count(qe.CountRequest(exact=True, filter=condition)))

    def _scroll(
        self, filters: dict[str, Any] | None, with_vectors: bool, fields: list[str] | None = None
    ) -> list[Document]:
        condition = self._filter(filters)
        if not self._readable():
            return []
        payload: list[str] | bool = True if fields is None else sorted({"id", *fields})
        documents: list[Document] = []
        offset: Any = None
        while True:
            with self._edge("reading"):
                records, offset = self.shard.scroll(
                    qe.ScrollRequest(
                        offset=offset,
                        limit=_SCROLL_PAGE,
                        filter=condition,
                        with_payload=payload,
                        with_vector=with_vectors,
                    )
                )
            if with_vectors:
                documents.extend(to_document(record.payload or {}, record.vector) for record in records)
            else:
                documents.extend(document_from_payload(record.payload or {}, None) for record in records)
            if offset is None:
                return self._marked_pending(documents)

    def _distinct(self, field: str, filters: dict[str, Any] | None) -> set[Any]:
        condition = self._filter(filters)
        if not self._readable():
            return set()
        if self.payload_indexes.get(field) not in ("keyword", "keyword_prefix"):  # no index to count in: read
            values: set[Any] = set()
            offset: Any = None
            while True:
                with self._edge("reading"):
                    records, offset = self.shard.scroll(
                        qe.ScrollRequest(offset=offset, limit=_SCROLL_PAGE, filter=condition, with_payload=[field])
                    )
                for record in records:
                    value = value_at(record.payload or {}, field)
                    values.update(value if isinstance(value, list) else [] if value is None else [value])
                if offset is None:
                    return values
        with self._edge("reading"):
            matching = int(self.shard.count(qe.CountRequest(exact=True, filter=condition)))
            if not matching:
                return set()
            # Counts are not used, only which values occur: the estimated count is an order of magnitude
            # faster and names the same values, with a limit no smaller than the documents.
            found = self.shard.facet(qe.FacetRequest(field, limit=matching, exact=False, filter=condition))
        return {hit.value for hit in found.hits}

    def _scroll_page(
        self, filters: dict[str, Any] | None, after: str | None, limit: int
    ) -> tuple[list[Document], str | None]:
        condition = self._filter(filters)
        if not self._readable():
            return [], None
        with self._edge("reading"):
            records, offset = self.shard.scroll(
                qe.ScrollRequest(offset=after, limit=limit, filter=condition, with_payload=True, with_vector=False)
            )
        documents = [to_document(record.payload or {}, None) for record in records]
        return documents, None if offset is None else str(offset)

    def _write(self, documents: list[Document], policy: DuplicatePolicy) -> int:
        unique = {d.id: d for d in documents}
        if policy in (DuplicatePolicy.FAIL, DuplicatePolicy.SKIP):
            present = set(self._payloads(list(unique), ["id"]))
            if present and policy == DuplicatePolicy.FAIL:
                msg = f"documents with ids {sorted(present)[:5]} already exist in '{self.collection}'"
                raise DuplicateDocumentError(msg)
            unique = {i: d for i, d in unique.items() if i not in present}
        if not unique:
            return 0
        needed = write_bytes_estimate(list(unique.values())) + growth_bytes(len(self.text_fields))
        self._will_write(f"writing {len(unique)} document(s)", needed)
        with self._edge("writing"):
            self._upsert(list(unique.values()))
        return len(unique)

    def _upsert(self, documents: list[Document]) -> None:
        """Upsert in chunks, converting the next chunk to points (Python) while Edge applies the one before
        (Rust): the two overlap on two cores. Returns once every chunk is applied, or raises the first error."""
        shard = self.shard
        pending: Future[Any] | None = None
        try:
            for start in range(0, len(documents), WRITE_CHUNK):
                points = [to_point(d, self.collection, self.passages) for d in documents[start : start + WRITE_CHUNK]]
                if pending is not None:
                    pending.result()
                pending = _APPLIER.submit(shard.update, qe.UpdateOperation.upsert_points(points))
        finally:
            if pending is not None:
                pending.result()

    def _delete_ids(self, document_ids: list[str]) -> None:
        self._will_write("deleting", 0)
        with self._edge("deleting"):
            self.shard.update(qe.UpdateOperation.delete_points([convert_id(i) for i in document_ids]))

    def _delete_filter(self, filters: dict[str, Any]) -> None:
        condition = self._filter(filters)
        assert condition is not None  # the base class refuses an empty filter
        self._will_write("deleting", 0)
        with self._edge("deleting"):
            self.shard.update(qe.UpdateOperation.delete_points_by_filter(condition))

    def _delete_all(self, recreate: bool) -> None:
        if not self._readable():
            return  # never written: nothing to delete, and nothing is created
        if recreate:
            self._recreate()
            return
        self._will_write("deleting", 0)
        with self._edge("deleting"):
            self.shard.update(qe.UpdateOperation.delete_points_by_filter(qe.Filter()))

    def _recreate(self) -> None:
        """A new, empty shard in place of the old one, for every store of this process that holds it (they
        reach it through the pool); its vectors and indexes are those this store declares now."""
        open_shard = self._open_shard
        self._check_space("recreating the shard", self._appendable_bytes())
        with self._edge("recreating the shard"):
            open_shard.shard.close()
            shutil.rmtree(self.path)
            self.path.mkdir(parents=True)
            open_shard.shard = qe.EdgeShard.create(str(self.path), self.edge_config())
            open_shard.pending = set()
        self._ensure_indexes(open_shard.shard)
        self._write_manifest(open_shard.shard, clean=False, optimized=True)
        open_shard.dirty = True

    def _update_filter(self, filters: dict[str, Any], meta: dict[str, Any]) -> None:
        condition = self._filter(filters)
        assert condition is not None  # the base class refuses an empty filter
        with self._edge("counting"):
            matching = int(self.shard.count(qe.CountRequest(exact=True, filter=condition)))
        self._will_write("updating", 2 * matching * len(json.dumps(meta, default=str)))  # payload copies
        with self._edge("updating"):
            self.shard.update(qe.UpdateOperation.set_payload_by_filter(condition, meta, key="meta"))

    # A batch's points read as pending by a file beside the shard (`PENDING`), not by a mark in their payload:
    # taking a mark off would write every payload twice, the second copy after the first in Edge's storage.

    def _landing(self, document_ids: list[str]) -> None:
        self._note_pending(self._pending_ids() | set(document_ids))

    def _as_pending(self, documents: list[Document]) -> list[Document]:
        return documents  # the file says they are pending

    def _landed(self, document_ids: list[str]) -> None:
        """One small file written after the batch's updates: a kill leaves those in the write-ahead log."""
        self._note_pending(self._pending_ids() - set(document_ids))

    def _pending_ids(self) -> set[str]:
        """The points written by batches that did not end (a process killed while applying one)."""
        open_shard = self._open_shard
        if open_shard.pending is None:
            try:
                open_shard.pending = set(json.loads((self.path / PENDING).read_text()))
            except FileNotFoundError:
                open_shard.pending = set()
        return open_shard.pending

    def _note_pending(self, document_ids: set[str]) -> None:
        if document_ids == self._pending_ids():
            return
        with self._edge("writing the pending points"):
            if document_ids:
                temporary = self.path / f"{PENDING}.tmp"
                temporary.write_text(json.dumps(sorted(document_ids)))
                os.replace(temporary, self.path / PENDING)
            else:
                (self.path / PENDING).unlink(missing_ok=True)
        self._open_shard.pending = document_ids

    def _marked_pending(self, documents: list[Document]) -> list[Document]:
        pending = self._pending_ids()
        if not pending:
            return documents
        return [
            dataclasses.replace(d, meta={**d.meta, BATCH_PENDING: True}) if d.id in pending else d for d in documents
        ]

    def _make_durable(self) -> None:
        open_shard = self._open_shard
        with self._edge("flushing"):
            open_shard.shard.flush()
            if open_shard.dirty:
                self._write_manifest(open_shard.shard, clean=True)
                open_shard.dirty = False

    def _filter(self, filters: dict[str, Any] | None) -> qe.Filter | None:
        return convert_filters(filters, self._ids_where)

    def _ids_where(self, field: str, holds: Callable[[Any], bool], key: Hashable) -> set[Any]:
        """Point ids whose `field` satisfies `holds` (the condition `key` names): booleans (see
        `EdgeFilterConverter`), whole lists. One scan of the shard, kept until its points next change: a
        tool's switch on a boolean (search_docs' `changelogs`) scans once, not on every call."""
        ids: set[Any] = set()
        if not self._readable():
            return ids
        open_shard = self._open_shard
        seen = open_shard.changes
        if (kept := open_shard.scans.get((field, key))) is not None:
            return kept
        offset: Any = None
        while True:
            with self._edge("reading"):
                records, offset = self.shard.scroll(
                    qe.ScrollRequest(offset=offset, limit=_SCROLL_PAGE, with_payload=[field], with_vector=False)
                )
            ids.update(record.id for record in records if holds(value_at(record.payload or {}, field)))
            if offset is None:
                break
        if open_shard.changes == seen:  # no change began or ended while it scanned
            open_shard.scans[(field, key)] = ids
        return ids

    def get_documents_by_id(self, ids: list[str]) -> list[Document]:
        with self._lock.reading():
            payloads = self._payloads(list(dict.fromkeys(ids)), True)
        return [document_from_payload(payload, None) for payload in payloads.values()]

    def _payloads(self, document_ids: list[str], fields: list[str] | bool) -> dict[str, dict[str, Any]]:
        """The payloads (whole, or only these paths and the id) of the stored documents with these ids, by id."""
        if not self._readable() or not document_ids:
            return {}
        selector = fields if isinstance(fields, bool) else sorted({"id", *fields})
        with self._edge("reading"):
            points: list[int | UUID | str] = [convert_id(i) for i in document_ids]
            records = self.shard.retrieve(points, with_payload=selector, with_vector=False)
        return {record.payload["id"]: record.payload for record in records if record.payload}

    # -- retrieval -------------------------------------------------------------------------------

    def _query_batch(self, query: HybridQuery, requests: list[RankedList]) -> list[list[ScoredPoint]]:
        """All requests go in one `query_batch`, which Edge plans as a whole."""
        condition = self._filter(query.filters)
        batch = [query_request(query, request, condition) for request in requests]
        with self._edge("searching"):
            answers = self.shard.query_batch(qe.QueryBatchRequest(batch))
        return [
            [ScoredPoint(point_key(p.id), p.score, p.payload, sparse_terms(p.vector)) for p in points]
            if request.with_terms
            else [ScoredPoint(point_key(p.id), p.score, p.payload) for p in points]
            for points, request in zip(answers, requests, strict=True)
        ]

    def _passage_scores(self, vector: list[float], point_ids: list[PointId]) -> dict[PointId, float]:
        """Each point's best passage cosine to `vector` (MaxSim of a one-vector query), for these points."""
        ids: set[int | UUID | str] = set(point_uuids(point_ids))
        request = qe.QueryRequest(
            limit=len(ids),
            query=qe.Query.Nearest([list(vector)], using=PASSAGE_VECTORS_NAME),
            filter=qe.Filter(must=[qe.HasIdCondition(ids)]),
            with_payload=False,
        )
        with self._edge("searching"):
            points = self.shard.query(request)
        return {point_key(p.id): p.score for p in points}

    def _dense_vectors(self, point_ids: list[PointId]) -> list[list[float]]:
        with self._edge("searching"):
            records = self.shard.retrieve(point_uuids(point_ids), False, [DENSE_VECTORS_NAME])
        found = []
        for record in records:
            vector = record.vector.get(DENSE_VECTORS_NAME) if isinstance(record.vector, dict) else None
            if isinstance(vector, list) and vector and isinstance(vector[0], float):
                found.append([float(x) for x in vector])
        return found


def open_store(layout: Layout, place: Place) -> EdgeDocumentStore:
    """The `edge` backend (`haygate.document_stores.backends`): a shard under the data dir."""
    return EdgeDocumentStore(
        layout.name,
        str(place.data_dir),
        embedding_dim=layout.embedding_dim,
        payload_indexes=layout.payload_indexes,
        text_fields=layout.text_fields,
        disk_reserve_bytes=place.disk_reserve_bytes,
        storage=layout.storage,
        passages=layout.passages,
    )
