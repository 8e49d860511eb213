"""Points several records share (a CV phrase stored once, naming in a list every CV that says it), written by
more than one process at a time (Ray workers, an ingest beside a gateway, several gateway replicas).

A writer never writes back a list it read: two writers doing so lose each other's records, or bring back one
just removed. A shared point's holders change only by per-record operations, "add these records" (`add`) and
"remove these records" (`remove`), each a compare-and-set on the point's revision (`meta.shared_revision`, a
fresh uuid per write): read the holders and revision, compute, and write on the condition that the revision is
still the one read; a point no record holds any more is deleted on the same condition, and a point not stored
yet is inserted only if it is still absent. A conditional operation does not say whether it matched, so every
round reads the points again: those whose goal is met are done, the others (another writer got in between) are
computed again from what is stored now. No writer holds a lock across its read and its write, so one that dies
between them leaves nothing behind.

A backend supplies the reads and the conditional operations (`ConditionalWrites`), each applied atomically: a
Qdrant server applies each update operation under its shard's update lock (docs/how-to/qdrant-server.md, "Several
writers", says why that is enough, with replicas too); Edge is one process's, under its write lock.
"""

import logging
import random
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any, Protocol, TypeVar

from haystack import Document

from haygate.errors import UnavailableError

logger = logging.getLogger(__name__)

REVISION = "shared_revision"  # meta key: the point's revision, a fresh uuid per write
ATTEMPTS = 64  # rounds before giving up: each lost round means another writer's change to that point landed
BACKOFF_SECONDS = (0.001, 0.1)  # the pause before a round that follows a lost one, doubling from the first


@dataclass(frozen=True)
class Stored:
    """A shared point as stored: its holders and its revision (None: written before revisions were kept)."""

    holders: frozenset[str]
    revision: str | None


@dataclass(frozen=True)
class Change:
    """One conditional operation: on the point `document_id`, if its revision is still `revision`, set these
    keys of its meta (`meta`), or delete it (`meta` None)."""

    document_id: str
    revision: str | None
    meta: dict[str, Any] | None


class ConditionalWrites(Protocol):
    """What a backend gives `add` and `remove`; called with the store's write lock held."""

    def _shared_states(self, document_ids: list[str], field: str) -> dict[str, Stored]:
        """The stored points among these, by id."""
        ...

    def _shared_ids(self, field: str, record_ids: list[str]) -> list[str]:
        """The ids of the points whose `meta.<field>` names any of these records."""
        ...

    def _insert_absent(self, documents: list[Document]) -> None:
        """Insert each document whose point is not stored; leave a stored one as it is."""
        ...

    def _apply_if(self, changes: list[Change]) -> None:
        """Apply each change if the point's revision is the change's, each atomically, in order."""
        ...


def new_revision() -> str:
    return uuid.uuid4().hex


def holders_of(meta: dict[str, Any], field: str) -> frozenset[str]:
    return frozenset(str(record) for record in meta.get(field) or [])


def add(store: ConditionalWrites, documents: list[Document], field: str) -> None:
    """Add each document's records (`meta.<field>`) to its point's holders, inserting the point (the document,
    holding them alone) where none is stored. Two documents of one id add both their records; one naming no
    record adds nothing (no point is stored without a holder)."""
    first: dict[str, Document] = {}
    adding: dict[str, frozenset[str]] = {}
    for document in documents:
        first.setdefault(document.id, document)
        adding[document.id] = adding.get(document.id, frozenset()) | holders_of(document.meta, field)

    def plan(document_ids: list[str]) -> list[Document | Change]:
        """What each of these points still needs, as stored now: an insert or a conditional change."""
        stored = store._shared_states(document_ids, field)
        needed: list[Document | Change] = []
        for document_id in document_ids:
            now, wanted = stored.get(document_id), adding[document_id]
            if now is None:
                meta = {**first[document_id].meta, field: sorted(wanted), REVISION: new_revision()}
                needed.append(replace(first[document_id], meta=meta))
            elif not wanted <= now.holders:
                needed.append(Change(document_id, now.revision, _holding(now.holders | wanted, field)))
        return needed

    needed = _rounds(plan, [document_id for document_id, records in adding.items() if records])
    for writes in needed:
        inserts = [write for write in writes if isinstance(write, Document)]
        changes = [write for write in writes if isinstance(write, Change)]
        if inserts:
            store._insert_absent(inserts)
        if changes:
            store._apply_if(changes)


def remove(store: ConditionalWrites, record_ids: list[str], field: str) -> int:
    """Take these records off every point that names them, deleting a point none holds any more. Returns the
    points this call deleted (each point it deleted conditionally and then found gone)."""
    gone = frozenset(record_ids)
    deleting: set[str] = set()
    deleted = 0

    def plan(document_ids: list[str]) -> list[Change]:
        nonlocal deleted
        stored = store._shared_states(document_ids, field)
        checked = deleting.intersection(document_ids)
        deleted += len(checked - set(stored))
        deleting.difference_update(checked)
        needed = []
        for document_id in document_ids:
            now = stored.get(document_id)
            if now is not None and now.holders & gone:
                left = now.holders - gone
                needed.append(Change(document_id, now.revision, _holding(left, field) if left else None))
        return needed

    for changes in _rounds(plan, store._shared_ids(field, list(gone)) if gone else []):
        deleting.update(change.document_id for change in changes if change.meta is None)
        store._apply_if(changes)
    return deleted


Write = TypeVar("Write", bound=Document | Change)


def _rounds(plan: Callable[[list[str]], list[Write]], pending: list[str]) -> Iterator[list[Write]]:
    """The writes of each round, until a read finds every point's goal met. A round whose writes did not all take
    (another writer changed those points between our read and our write) is followed by a pause, then a fresh
    read of those points, so the writes after it rest on what is stored then."""
    for attempt in range(ATTEMPTS):
        needed = plan(pending)
        if needed and attempt:
            _pause(attempt, len(needed))
            needed = plan([_id_of(write) for write in needed])
        if not needed:
            return
        pending = [_id_of(write) for write in needed]
        yield needed
    left = plan(pending)  # the last round's writes, verified (and, for `remove`, counted)
    if left:
        raise _gave_up([_id_of(write) for write in left])


def _id_of(write: Document | Change) -> str:
    return write.id if isinstance(write, Document) else write.document_id


def naming(field: str, record_ids: list[str]) -> dict[str, Any]:
    """The filter of the points whose `meta.<field>` names any of these records."""
    return {"field": f"meta.{field}", "operator": "in", "value": list(record_ids)}


def condition(change: Change) -> dict[str, Any]:
    """The filter a change applies on: its point, at the revision it was computed from (None: a point written
    before revisions were kept, which has none)."""
    return {
        "operator": "AND",
        "conditions": [
            {"field": "id", "operator": "==", "value": change.document_id},
            {"field": f"meta.{REVISION}", "operator": "==", "value": change.revision},
        ],
    }


def orphaned(documents: Iterable[Document], record_ids: list[str], field: str) -> int:
    """How many of these shared points name only records among `record_ids`: those `remove` would delete now."""
    gone = frozenset(record_ids)
    return sum(1 for document in documents if holders_of(document.meta, field) <= gone)


def _holding(holders: frozenset[str], field: str) -> dict[str, Any]:
    """The meta keys a change sets: the holders (sorted, so a point reads the same however it was built) and
    a new revision."""
    return {field: sorted(holders), REVISION: new_revision()}


def _pause(attempt: int, pending: int) -> None:
    """Before a round that follows a lost one: another writer changed those points between our read and our
    write. Wait a while that doubles each time, jittered, so writers that keep meeting fall out of step."""
    if attempt == 0:
        return
    logger.debug("%d shared point(s) changed by another writer; computing them again", pending)
    low, high = BACKOFF_SECONDS
    time.sleep(random.uniform(0, min(high, low * 2 ** (attempt - 1))))


def _gave_up(pending: list[str]) -> UnavailableError:
    msg = (
        f"{len(pending)} shared point(s) kept changing under other writers for {ATTEMPTS} rounds "
        f"(first: {pending[0]}); what the others wrote stands: run this write again"
    )
    return UnavailableError(msg, {"points": pending[:10]})
