"""The HTTP routes, a module per concern: tool calls (`tools`), writes to collections (`records`), operations
(`admin`) and the console's API (`console`). Handlers are module-level functions: what they serve is on
the app (`served`), and they answer through one envelope (`envelope.answers`)."""

from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request

from haygate.errors import ForbiddenError
from haygate.server.service import GatewayService

WRITE_OPEN_REFUSAL = (
    "writes are refused on a server that listens beyond this machine without a token: set HAYGATE_TOKEN"
)


@dataclass(frozen=True)
class Served:
    """What one app's routes serve: two apps (the public one and the owner's socket) share one service, and
    differ in what they allow."""

    service: GatewayService
    writes_allowed: bool
    transport: str = "rest"  # what the calls count as: `rest`; `cli` on the local socket
    secured: bool = False  # a bearer token guards the server (the OpenAPI document says so)

    def check_writes(self) -> None:
        if not self.writes_allowed:
            raise ForbiddenError(WRITE_OPEN_REFUSAL)

    def on(self, app: Starlette) -> Starlette:
        """`app`, serving this (kept on its state, where `served` finds it)."""
        app.state.served = self
        return app


def served(request: Request) -> Served:
    """What the app the request came to serves."""
    found = request.app.state.served
    assert isinstance(found, Served)
    return found
