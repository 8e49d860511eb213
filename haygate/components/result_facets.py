"""`ResultFacets`: per-result-set metadata a tool reports beside its results: counts per value, distinct
values (the cited sources).
"""

from collections import Counter
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.errors import ConfigurationError
from haygate.text.paths import check_document_path, document_value


@component
class ResultFacets:
    """Reports metadata about a result set beside its results: counts per value and distinct values.

    Connect it to the `metadata` socket of `ResponseFormatter`, and list its keys in the formatter's
    `metadata`: `counts` gives how many results hold each value of a path (per entity type, say), `distinct`
    the distinct values in order of first appearance (the cited sources).

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.result_facets import ResultFacets

    facets = ResultFacets(counts={"by_type": "meta.entity_type"}, distinct={"sources_cited": "meta.source"})
    documents = [
        Document(content="a", meta={"entity_type": "bug", "source": "tracker"}),
        Document(content="b", meta={"entity_type": "feature", "source": "tracker"}),
    ]
    print(facets.run(documents=documents)["metadata"])
    ```
    """

    stage = "formatting"  # what telemetry times its runs as (haygate.api.Stage)

    def __init__(self, counts: dict[str, str] | None = None, distinct: dict[str, str] | None = None) -> None:
        """Check the paths counted and listed.

        :param counts: metadata key -> document path whose values are counted, e.g. `counts: meta.entity_type`.
        :param distinct: metadata key -> document path whose distinct non-empty values are listed in order of
            first appearance, e.g. `sources_cited: meta.source_title`.
        """
        self.counts = dict(counts or {})
        self.distinct = dict(distinct or {})
        if not self.counts and not self.distinct:
            raise ConfigurationError("result facets: give `counts` or `distinct`")
        for path in [*self.counts.values(), *self.distinct.values()]:
            try:
                check_document_path(path)
            except ValueError as error:
                raise ConfigurationError(f"result facets: {error}") from None

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, counts=self.counts, distinct=self.distinct)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ResultFacets":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(metadata=dict[str, Any])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Count and list the configured paths' values over the result set."""
        metadata: dict[str, Any] = {
            key: dict(Counter(str(document_value(d, path)) for d in documents)) for key, path in self.counts.items()
        }
        for key, path in self.distinct.items():
            values = (document_value(d, path) for d in documents)
            metadata[key] = list(dict.fromkeys(str(v) for v in values if v))
        return {"metadata": metadata}
