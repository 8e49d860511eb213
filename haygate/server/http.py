"""HTTP: streamable-HTTP MCP at `/mcp`, `POST /api/tools/{name}` per tool, writes to collections,
`/openapi.json` with its API page at `/docs`, `/metrics` and `/health`, optionally behind a bearer token.
REST answers exactly what MCP answers, in the same error envelope. Every response carries the request's id
(`X-Request-ID`), the one its log lines carry.

Two apps share one service: the public one (TCP, bearer token, MCP) and a local one for the `haygate`
command on the same machine, served on a Unix socket only its owner can open.
"""

import hmac
import io
import json
from pathlib import Path, PurePosixPath
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from haygate.errors import (
    ForbiddenError,
    InvalidRequestError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    UnauthorizedError,
    envelope,
)
from haygate.ingest.readers import (
    MARKDOWN_SUFFIXES,
    SourceRecord,
    as_source_record,
    parse_csv,
    parse_jsonl,
    parse_markdown,
)
from haygate.logs import REQUEST_ID, REQUEST_ID_HEADER, new_request_id
from haygate.server.boundary import JSONL_TYPES, guarded
from haygate.server.console import CONSOLE, CONSOLE_STATIC, console_routes
from haygate.server.console import static_mount as console_static
from haygate.server.mcp import build_mcp
from haygate.server.openapi import API_PAGE, SWAGGER_UI, openapi_document
from haygate.server.replies import WRITE_OPEN_REFUSAL, error_response, json_body, no_json_constant
from haygate.server.service import GatewayService

# The API page and the console are static: what they show comes with the token.
PUBLIC_PATHS = ("/health", "/docs", "/docs/", CONSOLE)
PUBLIC_PREFIXES = (SWAGGER_UI, CONSOLE_STATIC)
LOOPBACK = ("127.0.0.1", "localhost", "::1")


FLAGS = {"true": True, "1": True, "false": False, "0": False}


def query_flag(request: Request, name: str) -> bool:
    """A boolean query parameter, as the OpenAPI document types it: true or false (1 or 0); absent is false."""
    values = request.query_params.getlist(name)
    if not values:
        return False
    if len(values) > 1 or values[0].lower() not in FLAGS:
        msg = f"query parameter '{name}' is a boolean: true or false, got {values if len(values) > 1 else values[0]!r}"
        raise InvalidRequestError(msg, {"field": name})
    return FLAGS[values[0].lower()]


async def records_body(request: Request) -> list[SourceRecord]:
    """A JSON array of records (objects: anything else makes the request malformed, a 422); JSONL with a
    JSONL content type (one record per line; a line that is not JSON is refused alone); or a record file as
    `haygate ingest` reads it: CSV (`text/csv`, a record per row) or Markdown (`text/markdown`, one record,
    `?filename=` naming the file). Each record is then checked on its own."""
    raw = (await request.body()).decode("utf-8", errors="replace")
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    filename = request.query_params.get("filename") or "request"
    if media_type == "text/csv":
        return list(parse_csv(io.StringIO(raw, newline=""), filename))
    if media_type == "text/markdown":
        name = PurePosixPath(filename.replace("\\", "/")).name
        if not name.lower().endswith(MARKDOWN_SUFFIXES):
            msg = "a Markdown upload names its file: ?filename=notes.md (the record's id and path come from it)"
            raise InvalidRequestError(msg, {"field": "filename"})
        return list(parse_markdown(raw, name, name))
    if media_type not in JSONL_TYPES:
        records = json.loads(raw, parse_constant=no_json_constant)
        if not isinstance(records, list):
            msg = "the body must be a JSON array of records (or JSONL, sent as application/jsonl)"
            raise InvalidRequestError(msg, {"field": "records"})
        strays = [number for number, record in enumerate(records) if not isinstance(record, dict)]
        if strays:
            msg = (
                f"a JSON array of records holds objects only; item {strays[0]} is a {type(records[strays[0]]).__name__}"
            )
            raise InvalidRequestError(msg, {"field": "records", "index": strays[0]})
        return [as_source_record("request", number, record) for number, record in enumerate(records, start=1)]
    return list(parse_jsonl(raw.splitlines(), "request"))


def rest_routes(
    service: GatewayService, writes_allowed: bool, transport: str = "rest", secured: bool = False
) -> list[Route]:
    """:param transport: what the calls count as (`rest`; `cli` on the local socket).
    :param secured: a bearer token guards the server (the OpenAPI document says so)."""

    async def call_tool(request: Request) -> JSONResponse:
        try:
            arguments = await json_body(request)
            return JSONResponse(await service.call(request.path_params["name"], arguments, transport))
        except Exception as error:
            return error_response(error)

    async def put_records(request: Request) -> JSONResponse:
        collection = request.path_params["collection"]
        try:
            if not writes_allowed:
                raise ForbiddenError(WRITE_OPEN_REFUSAL)
            records = await records_body(request)
            if not records:
                raise InvalidRequestError("no records in the body", {"field": "records"})
            return JSONResponse(await service.write(lambda gateway: gateway.writer.upsert(collection, records)))
        except (json.JSONDecodeError, ValueError, RecursionError) as error:
            return error_response(InvalidRequestError(f"request body must be JSON: {error}"))
        except Exception as error:
            return error_response(error)

    async def delete_records(request: Request) -> JSONResponse:
        collection = request.path_params["collection"]
        try:
            if not writes_allowed:
                raise ForbiddenError(WRITE_OPEN_REFUSAL)
            ids: Any = request.query_params.getlist("id")
            if not ids:
                body = await json_body(request)
                ids = body.get("ids") if isinstance(body, dict) else body
            if not isinstance(ids, list):
                raise InvalidRequestError('send {"ids": [...]} or ?id=...&id=...', {"field": "ids"})
            return JSONResponse(await service.write(lambda gateway: gateway.writer.delete(collection, ids)))
        except Exception as error:
            return error_response(error)

    async def reload(request: Request) -> JSONResponse:
        if not writes_allowed:
            return error_response(ForbiddenError(WRITE_OPEN_REFUSAL))
        import anyio

        result = await anyio.to_thread.run_sync(service.reload)
        return JSONResponse(
            {"reloaded": result.swapped, "tools": result.tools, "problems": result.problems},
            status_code=200 if result.swapped else 422,
        )

    async def health(request: Request) -> JSONResponse:
        try:
            verbose = query_flag(request, "verbose")
        except InvalidRequestError as error:
            return error_response(error)
        if not verbose:
            return JSONResponse(service.health())
        import anyio

        return JSONResponse(await anyio.to_thread.run_sync(service.health, True))  # counts read the stores

    async def openapi(request: Request) -> JSONResponse:
        return JSONResponse(openapi_document(service, secured))

    async def metrics(request: Request) -> Response:
        import anyio
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        body = await anyio.to_thread.run_sync(generate_latest, service.telemetry.registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    async def docs(request: Request) -> HTMLResponse:
        return HTMLResponse(API_PAGE)

    return with_method_refusals(
        [
            Route("/api/tools/{name}", call_tool, methods=["POST"]),
            Route("/api/collections/{collection}/records", put_records, methods=["PUT"]),
            Route("/api/collections/{collection}/records", delete_records, methods=["DELETE"]),
            Route("/api/admin/reload", reload, methods=["POST"]),
            Route("/health", health, methods=["GET"]),
            Route("/openapi.json", openapi, methods=["GET"]),
            Route("/metrics", metrics, methods=["GET"]),
            Route("/docs", docs, methods=["GET"]),
        ]
    )


def local_validate(service: GatewayService) -> Any:
    """`haygate validate` by the server that holds the data (the owner's socket only: it builds every pipeline
    and calls every tool's examples): every check, on that data, nothing swapped in."""

    async def validate(request: Request) -> JSONResponse:
        try:
            body = await json_body(request) if await request.body() else {}
            files = body.get("files") if isinstance(body, dict) else None
            if files is not None and (not isinstance(files, list) or not all(isinstance(f, str) for f in files)):
                msg = 'send {"files": ["configs/tools/NAME.yaml", ...]} or no body'
                raise InvalidRequestError(msg, {"field": "files"})
            home = service.settings.home
            paths = [inside_home(home, f) for f in files] if files else None
            import anyio

            return JSONResponse(await anyio.to_thread.run_sync(service.validate, paths))
        except Exception as error:
            return error_response(error)

    return validate


def local_examples(service: GatewayService) -> Any:
    """`haygate examples` by the server that holds the data (the owner's socket only: it calls the tools)."""

    async def examples(request: Request) -> JSONResponse:
        try:
            import anyio

            tool = request.query_params.get("tool") or None
            return JSONResponse(await anyio.to_thread.run_sync(service.examples, tool))
        except Exception as error:
            return error_response(error)

    return examples


def inside_home(home: Path, name: str) -> Path:
    """A declaration file named relative to the project (or absolute, inside it)."""
    path = (home / name).resolve()
    if not path.is_relative_to(home.resolve()) or not path.is_file():
        raise InvalidRequestError(f"no declaration file {name!r} in the project", {"field": "files"})
    return path


def with_method_refusals(routes: list[Route]) -> list[Route]:
    """Each path also answers every method it does not take (TRACE and QUERY too), with the envelope's 405 and
    `Allow`: routes match in order, so the catch-all refusal only gets what the real route does not take.
    (Without it, a wrong method would fall through to the MCP mount and get its plain-text 404.)"""
    allowed: dict[str, set[str]] = {}
    for route in routes:
        allowed.setdefault(route.path, set()).update(route.methods or ())
    refusals = []
    for path, methods in allowed.items():
        listed = sorted(methods - {"HEAD"})

        refusals.append(Route(path, MethodRefusal(listed), methods=None))  # any other method: TRACE, QUERY...
    return [*routes, *refusals]


class MethodRefusal:
    """An ASGI app answering 405 with `Allow` (an app, not a function: Starlette routes a function for GET
    only when no methods are given, an app for every method)."""

    def __init__(self, allowed: list[str]) -> None:
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        msg = f"{scope['method']} is not allowed on {scope['path']}; use {' or '.join(self.allowed)}"
        response = error_response(MethodNotAllowedError(msg, {"allowed": self.allowed}))
        response.headers["Allow"] = ", ".join(self.allowed)
        await response(scope, receive, send)


async def http_error(request: Request, error: Exception) -> JSONResponse:
    """A path nothing serves gets the envelope too, never a plain-text page."""
    if isinstance(error, HTTPException) and error.status_code == 405:
        return error_response(MethodNotAllowedError(f"{request.method} is not allowed on {request.url.path}"))
    return error_response(NotFoundError(f"no such path: {request.url.path}", {"path": request.url.path}))


ERROR_HANDLERS = {404: http_error, 405: http_error}


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
                status, body = envelope(UnauthorizedError("missing or wrong bearer token"))
                response = JSONResponse(body, status_code=status, headers={"WWW-Authenticate": "Bearer"})
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def build_http_app(service: GatewayService, token: str | None = None, host: str = "127.0.0.1") -> ASGIApp:
    """Streamable HTTP MCP at /mcp plus REST, behind the trust boundary (`boundary`: Host, Origin, JSON
    bodies) and optionally a bearer token. Writes need the token whenever one is set, and are refused outright
    on a non-loopback bind without one."""
    mcp_app = build_mcp(service).http_app(path="/mcp", json_response=True)
    for status, handler in ERROR_HANDLERS.items():
        mcp_app.add_exception_handler(status, handler)
    writes_allowed = bool(token) or host in LOOPBACK
    routes = [
        *rest_routes(service, writes_allowed, secured=bool(token)),
        *with_method_refusals(console_routes(service, writes_allowed)),
        Mount(SWAGGER_UI, app=StaticFiles(directory=swagger_ui_folder())),
        console_static(),
        Mount("/", app=mcp_app),
    ]
    starlette = Starlette(routes=routes, lifespan=mcp_app.lifespan, exception_handlers=ERROR_HANDLERS)
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
    """REST for the `haygate` command on this machine (a Unix socket only the owner can open): no MCP."""
    return RequestIds(
        BodyLimit(
            Starlette(
                routes=[
                    *rest_routes(service, writes_allowed=True, transport="cli"),
                    *console_routes(service, writes_allowed=True),  # explained calls and ids: `haygate eval`
                    Route("/api/admin/validate", local_validate(service), methods=["POST"]),
                    Route("/api/admin/examples", local_examples(service), methods=["GET"]),
                ],
                exception_handlers=ERROR_HANDLERS,
            ),
            service.settings.max_body_bytes,
        )
    )
