"""`POST /api/operations/{name}`: every operation of `haygate.gateway.operations`, one
route family for the table, run by the server that holds the data (`ServedWorkspace`). The `haygate` command
sends its work here while a server runs (`haygate.remote`); the same table runs it in-process when none does."""

from typing import Any

import anyio
from starlette.requests import Request
from starlette.routing import Route

from haygate.errors import NotFoundError
from haygate.gateway.operations import operation
from haygate.server.routes import served
from haygate.server.routes.envelope import answers
from haygate.server.routes.reading import json_object
from haygate.server.workspace import ServedWorkspace

OPERATION = "/api/operations/{name}"


@answers
async def operate(request: Request) -> dict[str, Any]:
    """The operation's reply model, as JSON; its request model is the body (`{}` or no body: the defaults)."""
    body = await json_object(request) if await request.body() else {}
    return await run_served(request, request.path_params["name"], body)


async def run_served(request: Request, name: str, body: Any) -> dict[str, Any]:
    """One operation, run by the server the request came to, with the refusals of the app it came to (an owner's
    operation off the owner's socket, a write where writes are refused): this family's, and any route's that is
    an operation under another path (the console's, the records')."""
    serving = served(request)
    chosen = operation(name)
    if chosen.owner_only and serving.transport != "cli":  # it builds every tool: the data's owner asks for it
        raise NotFoundError(f"operation '{chosen.name}' is served on the server's local socket only", {"field": "name"})
    if chosen.writes:
        serving.check_writes()
    workspace = ServedWorkspace(serving.service, serving.transport)
    reply = await anyio.to_thread.run_sync(chosen, workspace, body)
    answer: dict[str, Any] = reply.model_dump(mode="json")
    return answer


def routes() -> list[Route]:
    """On both apps; those that build every tool (`owner_only`: `validate`, `examples`) answer on the owner's
    socket only."""
    return [Route(OPERATION, operate, methods=["POST"])]
