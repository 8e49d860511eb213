"""`FilterCheck`: when a search finds nothing, says which of the caller's filter values no record has.

"No results" means two different things: the query matched nothing within the filters, or a filter value
can never match (`version: "9.9"` where the collection holds 1.0 to 3.0, a product id that does not
exist). The second is worth saying, so the caller fixes the value instead of rewording the query.
"""

from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.document_stores.hybrid import HybridDocumentStore, check_store


@component
class FilterCheck:
    def __init__(self, document_store: HybridDocumentStore) -> None:
        self.document_store = check_store(document_store, "filter check")

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, document_store=self.document_store)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FilterCheck":
        return default_from_dict(cls, data)

    @component.output_types(metadata=dict[str, Any])
    def run(
        self,
        documents: list[Document],
        checks: dict[str, dict[str, Any]] | None = None,
        applied_filters: dict[str, Any] | None = None,
        collection_count: int | None = None,
    ) -> dict[str, Any]:
        """
        :param checks: each caller filter alone within the server's conditions (`QueryBuilder.checks`).
        :param collection_count: 0 means the collection is empty, which the formatter already says.
        :returns: `metadata`: `{"message": ...}` naming the values no record has, or nothing.
        """
        if documents or not checks or collection_count == 0:
            return {"metadata": {}}
        applied = applied_filters or {}
        never = [name for name, condition in checks.items() if self.document_store.count_documents(condition) == 0]
        if not never:
            return {"metadata": {}}
        values = ", ".join(f"{name}={applied.get(name)!r}" for name in never)
        message = (
            f"No results: no record has {values}, so nothing can match. Check the value"
            f"{'s' if len(never) > 1 else ''} (spelling, version, id), or leave {', '.join(never)} out."
        )
        return {"metadata": {"message": message}}
