"""Writes through a running gateway: records upserted or deleted by id, with the collection's own ingest.

The same mapping, change detection and indexing pipeline as `haygate ingest`, so a record written here is
the record the CLI would have written. Writes to one collection are serialised; each request's records
become visible together and durably (`store.batch()`) before the answer says what happened to each.
"""

import logging
import os
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from haygate.compat import torch_loaded
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.errors import InvalidRequestError
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import Collection, delete_records, ingest_records
from haygate.ingest.readers import SourceRecord, as_source_record

logger = logging.getLogger(__name__)


@contextmanager
def every_core() -> Iterator[None]:
    """Embed a write with every core, as `haygate ingest` does, though the server queries with one thread.
    PyTorch's OpenMP thread count belongs to the calling thread: the threads serving queries keep theirs.
    Where torch never loaded (the ONNX runtime sizes its own threads) there is nothing to do."""
    if not torch_loaded():
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Writer:
    """Upserts and deletes for every collection a loader knows.

    A written collection is optimized (segments merged, indexes built) once its writes pause for
    `optimize_after` seconds, not after every request as a bulk ingest is; in another process
    (`optimize_aside`), so no call waits for the build. A writer that closes leaves it to the next server.
    """

    def __init__(self, loader: Loader, optimize_after: float = 2.0) -> None:
        self.loader = loader
        self.optimize_after = optimize_after
        self._collections: dict[str, Collection] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._pending: dict[str, threading.Timer] = {}
        # collection -> the thread building its indexes aside, and what stops it
        self._building: dict[str, tuple[threading.Thread, threading.Event]] = {}
        self._closed = False
        self._guard = threading.Lock()

    def _collection(self, name: str) -> tuple[Collection, threading.Lock]:
        with self._guard:
            if name not in self._collections:
                collection = self.loader.collection(name)  # NotFoundError lists the declared ones
                collection.indexing.warm_up()
                self._collections[name] = collection
            return self._collections[name], self._locks.setdefault(name, threading.Lock())

    def _store(self, name: str) -> tuple[HybridDocumentStore, threading.Lock]:
        """A collection's store and write lock alone: a delete needs no indexing pipeline, and so no model."""
        with self._guard:
            return self.loader.store(name), self._locks.setdefault(name, threading.Lock())

    def upsert(self, collection: str, records: Iterable[Any], source: str = "request") -> dict[str, Any]:
        """Each record is a JSON object (or a SourceRecord already read), mapped as the collection declares;
        `source` names them in reasons."""
        target, lock = self._collection(collection)
        items = [
            record if isinstance(record, SourceRecord) else as_source_record(source, number, record)
            for number, record in enumerate(records, start=1)
        ]
        with lock, every_core():
            report = ingest_records(target, items, optimize=False)
        if report.written:
            self._optimize_later(collection)
        return report.as_dict()

    def delete(self, collection: str, ids: list[str]) -> dict[str, Any]:
        """Delete records, all their chunks, by record id; ids that are not there are listed, not an error."""
        if not ids or not all(isinstance(i, str) and i for i in ids):
            raise InvalidRequestError("ids must be a non-empty list of record ids (strings)", {"field": "ids"})
        store, lock = self._store(collection)
        with lock, store.batch():
            points, missing = delete_records(store, ids)
        return {"collection": collection, "deleted": len(ids) - len(missing), "points": points, "missing": missing}

    def _optimize_later(self, name: str) -> None:
        with self._guard:
            if name in self._pending:
                self._pending[name].cancel()
            timer = self._pending[name] = threading.Timer(self.optimize_after, self._optimize, args=(name,))
            timer.daemon = True
            timer.start()

    def _optimize(self, name: str) -> None:
        """Build the collection's indexes aside (`optimize_aside`): calls and writes go on meanwhile; a write
        during the build starts another timer, and with it the next build."""
        stop = threading.Event()
        with self._guard:
            self._pending.pop(name, None)
            collection = self._collections[name]
            if self._closed:
                return
            self._building[name] = (threading.current_thread(), stop)
        started = time.perf_counter()
        try:
            built = collection.store.optimize_aside(stop)
            took = time.perf_counter() - started
            if built:
                logger.info("'%s': indexes built in %.1f s, in another process", name, took)
            elif stop.is_set():
                logger.info("'%s': the index build was stopped; the next server builds it", name)
            else:
                logger.info("'%s' was written while its indexes were built (%.1f s): building again", name, took)
        except Exception as error:  # an optimize that fails (or is stopped) leaves a slower, never a wrong, collection
            logger.warning("building the indexes of '%s' did not finish: %s", name, error)
        finally:
            with self._guard:
                self._building.pop(name, None)

    def building(self) -> list[str]:
        """Collections whose indexes are being built now (calls read them unindexed meanwhile)."""
        with self._guard:
            return sorted(self._building)

    def optimize_soon(self, name: str) -> None:
        """Build `name`'s indexes in the background (an ingest that did not wait left it to the server);
        queries keep being answered meanwhile, from the segments as they are."""
        self._collection(name)
        self._optimize_later(name)

    def close(self) -> None:
        """Stop waiting to optimize: what was written is durable, and its shard's manifest says it still
        needs optimizing, so the next server does it. Stopping never starts an HNSW build; one already
        running aside is stopped (the shard stays as it was, still to be built), and a write is let finish,
        so the stores close after them and not under them."""
        with self._guard:
            self._closed = True  # a timer that fires now starts nothing
            waiting = list(self._pending.values())
            self._pending.clear()
            locks = list(self._locks.values())
            building = list(self._building.values())
        for timer in waiting:
            timer.cancel()
        for _, stop in building:
            stop.set()
        for thread, _ in building:
            thread.join()
        for lock in locks:
            with lock:
                pass

    def perform(self, action: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A declared action tool's call (`upsert_records`, `delete_records`)."""
        if action == "upsert_records":
            return self.upsert(arguments["collection"], arguments["records"])
        return self.delete(arguments["collection"], arguments["ids"])
