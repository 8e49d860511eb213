"""Operations: `/health`, `/metrics`, `/openapi.json` with its page at `/docs`, and `POST /api/admin/reload`;
on the owner's socket only, `validate` and `examples` by the server that holds the data."""

from pathlib import Path
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from haygate.errors import InvalidRequestError
from haygate.server.openapi import API_PAGE, openapi_document
from haygate.server.replies import Reloaded
from haygate.server.routes import served
from haygate.server.routes.envelope import answers
from haygate.server.routes.reading import json_body, query_flag


@answers
async def reload(request: Request) -> JSONResponse:
    """Swapped in (200), or not, with the problems (422: the old tools keep serving)."""
    serving = served(request)
    serving.check_writes()
    result = await anyio.to_thread.run_sync(serving.service.reload)
    reply = Reloaded(reloaded=result.swapped, tools=result.tools, problems=result.problems)
    return JSONResponse(reply.model_dump(mode="json"), status_code=200 if result.swapped else 422)


@answers
async def health(request: Request) -> dict[str, Any]:
    """`replies.Health`; verbose, it reads the stores' counts, off the event loop."""
    service = served(request).service
    if not query_flag(request, "verbose"):
        return service.health()
    return await anyio.to_thread.run_sync(service.health, True)


@answers
async def openapi(request: Request) -> dict[str, Any]:
    serving = served(request)
    return openapi_document(serving.service, serving.secured)


async def metrics(request: Request) -> Response:
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    body = await anyio.to_thread.run_sync(generate_latest, served(request).service.telemetry.registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)


async def docs(request: Request) -> HTMLResponse:
    return HTMLResponse(API_PAGE)


@answers
async def validate(request: Request) -> dict[str, Any]:
    """`haygate validate` by the server that holds the data (the owner's socket only: it builds every pipeline
    and calls every tool's examples): every check, on that data, nothing swapped in."""
    service = served(request).service
    body = await json_body(request) if await request.body() else {}
    files = body.get("files") if isinstance(body, dict) else None
    if files is not None and (not isinstance(files, list) or not all(isinstance(f, str) for f in files)):
        msg = 'send {"files": ["configs/tools/NAME.yaml", ...]} or no body'
        raise InvalidRequestError(msg, {"field": "files"})
    paths = [inside_home(service.settings.home, f) for f in files] if files else None
    return await anyio.to_thread.run_sync(service.validate, paths)


@answers
async def examples(request: Request) -> dict[str, Any]:
    """`haygate examples` by the server that holds the data (the owner's socket only: it calls the tools)."""
    tool = request.query_params.get("tool") or None
    return await anyio.to_thread.run_sync(served(request).service.examples, tool)


def inside_home(home: Path, name: str) -> Path:
    """A declaration file named relative to the project (or absolute, inside it)."""
    path = (home / name).resolve()
    if not path.is_relative_to(home.resolve()) or not path.is_file():
        raise InvalidRequestError(f"no declaration file {name!r} in the project", {"field": "files"})
    return path


def routes() -> list[Route]:
    return [
        Route("/api/admin/reload", reload, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
    ]


def local_routes() -> list[Route]:
    """What only the owner's socket serves."""
    return [
        Route("/api/admin/validate", validate, methods=["POST"]),
        Route("/api/admin/examples", examples, methods=["GET"]),
    ]
