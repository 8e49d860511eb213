"""qdrant-haystack's private hooks, reached here alone: `QdrantHooks` is its `QdrantDocumentStore` with the hooks our
server store needs under public names, so `haygate.document_stores.server` subclasses this and names no private
one (`tests/unit/test_compat.py` fails on a new reach outside compat, and on a renamed hook).

- `_client`: the store's client, which local mode shares between the stores of one folder;
- `_initialize_client`: qdrant-haystack connects lazily through it (`connect`, overridable);
- `_prepare_collection_config`: the collection's vectors (`collection_config`, overridable: passage multivectors);
- `_set_up_collection`: creates (or recreates) the collection with its payload indexes (`set_up_collection`).

Imported only by the server backend: qdrant-client costs about a second of every start that does not need it.
"""

from importlib.metadata import version
from typing import Any

from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

QDRANT_HAYSTACK_TESTED = "13.1"  # the minor version these hooks were read from
PRIVATE_NAMES: dict[str, tuple[str, ...]] = {
    "haystack_integrations.document_stores.qdrant.QdrantDocumentStore": (
        "_client",
        "_initialize_client",
        "_prepare_collection_config",
        "_set_up_collection",
    ),
}


def qdrant_haystack_version() -> str:
    return version("qdrant-haystack")


class QdrantHooks(QdrantDocumentStore):
    """qdrant-haystack's store, its private hooks forwarded to public methods a subclass may override."""

    @property
    def client(self) -> Any:
        """The connected client, or None before the first call connects it."""
        return self._client

    @client.setter
    def client(self, value: Any) -> None:
        self._client = value

    def connect(self) -> None:
        """qdrant-haystack's own lazy connection (a no-op once connected): what `_initialize_client` does."""
        QdrantDocumentStore._initialize_client(self)

    def collection_config(self, vectors: Any, sparse: Any) -> tuple[Any, Any]:
        """The collection's vector and sparse-vector configs as qdrant-haystack lays them out; override to add."""
        return vectors, sparse

    def set_up_collection(self, recreate: bool) -> None:
        """Create the collection (or drop and create it again) with this store's vectors and payload indexes."""
        self._set_up_collection(
            self.index,
            self.embedding_dim,
            recreate,
            self.similarity,
            self.use_sparse_embeddings,
            self.sparse_idf,
            self.on_disk,
            self.payload_fields_to_index,
        )

    # -- the private hooks qdrant-haystack calls ---------------------------------------------------------

    def _initialize_client(self) -> None:
        self.connect()

    def _prepare_collection_config(self, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
        return self.collection_config(*QdrantDocumentStore._prepare_collection_config(self, *args, **kwargs))
