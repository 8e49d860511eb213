"""The HTTP port `haygate serve --http` binds: checked before anything starts, so a port another program holds
is a clear refusal, not uvicorn's exit in the middle of a start (light: `haygate serve` asks before it loads a
model, and before FastMCP is imported)."""

import socket

from haygate.errors import ConfigurationError

UVICORN_STARTUP_FAILURE = 3  # uvicorn.server.STARTUP_FAILURE: it could not bind


def check_port(host: str, port: int) -> None:
    """The HTTP port can be bound (as uvicorn binds it): else a clear refusal now, before anything starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as error:
            raise port_taken(host, port, error.strerror) from None


def port_taken(host: str, port: int, why: str | None = None) -> ConfigurationError:
    said = f" ({why})" if why else ""
    msg = (
        f"cannot serve HTTP on {host}:{port}{said}: another program (another `haygate serve`?) holds that port, "
        "or the address is not this machine's; choose another with --port (or HAYGATE_PORT), or stop the other"
    )
    return ConfigurationError(msg, {"host": host, "port": port})
