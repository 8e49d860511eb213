"""HTTP: streamable-HTTP MCP at `/mcp`, `POST /api/tools/{name}` per tool, `/openapi.json` and `/health`,
optionally behind a bearer token. REST answers exactly what MCP answers, in the same error envelope."""

import hmac
import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from haygate import __version__
from haygate.errors import HTTP_STATUS, InvalidRequestError, UnauthorizedError, envelope
from haygate.gateway.mcp import build_mcp
from haygate.gateway.runtime import Gateway

PUBLIC_PATHS = ("/health",)


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
            status, body = envelope(error)
            return JSONResponse(body, status_code=status)
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
                        str(status): {"description": code, "content": {"application/json": {"schema": error_ref}}}
                        for code, status in HTTP_STATUS.items()
                        if code != UnauthorizedError.code
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
        if scope["type"] == "http" and scope.get("path") not in PUBLIC_PATHS:
            supplied = dict(scope.get("headers", [])).get(b"authorization", b"")
            if not hmac.compare_digest(supplied, self.expected):
                status, body = envelope(UnauthorizedError("missing or wrong bearer token"))
                response = JSONResponse(body, status_code=status, headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_http_app(gateway: Gateway, token: str | None = None) -> ASGIApp:
    """Streamable HTTP MCP at /mcp plus REST, optionally behind a bearer token."""
    mcp_app = build_mcp(gateway).http_app(path="/mcp")
    app: ASGIApp = Starlette(routes=[*rest_routes(gateway), Mount("/", app=mcp_app)], lifespan=mcp_app.lifespan)
    return BearerAuth(app, token) if token else app
