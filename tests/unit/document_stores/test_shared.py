"""Shared points change by per-record operations, each a compare-and-set on the point's revision: on Edge and
on the server backend (qdrant-client's local mode on a folder), real stores in temp dirs."""

import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from haystack import Document
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores import shared
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.document_stores.server.document_store import QdrantServerStore
from haygate.errors import UnavailableError

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # local mode: payload indexes have no effect

FIELD = "record_ids"
INDEXES = {f"meta.{FIELD}": "keyword"}


def phrase(n: int, *records: str) -> Document:
    return Document(
        id=f"p{n}",
        content=f"phrase {n}",
        meta={"document_type": "phrase", FIELD: list(records)},
        embedding=[1.0, float(n), 0.0],
    )


def holders(store: HybridDocumentStore) -> dict[str, list[str]]:
    return {d.id: d.meta[FIELD] for d in store.meta_by_filter(None)}


class OtherProcess(QdrantServerStore):
    """The collection as a second process holds it: its own locks (a process's read/write lock is per
    process), the same server (the folder's one local client)."""

    def _consistency_key(self) -> str:
        return super()._consistency_key() + "#other-process"


Server = Callable[..., QdrantServerStore]


@pytest.fixture
def server() -> Iterator[Server]:
    """Makes server-backend stores of a folder (`kind`: the class, for a writer that behaves as another process
    would); closes them all at the end."""
    made: list[QdrantServerStore] = []

    def make(folder: Path, kind: type[QdrantServerStore] = QdrantServerStore) -> QdrantServerStore:
        made.append(kind("t", f"local:{folder}", embedding_dim=3, payload_indexes=INDEXES))
        return made[-1]

    yield make
    for store in made:
        store.close()


@pytest.fixture(params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path: Path, server: Server) -> Iterator[HybridDocumentStore]:
    made: HybridDocumentStore
    if request.param == "edge":
        made = EdgeDocumentStore("t", str(tmp_path), embedding_dim=3, payload_indexes=INDEXES)
        yield made
        made.close()
    else:
        yield server(tmp_path / "q")


def test_adding_merges_with_what_is_stored(store: HybridDocumentStore) -> None:
    assert store.add_holders([phrase(1, "cv-b"), phrase(2, "cv-b")], FIELD) == 2
    [before] = store.get_documents_by_id(["p1"])
    assert store.add_holders([phrase(1, "cv-a"), phrase(1, "cv-c")], FIELD) == 1  # one id twice: both added
    [after] = store.get_documents_by_id(["p1"])
    assert holders(store) == {"p1": ["cv-a", "cv-b", "cv-c"], "p2": ["cv-b"]}
    assert after.content == "phrase 1" and after.meta["document_type"] == "phrase"
    assert before.meta[shared.REVISION] != after.meta[shared.REVISION]  # every write a new revision
    store.add_holders([phrase(1, "cv-a"), phrase(3)], FIELD)  # already there, and no holder: nothing is written
    assert store.get_documents_by_id(["p1"])[0].meta[shared.REVISION] == after.meta[shared.REVISION]
    assert store.get_documents_by_id(["p3"]) == []


def test_removing_takes_records_off_and_deletes_the_points_left_empty(store: HybridDocumentStore) -> None:
    store.add_holders([phrase(1, "cv-a", "cv-b"), phrase(2, "cv-a"), phrase(3, "cv-c")], FIELD)
    assert store.remove_holders(["cv-a", "cv-x"], FIELD) == 1  # p2 had cv-a alone
    assert holders(store) == {"p1": ["cv-b"], "p3": ["cv-c"]}
    assert store.remove_holders(["cv-x"], FIELD) == 0 and store.remove_holders([], FIELD) == 0


def test_a_batch_counts_when_called_and_applies_in_order_at_its_end(store: HybridDocumentStore) -> None:
    """Ingest's changed record: its old membership is removed, then its new phrases added, in one batch."""
    store.add_holders([phrase(1, "cv-a", "cv-b"), phrase(2, "cv-a")], FIELD)
    with store.batch():
        assert store.remove_holders(["cv-a"], FIELD) == 1  # p2, counted from what is stored now
        store.add_holders([phrase(2, "cv-a"), phrase(3, "cv-a")], FIELD)
        assert holders(store) == {"p1": ["cv-a", "cv-b"], "p2": ["cv-a"]}  # nothing applied yet
    assert holders(store) == {"p1": ["cv-b"], "p2": ["cv-a"], "p3": ["cv-a"]}


def test_a_point_written_before_revisions_were_kept_is_changed_too(store: HybridDocumentStore) -> None:
    """A collection ingested by a version that wrote the whole list (DocumentWriter, OVERWRITE)."""
    store.write_documents([phrase(1, "cv-a", "cv-b"), phrase(2, "cv-a")], DuplicatePolicy.OVERWRITE)
    store.add_holders([phrase(1, "cv-c")], FIELD)
    assert store.remove_holders(["cv-a"], FIELD) == 1
    assert holders(store) == {"p1": ["cv-b", "cv-c"]}


class Dies(QdrantServerStore):
    """A writer whose process dies between its read and its conditional write."""

    def _apply_if(self, changes: list[shared.Change]) -> None:
        raise KeyboardInterrupt


class Interrupted(OtherProcess):
    """A writer that another process (`rival`) gets ahead of, between its first read and its write."""

    rival: HybridDocumentStore
    rival_adds: list[Document]
    reads = 0

    def _shared_states(self, document_ids: list[str], field: str) -> dict[str, shared.Stored]:
        states = super()._shared_states(document_ids, field)
        self.reads += 1
        if self.reads == 1:
            self.rival.add_holders(self.rival_adds, field)
        return states


def test_a_writer_that_dies_between_read_and_write_leaves_nothing_behind(tmp_path: Path, server: Server) -> None:
    first = server(tmp_path)
    first.add_holders([phrase(1, "cv-a")], FIELD)
    dying = server(tmp_path, Dies)
    with pytest.raises(KeyboardInterrupt):
        dying.remove_holders(["cv-a"], FIELD)
    assert holders(first) == {"p1": ["cv-a"]}  # unchanged, and nothing held: the next writer goes ahead
    first.add_holders([phrase(1, "cv-b")], FIELD)
    assert holders(first) == {"p1": ["cv-a", "cv-b"]}


@pytest.mark.parametrize(
    ("stored", "ours", "theirs", "expected"),
    [
        # both add to one stored point: the later conditional write misses, and is computed again
        ([phrase(1, "cv-a")], ("add", [phrase(1, "cv-b")]), [phrase(1, "cv-c")], {"p1": ["cv-a", "cv-b", "cv-c"]}),
        # we remove the last holder, they add one meanwhile: the delete misses, the point keeps theirs
        ([phrase(1, "cv-a")], ("remove", ["cv-a"]), [phrase(1, "cv-c")], {"p1": ["cv-c"]}),
        # both insert a point no one stored: theirs lands first, ours becomes a merge
        ([], ("add", [phrase(1, "cv-b")]), [phrase(1, "cv-c")], {"p1": ["cv-b", "cv-c"]}),
    ],
)
def test_a_write_another_process_got_ahead_of_is_done_again(
    tmp_path: Path,
    server: Server,
    caplog: pytest.LogCaptureFixture,
    stored: list[Document],
    ours: Any,
    theirs: Any,
    expected: Any,
) -> None:
    caplog.set_level(logging.DEBUG, logger=shared.__name__)
    them = server(tmp_path)
    if stored:
        them.add_holders(stored, FIELD)
    us = server(tmp_path, Interrupted)
    assert isinstance(us, Interrupted)
    us.rival, us.rival_adds = them, theirs
    operation, argument = ours
    if operation == "add":
        us.add_holders(argument, FIELD)
    else:
        assert us.remove_holders(argument, FIELD) == 0  # the point it meant to delete is theirs now
    assert holders(them) == expected
    assert us.reads == 4  # read and wrote (and lost), read to verify, read again after a pause and wrote, verified
    assert "changed by another writer" in caplog.text


class AlwaysPreempted(OtherProcess):
    """Another process changes the point between every read and write of ours."""

    rival: HybridDocumentStore
    reads = 0

    def _shared_states(self, document_ids: list[str], field: str) -> dict[str, shared.Stored]:
        states = super()._shared_states(document_ids, field)
        self.reads += 1
        self.rival.add_holders([phrase(1, f"cv-{len(self.rival.meta_by_filter(None)[0].meta[field])}")], field)
        return states


def test_a_writer_preempted_every_round_gives_up_and_says_so(
    tmp_path: Path, server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shared, "ATTEMPTS", 4)
    them = server(tmp_path)
    them.add_holders([phrase(1, "cv-a")], FIELD)
    us = server(tmp_path, AlwaysPreempted)
    assert isinstance(us, AlwaysPreempted)
    us.rival = them
    with pytest.raises(UnavailableError, match="kept changing under other writers for 4 rounds"):
        us.remove_holders(["cv-a"], FIELD)
    assert "cv-a" in holders(them)["p1"]  # ours never landed; theirs all did
    assert len(holders(them)["p1"]) == 1 + us.reads and us.reads > 4
