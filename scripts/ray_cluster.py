"""A Ray cluster of several nodes on this one machine, as `ray start` makes one, for the tests and the benchmark.

Each node is `ray start` (the head with `--head`, the others with `--address`), limited to its own CPUs, in a
session of its own: stopping a node kills every process of that session (its raylet, its workers, its actors)
and nothing else, where `ray stop` would stop every Ray on the machine. `kill_node` is a node's failure; `stop`
ends the cluster, and is always called (a context manager).
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from scripts.measure import free_port

RAY = str(Path(sys.executable).with_name("ray"))
OBJECT_STORE_BYTES = 100 * 1024 * 1024  # a node's shared-memory store: a few batches of documents in flight
START_SECONDS = 120.0
# A loopback cluster of one machine, for a test or a measurement: no token between its nodes and its clients
# (a real cluster keeps Ray's token authentication: docs/how-to/ray.md).
ENV = {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


@dataclass
class LocalCluster:
    """Nodes of one Ray cluster on this machine; `address` is what `haygate ingest --ray` joins."""

    cpus_per_node: int = 1
    temp_dir: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="hg-ray-", dir="/tmp")))
    port: int = field(default_factory=free_port)
    client_port: int = field(default_factory=free_port)  # the head's Ray Client server (`ray://`)
    sessions: list[int] = field(default_factory=list)  # one process session per node, the head first
    commands: list[list[str]] = field(default_factory=list)  # each node's `ray start` command line

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def client_address(self) -> str:
        """For a driver that is not on a node of the cluster (Ray Client)."""
        return f"ray://127.0.0.1:{self.client_port}"

    def add_node(self) -> None:
        """Start one more node (the head first) and return once `ray start` says it runs."""
        common = [
            f"--num-cpus={self.cpus_per_node}",
            "--num-gpus=0",
            f"--object-store-memory={OBJECT_STORE_BYTES}",
            "--node-ip-address=127.0.0.1",
            "--disable-usage-stats",
        ]
        if self.sessions:
            where = [f"--address={self.address}"]
        else:
            where = ["--head", f"--port={self.port}", f"--ray-client-server-port={self.client_port}"]
            where += [f"--temp-dir={self.temp_dir}", "--include-dashboard=false"]
        env = {**os.environ, **ENV}
        command = [RAY, "start", *where, *common]
        self.commands.append(command)
        starting = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,
        )
        self.sessions.append(starting.pid)
        output, _ = starting.communicate(timeout=START_SECONDS)
        if starting.returncode != 0:
            raise RuntimeError(f"ray start failed ({starting.returncode}):\n{output[-2000:]}")

    def processes(self, session: int | None = None) -> list[int]:
        """The live processes of one node (its session), or of the whole cluster."""
        wanted = set(self.sessions) if session is None else {session}
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if os.getsid(int(entry.name)) in wanted and _alive(entry):
                    found.append(int(entry.name))
            except (ProcessLookupError, PermissionError, FileNotFoundError):
                continue
        return found

    def kill_node(self, index: int) -> None:
        """A node fails: every process of it dies at once, as when its machine goes away."""
        for pid in self.processes(self.sessions[index]):
            _kill(pid)

    def stop(self) -> None:
        """Every process of every node, killed; waits until none is left, then removes the nodes' folder (their
        sockets, object spill and logs)."""
        deadline = time.monotonic() + 30
        while (left := self.processes()) and time.monotonic() < deadline:
            for pid in left:
                _kill(pid)
            time.sleep(0.2)
        if not left:
            shutil.rmtree(self.temp_dir, ignore_errors=True)


def _alive(entry: Path) -> bool:
    """Not a zombie (a dead child its parent has not waited for yet)."""
    stat = (entry / "stat").read_text()
    return stat.rpartition(")")[2].split()[0] != "Z"


def _kill(pid: int) -> None:
    with suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


@contextmanager
def local_cluster(nodes: int, cpus_per_node: int = 1) -> Iterator[LocalCluster]:
    """A cluster of `nodes` nodes of `cpus_per_node` CPUs each, stopped whatever happens."""
    cluster = LocalCluster(cpus_per_node)
    try:
        for _ in range(nodes):
            cluster.add_node()
        yield cluster
    finally:
        cluster.stop()
