"""Running the server: MCP over stdio or HTTP, the local API on a Unix socket, reloads, signals.

Everything runs in one event loop: the public transport, the local API the `haygate` command uses while
the server holds the data dir, and the watcher that reloads on YAML changes. SIGHUP reloads; SIGINT and
SIGTERM stop cleanly (the endpoint file is removed, the shards are flushed and closed).
"""

import contextlib
import logging
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import anyio
import uvicorn
from fastmcp import FastMCP

from haygate.compat.fastmcp import lifespan, sdk_server
from haygate.serve.http import LOOPBACK, build_http_app, build_local_app
from haygate.serve.ports import UVICORN_STARTUP_FAILURE, port_taken
from haygate.server.endpoint import Endpoint, claim_data_dir, remove_endpoint, socket_path, write_endpoint
from haygate.server.handshake import HandshakeFront, Lines, Wire
from haygate.server.mcp import build_mcp
from haygate.server.service import GatewayService

logger = logging.getLogger(__name__)


class _Server(uvicorn.Server):
    """uvicorn without its own signal handling: this module handles signals for every server at once."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def serve(
    service: GatewayService,
    transport: Literal["stdio", "http"],
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    front: HandshakeFront | None = None,
) -> None:
    """Serve until stopped. `front`: over stdio, the one that owns stdin and stdout and may have answered the
    handshake already (`haygate.server.handshake`)."""
    # HTTP runs on uvloop, and uvicorn parses with httptools (both installed): the event loop and the HTTP
    # parsing are most of what a REST call costs beside the pipeline. No WebSockets are served (`ws="none"`):
    # nor is their library imported at start.
    try:
        anyio.run(
            _serve, service, transport, host, port, token, front, backend_options={"use_uvloop": transport == "http"}
        )
    except* SystemExit as exits:  # uvicorn's own word on a port taken since the check: it logged why, and exits 3
        if transport == "http" and any(getattr(e, "code", None) == UVICORN_STARTUP_FAILURE for e in exits.exceptions):
            raise port_taken(host, port) from None
        raise


async def _serve(
    service: GatewayService,
    transport: Literal["stdio", "http"],
    host: str,
    port: int,
    token: str | None,
    front: HandshakeFront | None,
) -> None:
    settings = service.settings
    data_dir = Path(settings.data_dir)
    claim_data_dir(data_dir)
    local_socket = socket_path(data_dir)
    local_socket.unlink(missing_ok=True)
    local = _Server(
        uvicorn.Config(build_local_app(service), uds=str(local_socket), log_level="warning", lifespan="off", ws="none")
    )
    public: _Server | None = None
    if transport == "http":
        if not token and host not in LOOPBACK:
            logger.warning("binding %s without HAYGATE_TOKEN: anyone who can reach this port can call every tool", host)
        public = _Server(
            uvicorn.Config(build_http_app(service, token, host), host=host, port=port, log_level="warning", ws="none")
        )
    url = f"http://{host}:{port}" if public is not None else None
    try:
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(local.serve)
            tasks.start_soon(_handle_signals, service, tasks.cancel_scope, [s for s in (local, public) if s])
            if settings.watch:
                tasks.start_soon(service.watch)
            while not local.started:
                await anyio.sleep(0.01)
            os.chmod(local_socket, 0o600)
            write_endpoint(data_dir, Endpoint(os.getpid(), str(local_socket), url))
            if public is not None:
                auth = "bearer token required" if token else "no token (set HAYGATE_TOKEN to require one)"
                logger.info("MCP at %s/mcp, REST at /api/tools/{name}; %s", url, auth)
                await public.serve()
            elif front is not None:
                await _run_stdio(build_mcp(service), front)
            else:
                await build_mcp(service).run_stdio_async(show_banner=False)
            tasks.cancel_scope.cancel()
    finally:
        remove_endpoint(data_dir, os.getpid())
        local_socket.unlink(missing_ok=True)
        closing = time.monotonic()
        service.close()
        logger.info("stopped: stores flushed and closed in %.2f s", time.monotonic() - closing)


async def _run_stdio(mcp: FastMCP, front: HandshakeFront) -> None:
    """`FastMCP.run_stdio_async`, on the front's stdin and stdout rather than the process's own."""
    from fastmcp.server.context import reset_transport, set_transport
    from mcp.server.stdio import stdio_server

    token = set_transport("stdio")
    try:
        async with lifespan(mcp), stdio_server(Lines(front), Wire(front)) as (read, write):  # type: ignore[arg-type]
            front.hand_over()
            server = sdk_server(mcp)
            await server.run(read, write, server.create_initialization_options())
    finally:
        reset_transport(token)


async def _handle_signals(service: GatewayService, scope: anyio.CancelScope, servers: list[_Server]) -> None:
    with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM, signal.SIGHUP) as signals:
        async for received in signals:
            if received == signal.SIGHUP:
                logger.info("SIGHUP: reloading")
                await anyio.to_thread.run_sync(service.reload)
                continue
            logger.info("stopping (%s)", signal.Signals(received).name)
            for server in servers:
                server.should_exit = True  # the public server finishes its requests, then `_serve` ends
            if len(servers) == 1:
                scope.cancel()  # stdio: nothing to finish
            return
