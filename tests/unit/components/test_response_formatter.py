import pytest
from haystack import Document

from haygate.components.response_formatter import ResponseFormatter
from haygate.errors import ConfigurationError

FIELDS = {"id": "id", "text": "content", "title": "meta.title", "rank": "meta.scores.dense_rank"}


class TestResponseFormatter:
    def test_init_rejects_bad_paths(self) -> None:
        with pytest.raises(ConfigurationError, match="unknown document path"):
            ResponseFormatter(collection="docs", fields={"x": "embedding"})

    def test_to_dict(self) -> None:
        assert ResponseFormatter(collection="docs", fields=FIELDS).to_dict() == {
            "type": "haygate.components.response_formatter.ResponseFormatter",
            "init_parameters": {
                "collection": "docs",
                "fields": FIELDS,
                "results_key": "results",
                "metadata": ["query", "filters", "result_count", "reranked", "message"],
                "no_results_message": None,
            },
        }

    def test_from_dict(self) -> None:
        data = ResponseFormatter(collection="docs", fields=FIELDS, results_key="hits").to_dict()
        assert ResponseFormatter.from_dict(data).results_key == "hits"

    def test_run_formats_fields(self) -> None:
        doc = Document(id="x", content="body", meta={"title": "T", "scores": {"dense_rank": 2}}, score=0.5)
        out = ResponseFormatter(collection="docs", fields=FIELDS).run([doc], query="q", reranked=True)["result"]
        assert out["results"] == [{"id": "x", "text": "body", "title": "T", "rank": 2}]
        assert out["metadata"]["result_count"] == 1 and out["metadata"]["reranked"] is True

    def test_run_spreads_a_mapping_into_the_result(self) -> None:
        formatter = ResponseFormatter(collection="knowledge", fields={"id": "id", "*": "meta.extraction"})
        docs = [
            Document(id="1", meta={"extraction": {"question": "Why?"}}),
            Document(id="2", meta={"extraction": {"title": "Careful"}}),
        ]
        assert formatter.run(docs, query="")["result"]["results"] == [
            {"id": "1", "question": "Why?"},
            {"id": "2", "title": "Careful"},
        ]

    def test_run_takes_metadata_from_other_components(self) -> None:
        formatter = ResponseFormatter(
            collection="knowledge", fields={"id": "id"}, metadata=["query", "counts", "result_count"]
        )
        out = formatter.run([Document(id="1")], query="", metadata=[{"query": "all"}, {"counts": {"bug": 1}}])["result"]
        assert out["metadata"] == {"query": "all", "counts": {"bug": 1}, "result_count": 1}

    def test_run_names_metadata_nobody_sends(self) -> None:
        with pytest.raises(ConfigurationError, match="no component sends them"):
            ResponseFormatter(collection="docs", fields={}, metadata=["latency"]).run([], query="q")

    def test_run_empty_collection_says_what_to_ingest(self) -> None:
        out = ResponseFormatter(collection="docs", fields={}).run([], query="q", collection_count=0)["result"]
        assert "haygate ingest docs" in out["metadata"]["message"]

    def test_run_no_hits_names_filters_to_relax(self) -> None:
        out = ResponseFormatter(collection="docs", fields={}).run(
            [], query="q", applied_filters={"version": "9.9"}, collection_count=None
        )["result"]
        assert "version='9.9'" in out["metadata"]["message"] and "Relax" in out["metadata"]["message"]

    def test_run_a_components_message_wins(self) -> None:
        out = ResponseFormatter(collection="m", fields={}).run([], query="q", metadata=[{"message": "past the end"}])
        assert out["result"]["metadata"]["message"] == "past the end"

    def test_run_says_when_the_results_have_only_some_of_the_words(self) -> None:
        formatter = ResponseFormatter(collection="e", fields={"id": "id"}, metadata=["relaxed", "message"])
        relaxed = formatter.run([Document(id="1")], query="red whale", metadata=[{"relaxed": True}])["result"]
        assert relaxed["metadata"] == {
            "relaxed": True,
            "message": "No result has every word of 'red whale'; 1 result(s) have some of them.",
        }
        strict = formatter.run([Document(id="1")], query="red fox")["result"]["metadata"]
        assert strict == {"relaxed": False, "message": "1 result(s) for 'red fox'."}
