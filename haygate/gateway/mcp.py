"""MCP: every served tool declaration is one MCP tool, with no code per tool.

Tools come from a provider that asks the service what it serves now, so `tools/list` is answered from the
declarations while the pipelines still load, and a reload changes the list at once. Connected clients are
told with `notifications/tools/list_changed`. Errors reach clients as the one envelope,
`{"error": {"code", "message", "details"}}`, with `isError: true`.
"""

import asyncio
import json
import logging
import threading
import weakref
from collections.abc import Sequence
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError as FastMCPNotFoundError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool, ToolResult
from mcp.server.session import ServerSession
from mcp_types import ToolAnnotations

from haygate import __version__
from haygate.errors import NotFoundError, envelope
from haygate.gateway.declarations import ToolDeclaration
from haygate.gateway.service import GatewayService

logger = logging.getLogger(__name__)


def _error_result(error: BaseException) -> ToolResult:
    _, body = envelope(error)
    return ToolResult(content=json.dumps(body), is_error=True)


class DeclaredTool(Tool):
    """An MCP tool whose schema and behaviour come from a YAML declaration."""

    service: Any

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            result = await self.service.call(self.name, arguments)
        except Exception as error:
            return _error_result(error)
        return ToolResult(content=json.dumps(result, default=str), structured_content=result)


def to_mcp_tool(service: GatewayService, declaration: ToolDeclaration) -> DeclaredTool:
    return DeclaredTool(
        name=declaration.name,
        description=declaration.description,
        parameters=declaration.input_schema(),
        output_schema=declaration.output_schema,
        annotations=ToolAnnotations(
            read_only_hint=declaration.read_only,
            destructive_hint=not declaration.read_only,
            idempotent_hint=declaration.read_only or declaration.action is not None,
            open_world_hint=False,
        ),
        service=service,
    )


class DeclaredTools(Provider):
    """The service's tools, as they are at each request (they change on reload)."""

    def __init__(self, service: GatewayService) -> None:
        super().__init__()
        self.service = service
        self._built: dict[str, tuple[ToolDeclaration, DeclaredTool]] = {}  # schemas are built once per declaration

    def _tool(self, declaration: ToolDeclaration) -> DeclaredTool:
        cached = self._built.get(declaration.name)
        if cached is None or cached[0] is not declaration:
            cached = self._built[declaration.name] = (declaration, to_mcp_tool(self.service, declaration))
        return cached[1]

    async def _list_tools(self) -> Sequence[Tool]:
        return [self._tool(d) for d in self.service.listing().values()]

    async def _get_tool(self, name: str, version: Any = None) -> Tool | None:
        declaration = self.service.listing().get(name)
        return self._tool(declaration) if declaration is not None else None


class Sessions(Middleware):
    """Remembers every connected client session with its event loop, to tell it the tool list changed."""

    def __init__(self) -> None:
        self._sessions: weakref.WeakKeyDictionary[ServerSession, asyncio.AbstractEventLoop] = (
            weakref.WeakKeyDictionary()
        )
        self._guard = threading.Lock()

    async def on_message(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        session = None
        if context.fastmcp_context is not None:
            try:
                session = context.fastmcp_context.session
            except RuntimeError:
                session = None
        if session is not None:
            with self._guard:
                self._sessions[session] = asyncio.get_running_loop()
        return await call_next(context)

    def tools_changed(self) -> None:
        """Send `notifications/tools/list_changed` to every session, from any thread."""
        with self._guard:
            targets = list(self._sessions.items())
        for session, loop in targets:
            if loop.is_closed():
                continue
            future = asyncio.run_coroutine_threadsafe(session.send_tool_list_changed(), loop)
            future.add_done_callback(_log_gone)


def _log_gone(future: Any) -> None:
    if future.exception() is not None:
        logger.debug("a client could not be told the tool list changed (gone?): %r", future.exception())


class ErrorEnvelopeMiddleware(Middleware):
    """Whatever escapes a tool (unknown tool names included) still reaches the client as the envelope."""

    async def on_call_tool(self, context: MiddlewareContext, call_next: CallNext) -> ToolResult:
        try:
            return await call_next(context)
        except FastMCPNotFoundError:
            name = getattr(context.message, "name", "?")
            return _error_result(NotFoundError(f"unknown tool '{name}'", {"tool": name}))
        except Exception as error:
            return _error_result(error)


def build_mcp(service: GatewayService) -> FastMCP:
    sessions = Sessions()
    mcp = FastMCP("haygate", version=__version__, mask_error_details=True)
    mcp.add_middleware(sessions)
    mcp.add_middleware(ErrorEnvelopeMiddleware())
    mcp.add_provider(DeclaredTools(service))
    service.on_tools_changed(sessions.tools_changed)
    return mcp
