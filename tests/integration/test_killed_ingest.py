"""A killed ingest loses nothing: re-running it skips every record that already landed, and only those.

A batch's writes are several operations (a server's requests, Edge's updates: a CV's profile and its chunks come
from two writers, a long record's chunks in more than one request, a changed record's old chunks deleted first).
Here a store's batch is stopped before its Nth write operation, for every N an ingest makes, which leaves what a
process killed there leaves; the same ingest run again must index exactly the records of the batches that did not
finish, and end with the collection an uninterrupted ingest makes. One test kills a real ingest process (SIGKILL)
in the middle of a batch, on Edge, whose writes go to its write-ahead log one update at a time.
"""

import dataclasses
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores.edge import document_store as edge_store
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.hybrid import BATCH_PENDING, HybridDocumentStore
from haygate.document_stores.server.document_store import QdrantServerStore
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import Collection, ingest_records
from haygate.ingest.mapping import RECORD_HASH, RECORD_ID, SHARED_BY
from haygate.ingest.readers import SourceRecord, read_records
from tests.support.project import PROJECT, make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.filterwarnings("ignore::UserWarning")]

CVS = 4  # of samples/candidates: two batches
SAMPLED_STOPS = 3  # interruptions per case in `make test`; `make eval` tries before every write operation
WRITE_REQUEST = 8  # points: a docs batch's sections take several requests
SERVER_WRITES = frozenset(
    {"upsert", "delete", "set_payload", "overwrite_payload", "delete_payload", "batch_update_points", "update_vectors"}
)


class Interrupted(Exception):
    """Stands for the process dying before a write operation: those before it are applied, no other is."""


class Interrupting:
    """A backend's client (a server's) or shard (Edge's), passing its write operations on and counting them; the
    one numbered `stop` (from 1) raises `Interrupted` instead."""

    def __init__(self, target: Any, writes: frozenset[str], stop: int | None) -> None:
        self._target, self._writes, self._stop = target, writes, stop
        self.done = 0

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._target, name)
        if name not in self._writes:
            return attribute

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.before(self.done + 1)
            self.done += 1
            return attribute(*args, **kwargs)

        return counted

    def before(self, operation: int) -> None:
        if self._stop is not None and operation >= self._stop:
            raise Interrupted(f"before write operation {operation}")


@contextmanager
def interrupting(store: HybridDocumentStore, stop: int | None) -> Iterator[Interrupting]:
    """The store's write operations counted, and stopped at `stop` (None: never)."""
    if isinstance(store, QdrantServerStore):
        client = store._connected()
        hook = Interrupting(client, SERVER_WRITES, stop)
        store._client = hook  # type: ignore[assignment]
        try:
            yield hook
        finally:
            store._client = client
        return
    assert isinstance(store, EdgeDocumentStore)
    open_shard = store._open_shard
    shard = open_shard.shard
    hook = Interrupting(shard, frozenset({"update"}), stop)
    open_shard.shard = hook  # type: ignore[assignment]
    try:
        yield hook
    finally:
        open_shard.shard = shard


def stored(store: HybridDocumentStore) -> dict[str, tuple[Any, ...]]:
    """What a collection holds, by point: its record and hash, or the records sharing it, and any pending mark."""
    return {
        d.id: (d.meta.get(RECORD_ID), d.meta.get(RECORD_HASH), d.meta.get(SHARED_BY), d.meta.get(BATCH_PENDING))
        for d in store.meta_by_filter(None)
    }


def ingest(collection: Collection, records: list[SourceRecord], batch: int, done: list[int] | None = None) -> Any:
    return ingest_records(collection, records, batch, on_batch=None if done is None else done.append, optimize=False)


def killed_and_run_again(
    collection: Collection, before: list[SourceRecord], records: list[SourceRecord], batch: int, every: bool
) -> int:
    """Interrupt an ingest of `records` (`batch` a batch), over a collection that holds `before` (the same ids in
    the same order, or nothing), before write operations of its last batch in turn, and run it again each
    time: the second run indexes exactly the records of the batch that did not finish that `before` does not
    hold as they are, and leaves what an uninterrupted ingest leaves. `every`: before each of them (`make eval`);
    else before `SAMPLED_STOPS` spread over them, the last included (all written, the pending marks not yet
    taken off). Returns how many of the interrupted ingests left a record partly written."""
    store = collection.store
    same = (
        {i for i, (old, new) in enumerate(zip(before, records, strict=True)) if old.data == new.data}
        if before
        else set()
    )
    store.delete_all_documents()
    assert not ingest(collection, before, batch).errors
    holding = store.filter_documents()  # with their vectors: put back as they are, not indexed again

    def start_over() -> None:
        store.delete_all_documents()
        store.write_documents(holding, DuplicatePolicy.OVERWRITE)

    start_over()
    ends: list[int] = []  # the write operations done when each batch ended
    with interrupting(store, None) as counting:
        assert not ingest_records(collection, records, batch, on_batch=lambda _: ends.append(counting.done)).errors
    expected, operations = stored(store), counting.done
    assert not any(pending for *_, pending in expected.values())
    assert operations - ends[-2] > 2, "the last batch is more than two write operations"
    partly = 0
    stops = list(range(ends[-2] + 1, operations + 1))
    if not every:
        stops = sorted({stops[round(i * (len(stops) - 1) / (SAMPLED_STOPS - 1))] for i in range(SAMPLED_STOPS)})
    for stop in stops:
        start_over()
        done: list[int] = []
        with pytest.raises(Interrupted), interrupting(store, stop):
            ingest(collection, records, batch, done)
        partly += any(pending for *_, pending in stored(store).values())
        landed = sum(done)  # the records of the batches that finished
        assert landed == batch * (len(ends) - 1)
        indexed = len([i for i in range(landed, len(records)) if i not in same])
        again = ingest(collection, records, batch)
        where = f"interrupted before write operation {stop} of {operations}"
        assert (again.added + again.updated, again.unchanged) == (indexed, len(records) - indexed), where
        assert not again.errors, where
        assert stored(store) == expected, where
    return partly


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Loader]:
    with Loader(make_settings(tmp_path / "data", qdrant_url=f"local:{tmp_path / 'qdrant'}")) as loader:
        yield loader


@pytest.fixture
def edge(tmp_path: Path) -> Iterator[Loader]:
    with Loader(make_settings(tmp_path / "data")) as loader:
        yield loader


def cvs() -> list[SourceRecord]:
    return list(read_records(PROJECT / "samples" / "candidates" / "cvs.jsonl"))[:CVS]


def rewritten(records: list[SourceRecord], positions: set[int]) -> list[SourceRecord]:
    """The records with the text of those at `positions` changed (a CV that no longer says its first line)."""
    out = []
    for i, record in enumerate(records):
        data = dict(record.data or {})
        if i in positions:
            data["text"] = str(data["text"]).split("\n", 1)[-1] + "\nRewritten: leads the platform team."
        out.append(dataclasses.replace(record, data=data))
    return out


EVERY_STOP = pytest.param(True, marks=pytest.mark.eval, id="every-stop")
SOME_STOPS = pytest.param(False, id="some-stops")


@pytest.mark.parametrize("every", [SOME_STOPS, EVERY_STOP])
def test_a_killed_candidates_ingest_on_a_server_loses_nothing(server: Loader, every: bool) -> None:
    """A CV's profile (which carries its hash) and its chunks are two writers' requests, its phrases more."""
    collection = server.collection("candidates")
    assert isinstance(collection.store, QdrantServerStore)
    assert killed_and_run_again(collection, [], cvs()[:2], 1, every) > 0


@pytest.mark.eval  # `make test` stops a fresh candidates ingest on a server, and SIGKILLs a docs ingest on Edge
@pytest.mark.parametrize("every", [SOME_STOPS, EVERY_STOP])
def test_a_killed_candidates_update_on_a_server_loses_nothing(server: Loader, every: bool) -> None:
    """Changed CVs: their old chunks and phrases go first, in the same batch as the new ones."""
    collection = server.collection("candidates")
    first = cvs()[:2]
    assert killed_and_run_again(collection, first, rewritten(first, {0, 1}), 1, every) > 0


@pytest.mark.eval  # `make test` has Edge's real SIGKILL (below): these stops are the sweep over each operation
@pytest.mark.parametrize("every", [SOME_STOPS, EVERY_STOP])
@pytest.mark.parametrize("backend", ["server", "edge"])
def test_a_killed_docs_ingest_loses_nothing(
    backend: str, every: bool, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Markdown pages split into sections, a batch's sections written a few points a request (or Edge update)."""
    loader: Loader = request.getfixturevalue(backend)
    collection = loader.collection("docs")
    if isinstance(collection.store, QdrantServerStore):
        collection.store.write_batch_size = WRITE_REQUEST
    else:
        monkeypatch.setattr(edge_store, "WRITE_CHUNK", WRITE_REQUEST)
    assert killed_and_run_again(collection, [], docs_pages(), 2, every) > 0


def docs_pages() -> list[SourceRecord]:
    return [record for path in sorted((PROJECT / "samples" / "docs").glob("*.md")) for record in read_records(path)][:4]


class Dying(Interrupting):
    """Kills its process (SIGKILL: nothing flushed, nothing cleaned up) before the second write operation after
    the first batch ended."""

    def __init__(self, target: Any, writes: frozenset[str]) -> None:
        super().__init__(target, writes, None)
        self.first_batch: int | None = None  # write operations when the first batch ended

    def before(self, operation: int) -> None:
        if self.first_batch is not None and operation == self.first_batch + 2:
            os.kill(os.getpid(), signal.SIGKILL)

    def batch_done(self, _: int) -> None:
        self.first_batch = self.done if self.first_batch is None else self.first_batch


def ingest_and_die(data_dir: str) -> None:
    """In a process of its own: ingest four docs pages two a batch on Edge, and die before the second update
    of the second batch, the first one in the write-ahead log and nothing flushed."""
    edge_store.WRITE_CHUNK = WRITE_REQUEST
    with Loader(make_settings(Path(data_dir))) as loader:
        collection = loader.collection("docs")
        assert isinstance(collection.store, EdgeDocumentStore)
        open_shard = collection.store._open_shard
        hook = Dying(open_shard.shard, frozenset({"update"}))
        open_shard.shard = hook  # type: ignore[assignment]
        ingest_records(collection, docs_pages(), 2, on_batch=hook.batch_done, optimize=False)
    raise SystemExit("the ingest ended without being killed")


def test_an_edge_ingest_killed_mid_batch_loses_nothing(tmp_path: Path, edge: Loader) -> None:
    """A real kill: Edge keeps each update in its write-ahead log, so a batch is not all-or-nothing across one.
    The next process finds the killed batch's points marked, indexes its records again, and skips the first's."""
    killed = tmp_path / "killed"
    code = f"from tests.integration.test_killed_ingest import ingest_and_die; ingest_and_die({str(killed)!r})"
    died = subprocess.run([sys.executable, "-c", code], cwd=PROJECT, capture_output=True, text=True, timeout=300)
    assert died.returncode == -signal.SIGKILL, died.stderr[-2000:]

    reference = edge.collection("docs")
    edge_store.WRITE_CHUNK, written_by = WRITE_REQUEST, edge_store.WRITE_CHUNK
    try:
        assert not ingest(reference, docs_pages(), 2).errors
    finally:
        edge_store.WRITE_CHUNK = written_by
    with Loader(make_settings(killed)) as loader:
        collection = loader.collection("docs")
        left = stored(collection.store)
        assert any(pending for *_, pending in left.values())  # the second batch's first update outlived the kill
        again = ingest(collection, docs_pages(), 2)
        assert (again.added + again.updated, again.unchanged, again.errors) == (2, 2, [])
        assert stored(collection.store) == stored(reference.store)
