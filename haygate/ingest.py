"""`haygate ingest`: records -> Documents -> the collection's indexing pipeline, idempotently.

Each batch is mapped, compared with what the store holds (by `meta.record_hash`), and only new or
changed records are embedded and written; the stale chunks of a changed record are removed first. A
killed ingest therefore loses nothing: re-running it skips every record that already landed.
"""

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from haystack import Document, Pipeline
from tqdm import tqdm

from components.collections import CollectionSchema, open_collection, schema_for
from components.errors import ConfigurationError
from haygate.loader import load_pipeline
from haygate.records import RecordError, SourceRecord, read_records, to_documents
from haygate.settings import get_settings

logger = logging.getLogger(__name__)
BATCH_RECORDS = 1024  # large batches let sentence-transformers sort by length across more texts


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


def indexing_pipeline(schema: CollectionSchema) -> Pipeline:
    return load_pipeline(get_settings().home / "pipelines" / schema.indexing)


def entry_component(pipeline: Pipeline) -> str:
    """The one component whose `documents` input nothing feeds: where mapped records enter."""
    open_inputs = pipeline.inputs()
    entries = [name for name, sockets in open_inputs.items() if "documents" in sockets]
    if len(entries) != 1:
        msg = f"an indexing pipeline needs exactly one component with an open 'documents' input, found {entries}"
        raise ConfigurationError(msg)
    return entries[0]


def ingest_files(
    collection: str,
    files: Iterable[Path],
    progress: bool = True,
    pipeline: Pipeline | None = None,
    batch_records: int = BATCH_RECORDS,
) -> IngestReport:
    schema = schema_for(collection)
    paths = list(files)
    pipeline = pipeline or indexing_pipeline(schema)
    entry = entry_component(pipeline)
    store = open_collection(collection)
    report = IngestReport(collection)
    total = sum(_count_lines(p) for p in paths)
    with tqdm(total=total, unit="rec", desc=f"ingest {collection}", disable=not progress) as bar:
        for batch in _batches(_all_records(paths), batch_records):
            documents = _map_batch(batch, schema, report)
            bar.update(len(batch))
            fresh = _changed_only(store, documents, report)
            if fresh:
                pipeline.run(_inputs(entry, fresh, collection))
        bar.total = report.records  # the line count was an estimate (Markdown sections, blank lines)
        bar.refresh()
    if report.written and hasattr(store, "optimize"):
        store.optimize()
    if schema.links:
        report.warnings += dangling_links(store, schema.links)
    return report


def dangling_links(store: Any, field_name: str) -> list[str]:
    """Links whose target is not in the collection. They are kept (and shown as dangling when searched)."""
    documents = store.meta_by_filter(None)
    keys = {str(d.meta.get("record_id")) for d in documents}
    problems = []
    for document in sorted(documents, key=lambda d: str(d.meta.get("record_id"))):
        for link in document.meta.get(field_name) or []:
            target = str(link.get("target_key")) if isinstance(link, dict) else str(link)
            if target not in keys:
                problems.append(f"dangling link {document.meta.get('record_id')} -> {target} (kept)")
    return problems


def _inputs(entry: str, documents: list[Document], collection: str) -> dict[str, dict[str, Any]]:
    inputs: dict[str, dict[str, Any]] = {"writer": {"collection": collection}}
    inputs.setdefault(entry, {})["documents"] = documents
    return inputs


def _all_records(paths: list[Path]) -> Iterator[SourceRecord]:
    for path in paths:
        if not path.exists():
            yield SourceRecord(str(path), 0, None, "file not found")
            continue
        yield from read_records(path)


def _map_batch(batch: list[SourceRecord], schema: CollectionSchema, report: IngestReport) -> list[Document]:
    documents: list[Document] = []
    for record in batch:
        report.records += 1
        if record.error or record.data is None:
            report.errors.append(f"{record.file}:{record.line}: {record.error}")
            continue
        try:
            documents.extend(to_documents(record.data, schema))
        except RecordError as error:
            report.errors.append(f"{record.file}:{record.line}: {error}")
    return documents


def _changed_only(store: Any, documents: list[Document], report: IngestReport) -> list[Document]:
    """Drop records whose stored hash matches; delete stale chunks of records that changed."""
    if not documents:
        return []
    by_record: dict[str, list[Document]] = {}
    for document in documents:
        by_record.setdefault(document.meta["record_id"], []).append(document)
    stored = store.meta_by_filter({"field": "meta.record_id", "operator": "in", "value": list(by_record)})
    stored_hash: dict[str, set[str]] = {}
    for document in stored:
        stored_hash.setdefault(document.meta.get("record_id"), set()).add(document.meta.get("record_hash"))
    fresh: list[Document] = []
    changed: list[str] = []
    for rid, chunks in by_record.items():
        if stored_hash.get(rid) == {chunks[0].meta["record_hash"]}:
            report.unchanged += 1
            continue
        if rid in stored_hash:
            changed.append(rid)
        fresh.extend(chunks)
        report.written += 1
    if changed:
        store.delete_by_filter({"field": "meta.record_id", "operator": "in", "value": changed})
    return fresh


def delete_records(collection: str, record_ids: list[str]) -> tuple[int, list[str]]:
    """Delete records (all their chunks) by id; returns (points deleted, ids that were not found)."""
    schema_for(collection)
    store = open_collection(collection)
    missing = [
        rid
        for rid in record_ids
        if not store.count_documents({"field": "meta.record_id", "operator": "==", "value": rid})
    ]
    found = [rid for rid in record_ids if rid not in missing]
    deleted = store.delete_by_filter({"field": "meta.record_id", "operator": "in", "value": found}) if found else 0
    return deleted, missing


def _batches(items: Iterable[SourceRecord], size: int) -> Iterator[list[SourceRecord]]:
    batch: list[SourceRecord] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def _count_lines(path: Path) -> int:
    if not path.exists():
        return 1
    if path.suffix.lower() in (".md", ".markdown", ".mdx"):
        return sum(1 for line in path.open(encoding="utf-8") if line.startswith("#"))
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip()) - (1 if path.suffix.lower() == ".csv" else 0)


def sample_files() -> dict[str, list[Path]]:
    """The bundled sample collections: `samples/<collection>/*` for each declared collection."""
    settings = get_settings()
    samples: dict[str, list[Path]] = {}
    for folder in sorted((settings.home / "samples").glob("*")):
        if folder.is_dir() and (settings.collections_dir / f"{folder.name}.yaml").exists():
            samples[folder.name] = sorted(p for p in folder.iterdir() if p.suffix in (".md", ".jsonl", ".csv"))
    return samples
