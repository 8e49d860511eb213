"""An operation run by the server that holds the data (`ServedWorkspace`): on the serving generation, its writes
beside its calls, its checks under its reload lock. The route family runs each operation in a worker thread,
so the service's own coroutines are reached through the event loop (`anyio.from_thread`)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.from_thread

from haygate.server.service import GatewayService

if TYPE_CHECKING:  # Haystack's: this module is imported with the routes, at a server's start
    from pathlib import Path

    from haygate.document_stores.hybrid import HybridDocumentStore
    from haygate.gateway.declarations import ToolDeclaration
    from haygate.gateway.loader import Loader
    from haygate.gateway.runtime import Gateway
    from haygate.gateway.writer import Writer

T = TypeVar("T")


class ServedWorkspace:
    def __init__(self, service: GatewayService, transport: str) -> None:
        self.service = service
        self.settings = service.settings
        self.transport = transport  # what its calls count as: `rest`, or `cli` on the local socket

    @contextmanager
    def serving(self, only: str | None = None) -> Iterator["Gateway"]:
        generation = anyio.from_thread.run(self.service.ready_generation)
        generation.enter()
        try:
            if only is not None and only not in generation.gateway.tools:
                raise self.service.unknown_tool(only)
            yield generation.gateway
        finally:
            generation.leave()

    def writing(self, work: Callable[["Writer"], T]) -> T:
        written: T = anyio.from_thread.run(self.service.write, lambda gateway: work(gateway.writer))
        return written

    @contextmanager
    def checking(self) -> Iterator[tuple["Loader", bool]]:
        """The configuration on disk, on the served data (its collections shared with the serving tools, not
        reopened), under the reload lock: a reload's checks without the reload."""
        from haygate.gateway.loader import Loader

        with self.service.reloads_held(), Loader(self.settings) as loader:
            yield loader, False

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        answered: dict[str, Any] = anyio.from_thread.run(self.service.call, tool, arguments, self.transport)
        return answered

    def health(self, verbose: bool) -> dict[str, Any]:
        return self.service.health(verbose)

    def listing(self) -> dict[str, "ToolDeclaration"]:
        return self.service.listing()

    @contextmanager
    def reading(self, collection: str) -> Iterator["HybridDocumentStore"]:
        yield anyio.from_thread.run(self.service.served_store, collection)

    def explain(self, tool: str, arguments: Any, pipeline: "Path | None", source: str | None = None) -> dict[str, Any]:
        explained: dict[str, Any] = anyio.from_thread.run(self.service.explain, tool, arguments, pipeline, source)
        return explained

    def reload(self) -> dict[str, Any]:
        result = self.service.reload()
        return {"reloaded": result.swapped, "tools": result.tools, "problems": result.problems}
