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
    """Says which of the caller's filter values no record has, when a search finds nothing.

    "No results" means two things: the query matched nothing within the filters, or a filter value can never
    match (`version: "9.9"` where the collection holds 1.0 to 3.0). Connect it to the retriever's documents and
    `QueryBuilder`'s `checks`; its `metadata` tells the caller to fix the value instead of rewording the query.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.filter_check import FilterCheck
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    store = EdgeDocumentStore("docs", "data", embedding_dim=4, payload_indexes={"version": "keyword"})
    store.write_documents([Document(content="pip install", embedding=[1.0, 0.0, 0.0, 0.0], meta={"version": "1.0"})])
    check = FilterCheck(document_store=store)
    result = check.run(
        documents=[],
        checks={"version": {"field": "meta.version", "operator": "==", "value": "9.9"}},
        applied_filters={"version": "9.9"},
    )
    print(result["metadata"]["message"])
    ```
    """

    stage = "query_building"  # what telemetry times its runs as (haygate.api.Stage)

    def __init__(self, document_store: HybridDocumentStore) -> None:
        """Set the collection whose records the filter values are counted in."""
        self.document_store = check_store(document_store, "filter check")

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, document_store=self.document_store)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FilterCheck":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(metadata=dict[str, Any])
    def run(
        self,
        documents: list[Document],
        checks: dict[str, dict[str, Any]] | None = None,
        applied_filters: dict[str, Any] | None = None,
        collection_count: int | None = None,
        switches: dict[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Name the filter values no record has, or the switch that left out every match, when nothing was found.

        :param checks: each caller filter alone within the server's conditions (`QueryBuilder.checks`).
        :param collection_count: 0 means the collection is empty, which the formatter already says.
        :param switches: each switch that leaves records out: its condition and the others (`QueryBuilder.switches`).
        :returns: `metadata`: `{"message": ...}` naming the values no record has, or the switch, or nothing.
        """
        if documents or collection_count == 0:
            return {"metadata": {}}
        for name, split in (switches or {}).items():
            if self._left_out_every_match(split["switch"], split["others"]):
                return {"metadata": {"message": _left_out_by(name)}}
        if not checks:
            return {"metadata": {}}
        applied = applied_filters or {}
        store = self.document_store
        unfilterable = {name: fields for name, check in checks.items() if (fields := store.unfilterable_fields(check))}
        if unfilterable:
            return {"metadata": {"message": _unfilterable(store.collection, unfilterable)}}
        never = [name for name, condition in checks.items() if store.count_documents(condition) == 0]
        if not never:
            return {"metadata": {}}
        values = ", ".join(f"{name}={applied.get(name)!r}" for name in never)
        message = (
            f"No results: no record has {values}, so nothing can match. Check the value"
            f"{'s' if len(never) > 1 else ''} (spelling, version, id), or leave {', '.join(never)} out."
        )
        return {"metadata": {"message": message}}

    def _left_out_every_match(self, switch: dict[str, Any], others: list[dict[str, Any]]) -> bool:
        """No record passes every condition, and some pass all but the switch: it alone emptied the answer
        (not a relevance floor, not a filter value no record has).
        """
        count = self.document_store.count_documents
        if count({"operator": "AND", "conditions": [switch, *others]}) > 0:
            return False
        return count({"operator": "AND", "conditions": others} if others else None) > 0


def _unfilterable(collection: str, parameters: dict[str, list[str]]) -> str:
    """Filter parameters on fields the collection cannot filter on: no call setting them can find anything."""
    named = "; ".join(f"{name} filters on {', '.join(fields)}" for name, fields in parameters.items())
    return (
        f"No results: {named}, which no record of '{collection}' can be filtered on (no payload index), so "
        f"nothing can match. Leave {', '.join(parameters)} out; `haygate validate` says how to make it work."
    )


def _left_out_by(name: str) -> str:
    """A switch the call left off (search_docs' `changelogs: false`) holds back every record the rest allows."""
    return (
        f"No results: every record the other filters allow is one that `{name}` leaves out as called (or by "
        f"default). Call again with {name}: true to search them too."
    )


def unmatched_filters(store: HybridDocumentStore, filters: dict[str, Any] | None) -> str | None:
    """Why a search under `filters` (a Haystack filter dict, as a caller sends one to a retriever's `filters`)
    found nothing, when a condition can never match: a field no record has, or a value no record holds. None
    when every condition matches something alone (the query found nothing within them).
    """
    leaves = list(_leaves(filters)) if isinstance(filters, dict) else []
    reasons = []
    for condition in leaves:
        try:
            if store.count_documents(condition) > 0:
                continue
            held = store.distinct_values(str(condition["field"]))
        except Exception:  # a condition the store refuses is the retriever's error to report
            continue
        field = condition["field"]
        if not held:
            reasons.append(f"no record has the field '{field}'")
        else:
            shown = ", ".join(repr(v) for v in held[:5]) + (", ..." if len(held) > 5 else "")
            reasons.append(f"no record has {field} {condition.get('operator')} {condition.get('value')!r} ({shown})")
    if not reasons:
        return None
    return f"No results: {'; '.join(reasons)}, so nothing can match. Check the filter, or leave it out."


def _leaves(filters: dict[str, Any]) -> Any:
    if "conditions" in filters and isinstance(filters["conditions"], list):
        for condition in filters["conditions"]:
            if isinstance(condition, dict):
                yield from _leaves(condition)
    elif "field" in filters and "operator" in filters:
        yield filters
