"""`CollectionWriter`: upserts Documents into the collection named at run time."""

from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.document_stores.types import DuplicatePolicy

from components.collections import open_collection


@component
class CollectionWriter:
    """Writes with OVERWRITE: ids are stable, so a write is an idempotent upsert."""

    def __init__(self, policy: str = "overwrite") -> None:
        self.policy = policy
        self._policy = DuplicatePolicy(policy)

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, policy=self.policy)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CollectionWriter":
        return default_from_dict(cls, data)

    @component.output_types(documents_written=int)
    def run(self, documents: list[Document], collection: str) -> dict[str, Any]:
        store = open_collection(collection)
        return {"documents_written": store.write_documents(documents, policy=self._policy)}
