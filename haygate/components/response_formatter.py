"""`ResponseFormatter`: ranked Documents -> the response envelope a tool declares.

One job: pick each result's fields from its document by path, and write the metadata block. Metadata a
tool adds (counts per type, cited sources, a page's total) comes from small components connected to the
variadic `metadata` socket; the formatter only selects the declared keys. Empty results are never
silent: the message names the collection to ingest, or the filters to relax.
"""

from collections.abc import Callable
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.core.component.types import Variadic

from haygate.errors import ConfigurationError
from haygate.text.paths import check_document_path, document_reader

DEFAULT_METADATA = ["query", "filters", "result_count", "reranked", "message"]
SPREAD = "*"


def id_number(value: Any) -> Any:
    """A typed id's own number: `feature:1` -> 1 (the entity samples key each type by integers; the collection
    keeps them typed so a feature and a bug of one number stay two records). Anything else stays as it is.
    """
    if isinstance(value, str):
        own = value.rpartition(":")[2]
        return int(own) if own.isdigit() else value
    return value


CONVERSIONS = {"id_number": id_number}  # a field's `as:`


@component
class ResponseFormatter:
    """Turns ranked Documents into the response envelope a tool declares.

    The last component of a tool's pipeline. One job: pick each result's fields from its document by path, and
    write the metadata block. Metadata a tool adds (counts per type, cited sources, a page's total) comes from
    small components connected to the variadic `metadata` socket; the formatter only selects the declared keys.
    Empty results are never silent: the message names the collection to ingest, or the filters to relax.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.response_formatter import ResponseFormatter

    formatter = ResponseFormatter(collection="docs", fields={"id": "id", "title": "meta.title", "score": "score"})
    documents = [Document(id="install", content="pip install haygate", meta={"title": "Install"}, score=0.8)]
    result = formatter.run(documents=documents, query="install")
    print(result["result"])
    ```
    """

    stage = "formatting"  # what telemetry times its runs as (haygate.api.Stage)

    def __init__(
        self,
        collection: str,
        fields: dict[str, str | dict[str, str]],
        results_key: str = "results",
        metadata: list[str] | None = None,
        no_results_message: str | None = None,
    ) -> None:
        """Check the declared fields and metadata keys.

        :param collection: the collection the tool reads, named in the empty-collection message.
        :param fields: output field -> document path (`id`, `content`, `score`, `meta.a.b`), or
            `{path: ..., as: id_number}` to give a typed id (`feature:1`) as its own number (1). The key `*`
            takes every key of the mapping at its path: `"*": meta.extraction` gives a decision its
            `question` and `options`, a warning its `title`.
        :param results_key: name of the result list in the envelope.
        :param metadata: the metadata keys to include, in order: `query`, `filters`, `result_count`,
            `reranked`, `relaxed` (the retriever fell back on looser filters), `message`, or any key a component
            sends to the `metadata` socket.
        :param no_results_message: the tool's own message when nothing matched (the collection is not empty).
        """
        self._readers: list[tuple[str, Callable[[Document], Any], Callable[[Any], Any] | None]] = []
        for name, spec in fields.items():
            path, conversion = _field_spec(name, spec)
            try:
                check_document_path(path)
            except ValueError as error:
                raise ConfigurationError(f"formatter: {error}") from None
            if conversion is not None and conversion not in CONVERSIONS:
                msg = f"formatter: field '{name}': unknown `as: {conversion}`; use one of {', '.join(CONVERSIONS)}"
                raise ConfigurationError(msg)
            self._readers.append((name, document_reader(path), CONVERSIONS[conversion] if conversion else None))
        self.collection = collection
        self.fields = dict(fields)
        self.results_key = results_key
        self.metadata = list(metadata or DEFAULT_METADATA)
        self.no_results_message = no_results_message

    def meta_fields(self) -> dict[str, str]:
        """Output field -> the meta key it reads (`source: meta.source_name` -> source_name), for the check
        that a field names a key the collection's documents have.
        """
        paths = {name: _field_spec(name, spec)[0] for name, spec in self.fields.items() if name != SPREAD}
        return {name: path.split(".")[1] for name, path in paths.items() if path.startswith("meta.")}

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            collection=self.collection,
            fields=self.fields,
            results_key=self.results_key,
            metadata=self.metadata,
            no_results_message=self.no_results_message,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResponseFormatter":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(result=dict[str, Any])
    def run(
        self,
        documents: list[Document],
        query: str,
        applied_filters: dict[str, Any] | None = None,
        reranked: bool = False,
        collection_count: int | None = None,
        metadata: Variadic[dict[str, Any]] = (),
    ) -> dict[str, Any]:
        """Write the envelope: each result's fields and the metadata block.

        :param metadata: metadata from other components (`{"counts": ...}`, `{"total": ...}`); a component
        may also send the `query` label or the `message`, which then win over the formatter's own.
        """
        results = [self._result(d) for d in documents]
        extra: dict[str, Any] = {}
        for part in metadata:
            if isinstance(part, dict):  # with no sender connected, Haystack passes the default as one item
                extra.update(part)
        label = str(extra.get("query", query))
        filters = applied_filters or {}
        available = {
            "query": label,
            "filters": filters,
            "result_count": len(results),
            "reranked": reranked,
            "relaxed": bool(extra.get("relaxed", False)),
            "message": self._message(
                results, label, filters, collection_count, extra.get("below_relevance_floor"), extra.get("relaxed")
            ),
            **extra,
        }
        missing = [key for key in self.metadata if key not in available]
        if missing:
            msg = f"formatter: metadata keys {missing} were declared but no component sends them"
            raise ConfigurationError(msg)
        return {"result": {self.results_key: results, "metadata": {key: available[key] for key in self.metadata}}}

    def _result(self, document: Document) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for name, read, convert in self._readers:
            value = read(document)
            if convert is not None:
                value = convert(value)
            if name == SPREAD:
                result.update(value if isinstance(value, dict) else {})
            else:
                result[name] = value
        return result

    def _message(
        self,
        results: list[Any],
        query: str,
        filters: dict[str, Any],
        count: int | None,
        below_floor: int | None,
        relaxed: bool | None = None,
    ) -> str:
        dropped = (
            f" {below_floor} weaker match(es) fell below the relevance floor and were left out." if below_floor else ""
        )
        if results and relaxed:
            return f"No result has every word of '{query}'; {len(results)} result(s) have some of them.{dropped}"
        if results:
            return f"{len(results)} result(s) for '{query}'.{dropped}"
        if below_floor:
            return f"No results for '{query}':{dropped} Try other words, or a topic instead of a query."
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


def _field_spec(name: str, spec: str | dict[str, str]) -> tuple[str, str | None]:
    """A field's (document path, conversion): written as the path alone, or as `{path: ..., as: ...}`."""
    if isinstance(spec, str):
        return spec, None
    if not isinstance(spec, dict) or set(spec) - {"path", "as"} or "path" not in spec:
        msg = f"formatter: field '{name}' is a document path, or {{path: ..., as: id_number}}; got {spec!r}"
        raise ConfigurationError(msg)
    return spec["path"], spec.get("as")
