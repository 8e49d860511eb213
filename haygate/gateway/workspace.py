"""An operation run in this process (`LocalWorkspace`): no server holds the data dir, so this process opens it,
builds what the operation needs and closes it again."""

import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.gateway.catalog import load_catalog
from haygate.gateway.declarations import ToolDeclaration
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.gateway.writer import Writer
from haygate.settings import Settings

T = TypeVar("T")


def has_data(data_dir: Path) -> bool:
    """Anything ingested: a collection's folder beside the model cache and the server's files."""
    return data_dir.is_dir() and any(path.is_dir() and not path.name.startswith(".") for path in data_dir.iterdir())


class LocalWorkspace:
    """The data dir opened here, for one operation at a time; or, as a context manager, held open for a series of
    them (a command that pools every query of a set), its tools built once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._held: ExitStack | None = None
        self._loader: Loader | None = None
        self._gateways: dict[str | None, Gateway] = {}

    def __enter__(self) -> "LocalWorkspace":
        self._held = ExitStack()
        return self

    def __exit__(self, *_: object) -> None:
        held, self._held, self._loader, self._gateways = self._held, None, None, {}
        if held is not None:
            held.close()

    @contextmanager
    def serving(self, only: str | None = None) -> Iterator[Gateway]:
        if self._held is None:
            with Loader(self.settings) as loader:
                yield Gateway.load(loader, strict=only is not None, only=only)
            return
        if self._loader is None:
            self._loader = self._held.enter_context(Loader(self.settings))
        if only not in self._gateways:
            self._gateways[only] = Gateway.load(self._loader, strict=only is not None, only=only)
        yield self._gateways[only]

    def writing(self, work: Callable[[Writer], T]) -> T:
        with Loader(self.settings) as loader:
            writer = Writer(loader)
            try:
                return work(writer)
            finally:
                writer.close()

    @contextmanager
    def checking(self) -> Iterator[tuple[Loader, bool]]:
        if self.settings.qdrant_url or has_data(self.settings.data_dir):
            with Loader(self.settings) as loader:
                yield loader, False
            return
        with tempfile.TemporaryDirectory(prefix="haygate-validate-") as scratch:  # nothing ingested: a scratch dir
            on_scratch = {"data_dir": Path(scratch), "model_cache_dir": self.settings.models_dir}
            with Loader(self.settings.model_copy(update=on_scratch)) as loader:
                yield loader, True

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        with self.serving(only=tool) as gateway:
            return gateway.call(tool, arguments)

    def health(self, verbose: bool) -> dict[str, Any]:
        """No server runs: the collections as they lie on disk, and no calls."""
        with Loader(self.settings) as loader:
            return {"status": "not running", "collections": loader.collection_stats(), "calls": {}}

    def listing(self) -> dict[str, ToolDeclaration]:
        """The tools a server of this configuration would serve, as their declarations say."""
        return load_catalog(self.settings).served

    @contextmanager
    def reading(self, collection: str) -> Iterator[HybridDocumentStore]:
        with Loader(self.settings) as loader:
            yield loader.store(collection)  # an unknown collection is refused, not an empty store

    def explain(self, tool: str, arguments: Any, pipeline: Path | None, source: str | None = None) -> dict[str, Any]:
        with self.serving(only=tool) as gateway:
            variant = pipeline is not None or source is not None
            runtime = gateway.variant(tool, pipeline, source) if variant else gateway.get(tool)
            if runtime.pipeline is not None:
                runtime.pipeline.pipeline.warm_up()
            started = time.perf_counter()
            result, provenance = runtime.explain(arguments)
            elapsed = round((time.perf_counter() - started) * 1000, 2)
        return {
            "tool": tool,
            "result": result,
            "provenance": provenance,
            "elapsed_ms": elapsed,
            "collections": runtime.collections,
        }

    def reload(self) -> None:
        """No server runs: nothing serves, so there is nothing to reload."""
        return None
