"""`haygate ingest`: records -> Documents -> the collection's indexing pipeline, idempotently.

Each batch is mapped, compared with what the store holds (by `meta.record_hash`), and only new or changed
records go through the indexing pipeline (split, derive, embed, write); the stale chunks of a changed
record are removed first. A killed ingest therefore loses nothing: re-running it skips every record that
already landed, and only those. A record has landed when every point it has carries its hash and none is
still marked as written by an unfinished batch (`BATCH_PENDING`): a batch's writes are several operations,
and a process killed among them leaves some of a record's points without the others.
"""

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from haystack import Document, Pipeline

from haygate.compat import graph
from haygate.document_stores.hybrid import BATCH_PENDING, HybridDocumentStore
from haygate.errors import InvalidRecordError, StorageFullError, cause_of
from haygate.ingest.mapping import RECORD_HASH, RECORD_ID, SHARED_BY, to_document
from haygate.ingest.readers import ReadOptions, SourceRecord, count_records, read_records
from haygate.ingest.report import BATCH_RECORDS, PROGRESS_SECONDS, IngestReport, Pacer, Refusal
from haygate.ingest.schema import CollectionSchema
from haygate.progress import progress_bar

logger = logging.getLogger(__name__)
T = TypeVar("T")

# A long record that the indexing pipeline writes as one document gets a warning. The dense embedder the bundled
# pipelines name (all-MiniLM-L6-v2) reads 256 word pieces and drops the rest: about 190 English words (~1.35
# pieces a word), the warning's "first ~200 words". The threshold is over twice that window, not the window: a
# record a little past it loses only its tail, and collections of short texts (memories, knowledge) hold many
# such; of a 512-word record (~690 pieces) less than 40% is embedded.
LONG_RECORD_WORDS = 512
WORDS_EMBEDDED = 200  # what the warning says the embedder reads (256 word pieces, rounded up)
LONG_RECORDS_NAMED = 3  # a warning about more long records names the longest ones and counts the rest


class Runner(Protocol):
    """Runs a pipeline as `Pipeline.run(data, include_outputs_from=...)` does: haygate's fixed schedule of a
    loop-free pipeline (`haygate.compat.schedule.Schedule`), which copies a value only for a second consumer
    and so does not deep-copy every embedding of every batch, as Haystack's planner does."""

    def run(self, data: dict[str, dict[str, Any]], include_outputs_from: set[str]) -> dict[str, Any]: ...


@dataclass
class Collection:
    """Everything ingest needs about one collection, built by the loader from settings."""

    schema: CollectionSchema
    store: HybridDocumentStore
    indexing: Pipeline
    entry: tuple[str, str]  # the (component, socket) mapped Documents enter through
    fingerprint: str  # of the indexing configuration: schema, pipeline and the files it reads
    runner: Runner | None = None  # how the indexing pipeline runs; None: Haystack's `Pipeline.run`

    @property
    def name(self) -> str:
        return self.schema.name


def ingest_files(
    collection: Collection,
    files: Iterable[Path],
    progress: bool | None = True,
    batch_records: int = BATCH_RECORDS,
    optimize: bool = True,
    options: ReadOptions | None = None,
) -> IngestReport:
    """`optimize`: build the indexes before returning (False: the records are durable and searchable, and
    the collection is marked for a server to optimize in the background). `options`: how the files are read
    (default: as the collection's YAML says). `progress`: a bar, nothing (False), or a line now and then (None,
    `haygate.progress`)."""
    paths = list(files)
    options = options or collection.schema.read_options()
    total = sum(count_records(p, options) for p in paths)
    shown = progress is not False
    pacer = Pacer(PROGRESS_SECONDS, batch_records) if shown else None
    superseded = superseded_records(collection, _all_records(paths, options))  # a first, cheap pass: no embedding
    with progress_bar(total, f"ingest {collection.name}", "rec", progress) as bar:

        def show_chunks(report: IngestReport) -> None:  # the bar counts records; the chunks are the work
            bar.set_postfix_str(f"{report.chunks} chunks, {report.chunks_per_second:.1f} chunks/s", refresh=False)

        report = ingest_records(
            collection,
            _all_records(paths, options),
            batch_records,
            on_batch=bar.update,
            pacer=pacer,
            superseded=superseded,
            optimize=optimize,
            on_report=show_chunks if shown else None,
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
    on_report: Callable[[IngestReport], object] | None = None,
) -> IngestReport:
    """Records -> the collection, a batch at a time. Each batch becomes visible at once, and durable, when
    it is written (`store.batch()`); `on_batch(n)` hears of every `n` records done, after `on_report` of
    the report so far (its chunks). `optimize`: compact the collection at the end if anything was written
    (a server's writer does it once writes pause).
    `pacer`: size the batches by how long they take (for a progress bar) instead of `batch_records` each.
    `superseded`: positions of records whose id comes again later (`superseded_records`); computed here when
    `records` is a list. The last occurrence of an id wins, wherever the batches fall."""
    if superseded is None and isinstance(records, list):
        superseded = superseded_records(collection, records)
    report = IngestReport(collection.name)
    plan = IndexingPlan.of(collection.indexing, collection.entry, collection.runner)
    long: list[tuple[str, int]] = []  # (record id, words) of long records written as one document
    warm = False
    loading = 0.0  # seconds the models took to load: not the chunks' time, nor the pace's

    def ingest_batch(batch: list[tuple[int, SourceRecord]]) -> None:
        nonlocal warm, loading, long
        started = time.perf_counter()
        with collection.store.batch():
            mapped = _map_batch(batch, collection, report, superseded or set())
            fresh = _changed_only(collection.store, mapped, report)
            if fresh:
                if not warm:  # the models load once, when first needed
                    before = time.perf_counter()
                    collection.indexing.warm_up()
                    warm, loading = True, time.perf_counter() - before
                    started += loading
                written = _index(collection, plan, fresh, report)
                report.chunks += len(written)
                if plan.truncates_long_records:
                    long += _long_and_whole(fresh, written)
        took = time.perf_counter() - started
        report.seconds += took
        if pacer is not None:
            pacer.took(len(batch), took)
        if on_report is not None:
            on_report(report)
        if on_batch is not None:
            on_batch(len(batch))

    batches = _batches(enumerate(records), lambda: pacer.size if pacer else batch_records)
    elsewhere = [instance for _, instance in collection.indexing.walk() if isinstance(instance, RunsElsewhere)]
    try:
        if elsewhere and superseded is not None:  # a repeated id's batches known: they may overlap
            started = time.perf_counter()
            here = two_at_a_time(batches, ingest_batch, elsewhere) - loading
            report.seconds = time.perf_counter() - started - loading  # the batches overlapped: the wall time
            logger.info(
                "ingest worked %.1f s of %.1f s here; the rest it waited for work done elsewhere", here, report.seconds
            )
            report.refused.sort(key=lambda refusal: refusal.index)
        else:
            for batch in batches:
                ingest_batch(batch)
    finally:
        for component in elsewhere:  # the next collection's ingest wants those workers' resources
            report.warnings += component.close()
    if long:
        report.warnings.append(long_records_warning(long, collection.schema.indexing_pipeline))
    if report.written and optimize:
        try:
            collection.store.optimize()
        except StorageFullError as error:  # the records are written and durable; only the compaction waits
            report.warnings.append(f"written but not optimized: {error.message}")
    if collection.schema.links:
        report.warnings += dangling_links(collection.store, collection.schema.links)
    return report


Mapped = tuple[int, SourceRecord, Document]


@dataclass(frozen=True)
class IndexingPlan:
    """What ingest reads off a collection's indexing pipeline: which outputs its writers write (to count
    the chunks), and whether it embeds a long record whole, cut off where the model stops reading."""

    entry: tuple[str, str]
    written: tuple[tuple[str, str], ...]  # the (component, output socket) pairs that feed a writer
    entry_writes: bool  # the mapped Documents go straight into a writer
    truncates_long_records: bool  # a dense embedder embeds only the start of each document, and nothing splits
    runner: Runner | None = None

    @classmethod
    def of(cls, pipeline: Pipeline, entry: tuple[str, str], runner: Runner | None = None) -> "IndexingPlan":
        written = graph.senders_into(pipeline, _is_writer)
        components = [instance for _, instance in pipeline.walk()]
        splits = any(_is_splitter(instance) for instance in components)
        truncating = any(_truncates(instance) for instance in components)
        entry_writes = _is_writer(pipeline.get_component(entry[0]))
        return cls(entry, written, entry_writes, truncating and not splits, runner)

    def run(self, pipeline: Pipeline, documents: list[Document]) -> list[Document]:
        """Run the pipeline on `documents`; the documents its writers were given, each id once."""
        component, socket = self.entry
        senders = {sender for sender, _ in self.written}
        runner = self.runner or pipeline
        results = runner.run({component: {socket: documents}}, include_outputs_from=senders)
        given = list(documents) if self.entry_writes else []
        for sender, output in self.written:
            given += (results.get(sender) or {}).get(output) or []
        return list({document.id: document for document in given}.values())


class LocalLock:
    """The lock ingest's local work runs under while batches overlap, timing how long it is held: the
    process's own share of an ingest, against the time it waited for work done elsewhere."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._since = 0.0
        self.held = 0.0  # seconds

    def acquire(self) -> None:
        self._lock.acquire()
        self._since = time.perf_counter()

    def release(self) -> None:
        self.held += time.perf_counter() - self._since
        self._lock.release()

    def __enter__(self) -> "LocalLock":
        self.acquire()
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


@runtime_checkable
class RunsElsewhere(Protocol):
    """A component whose work runs in other processes (`haygate.ingest.cluster`: a Ray cluster's actors). While it
    waits for them it lets go of `local_lock`, the lock ingest runs every other component under: the next
    batch is read, compared with the store and split meanwhile, and this one's writes follow its vectors."""

    local_lock: LocalLock | None

    def close(self) -> list[str]:
        """Let go of what it holds elsewhere (a cluster's actors): the ingest is done, and a next run starts
        anew. Returns what the report should say of the run (workers lost and their work done again)."""
        ...


def two_at_a_time(
    batches: Iterable[list[T]], ingest_batch: Callable[[list[T]], None], elsewhere: Sequence[RunsElsewhere]
) -> float:
    """Each batch ingested in a thread of its own, two at a time, so one batch's local work (mapping, the
    store's reads, splitting, BM25, writing) runs while the other's embeddings are made elsewhere.

    Only one thread runs local work at any moment (`local_lock`, which a component that `RunsElsewhere`
    lets go of while it waits), so no component, report or store is used by two threads at once; batches
    start in order, and each is written in one `store.batch()` of its own thread, as ingest always writes.
    Returns the seconds local work ran."""
    local = LocalLock()
    for component in elsewhere:
        component.local_lock = local

    def in_turn(batch: list[T], turn: threading.Event, next_turn: threading.Event) -> None:
        turn.wait()
        with local:
            next_turn.set()  # the next batch may take the lock once this one lets go of it
            ingest_batch(batch)

    try:
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="ingest") as threads:
            running: deque[Future[None]] = deque()
            turn = threading.Event()
            turn.set()
            for batch in batches:
                if len(running) == 2:
                    running.popleft().result()  # a failed batch stops the ingest; the one running ends first
                next_turn = threading.Event()
                running.append(threads.submit(in_turn, batch, turn, next_turn))
                turn = next_turn
            for batch_done in running:
                batch_done.result()
    finally:
        for component in elsewhere:
            component.local_lock = None
    return local.held


def _is_writer(instance: object) -> bool:
    return type(instance).__name__.endswith("DocumentWriter")


def _is_splitter(instance: object) -> bool:
    """Haystack's DocumentSplitter, RecursiveDocumentSplitter, MarkdownHeaderSplitter, ..., DocumentPreprocessor
    (a cleaner and a splitter), chunkers, and haygate's SectionChunks. One not named so is caught by what it
    writes (`_long_and_whole`)."""
    kind = type(instance).__name__
    return kind.endswith(("Splitter", "Chunker", "Chunks")) or kind == "DocumentPreprocessor"


def embeds_densely(kind: type) -> bool:
    """A component class that embeds documents with a dense model: haygate's, sentence-transformers' and the
    like, by Haystack's naming (`...DocumentEmbedder`). Not a sparse one: BM25 counts words, cheaply."""
    return kind.__name__.endswith("DocumentEmbedder") and "Sparse" not in kind.__name__


def _truncates(instance: object) -> bool:
    """A dense document embedder, which embeds a document's start only; not haygate's DenseDocumentEmbedder
    with `passages`, which embeds every word window as well."""
    return embeds_densely(type(instance)) and getattr(instance, "passages", None) is None


def _long_and_whole(fresh: list[tuple[Mapped, bool]], written: list[Document]) -> list[tuple[str, int]]:
    """(record id, words) of the records over LONG_RECORD_WORDS that were written as one document."""
    documents_of = Counter(str(document.meta.get(RECORD_ID)) for document in written)
    long = []
    for (_, _, document), _ in fresh:
        rid = str(document.meta[RECORD_ID])
        words = len((document.content or "").split())
        if words > LONG_RECORD_WORDS and documents_of[rid] == 1:
            long.append((rid, words))
    return long


def long_records_warning(long: list[tuple[str, int]], indexing_pipeline: str) -> str:
    """One warning for every long record an ingest wrote whole: the record itself, or how many with the longest
    named, and the setting that would split them."""
    advice = (
        f"add a splitter to pipelines/{indexing_pipeline} before its embedder "
        "(e.g. haygate.components.section_chunks.SectionChunks, as in pipelines/indexing/docs.yaml, or "
        "haystack.components.preprocessors.document_splitter.DocumentSplitter, split_by: word, then "
        "haygate.components.chunk_ids.ChunkIds; for Markdown sections, "
        "haygate.components.heading_sections.HeadingSections)"
    )
    if len(long) == 1:
        [(rid, words)] = long
        return (
            f"record '{rid}' is {words:,} words and became one document: "
            f"the embedder reads its first ~{WORDS_EMBEDDED} words; {advice}"
        )
    longest = sorted(long, key=lambda item: (-item[1], item[0]))
    named = ", ".join(f"'{rid}' ({words:,} words)" for rid, words in longest[:LONG_RECORDS_NAMED])
    more = f" and {len(long) - LONG_RECORDS_NAMED:,} more" if len(long) > LONG_RECORDS_NAMED else ""
    return (
        f"{len(long):,} records of more than {LONG_RECORD_WORDS} words became one document each "
        f"({named}{more}): the embedder reads the first ~{WORDS_EMBEDDED} words of each; {advice}"
    )


def _index(
    collection: Collection, plan: IndexingPlan, fresh: list[tuple[Mapped, bool]], report: IngestReport
) -> list[Document]:
    """Run the indexing pipeline on a batch; if a record makes it fail, index the others one by one. The
    documents written."""
    try:
        written = plan.run(collection.indexing, [document for (_, _, document), _ in fresh])
        failed: set[int] = set()
    except Exception as error:
        if not isinstance(cause_of(error), InvalidRecordError):
            raise
        failed, written = _index_one_by_one(collection, plan, fresh, report)
    for (index, _, _), update in fresh:
        if index not in failed:
            report.updated += update
            report.added += not update
    return written


def _index_one_by_one(
    collection: Collection, plan: IndexingPlan, fresh: list[tuple[Mapped, bool]], report: IngestReport
) -> tuple[set[int], list[Document]]:
    failed = set()
    written: list[Document] = []
    for (index, record, document), _ in fresh:
        try:
            written += plan.run(collection.indexing, [document])
        except Exception as error:
            problem = cause_of(error)
            if not isinstance(problem, InvalidRecordError):
                raise
            report.refused.append(Refusal(index=index, where=record.where, reason=problem.message))
            failed.add(index)
    return failed, written


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
    deleted = remove_records(store, found) if found else 0
    return deleted, missing


def remove_records(store: HybridDocumentStore, record_ids: list[str]) -> int:
    """Delete the records' own points, and take the records off the points they share with others
    (`meta.record_ids`), deleting those that no record holds any more: per record, never by writing back a list
    read before (`HybridDocumentStore.remove_holders`), so another process writing the collection loses nothing.
    Inside `store.batch()` both are applied in order at its end, so a point the batch writes again afterwards
    ends as written. The shared points go first: a process killed in between leaves the records' own points,
    so the next ingest finds the records changed and takes them off again. Returns the points deleted (inside
    a batch, as stored when called)."""
    shared = store.remove_holders(record_ids, SHARED_BY) if f"meta.{SHARED_BY}" in store.payload_indexes else 0
    return store.delete_by_filter(_records_filter(record_ids)) + shared


def _records_filter(record_ids: list[str]) -> dict[str, Any]:
    return {"field": f"meta.{RECORD_ID}", "operator": "in", "value": record_ids}


def _all_records(paths: list[Path], options: ReadOptions) -> Iterator[SourceRecord]:
    for path in paths:
        yield from read_records(path, options)


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
            report.refused.append(Refusal(index=index, where=record.where, reason=record.error or "no data"))
            continue
        if record.data.get("format") == "markdown":
            report.note_page(record.where, record.data)
        try:
            mapped.append((index, record, to_document(record.data, collection.schema, collection.fingerprint)))
        except InvalidRecordError as error:
            report.refused.append(Refusal(index=index, where=record.where, reason=error.message))
    return mapped


def _changed_only(store: HybridDocumentStore, mapped: list[Mapped], report: IngestReport) -> list[tuple[Mapped, bool]]:
    """The records to index, each with whether it replaces a stored one; the stale chunks of those are
    deleted (with the batch's writes). A record id twice in one batch: the later record wins. A record some of
    whose points an unfinished batch wrote (`BATCH_PENDING`) has not landed: it is indexed again."""
    if not mapped:
        return []
    by_record: dict[str, Mapped] = {}
    for item in mapped:
        rid = item[2].meta[RECORD_ID]
        report.duplicates += rid in by_record  # without `superseded` (a stream): the later record is kept
        by_record[rid] = item
    stored_hash: dict[str, set[str | None]] = {}
    fields = [f"meta.{RECORD_ID}", f"meta.{RECORD_HASH}", f"meta.{BATCH_PENDING}"]
    for document in store.meta_by_filter(_records_filter(list(by_record)), fields=fields):
        landed = not document.meta.get(BATCH_PENDING)  # else a batch that wrote it did not finish: no hash matches
        hashes = stored_hash.setdefault(str(document.meta.get(RECORD_ID)), set())
        hashes.add(str(document.meta.get(RECORD_HASH)) if landed else None)
    fresh = []
    for rid, item in by_record.items():
        if stored_hash.get(rid) == {item[2].meta[RECORD_HASH]}:
            report.unchanged += 1
        else:
            fresh.append((item, rid in stored_hash))
    changed = [rid for (_, _, document), update in fresh if update for rid in [document.meta[RECORD_ID]]]
    if changed:
        remove_records(store, changed)
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


class Previewing(Protocol):
    """An indexing pipeline cut before its embedders and writers (`haygate.gateway.loader.IndexingPreview`)."""

    def run(self, documents: list[Document]) -> list[Document]: ...


# A component class attribute: the init parameters it runs with in the pipeline `planned_documents` runs
# (`Loader.preview`), its cheaper settings that write the same documents.
PREVIEW_PARAMETERS = "preview_parameters"


def planned_documents(
    preview: Previewing, schema: CollectionSchema, records: Iterable[SourceRecord], batch_records: int = BATCH_RECORDS
) -> Iterator[Document]:
    """The documents an ingest of `records` would write (ids and meta, no vectors), without a model or a store:
    each record mapped as ingest maps it, then the indexing pipeline as far as its first embedder or writer. A
    record ingest would refuse is left out."""
    for batch in _batches(records, lambda: batch_records):
        mapped = []
        for record in batch:
            if record.error or record.data is None:
                continue
            try:
                mapped.append(to_document(record.data, schema))
            except InvalidRecordError:
                continue
        if mapped:
            yield from preview.run(mapped)
