"""Where a running server can be reached by the `haygate` command on the same machine.

A server writes `<data dir>/.haygate-server.json` while it runs: its pid, the Unix socket of its local API
and its public URL, if any. Before it opens a shard, the CLI looks here; a file whose process is gone is
stale and ignored, so a killed server never locks the CLI out.
"""

import hashlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from haygate.errors import StoreInUseError

ENDPOINT_FILE = ".haygate-server.json"


@dataclass(frozen=True)
class Endpoint:
    pid: int
    socket: str  # the local API's Unix socket
    url: str | None  # the public HTTP URL, when serving HTTP


def endpoint_path(data_dir: Path) -> Path:
    return Path(data_dir) / ENDPOINT_FILE


def socket_path(data_dir: Path) -> Path:
    """A short path (Unix sockets allow about 100 bytes), one per data dir."""
    digest = hashlib.sha256(str(Path(data_dir).resolve()).encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"haygate-{digest}.sock"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_endpoint(data_dir: Path) -> Endpoint | None:
    """The endpoint of a live server on this data dir, or None (no file, or its process is gone)."""
    path = endpoint_path(data_dir)
    try:
        endpoint = Endpoint(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    return endpoint if endpoint.pid != os.getpid() and alive(endpoint.pid) else None


def write_endpoint(data_dir: Path, endpoint: Endpoint) -> None:
    path = endpoint_path(data_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    scratch = path.with_suffix(".tmp")
    scratch.write_text(json.dumps(asdict(endpoint)))
    os.chmod(scratch, 0o600)
    scratch.replace(path)


def remove_endpoint(data_dir: Path, pid: int) -> None:
    """Remove the file if it is still this process's (a newer server may have replaced it)."""
    path = endpoint_path(data_dir)
    try:
        if json.loads(path.read_text()).get("pid") == pid:
            path.unlink()
    except (OSError, ValueError):
        pass


def claim_data_dir(data_dir: Path) -> None:
    """One server per data dir: a second one would fight the first for every shard."""
    running = read_endpoint(data_dir)
    if running is not None:
        where = running.url or f"unix:{running.socket}"
        msg = f"a haygate server (pid {running.pid}) already serves {data_dir} at {where}; use it, or stop it first"
        raise StoreInUseError(msg, {"pid": running.pid})
