"""Two writers of one collection on the server backend, racing: CVs added, changed and deleted over phrases
they share. Each writer is a `QdrantServerStore` of its own on one folder (qdrant-client's local mode, the
stand-in for a server), with the locks of a process of its own, so only the server's per-operation atomicity
stands between them, as between two processes.

Each writer pauses after every read of the shared points (up to 2 ms), so the other's writes land between its
read and its write. The read-modify-write that phrases were written with before (read the stored list, merge,
write it back) loses CVs and brings deleted ones back under this race; the per-record compare-and-set ends
with every phrase naming exactly the CVs that say it.
"""

import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from haystack import Document
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores import shared
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.document_stores.server.document_store import QdrantServerStore

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # local mode: payload indexes have no effect

FIELD = "record_ids"
PHRASES = 12
RECORDS = 20  # per writer
ROUNDS = 30
PAUSE_SECONDS = 0.002


class Pausing(QdrantServerStore):
    """Pauses after reading shared points, as a busy writer would between its read and its write. Its first
    read also waits for the other writer's first read (`rendezvous`), so the two surely meet at least once:
    both have read, neither has written."""

    rendezvous: threading.Barrier | None = None

    def meet(self) -> None:
        if self.rendezvous is not None:
            with contextlib.suppress(threading.BrokenBarrierError):
                self.rendezvous.wait(timeout=5)
            self.rendezvous = None
        time.sleep(random.uniform(0, PAUSE_SECONDS))

    def _shared_states(self, document_ids: list[str], field: str) -> dict[str, shared.Stored]:
        states = super()._shared_states(document_ids, field)
        self.meet()
        return states


class OtherProcess(Pausing):
    """The second writer: the locks of a process of its own (`HybridDocumentStore`'s are per process)."""

    def _consistency_key(self) -> str:
        return super()._consistency_key() + "#other-process"


@dataclass
class Writer:
    """One writer's CVs: which phrases each says now, and whether it is stored."""

    name: str
    store: HybridDocumentStore
    says: dict[str, set[int]] = field(default_factory=dict)
    stored: set[str] = field(default_factory=set)


Add = Callable[[HybridDocumentStore, list[Document], set[str]], None]
Remove = Callable[[HybridDocumentStore, list[str]], None]


def per_record_add(store: HybridDocumentStore, documents: list[Document], replaced: set[str]) -> None:
    store.add_holders(documents, FIELD)


def per_record_remove(store: HybridDocumentStore, records: list[str]) -> None:
    store.remove_holders(records, FIELD)


def read_modify_write_add(store: HybridDocumentStore, documents: list[Document], replaced: set[str]) -> None:
    """What the CV profiler did before: read each phrase's stored CVs, keep those not in the batch, add the
    batch's, and write the whole list back (DocumentWriter, OVERWRITE)."""
    stored = {d.id: d.meta.get(FIELD) or [] for d in store.get_documents_by_id([d.id for d in documents])}
    assert isinstance(store, Pausing)
    store.meet()
    merged = []
    for document in documents:
        kept = [rid for rid in stored.get(document.id, ()) if rid not in replaced]
        merged.append(
            Document(
                id=document.id,
                content=document.content,
                embedding=document.embedding,
                meta={**document.meta, FIELD: sorted({*kept, *document.meta[FIELD]})},
            )
        )
    store.write_documents(merged, DuplicatePolicy.OVERWRITE)


def read_modify_write_remove(store: HybridDocumentStore, records: list[str]) -> None:
    """What `remove_records` did before: read the lists naming the records, write back what is left."""
    gone = set(records)
    naming = store.meta_by_filter(
        {"field": f"meta.{FIELD}", "operator": "in", "value": records}, fields=[f"meta.{FIELD}"]
    )
    assert isinstance(store, Pausing)
    store.meet()
    orphans = []
    for point in naming:
        left = [rid for rid in point.meta.get(FIELD) or [] if rid not in gone]
        if left:
            store.update_by_filter({"field": "id", "operator": "==", "value": point.id}, {FIELD: left})
        else:
            orphans.append(point.id)
    store.delete_documents(orphans)


def phrase_documents(says: dict[str, set[int]]) -> list[Document]:
    """What the profiler emits for a batch: each phrase its CVs say, naming those CVs alone."""
    holders: dict[int, list[str]] = {}
    for record, phrases in says.items():
        for phrase in phrases:
            holders.setdefault(phrase, []).append(record)
    return [
        Document(
            id=f"phrase:{n}",
            content=f"phrase {n}",
            meta={"document_type": "phrase", FIELD: sorted(records)},
            embedding=[1.0, float(n), 0.5],
        )
        for n, records in sorted(holders.items())
    ]


def one_round(writer: Writer, rng: random.Random, add: Add, remove: Remove) -> None:
    """An ingest batch: some CVs new, some changed (their old phrases taken off first, in the same batch), or a
    delete of some CVs."""
    absent = sorted(set(writer.says) - writer.stored)
    present = sorted(writer.stored)
    if present and rng.random() < 0.35:
        deleted = rng.sample(present, min(len(present), rng.randint(1, 4)))
        with writer.store.batch():
            remove(writer.store, deleted)
        writer.stored -= set(deleted)
        return
    new = rng.sample(absent, min(len(absent), rng.randint(0, 4)))
    changed = rng.sample(present, min(len(present), rng.randint(0, 3)))
    for record in changed:
        writer.says[record] = set(rng.sample(range(PHRASES), rng.randint(1, 5)))
    batch = {record: writer.says[record] for record in new + changed}
    with writer.store.batch():
        if changed:
            remove(writer.store, changed)
        if batch:
            add(writer.store, phrase_documents(batch), set(batch))
    writer.stored |= set(batch)


def race(writers: list[Writer], add: Add, remove: Remove, seed: int, rounds: int = ROUNDS) -> None:
    """`rounds` rounds, both writers starting each round together. With these seeds both add CVs in the first
    round, and every CV says phrase 0: their first reads meet there."""
    start = threading.Barrier(len(writers))

    def run(writer: Writer, rng: random.Random) -> None:
        for _ in range(rounds):
            start.wait()
            one_round(writer, rng, add, remove)

    with ThreadPoolExecutor(len(writers)) as pool:
        runs = [pool.submit(run, w, random.Random(seed + i)) for i, w in enumerate(writers)]
        for done in runs:
            done.result()


def truth(writers: list[Writer]) -> dict[str, list[str]]:
    """Each phrase the stored CVs say, and those CVs."""
    expected: dict[str, set[str]] = {}
    for writer in writers:
        for record in writer.stored:
            for phrase in writer.says[record]:
                expected.setdefault(f"phrase:{phrase}", set()).add(record)
    return {point: sorted(records) for point, records in expected.items()}


@dataclass
class Outcome:
    lost: int  # a stored CV missing from a phrase it says
    resurrected: int  # a deleted CV, or one no longer saying a phrase, still named by it
    empty_left: int  # points naming no CV that were not deleted


def compare(store: HybridDocumentStore, expected: dict[str, list[str]]) -> Outcome:
    stored = {d.id: set(d.meta.get(FIELD) or []) for d in store.meta_by_filter(None)}
    lost = sum(len(set(records) - stored.get(point, set())) for point, records in expected.items())
    resurrected = sum(len(records - set(expected.get(point, []))) for point, records in stored.items())
    return Outcome(lost, resurrected, sum(1 for records in stored.values() if not records))


@pytest.fixture
def writers(tmp_path: Path) -> Iterator[list[Writer]]:
    """Two writers of one collection, each with its own CVs, each CV saying a few of the shared phrases."""
    rng = random.Random(7)
    made = []
    rendezvous = threading.Barrier(2)
    for name, kind in (("a", Pausing), ("b", OtherProcess)):
        store = kind("candidates", f"local:{tmp_path}", embedding_dim=3, payload_indexes={f"meta.{FIELD}": "keyword"})
        store.rendezvous = rendezvous
        says = {f"cv-{name}{i}": {0, *rng.sample(range(PHRASES), rng.randint(1, 5))} for i in range(RECORDS)}
        made.append(Writer(name, store, says))
    yield made
    for writer in made:
        writer.store.close()


def test_per_record_writes_lose_nothing_and_bring_nothing_back(
    writers: list[Writer], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger=shared.__name__)
    race(writers, per_record_add, per_record_remove, seed=11)
    expected = truth(writers)
    store = writers[0].store
    assert compare(store, expected) == Outcome(lost=0, resurrected=0, empty_left=0)
    assert {d.id: sorted(d.meta[FIELD]) for d in store.meta_by_filter(None)} == expected  # and no other point
    assert len(expected) > 1 and min(len(records) for records in expected.values()) >= 1
    conflicts = [r for r in caplog.records if "changed by another writer" in r.getMessage()]
    assert conflicts, "the writers never met: this race proved nothing"


def test_the_read_modify_write_it_replaced_loses_updates_under_the_same_race(writers: list[Writer]) -> None:
    """One round is enough: both read phrase 0 unstored, and the list written last drops the other's CVs."""
    race(writers, read_modify_write_add, read_modify_write_remove, seed=11, rounds=1)
    outcome = compare(writers[0].store, truth(writers))
    assert outcome.lost >= 3, outcome
