"""HTTP: streamable-HTTP MCP at `/mcp`, `POST /api/tools/{name}` per tool, writes to collections,
`/openapi.json` with its API page at `/docs`, `/metrics` and `/health`, optionally behind a bearer token.
REST answers exactly what MCP answers, in the same error envelope. Every response carries the request's id
(`X-Request-ID`), the one its log lines carry.

Two apps share one service: the public one (TCP, bearer token, MCP) and a local one for the `haygate`
command on the same machine, served on a Unix socket only its owner can open. The routes are modules
(`routes`); here the apps are assembled, with what guards them: the body limit, request ids, the token.
"""

import hmac

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from haygate.console import routes as console
from haygate.console.pages import CONSOLE, CONSOLE_STATIC
from haygate.console.pages import static_mount as console_static
from haygate.errors import PayloadTooLargeError, UnauthorizedError
from haygate.logs import REQUEST_ID, REQUEST_ID_HEADER, new_request_id
from haygate.server.boundary import guarded
from haygate.server.mcp import build_mcp
from haygate.server.openapi import SWAGGER_UI
from haygate.server.routes import Served, admin, operations, records, tools
from haygate.server.routes.envelope import ERROR_HANDLERS, error_response, with_method_refusals
from haygate.server.service import GatewayService

# The API page and the console are static: what they show comes with the token.
PUBLIC_PATHS = ("/health", "/docs", "/docs/", CONSOLE)
PUBLIC_PREFIXES = (SWAGGER_UI, CONSOLE_STATIC)
LOOPBACK = ("127.0.0.1", "localhost", "::1")


class BodyLimit:
    """413 with the envelope for a body over `limit` bytes, declared (Content-Length) or streamed."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(scope, receive, send)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise PayloadTooLargeError(self._message())
            return message

        try:
            await self.app(scope, counted, send)
        except PayloadTooLargeError:
            await self._refuse(scope, receive, send)

    def _message(self) -> str:
        return (
            f"the request body is over the limit of {self.limit} bytes (HAYGATE_MAX_BODY_BYTES); send less per request"
        )

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        await error_response(PayloadTooLargeError(self._message(), {"limit": self.limit}))(scope, receive, send)


class RequestIds:
    """Each request runs under an id (the client's `X-Request-ID`, else a new one) that its log lines carry
    and its response returns."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        supplied = dict(scope.get("headers", [])).get(REQUEST_ID_HEADER.lower().encode())
        request_id = new_request_id(supplied.decode("latin-1") if supplied else None)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message)[REQUEST_ID_HEADER] = request_id
            await send(message)

        token = REQUEST_ID.set(request_id)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            REQUEST_ID.reset(token)


class BearerAuth:
    """Requires `Authorization: Bearer <token>` on every path except /health and the API page's own files
    (and /metrics with HAYGATE_METRICS_PUBLIC)."""

    def __init__(self, app: ASGIApp, token: str, public: tuple[str, ...] = PUBLIC_PATHS) -> None:
        self.app = app
        self.expected = token.encode()
        self.public = public

    def _is_public(self, path: str) -> bool:
        return path in self.public or path.startswith(PUBLIC_PREFIXES)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._is_public(scope.get("path", "")):
            supplied = dict(scope.get("headers", [])).get(b"authorization", b"")
            scheme, _, credentials = supplied.strip().partition(b" ")
            # The scheme is case-insensitive (RFC 7235 2.1); the token is compared in constant time.
            if scheme.lower() != b"bearer" or not hmac.compare_digest(credentials.strip(), self.expected):
                response = error_response(UnauthorizedError("missing or wrong bearer token"))
                response.headers["WWW-Authenticate"] = "Bearer"
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def rest_routes() -> list[Route]:
    """The REST API: tool calls, writes, operations; each path refuses the methods it does not take."""
    return with_method_refusals([*tools.routes(), *records.routes(), *admin.routes(), *operations.routes()])


def build_http_app(service: GatewayService, token: str | None = None, host: str = "127.0.0.1") -> ASGIApp:
    """Streamable HTTP MCP at /mcp plus REST, behind the trust boundary (`boundary`: Host, Origin, JSON
    bodies) and optionally a bearer token. Writes need the token whenever one is set, and are refused outright
    on a non-loopback bind without one."""
    mcp_app = build_mcp(service).http_app(path="/mcp", json_response=True)
    for status, handler in ERROR_HANDLERS.items():
        mcp_app.add_exception_handler(status, handler)
    routes = [
        *rest_routes(),
        *with_method_refusals(console.routes()),
        Mount(SWAGGER_UI, app=StaticFiles(directory=swagger_ui_folder())),
        console_static(),
        Mount("/", app=mcp_app),
    ]
    starlette = Starlette(routes=routes, lifespan=mcp_app.lifespan, exception_handlers=ERROR_HANDLERS)
    Served(service, writes_allowed=bool(token) or host in LOOPBACK, secured=bool(token)).on(starlette)
    app: ASGIApp = BodyLimit(starlette, service.settings.max_body_bytes)
    if token:
        public = PUBLIC_PATHS + (("/metrics",) if service.settings.metrics_public else ())
        app = BearerAuth(app, token, public)
    settings = service.settings
    return RequestIds(guarded(app, settings.allowed_hosts, settings.allowed_origins, bind_host=host))


def swagger_ui_folder() -> str:
    """Swagger UI's files, from the installed `swagger-ui-bundle-v2` package: no CDN."""
    from swagger_ui_bundle import swagger_ui_path

    return str(swagger_ui_path)


def build_local_app(service: GatewayService) -> ASGIApp:
    """REST for the `haygate` command on this machine (a Unix socket only the owner can open): no MCP; the
    console's routes for explained calls and ids (`haygate eval`), and the gateway's operations table."""
    routes = [*rest_routes(), *console.routes()]
    starlette = Starlette(routes=routes, exception_handlers=ERROR_HANDLERS)
    Served(service, writes_allowed=True, transport="cli").on(starlette)
    return RequestIds(BodyLimit(starlette, service.settings.max_body_bytes))
