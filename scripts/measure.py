"""What every benchmark measures the same way: free ports, latency percentiles in one unit, memory, the load
average, and a served process that is always stopped (after bm25s' `utils/benchmark.py`).

Percentiles are nearest-rank on the samples as taken, in milliseconds, whatever script prints them; memory is
in MB (MiB, as /proc counts it); the load average is the kernel's (`os.getloadavg`), printed beside each figure
because the machines these run on are shared.
"""

import math
import os
import resource
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import httpx

READY = ("ready", "degraded")  # what `/health` says once a server answers calls
PERCENTILES = (50, 95, 99)


def free_port() -> int:
    """A loopback port nothing listens on now (the kernel's pick), for a server about to start."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def percentiles(samples_seconds: Sequence[float]) -> dict[str, float]:
    """`n`, `p50_ms`, `p95_ms`, `p99_ms` and `max_ms` of durations taken in seconds (`time.perf_counter`
    differences). Nearest rank: each percentile is a sample that was taken, never an interpolation."""
    if not samples_seconds:
        return {"n": 0}
    ordered = sorted(samples_seconds)

    def rank(share: float) -> float:
        return ordered[max(0, min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1))]

    figures: dict[str, float] = {"n": len(ordered)}
    figures.update({f"p{q}_ms": round(1000 * rank(q / 100), 3) for q in PERCENTILES})
    figures["max_ms"] = round(1000 * ordered[-1], 3)
    return figures


def load_average() -> list[float]:
    """The 1, 5 and 15-minute load averages, rounded to two decimals."""
    return [round(x, 2) for x in os.getloadavg()]


def memory_mb(pid: int) -> dict[str, float] | None:
    """A process's resident set (`rss_mb`, VmRSS) and its anonymous (`anon_mb`, RssAnon: the heap) and
    file-backed (`file_mb`, RssFile: the model and the shards' mapped pages) parts; None once it has gone."""
    try:
        fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        return {
            key: round(int(fields[name].split()[0]) / 1024, 1)
            for key, name in (("rss_mb", "VmRSS"), ("anon_mb", "RssAnon"), ("file_mb", "RssFile"))
        }
    except (OSError, KeyError, ValueError):
        return None


def rss_mb(pid: int | None = None, *, children: bool = False) -> float:
    """Resident memory of `pid` (this process by default), with every descendant's when `children` (a server
    that forks workers); 0 for a process that has gone."""
    total = 0.0
    pids = [os.getpid() if pid is None else pid]
    while pids:
        current = pids.pop()
        memory = memory_mb(current)
        total += memory["rss_mb"] if memory else 0.0
        if children:
            try:
                pids += [int(c) for c in Path(f"/proc/{current}/task/{current}/children").read_text().split()]
            except OSError:
                continue
    return round(total, 1)


def peak_rss_mb() -> float:
    """This process's peak resident memory so far (`ru_maxrss`)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def serve_command(port: int) -> list[str]:
    """`haygate serve --http` on `port`, with this interpreter (the checkout's code when `cwd` is a checkout)."""
    return [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)]


class Served(NamedTuple):
    url: str  # http://127.0.0.1:<port>, no trailing slash
    process: subprocess.Popen[bytes]


@contextmanager
def served(
    command: Sequence[str],
    *,
    port: int,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    log: Path | None = None,
    health: str | None = "/health",
    timeout: float = 300,
) -> Iterator[Served]:
    """Start `command` (a server listening on `port`), wait until `health` answers `ready` (or `degraded`), yield
    its URL and process, and stop it however the block ends: SIGTERM to its process group, SIGKILL after 60 s.

    `health=None` yields as soon as the process is started, for a caller that times the start itself (or a
    server without `/health`). Its stdout and stderr go to `log` (appended) or nowhere. A server that exits or
    is not ready within `timeout` seconds ends the run with its log's path."""
    with log.open("ab") if log else open(os.devnull, "wb") as sink:
        environment = None if env is None else dict(env)
        process = subprocess.Popen(
            list(command), env=environment, cwd=cwd, stdout=sink, stderr=sink, start_new_session=True
        )
    url = f"http://127.0.0.1:{port}"
    try:
        if health is not None:
            wait_until_ready(url + health, process, timeout, log)
        yield Served(url, process)
    finally:
        stop(process)


def wait_until_ready(url: str, process: subprocess.Popen[bytes], timeout: float, log: Path | None) -> None:
    deadline = time.monotonic() + timeout
    where = f": see {log}" if log else ""
    while True:
        try:
            if httpx.get(url, timeout=2).json().get("status") in READY:
                return
        except (httpx.HTTPError, ValueError):
            pass
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode} before it was ready{where}")
        if time.monotonic() > deadline:
            raise SystemExit(f"the server was not ready within {timeout:g} s{where}")
        time.sleep(0.1)


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the process's group (it runs in a session of its own), SIGKILL if it outlives 60 s."""
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(60)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(60)
    except ProcessLookupError:
        process.wait(60)
