"""`ResponseFormatter`: ranked Documents -> the response envelope a tool declares.

Fields are picked from documents by path (`id`, `content`, `score`, `meta.title`, ...). Empty results are
never silent: the message names the collection to ingest, or the filters to relax.
"""

from collections import Counter
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from components.errors import ConfigurationError

DEFAULT_METADATA = ["query", "filters", "result_count", "reranked", "message"]
_KNOWN_METADATA = {*DEFAULT_METADATA, "sources_cited", "search_type", "counts", "total", "offset", "limit"}


def document_value(document: Document, path: str) -> Any:
    """Value at a document path: `id`, `content`, `score` or `meta.<key>[.<key>...]`."""
    if path in ("id", "content", "score"):
        return getattr(document, path)
    if not path.startswith("meta."):
        msg = f"unknown document path '{path}'; use id, content, score or meta.<field>"
        raise ConfigurationError(msg)
    value: Any = document.meta
    for key in path.removeprefix("meta.").split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


@component
class ResponseFormatter:
    def __init__(
        self,
        collection: str,
        fields: dict[str, str],
        results_key: str = "results",
        metadata: list[str] | None = None,
        no_results_message: str | None = None,
        variant_field: str | None = None,
        variant_fields: dict[str, dict[str, str]] | None = None,
        sources_field: str | None = None,
        query_label: str | None = None,
        count_field: str | None = None,
    ) -> None:
        """
        :param collection: the collection the tool reads, named in the empty-collection message.
        :param fields: output field -> document path.
        :param results_key: name of the result list in the envelope.
        :param metadata: which metadata keys to include (query, filters, result_count, reranked, message).
        :param no_results_message: the tool's own message when nothing matched (the collection is not empty).
        :param variant_field: a document path whose value picks extra fields from `variant_fields`, so one
            pipeline serves typed results (a decision has `question`, a warning `title`).
        :param sources_field: document path whose distinct values are `metadata.sources_cited`.
        :param query_label: argument reported as `metadata.query` ("all" when absent), instead of the query text.
        :param count_field: document path whose values are counted into `metadata.counts` (e.g. per entity type).
        """
        unknown = set(metadata or []) - _KNOWN_METADATA
        if unknown:
            msg = f"formatter: unknown metadata keys {sorted(unknown)}; allowed: {sorted(_KNOWN_METADATA)}"
            raise ConfigurationError(msg)
        self.variant_field = variant_field
        self.variant_fields = {k: dict(v) for k, v in (variant_fields or {}).items()}
        self.sources_field = sources_field
        self.query_label = query_label
        self.count_field = count_field
        paths = [*fields.values(), *(p for v in self.variant_fields.values() for p in v.values())]
        paths += [p for p in (variant_field, sources_field, count_field) if p]
        for path in paths:
            if path not in ("id", "content", "score") and not path.startswith("meta."):
                msg = f"formatter: unknown document path '{path}'; use id, content, score or meta.<field>"
                raise ConfigurationError(msg)
        self.collection = collection
        self.fields = dict(fields)
        self.results_key = results_key
        self.metadata = list(metadata or DEFAULT_METADATA)
        self.no_results_message = no_results_message

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            collection=self.collection,
            fields=self.fields,
            results_key=self.results_key,
            metadata=self.metadata,
            no_results_message=self.no_results_message,
            variant_field=self.variant_field,
            variant_fields=self.variant_fields,
            sources_field=self.sources_field,
            query_label=self.query_label,
            count_field=self.count_field,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResponseFormatter":
        return default_from_dict(cls, data)

    @component.output_types(result=dict[str, Any])
    def run(
        self,
        documents: list[Document],
        query: str,
        applied_filters: dict[str, Any] | None = None,
        reranked: bool = False,
        collection_count: int | None = None,
        arguments: dict[str, Any] | None = None,
        page: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """`page` ({total, offset, limit}) comes from a paginating component, for paginated tools."""
        results = [self._result(d) for d in documents]
        label = query
        if self.query_label is not None:
            label = str((arguments or {}).get(self.query_label) or "all")
        sources = [document_value(d, self.sources_field) for d in documents] if self.sources_field else []
        available = {
            "query": label,
            "filters": applied_filters or {},
            "result_count": len(results),
            "reranked": reranked,
            "message": self._message(results, label, applied_filters or {}, collection_count, page),
            "sources_cited": list(dict.fromkeys(str(s) for s in sources if s)),
            "search_type": "semantic" if query.strip() else "filtered",
            "counts": dict(Counter(str(document_value(d, self.count_field)) for d in documents))
            if self.count_field
            else {},
            **(page or {}),
        }
        metadata = {key: available.get(key) for key in self.metadata}
        return {"result": {self.results_key: results, "metadata": metadata}}

    def _result(self, document: Document) -> dict[str, Any]:
        fields = self.fields
        if self.variant_field is not None:
            fields = {**fields, **self.variant_fields.get(str(document_value(document, self.variant_field)), {})}
        return {name: document_value(document, path) for name, path in fields.items()}

    def _message(
        self,
        results: list[Any],
        query: str,
        filters: dict[str, Any],
        count: int | None,
        page: dict[str, Any] | None = None,
    ) -> str:
        if results:
            return f"{len(results)} result(s) for '{query}'."
        if page and page.get("total") and page.get("offset", 0) >= page["total"]:
            return f"offset {page['offset']} is past the end: '{query}' has {page['total']} result(s) in total."
        if count == 0:
            return (
                f"Collection '{self.collection}' is empty. Ingest data first: "
                f"`haygate ingest {self.collection} FILE...` (or `haygate ingest --samples`)."
            )
        if self.no_results_message:
            return self.no_results_message
        if filters:
            applied = ", ".join(f"{k}={v!r}" for k, v in filters.items())
            return (
                f"No results for '{query}' with filters {applied}. Relax or remove {', '.join(filters)} and try again."
            )
        return f"No results for '{query}'. Try other or fewer words."
