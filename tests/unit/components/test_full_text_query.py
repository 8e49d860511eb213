import pytest
from haystack import Document

from haygate.components.full_text_query import MAX_RELAXED_WORDS, FullTextQuery
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.errors import QuerySyntaxError


class TestFullTextQuery:
    def test_init_requires_a_store(self) -> None:
        with pytest.raises(Exception, match="document store"):
            FullTextQuery("entities")  # type: ignore[arg-type]

    def test_to_dict_and_from_dict(self, tiny_store: EdgeDocumentStore) -> None:
        data = FullTextQuery(tiny_store, text_field="content").to_dict()
        assert data == {
            "type": "haygate.components.full_text_query.FullTextQuery",
            "init_parameters": {
                "document_store": tiny_store.to_dict(),
                "text_field": "content",
                "terms_field": "meta.terms",
                "relax": False,
            },
        }
        assert FullTextQuery.from_dict(data).terms_field == "meta.terms"

    def test_run_raw_builds_conditions_and_scoring_words(self, tiny_store: EdgeDocumentStore) -> None:
        out = FullTextQuery(tiny_store).run(query='"red fox" NOT cat', match_mode="raw")
        assert out["filters"] == {
            "operator": "AND",
            "conditions": [
                {
                    "operator": "AND",
                    "conditions": [
                        {"field": "content", "operator": "phrase", "value": "red fox"},
                        {"operator": "NOT", "conditions": [{"field": "content", "operator": "match", "value": "cat"}]},
                    ],
                }
            ],
        }
        assert out["text"] == "red fox" and out["terms"] == ["red", "fox"]

    def test_run_simple_or_and_outer_filters(self, tiny_store: EdgeDocumentStore) -> None:
        outer = {"field": "meta.group", "operator": "==", "value": "x"}
        out = FullTextQuery(tiny_store).run(query="red (fox", filters=outer, operator="OR")
        [first, second] = out["filters"]["conditions"]
        assert first == outer and second["operator"] == "OR" and out["text"] == "red fox"

    def test_run_leaves_stop_words_out_of_the_conditions(self, tiny_store: EdgeDocumentStore) -> None:
        out = FullTextQuery(tiny_store).run(query="subtitles drifting after seeking")
        [condition] = out["filters"]["conditions"]
        assert [c["value"] for c in condition["conditions"]] == ["subtitles", "drifting", "seeking"]
        raw = FullTextQuery(tiny_store).run(query='"off by one" OR the', match_mode="raw")
        assert raw["filters"]["conditions"] == [{"field": "content", "operator": "phrase", "value": "off by one"}]

    def test_run_says_a_query_of_stop_words_only_can_match_nothing(self, tiny_store: EdgeDocumentStore) -> None:
        """Schema-valid, so not an error: an empty result whose message names the stop words."""
        out = FullTextQuery(tiny_store).run(query="what is the")
        assert out["unmatchable"] is True and out["terms"] == [] and out["text"] == ""
        assert "only stop words ('what', 'is', 'the')" in out["metadata"]["message"]
        blank = FullTextQuery(tiny_store).run(query="   ")
        assert blank["unmatchable"] is True and "no words" in blank["metadata"]["message"]
        for symbols in ("!?", "-- , ;"):  # raw mode too: no terms is no mistake in its syntax
            raw = FullTextQuery(tiny_store).run(query=symbols, match_mode="raw")
            assert raw["unmatchable"] is True and "no words" in raw["metadata"]["message"]
        assert FullTextQuery(tiny_store).run(query="red fox")["unmatchable"] is False

    def test_run_expands_prefixes_from_the_matching_documents(self, tiny_store: EdgeDocumentStore) -> None:
        tiny_store.write_documents(
            [
                Document(id="1", content="notify", meta={"terms": ["notify", "users"]}),
                Document(id="2", content="notification", meta={"terms": ["notification", "notify"]}),
            ]
        )
        out = FullTextQuery(tiny_store).run(query="notif*", match_mode="raw")
        assert out["terms"] == ["notify", "notification"]  # most frequent first

    def test_run_syntax_error(self, tiny_store: EdgeDocumentStore) -> None:
        with pytest.raises(QuerySyntaxError, match="unbalanced"):
            FullTextQuery(tiny_store).run(query="(a", match_mode="raw")

    def test_relax_offers_half_the_words_for_every_word_in_simple_mode_only(
        self, tiny_store: EdgeDocumentStore
    ) -> None:
        outer = {"field": "meta.group", "operator": "==", "value": "x"}
        relaxing = FullTextQuery(tiny_store, relax=True)
        words = ("red", "fox", "jumps", "high", "fences")
        out = relaxing.run(query=" ".join(words), filters=outer)
        assert out["relaxed_filters"] == {
            "operator": "AND",
            "conditions": [
                outer,
                {
                    "operator": "OR",
                    "conditions": [{"field": "content", "operator": "match", "value": w} for w in words],
                    "at_least": 3,  # half of five, rounded up
                },
            ],
        }
        assert relaxing.run(query="red fox jumps")["relaxed_filters"]["conditions"][0]["at_least"] == 2
        assert relaxing.run(query="red fox")["relaxed_filters"] is None  # two words: one alone says little
        assert relaxing.run(query="red fox jumps", match_mode="raw")["relaxed_filters"] is None  # as written
        assert relaxing.run(query="red fox jumps", operator="OR")["relaxed_filters"] is None  # any word already
        assert FullTextQuery(tiny_store).run(query="red fox jumps")["relaxed_filters"] is None

    def test_run_relaxes_over_the_longest_distinct_words_only(self, tiny_store: EdgeDocumentStore) -> None:
        """At least half of n words is C(n, n/2) conditions to Qdrant: the fallback weighs 12 words at most."""
        words = [f"{'x' * n}word" for n in range(30)]
        out = FullTextQuery(tiny_store, relax=True).run(query=" ".join([*words, *words]))
        [condition] = [c for c in out["relaxed_filters"]["conditions"] if "at_least" in c]
        kept = [c["value"] for c in condition["conditions"]]
        assert len(kept) == MAX_RELAXED_WORDS and condition["at_least"] == MAX_RELAXED_WORDS // 2
        assert kept == words[-MAX_RELAXED_WORDS:]  # the longest, in the query's order
        assert len(out["text"].split()) == 30  # the scoring text keeps every word
