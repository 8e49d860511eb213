"""`POST /api/tools/{name}`: a tool call, answered exactly as MCP answers it."""

from typing import Any

from starlette.requests import Request
from starlette.routing import Route

from haygate.server.routes import served
from haygate.server.routes.envelope import answers
from haygate.server.routes.reading import json_body


@answers
async def call_tool(request: Request) -> dict[str, Any]:
    serving = served(request)
    return await serving.service.call(request.path_params["name"], await json_body(request), serving.transport)


def routes() -> list[Route]:
    return [Route("/api/tools/{name}", call_tool, methods=["POST"])]
