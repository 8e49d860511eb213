"""The haygate gateway: every tool declaration becomes one MCP tool and one REST endpoint.

There is no code per tool. `build_mcp` wraps each `ToolRuntime` in a `DeclaredTool`; `build_http_app`
adds `POST /api/tools/{name}`, `/openapi.json` and `/health` beside streamable HTTP MCP at `/mcp`.
Errors from either transport use one envelope: `{"error": {"code", "message", "details"}}`.
"""

import haygate._env  # noqa: F401  (offline defaults before FastMCP and Haystack read the environment)

# isort: split
import hmac
import json
import logging
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import NotFoundError as FastMCPNotFoundError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import Tool, ToolResult
from mcp_types import ToolAnnotations
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from components.errors import InvalidRequestError, NotFoundError
from haygate import __version__
from haygate.gateway import Gateway, ToolRuntime, cause_of

logger = logging.getLogger("haygate.server")

HTTP_STATUS = {"VALIDATION_ERROR": 422, "NOT_FOUND": 404, "INTERNAL_ERROR": 500}
INTERNAL_MESSAGE = "internal error; the server log has the details"


def error_envelope(error: BaseException) -> dict[str, Any]:
    """Any exception -> the public envelope. Only HaygateErrors speak; everything else is masked."""
    known = cause_of(error)
    if known is not None and known.code in HTTP_STATUS:
        return {"error": {"code": known.code, "message": known.message, "details": known.details}}
    logger.error("unhandled error: %r", error, exc_info=error)
    return {"error": {"code": "INTERNAL_ERROR", "message": INTERNAL_MESSAGE, "details": {}}}


def _error_result(envelope: dict[str, Any]) -> ToolResult:
    return ToolResult(content=json.dumps(envelope), is_error=True)


class DeclaredTool(Tool):
    """An MCP tool whose schema and behaviour come from a YAML declaration."""

    gateway: Any

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            result = await self.gateway.call_async(self.name, arguments)
        except Exception as error:
            return _error_result(error_envelope(error))
        return ToolResult(content=json.dumps(result, default=str), structured_content=result)


class ErrorEnvelopeMiddleware(Middleware):
    """Whatever escapes a tool (unknown tool names included) still reaches the client as the envelope."""

    async def on_call_tool(self, context: MiddlewareContext, call_next: CallNext) -> ToolResult:
        try:
            return await call_next(context)
        except Exception as error:
            if isinstance(error, FastMCPNotFoundError):
                name = getattr(context.message, "name", "?")
                return _error_result(error_envelope(NotFoundError(f"unknown tool '{name}'", {"tool": name})))
            return _error_result(error_envelope(error))


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


# -- REST ------------------------------------------------------------------------------------------


def rest_routes(gateway: Gateway) -> list[Route]:
    async def call_tool(request: Request) -> JSONResponse:
        name = request.path_params["name"]
        try:
            try:
                arguments = await request.json()
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                msg = f"request body must be a JSON object: {error}"
                raise InvalidRequestError(msg) from None
            result = await gateway.call_async(name, arguments)
        except Exception as error:
            envelope = error_envelope(error)
            return JSONResponse(envelope, status_code=HTTP_STATUS[envelope["error"]["code"]])
        return JSONResponse(result)

    async def health(request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "version": __version__, "tools": sorted(gateway.tools)})

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(openapi_document(gateway))

    return [
        Route("/api/tools/{name}", call_tool, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]


def openapi_document(gateway: Gateway) -> dict[str, Any]:
    error_ref = {"$ref": "#/components/schemas/Error"}
    paths: dict[str, Any] = {}
    for name, runtime in sorted(gateway.tools.items()):
        declaration = runtime.declaration
        paths[f"/api/tools/{name}"] = {
            "post": {
                "operationId": name,
                "summary": declaration.description.split(". ")[0],
                "description": declaration.description,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": declaration.input_schema()}},
                },
                "responses": {
                    "200": {
                        "description": "Result",
                        "content": {"application/json": {"schema": declaration.output_schema}},
                    },
                    **{
                        str(status): {
                            "description": code,
                            "content": {"application/json": {"schema": error_ref}},
                        }
                        for code, status in HTTP_STATUS.items()
                    },
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {"title": "haygate", "version": __version__},
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "required": ["code", "message", "details"],
                            "properties": {
                                "code": {"type": "string", "enum": list(HTTP_STATUS)},
                                "message": {"type": "string"},
                                "details": {"type": "object"},
                            },
                        }
                    },
                }
            },
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }


class BearerAuth:
    """Requires `Authorization: Bearer <token>` on every path except /health."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") != "/health":
            supplied = dict(scope.get("headers", [])).get(b"authorization", b"")
            if not hmac.compare_digest(supplied, self.expected):
                body = {
                    "error": {
                        "code": "UNAUTHORIZED",
                        "message": "missing or wrong bearer token",
                        "details": {},
                    }
                }
                response = JSONResponse(body, status_code=401, headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_http_app(gateway: Gateway, token: str | None = None) -> ASGIApp:
    """Streamable HTTP MCP at /mcp plus REST, optionally behind a bearer token."""
    mcp_app = build_mcp(gateway).http_app(path="/mcp")
    app: ASGIApp = Starlette(routes=[*rest_routes(gateway), Mount("/", app=mcp_app)], lifespan=mcp_app.lifespan)
    return BearerAuth(app, token) if token else app
