"""`haygate ingest`: records -> Documents -> the collection's indexing pipeline, idempotently.

Each batch is mapped, compared with what the store holds (by `meta.record_hash`), and only new or changed
records go through the indexing pipeline (split, derive, embed, write); the stale chunks of a changed
record are removed first. A killed ingest therefore loses nothing: re-running it skips every record that
already landed.
"""

import logging
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from haystack import Document, Pipeline
from tqdm import tqdm

from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.errors import InvalidRecordError, StorageFullError, cause_of
from haygate.ingest.mapping import RECORD_HASH, RECORD_ID, to_document
from haygate.ingest.readers import SourceRecord, count_records, read_records
from haygate.ingest.report import BATCH_RECORDS, PROGRESS_SECONDS, IngestReport, Pacer, Refusal
from haygate.ingest.schema import CollectionSchema

logger = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class Collection:
    """Everything ingest needs about one collection, built by the loader from settings."""

    schema: CollectionSchema
    store: HybridDocumentStore
    indexing: Pipeline
    entry: tuple[str, str]  # the (component, socket) mapped Documents enter through
    fingerprint: str  # of the indexing configuration: schema, pipeline and the files it reads

    @property
    def name(self) -> str:
        return self.schema.name


def ingest_files(
    collection: Collection,
    files: Iterable[Path],
    progress: bool = True,
    batch_records: int = BATCH_RECORDS,
    optimize: bool = True,
) -> IngestReport:
    """`optimize`: build the indexes before returning (False: the records are durable and searchable, and
    the collection is marked for a server to optimize in the background)."""
    paths = list(files)
    total = sum(count_records(p) for p in paths)
    pacer = Pacer(PROGRESS_SECONDS, batch_records) if progress else None
    superseded = superseded_records(collection, _all_records(paths))  # a first, cheap pass: no embedding
    with tqdm(total=total, unit="rec", desc=f"ingest {collection.name}", disable=not progress) as bar:
        report = ingest_records(
            collection,
            _all_records(paths),
            batch_records,
            on_batch=bar.update,
            pacer=pacer,
            superseded=superseded,
            optimize=optimize,
        )
        bar.total = report.records  # the line count was an estimate (blank lines, Markdown files)
        bar.refresh()
    return report


def ingest_records(
    collection: Collection,
    records: Iterable[SourceRecord],
    batch_records: int = BATCH_RECORDS,
    on_batch: Callable[[int], object] | None = None,
    optimize: bool = True,
    pacer: Pacer | None = None,
    superseded: set[int] | None = None,
) -> IngestReport:
    """Records -> the collection, a batch at a time. Each batch becomes visible at once, and durable, when
    it is written (`store.batch()`); `on_batch(n)` hears of every `n` records done. `optimize`: compact
    the collection at the end if anything was written (a server's writer does it once writes pause).
    `pacer`: size the batches by how long they take (for a progress bar) instead of `batch_records` each.
    `superseded`: positions of records whose id comes again later (`superseded_records`); computed here when
    `records` is a list. The last occurrence of an id wins, wherever the batches fall."""
    if superseded is None and isinstance(records, list):
        superseded = superseded_records(collection, records)
    report = IngestReport(collection.name)
    for batch in _batches(enumerate(records), lambda: pacer.size if pacer else batch_records):
        started = time.perf_counter()
        with collection.store.batch():
            mapped = _map_batch(batch, collection, report, superseded or set())
            fresh = _changed_only(collection.store, mapped, report)
            if fresh:
                _index(collection, fresh, report)
        if pacer is not None:
            pacer.took(len(batch), time.perf_counter() - started)
        if on_batch is not None:
            on_batch(len(batch))
    if report.written and optimize:
        try:
            collection.store.optimize()
        except StorageFullError as error:  # the records are written and durable; only the compaction waits
            report.warnings.append(f"written but not optimized: {error.message}")
    if collection.schema.links:
        report.warnings += dangling_links(collection.store, collection.schema.links)
    return report


Mapped = tuple[int, SourceRecord, Document]


def _index(collection: Collection, fresh: list[tuple[Mapped, bool]], report: IngestReport) -> None:
    """Run the indexing pipeline on a batch; if a record makes it fail, index the others one by one."""
    component, socket = collection.entry
    try:
        collection.indexing.run({component: {socket: [document for (_, _, document), _ in fresh]}})
        failed: set[int] = set()
    except Exception as error:
        if not isinstance(cause_of(error), InvalidRecordError):
            raise
        failed = _index_one_by_one(collection, fresh, report)
    for (index, _, _), update in fresh:
        if index not in failed:
            report.updated += update
            report.added += not update


def _index_one_by_one(collection: Collection, fresh: list[tuple[Mapped, bool]], report: IngestReport) -> set[int]:
    component, socket = collection.entry
    failed = set()
    for (index, record, document), _ in fresh:
        try:
            collection.indexing.run({component: {socket: [document]}})
        except Exception as error:
            problem = cause_of(error)
            if not isinstance(problem, InvalidRecordError):
                raise
            report.refused.append(Refusal(record.where, index, problem.message))
            failed.add(index)
    return failed


def dangling_links(store: HybridDocumentStore, field_name: str) -> list[str]:
    """Links whose target is not in the collection. They are kept (and shown as dangling when searched)."""
    documents = store.meta_by_filter(None)
    keys = {str(d.meta.get(RECORD_ID)) for d in documents}
    problems = []
    for document in sorted(documents, key=lambda d: str(d.meta.get(RECORD_ID))):
        for link in document.meta.get(field_name) or []:
            target = str(link.get("target_key")) if isinstance(link, dict) else str(link)
            if target not in keys:
                problems.append(f"dangling link {document.meta.get(RECORD_ID)} -> {target} (kept)")
    return problems


def stored_records(store: HybridDocumentStore, record_ids: list[str]) -> set[str]:
    """Which of `record_ids` the store holds (any of their chunks)."""
    found = store.meta_by_filter(_records_filter(record_ids)) if record_ids else []
    return {str(d.meta.get(RECORD_ID)) for d in found}


def delete_records(store: HybridDocumentStore, record_ids: list[str]) -> tuple[int, list[str]]:
    """Delete records (all their chunks) by id; returns (points deleted, ids that were not found)."""
    stored = stored_records(store, record_ids)
    missing = [rid for rid in record_ids if rid not in stored]
    found = [rid for rid in record_ids if rid not in missing]
    deleted = store.delete_by_filter(_records_filter(found)) if found else 0
    return deleted, missing


def _records_filter(record_ids: list[str]) -> dict[str, Any]:
    return {"field": f"meta.{RECORD_ID}", "operator": "in", "value": record_ids}


def _all_records(paths: list[Path]) -> Iterator[SourceRecord]:
    for path in paths:
        yield from read_records(path)


def superseded_records(collection: Collection, records: Iterable[SourceRecord]) -> set[int]:
    """Positions of the records whose id comes again later in `records`: only the last one is indexed, so
    an input with a repeated id leaves the store as if it held only its last version (no stale chunks, and
    nothing rewritten when the same input comes again)."""
    last: dict[str, int] = {}
    repeated: set[int] = set()
    for index, record in enumerate(records):
        if record.error or record.data is None:
            continue
        try:
            rid = str(to_document(record.data, collection.schema).meta[RECORD_ID])
        except InvalidRecordError:
            continue  # refused when its turn comes
        if rid in last:
            repeated.add(last[rid])
        last[rid] = index
    return repeated


def _map_batch(
    batch: list[tuple[int, SourceRecord]], collection: Collection, report: IngestReport, superseded: set[int]
) -> list[Mapped]:
    mapped = []
    for index, record in batch:
        report.records += 1
        if index in superseded:
            report.duplicates += 1
            continue
        if record.error or record.data is None:
            report.refused.append(Refusal(record.where, index, record.error or "no data"))
            continue
        try:
            mapped.append((index, record, to_document(record.data, collection.schema, collection.fingerprint)))
        except InvalidRecordError as error:
            report.refused.append(Refusal(record.where, index, error.message))
    return mapped


def _changed_only(store: HybridDocumentStore, mapped: list[Mapped], report: IngestReport) -> list[tuple[Mapped, bool]]:
    """The records to index, each with whether it replaces a stored one; the stale chunks of those are
    deleted (with the batch's writes). A record id twice in one batch: the later record wins."""
    if not mapped:
        return []
    by_record: dict[str, Mapped] = {}
    for item in mapped:
        rid = item[2].meta[RECORD_ID]
        report.duplicates += rid in by_record  # without `superseded` (a stream): the later record is kept
        by_record[rid] = item
    stored_hash: dict[str, set[str]] = {}
    for document in store.meta_by_filter(_records_filter(list(by_record))):
        stored_hash.setdefault(str(document.meta.get(RECORD_ID)), set()).add(str(document.meta.get(RECORD_HASH)))
    fresh = []
    for rid, item in by_record.items():
        if stored_hash.get(rid) == {item[2].meta[RECORD_HASH]}:
            report.unchanged += 1
        else:
            fresh.append((item, rid in stored_hash))
    changed = [rid for (_, _, document), update in fresh if update for rid in [document.meta[RECORD_ID]]]
    if changed:
        store.delete_by_filter(_records_filter(changed))
    return fresh


def _batches(items: Iterable[T], size: Callable[[], int]) -> Iterator[list[T]]:
    """Batches of `size()` items, asked afresh for each batch."""
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size():
            yield batch
            batch = []
    if batch:
        yield batch
