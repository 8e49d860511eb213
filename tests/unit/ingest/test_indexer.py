"""Ingest: idempotent, change-aware, precise about bad records. On the `entities` collection, whose
indexing pipeline runs no model, so these tests take milliseconds."""

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.errors import InvalidRecordError
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import LocalLock, delete_records, ingest_files, ingest_records, two_at_a_time
from haygate.ingest.readers import read_records, sample_files
from haygate.ingest.report import Pacer


def entity(n: int, title: str = "Zebra striped tooltip") -> dict[str, Any]:
    return {
        "entity_type": "bug",
        "entity_id": f"bug:{n}",
        "product_id": "product:1",
        "title": title,
        "actual_result": "The page stays blank " + "and blank " * (n % 3),
        "expected_result": "The page loads.",
    }


def write(path: Path, records: list[Any]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_reingest_skips_unchanged_and_replaces_changed(loader: Loader, tmp_path: Path) -> None:
    collection = loader.collection("entities")
    source = write(tmp_path / "e.jsonl", [entity(i) for i in range(5)])
    first = ingest_files(collection, [source], progress=False)
    assert (first.records, first.written, first.unchanged) == (5, 5, 0)
    again = ingest_files(collection, [source], progress=False)
    assert (again.written, again.unchanged) == (0, 5)
    write(source, [entity(i, "Turquoise banner" if i == 2 else "Zebra striped tooltip") for i in range(5)])
    changed = ingest_files(collection, [source], progress=False)
    assert (changed.written, changed.unchanged) == (1, 4)
    [stored] = collection.store.meta_by_filter({"field": "meta.record_id", "operator": "==", "value": "bug:2"})
    assert stored.meta["title"] == "Turquoise banner" and "turquoise" in stored.meta["terms"]
    assert collection.store.count_documents() == 5


def test_bad_records_are_named_and_good_ones_land(loader: Loader, tmp_path: Path) -> None:
    source = write(
        tmp_path / "e.jsonl",
        [entity(1), "{broken json", {"entity_type": "bug", "product_id": "product:1", "title": "no id"}, entity(2)],
    )
    report = ingest_files(loader.collection("entities"), [source], progress=False)
    assert report.errors == [
        f"{source}:2: invalid JSON: Expecting property name enclosed in double quotes at column 2",
        f"{source}:3: missing id field(s) entity_id; the record has: entity_type, product_id, title",
    ]
    assert loader.store("entities").count_documents() == 2
    assert "2 new or changed, 0 unchanged, 2 rejected" in report.summary()


def test_a_record_of_the_wrong_type_is_reported_and_the_rest_land(loader: Loader, tmp_path: Path) -> None:
    cvs = [
        {"id": "a", "name": "A", "text": "Python developer, 3 years of experience."},
        {"id": "b", "name": "B", "text": "Java", "as_of": "someday"},
        {"_id": {"$oid": "65a1f0c2e4b0a1b2c3d4e5f6"}, "name": "C", "text": "Go developer", "as_of": "2026-11-01"},
    ]
    source = write(tmp_path / "cvs.jsonl", cvs)
    report = ingest_files(loader.collection("candidates"), [source], progress=False)
    assert report.errors == [f"{source}:2: field 'as_of': expected an ISO 8601 date or datetime, got 'someday'"]
    stored = {d.meta.get("record_id") for d in loader.store("candidates").meta_by_filter(None)}
    assert report.written == 2 and None in stored  # the phrases name their CVs in record_ids
    stored.discard(None)
    assert stored == {"a", "65a1f0c2e4b0a1b2c3d4e5f6"}


def test_delete_records(loader: Loader, tmp_path: Path) -> None:
    ingest_files(
        loader.collection("entities"), [write(tmp_path / "e.jsonl", [entity(i) for i in range(3)])], progress=False
    )
    assert delete_records(loader.store("entities"), ["bug:1", "bug:9"]) == (1, ["bug:9"])
    assert loader.store("entities").count_documents() == 2


def test_samples_are_found_per_collection() -> None:
    home = Path(__file__).resolve().parents[3]
    samples = sample_files(home / "samples", home / "configs" / "collections")
    assert set(samples) == {"candidates", "docs", "entities", "knowledge", "memories"}
    assert all(p.suffix in (".md", ".jsonl") for files in samples.values() for p in files)


def test_the_pacer_sizes_batches_to_take_about_its_seconds() -> None:
    pacer = Pacer(2.0, largest=1024, first=8)
    assert pacer.size == 8
    pacer.took(8, 16.0)  # 2 s a record (a CV): one at a time
    assert pacer.size == 1
    pacer.took(100, 1.0)  # 10 ms a record
    assert pacer.size == 200
    pacer.took(1000, 0.01)  # cheap records: capped
    assert pacer.size == 1024


def test_a_paced_ingest_reports_progress_batch_by_batch(loader: Loader, tmp_path: Path) -> None:
    source = write(tmp_path / "e.jsonl", [entity(i) for i in range(50)])
    steps: list[int] = []
    pacer = Pacer(60.0, largest=20, first=4)
    report = ingest_records(loader.collection("entities"), read_records(source), on_batch=steps.append, pacer=pacer)
    assert steps[0] == 4 and max(steps) == 20 and sum(steps) == 50 and report.written == 50


def test_an_id_twice_in_one_input_keeps_the_last_and_reingesting_writes_nothing(loader: Loader, tmp_path: Path) -> None:
    collection = loader.collection("entities")
    records = [entity(1, "First title"), entity(2), entity(1, "Last title"), entity(3), entity(2, "Also last")]
    source = write(tmp_path / "e.jsonl", records)
    first = ingest_files(collection, [source], progress=False, batch_records=2)  # the repeats fall in other batches
    assert (first.records, first.added, first.duplicates, first.refused) == (5, 3, 2, [])
    assert "2 duplicate id(s) (the last one kept)" in first.summary()
    titles = {d.meta["record_id"]: d.meta["title"] for d in collection.store.meta_by_filter(None)}
    assert titles == {"bug:1": "Last title", "bug:2": "Also last", "bug:3": "Zebra striped tooltip"}
    again = ingest_files(collection, [source], progress=False, batch_records=2)
    assert (again.written, again.unchanged, again.duplicates) == (0, 3, 2)  # nothing rewritten


def test_a_long_then_short_version_of_one_id_leaves_no_stale_chunks(loader: Loader, tmp_path: Path) -> None:
    """A CV is cut into 350-word windows: the long version's extra chunks must not survive the short one, nor
    its phrases name the CV any more."""
    collection = loader.collection("candidates")
    long_text = "Python engineer. " + " ".join(f"word{i}" for i in range(400))  # two windows
    cvs = [{"id": "cv-1", "name": "A", "text": long_text}, {"id": "cv-1", "name": "A", "text": "Python engineer."}]
    for batch_records in (1, 10):  # the two versions in two batches, then in one
        report = ingest_files(
            collection, [write(tmp_path / "cvs.jsonl", cvs)], progress=False, batch_records=batch_records
        )
        assert report.duplicates == 1
        stored = collection.store.meta_by_filter({"field": "meta.record_id", "operator": "==", "value": "cv-1"})
        assert sorted((d.id, d.meta["document_type"]) for d in stored) == [("cv-1", "CV"), ("cv-1#profile", "profile")]
        assert said_by(collection.store, "cv-1") == ["Python engineer"]  # none of the long version's
    write(tmp_path / "long.jsonl", cvs[:1])
    assert ingest_files(collection, [tmp_path / "long.jsonl"], progress=False).updated == 1
    report = ingest_files(collection, [write(tmp_path / "cvs.jsonl", cvs)], progress=False, batch_records=1)
    stored = collection.store.meta_by_filter({"field": "meta.record_id", "operator": "==", "value": "cv-1"})
    assert report.updated == 1 and len(stored) == 2  # the stored long version's chunks are gone too
    assert said_by(collection.store, "cv-1") == ["Python engineer"]
    assert collection.store.count_documents() == 3  # and its phrases: one chunk, its profile and one phrase


def said_by(store: HybridDocumentStore, record_id: str) -> list[str]:
    """The phrases that name this CV."""
    found = store.meta_by_filter({"field": "meta.record_ids", "operator": "==", "value": record_id})
    assert all(d.meta["document_type"] == "phrase" for d in found)
    return sorted(d.content or "" for d in found)


def test_a_phrase_is_stored_once_for_every_cv_that_says_it(loader: Loader, tmp_path: Path) -> None:
    """CVs share phrases: one point each, naming its CVs; a replaced or deleted CV leaves its shared phrases
    to the others and takes its own with it."""
    collection, store = loader.collection("candidates"), loader.store("candidates")
    cvs = [
        {"id": "cv-1", "name": "A", "text": "Python engineer.\nKept the lights on."},
        {"id": "cv-2", "name": "B", "text": "Python engineer.\nShipped the billing system."},
        {"id": "cv-3", "name": "C", "text": "Python engineer."},
    ]
    ingest_files(collection, [write(tmp_path / "a.jsonl", cvs[:2])], progress=False)
    ingest_files(collection, [write(tmp_path / "b.jsonl", cvs[2:])], progress=False)  # merged with those stored
    shared = [
        d for d in store.meta_by_filter(None) if d.meta["document_type"] == "phrase" and d.content == "Python engineer"
    ]
    assert len(shared) == 1 and shared[0].meta["record_ids"] == ["cv-1", "cv-2", "cv-3"]
    assert said_by(store, "cv-1") == ["Kept the lights on", "Python engineer"]
    changed = {**cvs[0], "text": "Kept the lights on."}  # no longer says "Python engineer."
    assert ingest_files(collection, [write(tmp_path / "c.jsonl", [changed])], progress=False).updated == 1
    assert said_by(store, "cv-1") == ["Kept the lights on"] and said_by(store, "cv-2") == [
        "Python engineer",
        "Shipped the billing system",
    ]
    with store.batch():
        points, missing = delete_records(store, ["cv-1", "cv-2"])
    assert missing == [] and points == 2 * 2 + 2  # their chunks and profiles, then the phrases no CV says any more
    assert said_by(store, "cv-1") == said_by(store, "cv-2") == []
    phrases = [d for d in store.meta_by_filter(None) if d.meta["document_type"] == "phrase"]
    assert [(d.content, d.meta["record_ids"]) for d in phrases] == [("Python engineer", ["cv-3"])]


class Elsewhere:
    """A component stand-in that waits on other processes: it lets go of the local lock while it waits."""

    def __init__(self) -> None:
        self.local_lock: LocalLock | None = None


def test_two_batches_overlap_but_local_work_never_does() -> None:
    """While one batch waits for work done elsewhere, the next runs its local part; local parts never run at once,
    batches start in order, and every batch runs once."""
    component = Elsewhere()
    log: list[str] = []
    inside = threading.Semaphore(1)

    def ingest_batch(batch: list[int]) -> None:
        assert inside.acquire(blocking=False), "two batches ran local work at once"
        log.append(f"start {batch[0]}")
        inside.release()
        lock = component.local_lock
        assert lock is not None
        lock.release()  # as ClusterDocumentEmbedder does while the cluster embeds
        time.sleep(0.05)
        lock.acquire()
        assert inside.acquire(blocking=False), "two batches ran local work at once"
        log.append(f"end {batch[0]}")
        inside.release()

    two_at_a_time([[n] for n in range(6)], ingest_batch, [component])
    starts = [entry for entry in log if entry.startswith("start")]
    assert starts == [f"start {n}" for n in range(6)]
    assert log.index("start 1") < log.index("end 0")  # batch 1 began while batch 0 waited
    assert sorted(log) == sorted([f"start {n}" for n in range(6)] + [f"end {n}" for n in range(6)])
    assert component.local_lock is None  # let go of afterwards


def test_a_failed_batch_stops_the_overlapped_ingest() -> None:
    component = Elsewhere()
    done: list[int] = []

    def ingest_batch(batch: list[int]) -> None:
        if batch[0] == 2:
            raise InvalidRecordError("batch 2 is broken")
        done.append(batch[0])

    with pytest.raises(InvalidRecordError, match="batch 2"):
        two_at_a_time([[n] for n in range(10)], ingest_batch, [component])
    assert set(done) <= {0, 1, 3} and {0, 1} <= set(done)  # what ran before (and beside) it, nothing after
    assert component.local_lock is None
