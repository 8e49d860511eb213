"""Servers for a test: the MCP server and the HTTP app over a gateway it built, served on a real port, and
`haygate serve` as a process."""

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from haygate.gateway.runtime import Gateway
from tests.support import PROJECT

WAIT = 120  # seconds a server start (or a command a test runs) may take here, inside the test's own budget


def mcp_for(gateway: Gateway) -> Any:
    """The MCP server over a gateway built by the test (a ready service around it)."""
    from haygate.server.mcp import build_mcp
    from haygate.server.service import GatewayService

    return build_mcp(GatewayService.serving(gateway))


def http_for(gateway: Gateway, token: str | None = None) -> Any:
    """The public HTTP app over a gateway built by the test."""
    from haygate.serve.http import build_http_app
    from haygate.server.service import GatewayService

    return build_http_app(GatewayService.serving(gateway), token)


SERVER_PORTS = range(20_000, 32_000)  # below Linux's ephemeral range (32768-60999), where clients' own ports are


def free_port() -> int:
    """A loopback port free now, for a server a test starts. Not one the kernel hands out for port 0: that range
    is also where every outgoing connection takes its source port, and one of the other worker's clients can
    take it between this check and the server's bind (a server that then fails to start)."""
    for _ in range(100):
        port = random.choice(SERVER_PORTS)
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def serve(app: Any) -> Iterator[str]:
    """Run an ASGI app with uvicorn on a free loopback port: real HTTP, for REST tests."""
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


def wait_until_ready(url: str, server: subprocess.Popen[bytes], log: Path, timeout: float = WAIT) -> None:
    """Until `/health` says the server serves (`ready`, or `degraded` with a tool left out)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and server.poll() is None:
        try:
            if httpx.get(f"{url}/health", timeout=2).json()["status"] in ("ready", "degraded"):
                return
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"the server never became ready:\n{log.read_text()[-5000:]}")


def stop(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the whole group (make and the server it started): the server stops cleanly."""
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
    server.wait(60)


@contextmanager
def served_process(data_dir: Path, host: str = "127.0.0.1", **settings: str) -> Iterator[str]:
    """`haygate serve --http` as a process over `data_dir`, with HAYGATE_* `settings` (`tier="admin"`), its
    log beside the data dir; its URL, named by `host` (a DNS-rebinding check wants `localhost`)."""
    port = free_port()
    env = {
        **os.environ,
        "HAYGATE_HOME": str(PROJECT),
        "HAYGATE_DATA_DIR": str(data_dir),
        "HAYGATE_WATCH": "false",
        **{f"HAYGATE_{name.upper()}": value for name, value in settings.items()},
    }
    log = data_dir.parent / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)],
            env=env,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
        )
    try:
        wait_until_ready(f"http://127.0.0.1:{port}", server, log)
        yield f"http://{host}:{port}"
    finally:
        stop(server)
