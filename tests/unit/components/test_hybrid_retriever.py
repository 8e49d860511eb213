from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
import yaml
from haystack import Document
from haystack.dataclasses import SparseEmbedding

from haygate.components.filter_check import FilterCheck
from haygate.components.hybrid_retriever import HybridRetriever
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.payload import PASSAGE_EMBEDDINGS
from haygate.document_stores.policy import HybridSearchPolicy
from haygate.errors import ConfigurationError, InvalidRequestError, envelope
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from tests.support.project import copy_project, make_settings


def fill(store: EdgeDocumentStore) -> None:
    store.write_documents(
        [
            Document(
                id=f"d{i}",
                content=f"text number {i}" + (" border" if i == 2 else ""),
                meta={"group": "a" if i < 4 else "b", "record_id": f"d{i}", "title": f"T{i}"},
                embedding=[1.0, float(i), 0.0],
                sparse_embedding=SparseEmbedding(indices=[i], values=[1.0]),
            )
            for i in range(1, 7)
        ]
    )


class TestHybridRetriever:
    def test_init_validates(self, tiny_store: EdgeDocumentStore) -> None:
        with pytest.raises(ConfigurationError, match="fusion"):
            HybridRetriever(tiny_store, fusion="max")  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match="at least one source"):
            HybridRetriever(tiny_store, use_dense=False, use_sparse=False)
        with pytest.raises(ConfigurationError, match="no text index"):
            HybridRetriever(tiny_store, text_fields=["meta.group"])
        with pytest.raises(ConfigurationError, match="must be a haygate document store"):
            HybridRetriever({"collection": "docs"})  # type: ignore[arg-type]

    @pytest.mark.parametrize(
        ("settings", "named"),
        [
            ({"fusion": "dbsf", "weights": {"dense": 2.0}}, ["weights is ignored", "fusion 'dbsf' takes no weights"]),
            ({"fusion": "dbsf", "rrf_k": 2}, ["rrf_k is ignored", "fusion 'dbsf' takes no rrf_k"]),
            ({"fusion": "sum", "rrf_k": 60}, ["rrf_k is ignored", "fusion 'sum' takes no rrf_k"]),
            (
                {"use_dense": False, "text_fields": ["content"], "weights": {"dense": 2.0, "sparse": 1.0}},
                ["weights is ignored", "weights name ['dense']", "use_dense", "sources: sparse, text:content"],
            ),
            ({"use_dense": False, "weights": {"sparse": 2.0}}, ["weights is ignored", "one source (sparse)"]),
            ({"text_fields": ["content"], "weights": {"text:meta.title": 5.0}}, ["weights", "text_fields"]),
            ({"top_k": 100, "prefetch_limit": 50}, ["prefetch_limit 50 is below top_k 100"]),
            (
                {"use_dense": False, "feedback": {"documents": 3}},
                ["feedback is ignored", "use_dense is false"],
            ),
            (
                {"use_sparse": False, "fusion": "rrf", "rrf_k": 10, "prefetch_limit": 200},
                ["fusion, rrf_k and prefetch_limit are ignored", "use_dense, use_sparse and text_fields", "(dense)"],
            ),
        ],
    )
    def test_init_refuses_a_setting_the_others_ignore_naming_both(
        self, tiny_store: EdgeDocumentStore, settings: dict[str, Any], named: list[str]
    ) -> None:
        with pytest.raises(ConfigurationError) as caught:
            HybridRetriever(tiny_store, **settings)
        for words in named:
            assert words in caught.value.message

    def test_settings_that_count_are_accepted(self, tiny_store: EdgeDocumentStore) -> None:
        assert HybridRetriever(tiny_store, fusion="dbsf", prefetch_limit=200, top_k=100).policy.fusion == "dbsf"
        assert HybridRetriever(tiny_store, fusion="rrf", rrf_k=2, weights={"dense": 2.0}).policy.rrf_k == 2
        weighted = HybridRetriever(
            tiny_store,
            fusion="sum",
            use_dense=False,
            use_sparse=False,
            text_fields=["content", "meta.title"],
            weights={"text:meta.title": 5.0, "text:content": 1.0},
        )
        assert weighted.policy.weights["text:meta.title"] == 5.0
        alone = HybridRetriever(tiny_store, use_sparse=False, top_k=7)  # one source, nothing fusion-related set
        assert alone.to_dict()["init_parameters"]["fusion"] is None

    def test_ignored_settings_is_one_rule_whatever_the_values(self) -> None:
        assert HybridRetriever.ignored_settings({}) == {}
        assert HybridRetriever.ignored_settings({"fusion": "rrf", "weights": {"dense": 3.0}}) == {}
        assert set(HybridRetriever.ignored_settings({"fusion": "dbsf"})) == {"rrf_k", "weights"}
        assert set(HybridRetriever.ignored_settings({"fusion": "sum"})) == {"rrf_k"}
        assert set(HybridRetriever.ignored_settings({"use_dense": False})) == {
            "fusion",
            "rrf_k",
            "weights",
            "prefetch_limit",
        }

    def test_one_source_keeps_what_that_source_gives_meaning_to(self, tiny_store: EdgeDocumentStore) -> None:
        """A judging pool's one-source rankings: each retriever built from its own answer, with nothing it would
        refuse as ignored (floors and weights of the other sources, fusion with one source left)."""
        given = {
            "document_store": {"collection": "docs"},
            "fusion": "rrf",
            "rrf_k": 20,
            "weights": {"dense": 1.0, "sparse": 2.0},
            "relevance_floor": {"dense": 0.3, "terms": 1.0},
            "feedback": {"documents": 2},
            "top_k": 7,
        }
        dense = HybridRetriever.one_source(given, "dense")
        assert dense["document_store"] == {"collection": "docs"} and dense["top_k"] == 7
        assert (dense["use_dense"], dense["use_sparse"], dense["text_fields"]) == (True, False, [])
        assert dense["relevance_floor"] == {"dense": 0.3} and dense["feedback"] == {"documents": 2}
        assert dense["fusion"] is dense["rrf_k"] is dense["weights"] is None
        bm25 = HybridRetriever.one_source({**given, "text_fields": ["content"]}, "bm25")
        assert (bm25["use_dense"], bm25["use_sparse"], bm25["text_fields"]) == (False, True, ["content"])
        assert bm25["relevance_floor"] == {"terms": 1.0} and bm25["feedback"] is None
        assert bm25["weights"] == {"sparse": 2.0} and bm25["rrf_k"] == 20  # two BM25 sources are still fused
        for source, made in (("dense", dense), ("bm25", HybridRetriever.one_source(given, "bm25"))):
            settings = {k: v for k, v in made.items() if k != "document_store"}
            assert HybridRetriever(tiny_store, **settings).policy.use_dense is (source == "dense")
        with pytest.raises(ConfigurationError, match="no BM25 source"):
            HybridRetriever.one_source({"use_sparse": False}, "bm25")
        with pytest.raises(ConfigurationError, match="no dense source"):
            HybridRetriever.one_source({"use_dense": False}, "dense")
        with pytest.raises(ConfigurationError, match="one of dense, bm25"):
            HybridRetriever.one_source({}, "sparse")

    def test_to_dict(self, tiny_store: EdgeDocumentStore) -> None:
        assert HybridRetriever(tiny_store, rrf_k=2).to_dict() == {
            "type": "haygate.components.hybrid_retriever.HybridRetriever",
            "init_parameters": {
                "document_store": tiny_store.to_dict(),
                "top_k": 50,
                "prefetch_limit": None,
                "fusion": None,
                "rrf_k": 2,
                "weights": {},
                "use_dense": True,
                "use_sparse": True,
                "text_fields": [],
                "min_score": None,
                "payload_fields": None,
                "relevance_floor": None,
                "feedback": None,
                "passages": None,
                "one_per_record": True,
            },
        }

    @pytest.mark.parametrize("feedback", [{"documents": 0}, {"documents": 3, "weight": -1}, {"docs": 3}])
    def test_feedback_settings_are_checked(self, tiny_store: EdgeDocumentStore, feedback: dict[str, Any]) -> None:
        with pytest.raises(ConfigurationError, match="feedback"):
            HybridRetriever(tiny_store, feedback=feedback)

    def test_feedback_moves_the_query_toward_its_best_document(self, tmp_path: Path) -> None:
        """Nearest to the query is x; feedback from x lifts y (x's neighbour) above z (the query's)."""
        store = EdgeDocumentStore("fb", str(tmp_path), embedding_dim=4)
        vectors = {"x": [0.9, 0.43, 0.0, 0.0], "y": [0.5, 0.86, 0.0, 0.0], "z": [0.7, -0.71, 0.0, 0.0]}
        store.write_documents([Document(id=k, content=k, embedding=v) for k, v in vectors.items()])
        query = [1.0, 0.0, 0.0, 0.0]
        plain = HybridRetriever(store, use_sparse=False).run(query_embedding=query)["documents"]
        moved = HybridRetriever(store, use_sparse=False, feedback={"documents": 1, "weight": 2.0})
        assert [d.id for d in plain] == ["x", "z", "y"]
        assert [d.id for d in moved.run(query_embedding=query)["documents"]] == ["x", "y", "z"]
        store.close()

    def test_a_split_record_comes_back_once_as_its_best_chunk(self, tmp_path: Path) -> None:
        """Chunks a#chunk0 and a#chunk1 are one record: the results are a's best chunk, then b; off, both."""
        store = EdgeDocumentStore("chunks", str(tmp_path), embedding_dim=2)
        vectors = {"a#chunk0": [1.0, 0.0], "a#chunk1": [0.95, 0.31], "b": [0.8, 0.6]}
        store.write_documents([Document(id=k, content=k, embedding=v) for k, v in vectors.items()])
        query = [1.0, 0.0]
        distinct = HybridRetriever(store, use_sparse=False).run(query_embedding=query)["documents"]
        every = HybridRetriever(store, use_sparse=False, one_per_record=False).run(query_embedding=query)["documents"]
        assert [d.id for d in distinct] == ["a#chunk0", "b"]
        assert [d.id for d in every] == ["a#chunk0", "a#chunk1", "b"]
        store.close()

    def test_passages_rescore_the_candidates_by_their_best_passage(self, tmp_path: Path) -> None:
        """x is nearest as a whole; y has the one passage that says what the query asks."""
        store = EdgeDocumentStore("passages", str(tmp_path), embedding_dim=4, passages=True)
        documents = {
            "x": ([0.9, 0.436, 0.0, 0.0], [[0.0, 1.0, 0.0, 0.0]]),
            "y": ([0.7, -0.714, 0.0, 0.0], [[0.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]]),
            "z": ([0.5, 0.866, 0.0, 0.0], [[0.0, 0.0, 1.0, 0.0]]),
        }
        store.write_documents(
            [Document(id=k, content=k, embedding=v, meta={PASSAGE_EMBEDDINGS: p}) for k, (v, p) in documents.items()]
        )
        query = [1.0, 0.0, 0.0, 0.0]
        plain = HybridRetriever(store, use_sparse=False).run(query_embedding=query)["documents"]
        rescored = HybridRetriever(store, use_sparse=False, passages=1.0).run(query_embedding=query)["documents"]
        assert [d.id for d in plain] == ["x", "y", "z"]
        assert [d.id for d in rescored] == ["y", "x", "z"]
        assert rescored[0].meta["scores"]["passage_score"] == pytest.approx(1.0)
        assert rescored[0].meta["scores"]["passages_rank"] == 1
        assert PASSAGE_EMBEDDINGS not in rescored[0].meta  # the vectors never come back as meta
        store.close()

    def test_feedback_comes_from_the_rescored_ranking(self, tmp_path: Path) -> None:
        """Fused, x leads and feedback would pull v (x's neighbour) up; rescored, y leads and pulls w up."""
        store = EdgeDocumentStore("fbp", str(tmp_path), embedding_dim=4, passages=True)
        off = [[0.0, 0.0, 0.0, 1.0]]
        documents = {
            "x": ([0.9, 0.436, 0.0, 0.0], [[0.0, 1.0, 0.0, 0.0]]),
            "y": ([0.7, 0.0, 0.714, 0.0], [[1.0, 0.0, 0.0, 0.0]]),
            "v": ([0.3, 0.954, 0.0, 0.0], off),
            "w": ([0.3, 0.0, 0.954, 0.0], off),
        }
        store.write_documents(
            [Document(id=k, content=k, embedding=v, meta={PASSAGE_EMBEDDINGS: p}) for k, (v, p) in documents.items()]
        )
        feedback = {"documents": 1, "weight": 2.0}
        query = [1.0, 0.0, 0.0, 0.0]
        fused = HybridRetriever(store, use_sparse=False, feedback=feedback).run(query_embedding=query)["documents"]
        both = HybridRetriever(store, use_sparse=False, feedback=feedback, passages=1.0).run(query_embedding=query)
        order = [d.id for d in both["documents"]]
        assert [d.id for d in fused].index("v") < [d.id for d in fused].index("w")
        assert order.index("w") < order.index("v")
        store.close()

    def test_passages_need_a_collection_that_keeps_them_and_the_dense_source(
        self, tiny_store: EdgeDocumentStore, tmp_path: Path
    ) -> None:
        with pytest.raises(ConfigurationError, match="collection 'tiny' keeps none: set `passages: true`"):
            HybridRetriever(tiny_store, passages=0.75)
        store = EdgeDocumentStore("kept", str(tmp_path), embedding_dim=4, passages=True)
        with pytest.raises(ConfigurationError, match="passages is ignored: passages are scored against the dense"):
            HybridRetriever(store, use_dense=False, passages=0.75)
        with pytest.raises(ConfigurationError, match="above 0; got True"):
            HybridRetriever(store, passages=True)  # type: ignore[arg-type]

    def test_relaxed_filters_are_searched_only_when_the_filters_find_nothing(
        self, tiny_store: EdgeDocumentStore
    ) -> None:
        tiny_store.write_documents([Document(id="a", content="red fox"), Document(id="b", content="blue whale")])
        retriever = HybridRetriever(tiny_store, use_dense=False, use_sparse=False, text_fields=["content"])

        def match(*words: str, operator: str = "AND") -> dict[str, Any]:
            conditions = [{"field": "content", "operator": "match", "value": w} for w in words]
            return {"operator": operator, "conditions": conditions}

        strict = retriever.run(
            query="red whale", filters=match("red", "whale"), relaxed_filters=match("red", "whale", operator="OR")
        )
        assert {d.id for d in strict["documents"]} == {"a", "b"} and strict["metadata"] == {"relaxed": True}
        found = retriever.run(
            query="red fox", filters=match("red", "fox"), relaxed_filters=match("red", "fox", operator="OR")
        )
        assert [d.id for d in found["documents"]] == ["a"] and found["metadata"] == {}
        none = retriever.run(
            query="green", filters=match("green"), relaxed_filters=match("green", "grey", operator="OR")
        )
        assert none["documents"] == [] and none["metadata"] == {} and none["collection_count"] == 2

    def test_from_dict(self, tiny_store: EdgeDocumentStore) -> None:
        retriever = HybridRetriever.from_dict(HybridRetriever(tiny_store, weights={"dense": 2.0}).to_dict())
        assert retriever.policy.weights == {"dense": 2.0} and isinstance(retriever.document_store, EdgeDocumentStore)
        assert retriever.document_store.path == tiny_store.path

    def test_run_on_an_empty_collection_says_so(self, tiny_store: EdgeDocumentStore) -> None:
        assert HybridRetriever(tiny_store).run(query_embedding=[0.1] * 3) == {
            "documents": [],
            "collection_count": 0,
            "metadata": {},
        }

    def test_a_filter_on_a_field_the_collection_cannot_filter_on_finds_nothing_and_names_it(
        self, tiny_store: EdgeDocumentStore
    ) -> None:
        """No record can match it (no payload index): an empty answer that says so, not an error about internals."""
        fill(tiny_store)
        out = HybridRetriever(tiny_store).run(
            query_embedding=[0.1] * 3, filters={"field": "meta.yaer", "operator": "==", "value": 1}
        )
        assert out["documents"] == [] and out["collection_count"] is None
        assert "no record of 'tiny' can be filtered on meta.yaer" in out["metadata"]["message"]
        checked = FilterCheck(tiny_store).run(
            documents=[],
            checks={"year": {"field": "meta.yaer", "operator": "==", "value": 1}},
            applied_filters={"year": 1},
        )
        assert checked["metadata"]["message"].startswith("No results: year filters on meta.yaer, which no record")

    def test_run_fuses_filters_and_records_provenance(self, tiny_store: EdgeDocumentStore) -> None:
        fill(tiny_store)
        out = HybridRetriever(tiny_store, top_k=3, text_fields=["content"]).run(
            query_embedding=[1.0, 2.0, 0.0],
            query_sparse_embedding=SparseEmbedding(indices=[2], values=[1.0]),
            query="borders",
            filters={"field": "meta.group", "operator": "==", "value": "a"},
        )
        docs = out["documents"]
        assert [d.id for d in docs][:1] == ["d2"] and out["collection_count"] is None
        assert {d.meta["group"] for d in docs} == {"a"}
        assert docs[0].meta["scores"].keys() == {
            "dense_rank",
            "sparse_rank",
            "text_content_rank",
            "fused_score",
            "dense_score",
        }
        assert docs[0].meta["scores"]["dense_score"] == pytest.approx(1.0)  # cosine of [1, 2, 0] with itself
        assert [d.score for d in docs] == sorted((d.score for d in docs), reverse=True)

    def test_run_overrides_and_min_score(self, tiny_store: EdgeDocumentStore) -> None:
        fill(tiny_store)
        retriever = HybridRetriever(tiny_store, top_k=6)
        args: dict[str, Any] = {
            "query_embedding": [1.0, 2.0, 0.0],
            "query_sparse_embedding": SparseEmbedding(indices=[2], values=[1.0]),
        }
        assert len(retriever.run(**args, top_k=2)["documents"]) == 2
        kept = retriever.run(**args, min_score=0.9)["documents"]
        assert [d.id for d in kept] == ["d2"]  # first in both lists: normalised score 1.0

    def test_relevance_floor_keeps_what_some_named_source_vouches_for_and_counts_the_rest(
        self, tiny_store: EdgeDocumentStore
    ) -> None:
        fill(tiny_store)  # cosine of [1, i, 0] with [1, 0, 0]: d1 0.71, d2 0.45, d3 0.32, d4 0.24, ...
        args: dict[str, Any] = {
            "query_embedding": [1.0, 0.0, 0.0],
            "query_sparse_embedding": SparseEmbedding(indices=[5], values=[1.0]),
        }
        dense_only = HybridRetriever(tiny_store, top_k=6, relevance_floor={"dense": 0.3}).run(**args)
        assert {d.id for d in dense_only["documents"]} == {"d1", "d2", "d3"}
        assert dense_only["metadata"] == {"below_relevance_floor": 3}
        either = HybridRetriever(tiny_store, top_k=6, relevance_floor={"dense": 0.5, "sparse": 0}).run(**args)
        assert {d.id for d in either["documents"]} == {"d1", "d5"}  # d5: a BM25 match (any score above 0)
        assert HybridRetriever(tiny_store, top_k=6).run(**args)["metadata"] == {}  # no floor, nothing counted
        unrelated = {**args, "query_embedding": [0.0, 0.0, 1.0]}
        nothing = HybridRetriever(tiny_store, top_k=6, relevance_floor={"dense": 0.3}).run(**unrelated)
        assert nothing["documents"] == [] and nothing["metadata"] == {"below_relevance_floor": 6}

    def test_a_terms_floor_keeps_what_has_every_word_whatever_its_cosine(self, tiny_store: EdgeDocumentStore) -> None:
        """Keyword queries ("MTEB leaderboard") match documents that the dense floor alone would drop."""
        tiny_store.write_documents(
            [
                Document(
                    id="both", content="x", embedding=[0.0, 1.0, 0.0], sparse_embedding=SparseEmbedding([7, 8], [1, 1])
                ),
                Document(
                    id="one", content="y", embedding=[0.0, 1.0, 0.0], sparse_embedding=SparseEmbedding([7, 9], [1, 1])
                ),
                Document(id="near", content="z", embedding=[1.0, 0.1, 0.0], sparse_embedding=SparseEmbedding([9], [1])),
            ]
        )
        floor = HybridRetriever(tiny_store, relevance_floor={"dense": 0.5, "terms": 1.0})
        out = floor.run(
            query_embedding=[1.0, 0.0, 0.0], query_sparse_embedding=SparseEmbedding(indices=[7, 8], values=[1.0, 1.0])
        )
        assert {d.id for d in out["documents"]} == {"both", "near"} and out["metadata"] == {"below_relevance_floor": 1}
        shares = {d.id: d.meta["scores"]["terms_share"] for d in out["documents"]}
        assert shares == {"both": 1.0, "near": 0.0}
        with pytest.raises(ConfigurationError, match=r"relevance_floor names \['terms'\]"):
            HybridRetriever(tiny_store, use_sparse=False, relevance_floor={"terms": 1.0})

    def test_a_relevance_floor_on_a_source_not_used_is_refused(self, tiny_store: EdgeDocumentStore) -> None:
        with pytest.raises(ConfigurationError, match=r"relevance_floor is ignored: relevance_floor names \['sparse'\]"):
            HybridRetriever(tiny_store, use_sparse=False, text_fields=["content"], relevance_floor={"sparse": 0})

    def test_a_per_call_rrf_k_counts_under_rrf(self, tiny_store: EdgeDocumentStore) -> None:
        fill(tiny_store)
        retriever = HybridRetriever(tiny_store, top_k=6)
        args: dict[str, Any] = {
            "query_embedding": [1.0, 2.0, 0.0],
            "query_sparse_embedding": SparseEmbedding(indices=[2], values=[1.0]),
        }
        default, sharp = retriever.run(**args)["documents"], retriever.run(**args, rrf_k=1)["documents"]
        assert default[0].meta["scores"]["fused_score"] == pytest.approx(2 / 60)  # Qdrant: k = 60, 0-based ranks
        assert sharp[0].meta["scores"]["fused_score"] == pytest.approx(2 / 1)

    @pytest.mark.parametrize(
        "settings", [{"fusion": "dbsf"}, {"fusion": "sum"}, {"use_sparse": False}], ids=["dbsf", "sum", "one-source"]
    )
    def test_a_per_call_rrf_k_the_configuration_ignores_is_a_validation_error(
        self, tiny_store: EdgeDocumentStore, settings: dict[str, Any]
    ) -> None:
        fill(tiny_store)
        retriever = HybridRetriever(tiny_store, **settings)
        with pytest.raises(InvalidRequestError, match="'rrf_k' cannot change this search's results") as caught:
            retriever.run(query_embedding=[1.0, 2.0, 0.0], rrf_k=5)
        assert caught.value.details == {"field": "rrf_k"}
        assert retriever.run(query_embedding=[1.0, 2.0, 0.0])["documents"]  # without it, the call runs

    def test_run_is_one_call_of_its_policy_on_the_store(self, tiny_store: EdgeDocumentStore) -> None:
        """Thin, as qdrant-haystack's retrievers are: the policy applies the settings, in one method."""
        retriever = HybridRetriever(tiny_store, top_k=4)
        sparse = SparseEmbedding(indices=[2], values=[1.0])
        applied = HybridSearchPolicy.retrieve
        with patch.object(HybridSearchPolicy, "retrieve", autospec=True, side_effect=applied) as retrieve:
            out = retriever.run(query_embedding=[1.0, 2.0, 0.0], query_sparse_embedding=sparse, rrf_k=5)
        retrieve.assert_called_once_with(
            retriever.policy,
            tiny_store,
            dense=[1.0, 2.0, 0.0],
            sparse=sparse,
            text=None,
            filters=None,
            relaxed_filters=None,
            top_k=None,
            rrf_k=5,
            min_score=None,
            unmatchable=False,
        )
        assert out == {"documents": [], "collection_count": 0, "metadata": {}}

    def test_run_without_query_text_lists_by_filter(self, tiny_store: EdgeDocumentStore) -> None:
        fill(tiny_store)
        out = HybridRetriever(tiny_store, use_dense=False, use_sparse=False, text_fields=["content"]).run(
            query="", filters={"field": "meta.group", "operator": "==", "value": "b"}
        )
        assert [d.id for d in out["documents"]] == ["d4", "d5", "d6"] and {d.score for d in out["documents"]} == {None}


def home_with_retriever(tmp_path: Path, **settings: Any) -> Path:
    """A copy of the project's configs and pipelines whose search_docs retriever has `settings` (None: unset)."""
    home = tmp_path / "home"
    copy_project(home)
    path = home / "pipelines" / "tools" / "search_docs.yaml"
    pipeline = yaml.safe_load(path.read_text())
    retriever = pipeline["components"]["retriever"]["init_parameters"]
    retriever.update(settings)
    for name in [name for name, value in settings.items() if value is None]:
        del retriever[name]
    path.write_text(yaml.safe_dump(pipeline))
    return home


def test_a_pipeline_with_an_ignored_setting_does_not_load(tmp_path: Path) -> None:
    home = home_with_retriever(tmp_path, fusion="dbsf", rrf_k=None)  # keeps `weights: {dense: 1.0, sparse: 1.0}`
    path = home / "pipelines" / "tools" / "search_docs.yaml"
    with Loader(make_settings(tmp_path / "data", home=home)) as loader, pytest.raises(ConfigurationError) as caught:
        loader.pipeline(path)
    assert caught.value.message.startswith(f"{path}: component 'retriever': weights is ignored: fusion 'dbsf'")
    assert caught.value.details == {"file": str(path), "component": "retriever"}


def test_a_tool_call_whose_rrf_k_the_pipeline_ignores_gets_a_validation_error(tmp_path: Path) -> None:
    home = home_with_retriever(tmp_path, fusion="dbsf", rrf_k=None, weights=None)
    with Loader(make_settings(tmp_path / "data", home=home)) as loader:
        gateway = Gateway.load(loader, files=[home / "configs" / "tools" / "search_docs.yaml"])
        with pytest.raises(InvalidRequestError) as caught:
            gateway.call("search_docs", {"query": "reciprocal rank fusion", "rrf_k": 5})
        assert gateway.call("search_docs", {"query": "reciprocal rank fusion"})["results"] == []  # empty collection
    status, body = envelope(caught.value)
    assert status == 422 and body["error"]["code"] == "VALIDATION_ERROR"
    assert "'rrf_k' cannot change this search's results: fusion 'dbsf' takes no rrf_k" in body["error"]["message"]
    assert body["error"]["details"] == {"field": "rrf_k"}
