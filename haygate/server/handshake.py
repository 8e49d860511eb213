"""The stdio handshake answered before FastMCP is imported, from what FastMCP answered last time.

Importing FastMCP and the MCP SDK is a second of a stdio server's start (their protocol types are hundreds of
pydantic models); a client launched the server and waits that long for `initialize` and `tools/list`. Both
answers are fixed by what the server is given: the project's YAML, the settings, the versions of haygate,
FastMCP and the SDK, and the client's own `initialize` request. So the front keeps, in the data dir, the
answers FastMCP gave under a key of all of that, and on a later launch with the same key answers at once,
while FastMCP imports. Every message still goes to FastMCP, in order, once it runs: its session is the one
the client talks to, and its answers to requests the front already answered are dropped. If one differs
from what the front sent (it cannot, unless the key misses something), the cache takes FastMCP's answer and a
client told an old tool list is sent `notifications/tools/list_changed`.

A first launch, a changed YAML or another client's `initialize` finds nothing kept: FastMCP answers, as
without the front, and the answers are kept for the next launch.
"""

import hashlib
import importlib.metadata
import json
import logging
import os
import queue
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, BinaryIO

from haygate import __version__

logger = logging.getLogger(__name__)

CACHE_FILE = Path(".cache") / "mcp-handshake.json"
KEPT = 16  # answers kept (one per project state and client); the oldest go first
ANSWERED = ("initialize", "tools/list")
_END = None  # what the reader queues when the client closes stdin


def project_key(settings_json: str, folders: list[Path]) -> str:
    """What the handshake's answers depend on, besides the client's requests: the project's YAML (every file
    under `folders`: configs/ and the pipelines folder), the settings, FastMCP's environment and the versions."""
    digest = hashlib.sha256()
    for version in (__version__, _version("fastmcp"), _version("mcp"), _version("mcp-types")):
        digest.update(f"{version}\0".encode())
    digest.update(settings_json.encode())
    for name, value in sorted(os.environ.items()):
        if name.startswith("FASTMCP_"):
            digest.update(f"{name}={value}\0".encode())
    for folder in folders:
        for path in sorted(folder.rglob("*")) if folder.is_dir() else []:
            if path.is_file():
                digest.update(f"{path.relative_to(folder)}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "-"


class AnswerCache:
    """The handshake answers FastMCP gave, by project key and request, in one JSON file of the data dir."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._entries: dict[str, Any] = {}
        try:
            loaded = json.loads(path.read_text())
            self._entries = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            pass  # nothing kept yet, or a file to start afresh from

    @staticmethod
    def key(project: str, method: str, params: Any, initialize: Any) -> str:
        """An answer's key: the project, the request, and (for what follows it) the session's `initialize`."""
        request = json.dumps([project, method, params, initialize], sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(request.encode()).hexdigest()

    def get(self, key: str) -> Any:
        return self._entries.get(key)

    def put(self, key: str, answer: Any) -> None:
        if self._entries.get(key) == answer:
            return
        self._entries.pop(key, None)
        self._entries[key] = answer
        while len(self._entries) > KEPT:
            del self._entries[next(iter(self._entries))]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            part = self.path.with_name(f"{self.path.name}.{os.getpid()}.part")
            part.write_text(json.dumps(self._entries))
            part.replace(self.path)
        except OSError as error:  # a full or read-only disk costs the next start its head start, nothing else
            logger.warning("could not keep the MCP handshake's answers in %s: %s", self.path, error)


class HandshakeFront:
    """Owns the process's stdin and stdout for MCP over stdio: answers `initialize` and `tools/list` from the
    cache while FastMCP imports, and hands every message on to FastMCP (`lines`, `Wire`) once it runs."""

    def __init__(self, cache: AnswerCache, project: str) -> None:
        self.cache = cache
        self.project = project
        self.inbox: queue.Queue[bytes | None] = queue.Queue()
        self._in, self._out = _claim_stdio()
        self._write_lock = threading.Lock()
        self._state_lock = threading.Lock()
        self._handed_over = False
        self._initialize: Any = None  # this session's `initialize` params, once seen
        self._from_cache = False  # the front answered this session's `initialize`
        self._listed = False  # the session's first `tools/list` was seen
        self.watched: dict[Any, tuple[str, str, bool]] = {}  # request id -> (method, cache key, answered here)

    def start(self) -> None:
        threading.Thread(target=self._read, name="haygate-stdin", daemon=True).start()

    # -- before FastMCP runs ------------------------------------------------------------------------

    def _read(self) -> None:
        for line in self._in:
            if line.strip():
                self._look_at(line)
                self.inbox.put(line)
        self.inbox.put(_END)

    def _look_at(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            return  # FastMCP tells the client what is wrong with it
        if not isinstance(message, dict) or message.get("method") not in ANSWERED or "id" not in message:
            return
        method, params = message["method"], message.get("params")
        with self._state_lock:
            first_listing = method == "tools/list" and not self._listed
            if self._handed_over and not first_listing:
                return  # FastMCP answers; the session's first listing is still kept for the next launch
            if method == "initialize":
                self._initialize = params
            elif self._initialize is None:
                return  # a request out of the handshake's order: FastMCP answers it
            else:
                self._listed = True
            key = AnswerCache.key(self.project, method, params, None if method == "initialize" else self._initialize)
            answer = None if self._handed_over else self.cache.get(key)
            here = answer is not None and (method == "initialize" or self._from_cache)
            if method == "initialize":
                self._from_cache = here
            self.watched[message["id"]] = (method, key, here)
        if here:
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": answer})

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def write(self, data: bytes) -> None:
        with self._write_lock:
            self._out.write(data)
            self._out.flush()

    # -- once FastMCP runs --------------------------------------------------------------------------

    def hand_over(self) -> None:
        """FastMCP runs: from now on it answers everything the front has not."""
        with self._state_lock:
            self._handed_over = True

    async def lines(self) -> AsyncIterator[str]:
        """What the client sent, in order, from the first line: FastMCP's stdin."""
        import anyio

        while True:
            if self.inbox.empty():
                line = await anyio.to_thread.run_sync(self.inbox.get, abandon_on_cancel=True)
            else:
                line = self.inbox.get_nowait()
            if line is _END:
                return
            yield line.decode("utf-8", errors="replace")

    def from_fastmcp(self, text: str) -> None:
        """One message FastMCP sends: passed on, unless the front answered it already; a watched answer is kept."""
        if self.watched:
            message = json.loads(text)
            watched = self.watched.pop(message.get("id"), None) if "method" not in message else None
            if watched is not None:
                method, key, answered_here = watched
                answer = message.get("result")
                kept = self.cache.get(key)
                if answer is not None:
                    self.cache.put(key, answer)
                if answered_here:  # the client has its answer: one per request
                    if kept != answer:
                        logger.warning("the kept answer to %s was out of date; FastMCP's is kept now", method)
                        if method == "tools/list":
                            self.send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
                    return
        self.write(text.encode() + (b"" if text.endswith("\n") else b"\n"))


class Wire:
    """FastMCP's stdout: each message through `HandshakeFront.from_fastmcp` (the SDK writes a line, then flushes)."""

    def __init__(self, front: HandshakeFront) -> None:
        self.front = front

    async def write(self, text: str) -> None:
        self.front.from_fastmcp(text)

    async def flush(self) -> None:
        return None


class Lines:
    """FastMCP's stdin: `async for line in Lines(front)`."""

    def __init__(self, front: HandshakeFront) -> None:
        self.front = front

    def __aiter__(self) -> AsyncIterator[str]:
        return self.front.lines()


def _claim_stdio() -> tuple[BinaryIO, BinaryIO]:
    """The wire's stdin and stdout, on private descriptors; fd 0 then reads nothing and fd 1 writes to stderr,
    so nothing a library prints can break a message (as the MCP SDK's own stdio transport does)."""
    wire_in = os.fdopen(os.dup(0), "rb")
    wire_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return wire_in, wire_out


def open_front(data_dir: Path, project: str) -> HandshakeFront:
    """The front for this server's stdio, reading already; `project` is its `project_key`.

    The tools listed here do not start the background build (FastMCP's listing of the same request does):
    Haystack's imports beside FastMCP's, on one interpreter lock, would make both later, not the first answer
    sooner."""
    front = HandshakeFront(AnswerCache(data_dir / CACHE_FILE), project)
    front.start()
    return front
