"""One envelope for every route: a handler returns its answer (a dict, a pydantic model, or a Response of
its own) and raises what went wrong; `answers` makes the JSON response, and any error the envelope
`{"error": {code, message, details}}` with its status (and `Retry-After` where the error says when). A path
nothing serves, and a method a path does not take, get the same envelope."""

import functools
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from haygate.errors import MethodNotAllowedError, NotFoundError, envelope

Handler = Callable[[Request], Awaitable[Any]]


def error_response(error: BaseException) -> JSONResponse:
    status, body = envelope(error)
    headers = (
        {"Retry-After": str(body["error"]["details"]["retry_after"])}
        if status == 503 and "retry_after" in body["error"]["details"]
        else None
    )
    return JSONResponse(body, status_code=status, headers=headers)


def answers(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """The handler's answer as JSON, or its error in the envelope."""

    @functools.wraps(handler)
    async def endpoint(request: Request) -> Response:
        try:
            answer = await handler(request)
        except Exception as error:
            return error_response(error)
        if isinstance(answer, Response):
            return answer
        if isinstance(answer, BaseModel):
            return JSONResponse(answer.model_dump(mode="json"))
        return JSONResponse(answer)

    return endpoint


def with_method_refusals(routes: list[Route]) -> list[Route]:
    """Each path also answers every method it does not take (TRACE and QUERY too), with the envelope's 405 and
    `Allow`: routes match in order, so the catch-all refusal only gets what the real route does not take.
    (Without it, a wrong method would fall through to the MCP mount and get its plain-text 404.)"""
    allowed: dict[str, set[str]] = {}
    for route in routes:
        allowed.setdefault(route.path, set()).update(route.methods or ())
    refusals = [
        Route(path, MethodRefusal(sorted(methods - {"HEAD"})), methods=None)  # any other method: TRACE, QUERY...
        for path, methods in allowed.items()
    ]
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
