"""Every place haygate reaches into FastMCP's and the MCP SDK's internals, in one module, checked against one
version of each (`tests/unit/test_compat.py`), as the rest of `haygate.compat` is against Haystack.

- `sdk_server`: FastMCP's low-level SDK server, where haygate installs its own `tools/call` handler, the
  `subscriptions/listen` handler and a middleware (FastMCP offers neither);
- `check_inputs_with`: the SDK server's per-call input-schema lookup (2026-07-28 header checks), answered from
  the declarations instead of a `tools/list` per call;
- `lifespan`: FastMCP's lifespan, entered around the stdio transport haygate runs on its own front;
- `connection_of`: a request's connection (its protocol version and standing channel), which the request
  context names only privately;
- `HaygateMCP`: FastMCP with its session-state store made on the first write (`StateMadeOnWrite`), by
  overriding FastMCP's private `_state_store`.

Importing this module imports FastMCP; importing `haygate.compat` does not import this module.
"""

from collections.abc import Callable, Mapping
from importlib.metadata import version
from typing import Any

from fastmcp import FastMCP

STATE_KEY = "_state_made_on_write"  # where HaygateMCP keeps its store, in its own __dict__
FASTMCP_TESTED = "4.1"  # major.minor of fastmcp the names below were read in
MCP_TESTED = "2.3"  # and of the MCP SDK (the `mcp` package)

# Where each name is read -> the names, as `haygate.compat.PRIVATE_NAMES` lists Haystack's.
PRIVATE_NAMES: dict[str, tuple[str, ...]] = {
    "fastmcp.FastMCP": ("_mcp_server", "_state_store", "_lifespan_manager"),
    "mcp.server.lowlevel.server.Server": ("get_request_handler", "add_request_handler"),
    "mcp.server.lowlevel.server.Server instance": ("get_tool_input_schema", "middleware"),
    "mcp.server.session.ServerSession instance": ("_connection",),
}


def fastmcp_version() -> str:
    return version("fastmcp")


def mcp_version() -> str:
    return version("mcp")


def sdk_server(mcp: FastMCP) -> Any:
    """The MCP SDK server FastMCP runs on (a `mcp.server.lowlevel.server.Server`)."""
    return mcp._mcp_server


def check_inputs_with(mcp: FastMCP, lookup: Callable[[str], Mapping[str, Any] | None]) -> None:
    """The SDK server looks a tool's input schema up with `lookup` when it checks a call's headers."""
    sdk_server(mcp).get_tool_input_schema = lookup


def lifespan(mcp: FastMCP) -> Any:
    """FastMCP's lifespan as an async context manager, for a transport haygate runs itself (stdio on its front)."""
    return mcp._lifespan_manager()


def connection_of(session: Any) -> Any:
    """A request's connection (`mcp.server.connection.Connection`): its protocol version, its standing channel."""
    return session._connection


class StateMadeOnWrite:
    """FastMCP's session-state store, made when something is first written to it.

    FastMCP reads a session's visibility rules from that store on every `tools/list`, and making it imports
    its storage library (`key_value`, with beartype): a quarter of a second of the first listing, for a store
    haygate never writes. Until a write, every read is what the empty store would answer: nothing.
    """

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make
        self._made: Any = None

    async def get(self, key: str, collection: str | None = None) -> Any:
        if self._made is None:
            return None
        return await self._made.get(key=key, collection=collection)

    def __getattr__(self, name: str) -> Any:  # put, delete, or anything else: the real store, made now
        if self._made is None:
            self._made = self._make()
        return getattr(self._made, name)


class HaygateMCP(FastMCP):
    """FastMCP, with its session-state store made on the first write (`StateMadeOnWrite`)."""

    @property
    def _state_store(self) -> Any:
        store = self.__dict__.get(STATE_KEY)
        if store is None:
            store = self.__dict__[STATE_KEY] = StateMadeOnWrite(lambda: super(HaygateMCP, self)._state_store)
        return store
