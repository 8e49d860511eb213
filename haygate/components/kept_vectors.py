"""Document vectors kept on disk, addressed by their text: what a model embedded once it never embeds again.

An ingest embeds every chunk it writes, and most of them were embedded before: a re-ingest after the skill
vocabulary or a profile rule changed (every record's hash changes, no text does), a record edited in one
section, boilerplate that recurs across records, a second collection over the same texts. Each vector the
document embedders make (`DenseDocumentEmbedder`, `CvProfiler`'s phrases) is kept under the SHA-256 of the
exact text the model read, in one SQLite file per loaded model (`<model_cache_dir>/vectors/<model>.sqlite`,
the model's folder fingerprint in its name, so a changed model starts a file of its own). Queries are not
kept: they are not documents, and the query cache (`dense_text_embedder`) serves repeats.

It is a cache, never the only copy of anything: a file that cannot be read is started afresh, and a write that
fails (a full disk, a file another process holds too long) leaves the ingest embedding as if nothing were kept,
with one warning. Several processes may share a file (SQLite's write-ahead log). The file keeps the last
`MAX_VECTORS` vectors written (about 0.9 GB at 384 dimensions); deleting it is always safe.
`HAYGATE_KEEP_VECTORS=0` turns it off for a process: the benchmarks that time an ingest against the model's
floor, and `make eval`'s cold reproductions, embed every text.
"""

import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

MAX_VECTORS = 600_000
LOOKUP_CHUNK = 900  # keys per SELECT: under SQLite's default limit of variables
BUSY_SECONDS = 10.0  # how long a write waits for another process's
KEEP_VECTORS = "HAYGATE_KEEP_VECTORS"


def text_key(text: str) -> bytes:
    """The address of a text's vector: 16 bytes of its SHA-256."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()[:16]


class KeptVectors:
    """One model's kept vectors (float32 rows of `dimension`), by text. Thread-safe; opened on first use."""

    def __init__(self, path: Path, dimension: int) -> None:
        self.path = path
        self.dimension = dimension
        self.hits = 0  # texts served from the file, and embedded, in this process: for reports and tests
        self.misses = 0
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._failed = False

    def embed(self, texts: list[str], embed: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """One row per text: kept ones read, the others made by `embed` (called once, with those alone) and kept."""
        keys = [text_key(text) for text in texts]
        found = self._read(keys)
        missing = [i for i, key in enumerate(keys) if key not in found]
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if missing:
            made = np.asarray(embed([texts[i] for i in missing]), dtype=np.float32).reshape(len(missing), -1)
            rows = np.zeros((len(texts), made.shape[1]), dtype=np.float32)
            rows[missing] = made
            self._write([(keys[i], made[n]) for n, i in enumerate(missing)])
        for i, key in enumerate(keys):
            if key in found:
                rows[i] = found[key]
        with self._lock:
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
        return rows

    def _open(self) -> sqlite3.Connection | None:
        if self._connection is None and not self._failed:
            try:
                self._connection = _connect(self.path)
            except sqlite3.DatabaseError:  # not a database (a torn or foreign file): it only ever held copies
                self.path.unlink(missing_ok=True)
                try:
                    self._connection = _connect(self.path)
                except (OSError, sqlite3.Error) as error:
                    self._give_up(error)
            except (OSError, sqlite3.Error) as error:
                self._give_up(error)
        return self._connection

    def _read(self, keys: list[bytes]) -> dict[bytes, np.ndarray]:
        found: dict[bytes, np.ndarray] = {}
        size = self.dimension * 4
        with self._lock:
            connection = self._open()
            if connection is None:
                return found
            try:
                for start in range(0, len(keys), LOOKUP_CHUNK):
                    chunk = list(dict.fromkeys(keys[start : start + LOOKUP_CHUNK]))
                    query = f"SELECT key, vector FROM vectors WHERE key IN ({','.join('?' * len(chunk))})"
                    for key, blob in connection.execute(query, chunk):
                        if len(blob) == size:  # a row of another shape is never served
                            found[bytes(key)] = np.frombuffer(blob, dtype=np.float32)
            except sqlite3.Error as error:
                self._give_up(error)
                return {}
        return found

    def _write(self, rows: list[tuple[bytes, np.ndarray]]) -> None:
        with self._lock:
            connection = self._open()
            if connection is None or not rows:
                return
            try:
                with connection:
                    connection.executemany(
                        "INSERT OR IGNORE INTO vectors (key, vector) VALUES (?, ?)",
                        [(key, np.ascontiguousarray(row, dtype=np.float32).tobytes()) for key, row in rows],
                    )
                    connection.execute(
                        "DELETE FROM vectors WHERE rowid <= (SELECT max(rowid) FROM vectors) - ?", (MAX_VECTORS,)
                    )
            except sqlite3.Error as error:
                self._give_up(error)

    def _give_up(self, error: Exception) -> None:
        """Go on without the file for the rest of this process: the vectors are made, only not kept."""
        if not self._failed:
            logger.warning("document vectors are not kept in %s (%s); they are embedded as usual", self.path, error)
        self._failed = True
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def close(self) -> None:
        """Close the file (a test's temp dir is about to go)."""
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, timeout=BUSY_SECONDS, check_same_thread=False, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("CREATE TABLE IF NOT EXISTS vectors (key BLOB PRIMARY KEY, vector BLOB NOT NULL)")
    except sqlite3.Error:
        connection.close()
        raise
    connection.isolation_level = "DEFERRED"  # `with connection:` is a transaction from here on
    return connection


_KEPT: dict[Path, KeptVectors] = {}
_KEPT_LOCK = threading.Lock()


def kept_vectors(folder: Path, model: str, dimension: int) -> KeptVectors | None:
    """The process's one `KeptVectors` for the model whose identity is `model`, under `folder`; None when
    `HAYGATE_KEEP_VECTORS` is 0 (or false, off, no).
    """
    if os.environ.get(KEEP_VECTORS, "1").strip().lower() in ("0", "false", "off", "no"):
        return None
    path = folder / "vectors" / f"{model}.sqlite"
    with _KEPT_LOCK:
        kept = _KEPT.get(path)
        if kept is None:
            kept = _KEPT[path] = KeptVectors(path, dimension)
        return kept
