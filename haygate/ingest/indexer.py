"""`haygate ingest`: records -> Documents -> the collection's indexing pipeline, idempotently.

Each batch is mapped, compared with what the store holds (by `meta.record_hash`), and only new or changed
records go through the indexing pipeline (split, derive, embed, write); the stale chunks of a changed
record are removed first. A killed ingest therefore loses nothing: re-running it skips every record that
already landed.
"""

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from haystack import Document, Pipeline
from tqdm import tqdm

from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.errors import InvalidRecordError, cause_of
from haygate.ingest.mapping import RECORD_HASH, RECORD_ID, to_document
from haygate.ingest.readers import SUFFIXES, SourceRecord, count_records, read_records
from haygate.ingest.schema import CollectionSchema

logger = logging.getLogger(__name__)
BATCH_RECORDS = 1024  # large batches let sentence-transformers sort by length across more texts


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


@dataclass
class IngestReport:
    collection: str
    records: int = 0
    written: int = 0
    unchanged: int = 0
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def summary(self) -> str:
        warned = f", {len(self.warnings)} warning(s)" if self.warnings else ""
        return (
            f"{self.collection}: {self.records} records read, {self.written} new or changed, "
            f"{self.unchanged} unchanged, {len(self.errors)} rejected{warned}"
        )


def ingest_files(
    collection: Collection, files: Iterable[Path], progress: bool = True, batch_records: int = BATCH_RECORDS
) -> IngestReport:
    paths = list(files)
    report = IngestReport(collection.name)
    total = sum(count_records(p) for p in paths)
    with tqdm(total=total, unit="rec", desc=f"ingest {collection.name}", disable=not progress) as bar:
        for batch in _batches(_all_records(paths), batch_records):
            mapped = _map_batch(batch, collection, report)
            bar.update(len(batch))
            fresh = _changed_only(collection.store, mapped, report)
            if fresh:
                _index(collection, fresh, report)
        bar.total = report.records  # the line count was an estimate (blank lines, Markdown files)
        bar.refresh()
    if report.written:
        collection.store.optimize()
    if collection.schema.links:
        report.warnings += dangling_links(collection.store, collection.schema.links)
    return report


def _index(collection: Collection, fresh: list[tuple[SourceRecord, Document]], report: IngestReport) -> None:
    """Run the indexing pipeline on a batch; if one record makes it fail, index the rest one by one."""
    component, socket = collection.entry
    try:
        collection.indexing.run({component: {socket: [document for _, document in fresh]}})
        return
    except Exception as error:
        if not isinstance(cause_of(error), InvalidRecordError) or len(fresh) == 1:
            raise
    for record, document in fresh:
        try:
            collection.indexing.run({component: {socket: [document]}})
        except Exception as error:
            problem = cause_of(error)
            if not isinstance(problem, InvalidRecordError):
                raise
            report.errors.append(f"{record.where}: {problem.message}")
            report.written -= 1


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


def delete_records(store: HybridDocumentStore, record_ids: list[str]) -> tuple[int, list[str]]:
    """Delete records (all their chunks) by id; returns (points deleted, ids that were not found)."""
    missing = [rid for rid in record_ids if not store.count_documents(_records_filter([rid]))]
    found = [rid for rid in record_ids if rid not in missing]
    deleted = store.delete_by_filter(_records_filter(found)) if found else 0
    return deleted, missing


def sample_files(samples_dir: Path, collections_dir: Path) -> dict[str, list[Path]]:
    """The bundled sample collections: `samples/<collection>/*` for each declared collection."""
    samples: dict[str, list[Path]] = {}
    for folder in sorted(samples_dir.glob("*")):
        if folder.is_dir() and (collections_dir / f"{folder.name}.yaml").exists():
            samples[folder.name] = sorted(p for p in folder.iterdir() if p.suffix.lower() in SUFFIXES)
    return samples


def _records_filter(record_ids: list[str]) -> dict[str, Any]:
    return {"field": f"meta.{RECORD_ID}", "operator": "in", "value": record_ids}


def _all_records(paths: list[Path]) -> Iterator[SourceRecord]:
    for path in paths:
        yield from read_records(path)


def _map_batch(
    batch: list[SourceRecord], collection: Collection, report: IngestReport
) -> list[tuple[SourceRecord, Document]]:
    mapped = []
    for record in batch:
        report.records += 1
        if record.error or record.data is None:
            report.errors.append(f"{record.where}: {record.error}")
            continue
        try:
            mapped.append((record, to_document(record.data, collection.schema, collection.fingerprint)))
        except InvalidRecordError as error:
            report.errors.append(f"{record.where}: {error.message}")
    return mapped


def _changed_only(
    store: HybridDocumentStore, mapped: list[tuple[SourceRecord, Document]], report: IngestReport
) -> list[tuple[SourceRecord, Document]]:
    """Drop records whose stored hash matches; delete the stale chunks of records that changed."""
    if not mapped:
        return []
    by_record = {document.meta[RECORD_ID]: (record, document) for record, document in mapped}
    stored_hash: dict[str, set[str]] = {}
    for document in store.meta_by_filter(_records_filter(list(by_record))):
        stored_hash.setdefault(str(document.meta.get(RECORD_ID)), set()).add(str(document.meta.get(RECORD_HASH)))
    fresh = []
    changed = []
    for rid, (record, document) in by_record.items():
        if stored_hash.get(rid) == {document.meta[RECORD_HASH]}:
            report.unchanged += 1
            continue
        if rid in stored_hash:
            changed.append(rid)
        fresh.append((record, document))
        report.written += 1
    if changed:
        store.delete_by_filter(_records_filter(changed))
    return fresh


def _batches(items: Iterable[SourceRecord], size: int) -> Iterator[list[SourceRecord]]:
    batch: list[SourceRecord] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
