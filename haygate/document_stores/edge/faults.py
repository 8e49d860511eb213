"""What goes wrong under a Qdrant Edge shard, named before it happens or read from Edge's own error.

Edge keeps its WAL and segments in memory-mapped files. On a full filesystem a write into such a file
does not fail, it kills the process with SIGBUS, and so does merely opening a shard. So free space is
checked first: every open, write and optimisation needs what it may write plus a reserve. Edge's other
failures arrive as plain `Exception`s whose text says what happened; `translate` turns the ones about
storage into errors an operator can act on.

What Edge writes, measured on qdrant-edge-py 0.9.0 (tmpfs, which counts every page written): opening a
shard sets up its appendable segment in full, a 32 MiB chunk for the dense vectors and a 32 MiB page per
text index written whole, about 7 MiB per other payload index; a write that fills a chunk or page starts
the next 32 MiB one. So the need is mostly a function of the collection's layout, not of its size.

A manifest beside the shard (`MANIFEST`: the points at the last durable write) lets an open notice a shard that
came back with fewer points than were written, instead of serving what is left.
"""

import json
import os
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from haystack import Document

from haygate.document_stores.payload import passage_vectors
from haygate.errors import StorageError, StorageFullError, StoreDamagedError, StoreInUseError

MIB = 1024 * 1024
DEFAULT_RESERVE_BYTES = 64 * MIB  # two of Edge's 32 MiB WAL segments
CHUNK_BYTES = 32 * MIB  # a vector chunk or a text-index page, written whole when started
INDEX_BYTES = 8 * MIB  # a keyword (or other) payload index of an appendable segment
MANIFEST = "haygate-shard.json"
CONFIG = "edge_config.json"

_FULL = ("No space left on device", "os error 28", "Disk quota exceeded", "os error 122")
_UNWRITABLE = ("Read-only file system", "os error 30", "Permission denied", "os error 13")
# Edge's words for files it could not read back: what a damaged shard says when it is opened or read.
_DAMAGED = (
    "failed to load segment",
    "Failed to deserialize",
    "not readable",
    "out of bounds",
    "Inconsistent number",
    "Gridstore IO error",
    "IO Error",
    "No such file or directory",
    "Failed to open",
    "Failed to read",
    "already contains segment data",
)
_PATH = re.compile(r"(/[^\s:`'\"]+)")

REPAIR_HINT = "run `haygate repair {collection}` (it keeps the damaged copy), or delete the folder and re-ingest"


def appendable_bytes(text_fields: int, payload_indexes: int) -> int:
    """Disk an appendable segment of this layout takes the moment Edge sets it up (at open)."""
    return CHUNK_BYTES * (1 + text_fields) + INDEX_BYTES * (1 + payload_indexes) + 4 * MIB


def growth_bytes(text_fields: int) -> int:
    """Disk a write may start on top of its own size: a new vector chunk and a new page per text index."""
    return CHUNK_BYTES * (1 + text_fields)


def human(size: int) -> str:
    """Bytes as a person reads them: 512 B, 3.4 MiB, 1.2 GiB."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def free_bytes(path: Path) -> int:
    """Free space for an unprivileged writer on the filesystem that holds (or will hold) `path`."""
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    return shutil.disk_usage(existing).free


def check_space(path: Path, collection: str, action: str, needed: int, reserve: int) -> None:
    """Raise `StorageFullError` unless `path`'s filesystem has `needed + reserve` bytes free."""
    free = free_bytes(path)
    if free >= needed + reserve:
        return
    msg = (
        f"not enough disk space for collection '{collection}' in {path}: {action} needs {human(needed)} plus the "
        f"{human(reserve)} reserve (HAYGATE_DISK_RESERVE_MB), and {human(free)} is free. Free space on that "
        f"filesystem or point HAYGATE_DATA_DIR at a larger one; reads of open collections go on meanwhile."
    )
    details = {"collection": collection, "directory": str(path), "needed_bytes": needed + reserve, "free_bytes": free}
    raise StorageFullError(msg, details)


def folder_bytes(path: Path, apparent: bool = False) -> int:
    """Bytes the files under `path` occupy on disk (sparse files count what they use, not their length);
    `apparent`: their lengths, which a copy of them writes out in full."""
    return sum(p.stat().st_size if apparent else p.stat().st_blocks * 512 for p in path.rglob("*") if p.is_file())


def damaged(collection: str, path: Path, problem: str, file: Path | None = None) -> StoreDamagedError:
    where = f" ({file.relative_to(path) if file and file.is_relative_to(path) else file})" if file else ""
    msg = f"collection '{collection}' at {path} is damaged{where}: {problem}. " + REPAIR_HINT.format(
        collection=collection
    )
    details = {"collection": collection, "directory": str(path), "file": str(file) if file else None}
    return StoreDamagedError(msg, details)


def translate(error: Exception, collection: str, path: Path, action: str) -> Exception:
    """Edge's error as an operator error when it is about storage (in use, full, unwritable, damaged);
    anything else (a bug of ours, say) comes back as it was."""
    text = str(error)
    details = {"collection": collection, "directory": str(path)}
    if "WouldBlock" in text:
        msg = (
            f"collection '{collection}' is open in another process ({path}). Qdrant Edge lets one process own a "
            "shard: stop the other process (a running `haygate serve`?) and retry, or point HAYGATE_DATA_DIR "
            "elsewhere."
        )
        return StoreInUseError(msg, details)
    if any(sign in text for sign in _FULL):
        msg = f"the disk under collection '{collection}' ({path}) filled up while {action}: {text}"
        return StorageFullError(msg, details)
    if any(sign in text for sign in _UNWRITABLE):
        msg = f"collection '{collection}' cannot be written at {path} while {action}: {text}"
        return StorageError(msg, details)
    if any(sign in text for sign in _DAMAGED):
        named = _PATH.search(text)
        file = Path(named.group(1)) if named else None
        return damaged(collection, path, f"Qdrant Edge failed while {action}: {text}", file)
    return error


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest beside a shard (`MANIFEST`): its points at the last durable write, whether that write was
    clean, when, and whether the shard was optimized since; None when there is none (or it is unreadable)."""
    try:
        data = json.loads((path / MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_manifest(path: Path, points: int, clean: bool, optimized: bool | None) -> None:
    """The manifest after a change (`clean`: at a durable write; else the write time stays the last clean one's);
    `optimized` None keeps what the manifest said."""
    previous = read_manifest(path) or {}
    data = {
        "points": points,
        "clean": clean,
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "optimized": bool(previous.get("optimized", True)) if optimized is None else optimized,
    }
    if not clean and previous:
        data["written_at"] = previous.get("written_at", data["written_at"])
    temporary = path / f"{MANIFEST}.tmp"
    temporary.write_text(json.dumps(data))
    os.replace(temporary, path / MANIFEST)


def check_manifest(collection: str, path: Path, points: int) -> None:
    """A shard closed cleanly holds the points its manifest says; fewer (or more) mean segment or WAL files went."""
    manifest = read_manifest(path)
    if manifest is not None and manifest.get("clean") and points != manifest.get("points"):
        problem = (
            f"it holds {points} points where {manifest.get('points')} were written "
            f"(last durable write {manifest.get('written_at')}), so segment or WAL files are missing"
        )
        raise damaged(collection, path, problem)


def write_bytes_estimate(documents: list[Document]) -> int:
    """Disk a write will take, generously: WAL and segment copies of vectors, text and metadata."""
    total = 0
    for document in documents:
        dense = (len(document.embedding or ()) + sum(len(p) for p in passage_vectors(document) or ())) * 4
        sparse = len(document.sparse_embedding.indices) * 8 if document.sparse_embedding else 0
        text = len(document.content or "") * 4 + len(str(document.meta)) * 2
        total += 2 * (dense + sparse + text) + 512
    return total
