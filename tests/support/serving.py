"""Servers for a test: the MCP server and the HTTP app over a gateway it built, served on a real port."""

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from haygate.gateway.runtime import Gateway


def mcp_for(gateway: Gateway) -> Any:
    """The MCP server over a gateway built by the test (a ready service around it)."""
    from haygate.server.mcp import build_mcp
    from haygate.server.service import GatewayService

    return build_mcp(GatewayService.serving(gateway))


def http_for(gateway: Gateway, token: str | None = None) -> Any:
    """The public HTTP app over a gateway built by the test."""
    from haygate.server.http import build_http_app
    from haygate.server.service import GatewayService

    return build_http_app(GatewayService.serving(gateway), token)


def free_port() -> int:
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
