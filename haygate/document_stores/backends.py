"""The store backends, found by name: Qdrant Edge (`edge`, the default), a Qdrant server (`qdrant`) and
Haystack's in-memory store kept in a file (`memory`), plus any a package registers under the entry-point group
`haygate.document_stores`.

A backend is one module with an `open_store(layout, place)` function answering a `HybridDocumentStore`: the
collection as its YAML declares it (`Layout`) and where the deployment keeps its collections (`Place`). Its module
is imported only when a deployment chooses it (qdrant-client costs a second of every start that does not need it).
`haygate.gateway.loader` chooses by `HAYGATE_STORE` (default: `qdrant` when `HAYGATE_QDRANT_URL` is set, else
`edge`); nothing else names a backend.
"""

import importlib
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from haygate.errors import ConfigurationError

if TYPE_CHECKING:
    from haygate.document_stores.hybrid import HybridDocumentStore

ENTRY_POINTS = "haygate.document_stores"
BUILT_IN = {
    "edge": "haygate.document_stores.edge.document_store:open_store",
    "qdrant": "haygate.document_stores.server.document_store:open_store",
    "memory": "haygate.document_stores.memory:open_store",
}
DEFAULT = "edge"
SERVER = "qdrant"  # the default where a server's URL is set


@dataclass(frozen=True)
class Layout:
    """One collection as its YAML declares it (`haygate.gateway.collections.CollectionSchema`)."""

    name: str
    embedding_dim: int
    payload_indexes: dict[str, str] = field(default_factory=dict)
    text_fields: list[str] = field(default_factory=list)
    passages: bool = False
    storage: dict[str, Any] = field(default_factory=dict)  # a backend's own indexing settings (Edge's HNSW...)


@dataclass(frozen=True)
class Place:
    """Where a deployment keeps its collections (its settings): a data dir, or a server's URL and key."""

    data_dir: Path
    url: str | None = None
    api_key: str | None = None
    disk_reserve_bytes: int = 64 * 1024 * 1024


class OpenStore(Protocol):
    def __call__(self, layout: Layout, place: Place) -> "HybridDocumentStore": ...


def names() -> list[str]:
    """Every backend this installation can open: the built-in ones, then those packages register."""
    registered = [point.name for point in entry_points(group=ENTRY_POINTS) if point.name not in BUILT_IN]
    return [*BUILT_IN, *sorted(registered)]


def chosen(name: str | None, url: str | None) -> str:
    """The backend a deployment uses: the one named, else a server's where a URL is set, else Edge."""
    return name or (SERVER if url else DEFAULT)


def opener(name: str) -> OpenStore:
    """The `open_store` of the backend called `name`, imported now; an unknown name is refused with the known ones."""
    target = BUILT_IN.get(name)
    if target is None:
        target = next((point.value for point in entry_points(group=ENTRY_POINTS) if point.name == name), None)
    if target is None:
        msg = f"no store backend '{name}' (HAYGATE_STORE); backends: {', '.join(names())}"
        raise ConfigurationError(msg, {"field": "store", "allowed": names()})
    module, _, function = target.partition(":")
    return cast(OpenStore, getattr(importlib.import_module(module), function))


def open_store(name: str, layout: Layout, place: Place) -> "HybridDocumentStore":
    return opener(name)(layout, place)
