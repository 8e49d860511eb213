"""A shard's indexes built in another process while this one serves (`build_aside`), and the heap the build
freed handed back (`return_freed_memory`). The child's side is `haygate.document_stores.edge.build`."""

import ctypes
import ctypes.util
import functools
import json
import logging
import os
import shutil
import subprocess
import sys
import threading
import time
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

import qdrant_edge as qe

from haygate.document_stores.edge.faults import folder_bytes
from haygate.document_stores.hybrid import ReadWriteLock
from haygate.errors import StorageError

logger = logging.getLogger(__name__)

BUILDING = ".building"  # in the data dir: copies of shards whose indexes another process builds


class Held(Protocol):
    """The open shard as a build sees it (`EdgeDocumentStore`'s `OpenShard`)."""

    shard: qe.EdgeShard
    dirty: bool
    writes: int
    building: threading.Lock


class Building(Protocol):
    """What a build aside asks of the store whose shard it builds (`EdgeDocumentStore`)."""

    collection: str

    @property
    def path(self) -> Path: ...

    @property
    def _open_shard(self) -> Held: ...

    @property
    def _lock(self) -> ReadWriteLock: ...

    def exists(self) -> bool: ...

    def to_dict(self) -> dict[str, Any]: ...

    def _check_space(self, action: str, needed: int) -> None: ...

    def _edge(self, action: str) -> AbstractContextManager[None]: ...

    def _open(self) -> qe.EdgeShard: ...

    def _write_manifest(self, shard: qe.EdgeShard, clean: bool, optimized: bool | None = None) -> None: ...


def return_freed_memory() -> None:
    """Give the heap that an index build freed back to the system (glibc keeps it otherwise): a server's
    memory after a build would otherwise stay at the build's peak (docs/results/benchmarks.md has the figures)."""
    libc = _libc()
    if libc is not None:
        libc.malloc_trim(0)


@functools.cache
def _libc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None  # glibc only (not musl, not macOS)


def build_aside(store: Building, stop: threading.Event | None = None) -> bool:
    """`optimize()`, in another process, while this one goes on answering: the engine holds the GIL for the whole of
    a build (tens of seconds for a large collection: docs/results/benchmarks.md), so a server never builds in its
    own process.

    The shard is copied (writers wait for the copy, readers do not), a child process
    (`haygate.document_stores.edge.build`) optimizes the copy, and the built copy takes the shard's place
    under the write lock: reads meanwhile search the segments as they are, unindexed and slower. A write
    during the build makes the copy stale: it is dropped (False), and the next pause in writes builds
    again. The copy needs the shard's size free on disk again, checked before it is made. `stop`, once
    set, ends the build at once wherever it is (the child is killed): False, the shard as it was, still
    to be built."""
    if not store.exists():
        return False
    open_shard = store._open_shard
    folder = store.path.parent / BUILDING
    copy, old = folder / store.collection, folder / f"{store.collection}.old"
    with open_shard.building:
        for leftover in (copy, old):  # of a build killed with its server
            shutil.rmtree(leftover, ignore_errors=True)
        started = time.perf_counter()
        with store._lock.reading():
            generation = open_shard.writes
            needed = folder_bytes(store.path, apparent=True) + folder_bytes(store.path)  # the copy, then its build
            store._check_space("copying the shard to build its indexes", needed)
            with store._edge("copying the shard to build its indexes"):
                # No flush first (it holds the GIL for about 0.5 s): every write was made durable in the
                # WAL when it was made, and the copy opens as a shard does after a crash, replaying it.
                shutil.copytree(store.path, copy)
        copied = time.perf_counter()
        try:
            if not _build_in_child(store, folder, stop or threading.Event()):
                return False
            built = time.perf_counter()
            with store._lock.writing():
                if open_shard.writes != generation:
                    return False
                replaced = _swap_in(store, open_shard, copy, old)
            with store._edge("closing the shard the built one replaced"):
                replaced.close()
            logger.info(
                "'%s': shard copied in %.2f s, built aside in %.1f s, swapped in in %.2f s",
                store.collection,
                copied - started,
                built - copied,
                time.perf_counter() - built,
            )
        finally:
            for leftover in (copy, old):
                shutil.rmtree(leftover, ignore_errors=True)
    return_freed_memory()
    return True


def _build_in_child(store: Building, folder: Path, stop: threading.Event) -> bool:
    """Optimize the copy in `folder` in a child process; False when `stop` was set first (the child is
    killed as soon as it is)."""
    if stop.is_set():
        return False
    described = store.to_dict()
    described["init_parameters"]["data_dir"] = str(folder)
    child = subprocess.Popen(
        [sys.executable, "-m", "haygate.document_stores.edge.build"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert child.stdin is not None and child.stderr is not None
    child.stdin.write(json.dumps(described).encode())
    child.stdin.close()
    while child.poll() is None:
        if stop.wait(0.05):
            child.kill()
            child.wait()
            child.stderr.close()
            return False
    errors = child.stderr.read()
    child.stderr.close()
    if child.returncode != 0:
        why = errors.decode(errors="replace").strip().splitlines()[-1:] or [f"exit status {child.returncode}"]
        msg = f"building the indexes of '{store.collection}' in another process failed: {why[0]}"
        raise StorageError(msg, {"collection": store.collection})
    return True


def _swap_in(store: Building, open_shard: Held, copy: Path, old: Path) -> qe.EdgeShard:
    """With the write lock held: the built copy becomes the shard (the shard as it was comes back if the
    copy will not open). Returns the shard it replaced, still open, for the caller to close once the lock
    is released: no search reads it any more, and closing it holds the GIL too."""
    replaced = open_shard.shard
    with store._edge("swapping in the built shard"):
        os.replace(store.path, old)  # the open shard reads its files by handle: renaming leaves them be
        os.replace(copy, store.path)
        try:
            open_shard.shard = store._open()
        except Exception:
            os.replace(store.path, copy)
            os.replace(old, store.path)
            raise
        open_shard.dirty = False
        store._write_manifest(open_shard.shard, clean=True, optimized=True)
    return replaced
