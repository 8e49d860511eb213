"""MCP: every served tool declaration is one MCP tool, with no code per tool.

Tools come from a provider that asks the service what it serves now, so `tools/list` is answered from the
declarations while the pipelines still load, and a reload changes the list at once. Connected clients are
told with `notifications/tools/list_changed`. Errors reach clients as the one envelope,
`{"error": {"code", "message", "details"}}`, with `isError: true`.
"""

import asyncio
import concurrent.futures
import json
import logging
import weakref
from collections.abc import Sequence
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError as FastMCPNotFoundError
from fastmcp.server.middleware import CallNext as NextMiddleware
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool, ToolResult
from mcp.server.connection import Connection
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel.server import HandlerEntry
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ResourcesListChanged, ToolsListChanged
from mcp_types import (
    CallToolRequestParams,
    CallToolResult,
    ResourceLink,
    SubscriptionsListenRequestParams,
    TextContent,
    ToolAnnotations,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from haygate import __version__
from haygate.compat.fastmcp import HaygateMCP, check_inputs_with, connection_of, sdk_server
from haygate.errors import UnknownToolError, envelope
from haygate.gateway.declarations import ToolDeclaration
from haygate.server.apps import install_result_views
from haygate.server.records import RecordLinks, Records
from haygate.server.service import GatewayService
from haygate.server.skills import serve_guidance

logger = logging.getLogger(__name__)


def _error_result(error: BaseException) -> ToolResult:
    _, body = envelope(error)
    return ToolResult(content=json.dumps(body), is_error=True)


def _call_result(result: dict[str, Any], links: Sequence[ResourceLink] = ()) -> CallToolResult:
    """A tool's answer as MCP carries it: the structured result, the same as JSON text for clients that read only
    text, and a link to each ranked result's record (`haygate.server.records`)."""
    text = TextContent(type="text", text=json.dumps(result, default=str))
    return CallToolResult(content=[text, *links], structured_content=result)


class DeclaredTool(Tool):
    """An MCP tool whose schema and behaviour come from a YAML declaration."""

    service: Any

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            result = await self.service.call(self.name, arguments, "mcp")
        except Exception as error:
            return _error_result(error)
        return ToolResult(content=json.dumps(result, default=str), structured_content=result)


def to_mcp_tool(service: GatewayService, declaration: ToolDeclaration) -> DeclaredTool:
    return DeclaredTool(
        name=declaration.name,
        title=declaration.title,
        description=declaration.description,
        parameters=declaration.input_schema(),
        output_schema=declaration.result_schema,
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

    def input_schema(self, name: str) -> dict[str, Any] | None:
        """A served tool's input schema, for the SDK's `Mcp-Param-*` header checks (None: not ours)."""
        declaration = self.service.listing().get(name)
        return self._tool(declaration).parameters if declaration is not None else None


class DirectToolCalls:
    """`tools/call` for a declared tool, straight to the service.

    FastMCP's own handler wraps each call in a request context, its middleware chain, a session-state lookup of
    per-session visibility rules, a second lookup of the tool and a tracing span: milliseconds of the event loop's time
    per call (`python -m scripts.bench.mcp` measures it), where haygate validates the arguments, measures and traces the
    call itself. Any other name (an unknown tool, a tool the server declares but could not serve, a tool another part of
    the server registers with FastMCP) goes on to FastMCP's handler.
    """

    def __init__(self, service: GatewayService) -> None:
        self.service = service
        self.links = RecordLinks(service)
        self.fastmcp_handler: HandlerEntry[Any] | None = None

    def install(self, mcp: FastMCP) -> None:
        server = sdk_server(mcp)
        self.fastmcp_handler = server.get_request_handler("tools/call")
        server.add_request_handler("tools/call", CallToolRequestParams, self)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams) -> Any:
        if params.name not in self.service.listing() and self.fastmcp_handler is not None:
            return await self.fastmcp_handler.handler(ctx, params)
        try:
            result = await self.service.call(params.name, params.arguments or {}, "mcp")
        except Exception as error:
            _, body = envelope(error)
            return CallToolResult(content=[TextContent(type="text", text=json.dumps(body))], is_error=True)
        return _call_result(result, self.links.links(params.name, result))


class ToolListAnnouncer:
    """Tells connected clients that the tool list (and with it the resources: the views and the skill's files)
    or the resources alone changed, in both eras of the protocol.

    A 2026-07-28 client opens a `subscriptions/listen` stream (served with the SDK's own `ListenHandler`) and
    gets the change there; a 2025-era client with a standing channel (stdio, a stateful HTTP session) gets
    `notifications/tools/list_changed` unsolicited. As SDK middleware it sees every connection's requests.
    """

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._standing: weakref.WeakSet[Connection] = weakref.WeakSet()
        self._loop: asyncio.AbstractEventLoop | None = None

    def install(self, mcp: FastMCP) -> None:
        server = sdk_server(mcp)  # FastMCP serves no `subscriptions/listen` of its own; the SDK server does
        server.add_request_handler("subscriptions/listen", SubscriptionsListenRequestParams, ListenHandler(self.bus))
        server.middleware.insert(0, self)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        self._loop = asyncio.get_running_loop()
        connection: Connection = connection_of(ctx.session)  # the request context names it only privately
        if connection.protocol_version not in MODERN_PROTOCOL_VERSIONS and connection.has_standalone_channel:
            self._standing.add(connection)
        return await call_next(ctx)

    def tools_changed(self) -> None:
        """Announce new tools from any thread (a reload runs in a worker thread): the views and the skill's files
        follow the tools, so the resources changed too."""
        self._from_any_thread(tools=True)

    def resources_changed(self) -> None:
        """Announce new resources alone (the skill made again after a write changed what it lists)."""
        self._from_any_thread(tools=False)

    def _from_any_thread(self, tools: bool) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return  # no client has connected yet
        asyncio.run_coroutine_threadsafe(self._announce(tools), loop).add_done_callback(_log_failure)

    async def _announce(self, tools: bool) -> None:
        events: list[Any] = [ToolsListChanged(), ResourcesListChanged()] if tools else [ResourcesListChanged()]
        methods = ["notifications/tools/list_changed"] if tools else []
        methods.append("notifications/resources/list_changed")
        for event in events:
            await self.bus.publish(event)
        for connection in list(self._standing):
            try:
                for method in methods:
                    await connection.outbound.notify(method, None)
            except Exception as error:  # a client that went away must not stop the others being told
                logger.debug("a client could not be told the lists changed (gone?): %r", error)


def _log_failure(future: "concurrent.futures.Future[None]") -> None:
    if future.exception() is not None:
        logger.warning("announcing the new lists failed: %r", future.exception())


class StartAfterListing(Middleware):
    """Lets the background build start once a client has listed the tools (see `GatewayService.start`)."""

    def __init__(self, service: GatewayService) -> None:
        self.service = service

    async def on_list_tools(self, context: MiddlewareContext, call_next: NextMiddleware) -> Sequence[Tool]:
        tools: Sequence[Tool] = await call_next(context)
        self.service.load_now()
        return tools


class ErrorEnvelopeMiddleware(Middleware):
    """Whatever escapes a tool (unknown tool names included) still reaches the client as the envelope; a tool
    the configuration declares but the server could not serve says why (`GatewayService.unknown_tool`)."""

    def __init__(self, service: GatewayService) -> None:
        self.service = service

    async def on_call_tool(self, context: MiddlewareContext, call_next: NextMiddleware) -> ToolResult:
        try:
            return await call_next(context)
        except FastMCPNotFoundError:
            name = getattr(context.message, "name", "?")
            error = self.service.unknown_tool(name)
            if isinstance(error, UnknownToolError):  # the MCP envelope names the tool, not the whole list
                error = UnknownToolError(name)
            return _error_result(error)
        except Exception as error:
            return _error_result(error)


def build_mcp(service: GatewayService) -> FastMCP:
    announcer = ToolListAnnouncer()
    mcp = HaygateMCP("haygate", version=__version__, mask_error_details=True)
    announcer.install(mcp)
    mcp.add_middleware(StartAfterListing(service))
    mcp.add_middleware(ErrorEnvelopeMiddleware(service))
    tools = DeclaredTools(service)
    mcp.add_provider(tools)
    check_inputs_with(mcp, tools.input_schema)  # 2026-07-28 header checks: no tools/list per call
    DirectToolCalls(service).install(mcp)
    install_result_views(mcp, service)  # MCP Apps: a results view for each tool that returns ranked records
    mcp.add_provider(Records(service))  # haygate://<collection>/<id>: a result's record, for any client
    service.on_tools_changed(announcer.tools_changed)
    serve_guidance(mcp, service, announcer.resources_changed)  # instructions and the project's skill
    return mcp
