import pytest
from haystack import Document

from haygate.components.result_facets import ResultFacets
from haygate.errors import ConfigurationError


class TestResultFacets:
    def test_init_needs_something_to_report(self) -> None:
        with pytest.raises(ConfigurationError, match="give `counts` or `distinct`"):
            ResultFacets()
        with pytest.raises(ConfigurationError, match="unknown document path"):
            ResultFacets(counts={"n": "kind"})

    def test_to_dict_and_from_dict(self) -> None:
        data = ResultFacets(counts={"counts": "meta.kind"}).to_dict()
        assert data == {
            "type": "haygate.components.result_facets.ResultFacets",
            "init_parameters": {"counts": {"counts": "meta.kind"}, "distinct": {}},
        }
        assert ResultFacets.from_dict(data).counts == {"counts": "meta.kind"}

    def test_run_counts_and_lists_distinct_values(self) -> None:
        docs = [
            Document(meta={"kind": k, "source": s})
            for k, s in (("bug", "B"), ("bug", None), ("test", "A"), ("bug", "B"))
        ]
        out = ResultFacets(counts={"counts": "meta.kind"}, distinct={"sources": "meta.source"}).run(docs)
        assert out["metadata"] == {"counts": {"bug": 3, "test": 1}, "sources": ["B", "A"]}
