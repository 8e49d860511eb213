"""MCP: every tool declaration becomes one MCP tool, with no code per tool.

A `DeclaredTool` takes its name, description, input and output schema and annotations from the YAML
declaration, and runs the tool's pipeline through the gateway. Errors reach clients as the one envelope,
`{"error": {"code", "message", "details"}}`, with `isError: true`.
"""

import json
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError as FastMCPNotFoundError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool, ToolResult
from mcp_types import ToolAnnotations

from haygate import __version__
from haygate.errors import NotFoundError, envelope
from haygate.gateway.runtime import Gateway, ToolRuntime


def _error_result(error: BaseException) -> ToolResult:
    _, body = envelope(error)
    return ToolResult(content=json.dumps(body), is_error=True)


class DeclaredTool(Tool):
    """An MCP tool whose schema and behaviour come from a YAML declaration."""

    gateway: Any

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            result = await self.gateway.call_async(self.name, arguments)
        except Exception as error:
            return _error_result(error)
        return ToolResult(content=json.dumps(result, default=str), structured_content=result)


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


def to_mcp_tool(gateway: Gateway, runtime: ToolRuntime) -> DeclaredTool:
    declaration = runtime.declaration
    return DeclaredTool(
        name=declaration.name,
        description=declaration.description,
        parameters=declaration.input_schema(),
        output_schema=declaration.output_schema,
        annotations=ToolAnnotations(
            read_only_hint=declaration.read_only,
            destructive_hint=not declaration.read_only,
            idempotent_hint=declaration.read_only,
            open_world_hint=False,
        ),
        gateway=gateway,
    )


def build_mcp(gateway: Gateway) -> FastMCP:
    mcp = FastMCP("haygate", version=__version__, mask_error_details=True)
    mcp.add_middleware(ErrorEnvelopeMiddleware())
    for runtime in gateway.tools.values():
        mcp.add_tool(to_mcp_tool(gateway, runtime))
    return mcp
