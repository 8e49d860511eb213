"""Operations: `/health`, `/metrics`, `/openapi.json` with its page at `/docs`, and `POST /api/admin/reload`
(the gateway's `reload` operation, answered 422 when it was refused; the gateway's operations table is
`routes.operations`)."""

from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from haygate.server.openapi import API_PAGE, openapi_document
from haygate.server.routes import served
from haygate.server.routes.envelope import answers
from haygate.server.routes.operations import run_served
from haygate.server.routes.reading import query_flag


@answers
async def reload(request: Request) -> JSONResponse:
    """The gateway's `reload` operation (as `POST /api/operations/reload` runs it), answered with its status:
    swapped in (200), or not, with the problems (422: the old tools keep serving)."""
    reply = await run_served(request, "reload", {})
    return JSONResponse(reply, status_code=200 if reply["reloaded"] else 422)


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


def routes() -> list[Route]:
    return [
        Route("/api/admin/reload", reload, methods=["POST"]),
        Route("/health", health, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
    ]
