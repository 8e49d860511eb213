"""A retriever's policy: its settings as given, the query a call makes of them, and what it keeps."""

from typing import Any

import pytest
from haystack import Document
from haystack.dataclasses import SparseEmbedding

from haygate.document_stores.hybrid import record_of
from haygate.document_stores.policy import HybridSearchPolicy
from haygate.document_stores.query import Hit
from haygate.errors import InvalidRequestError

SPARSE = SparseEmbedding(indices=[1], values=[1.0])


def policy(**settings: Any) -> HybridSearchPolicy:
    """A retriever's policy: its defaults, with these settings."""
    defaults: dict[str, Any] = {
        "top_k": 50,
        "prefetch_limit": None,
        "fusion": None,
        "rrf_k": None,
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
    }
    return HybridSearchPolicy(**{**defaults, **settings})


def test_a_policy_keeps_its_settings_as_given_and_copies_them() -> None:
    weights = {"dense": 2.0}
    kept = policy(weights=weights, relevance_floor={}, feedback={})
    weights["sparse"] = 1.0
    assert kept.weights == {"dense": 2.0} and kept.relevance_floor is None and kept.feedback is None
    assert kept.settings() == {**policy().settings(), "weights": {"dense": 2.0}}


def test_a_calls_query_takes_its_own_values_over_the_settings() -> None:
    query = policy(text_fields=["content"]).query([0.1], SPARSE, "fox", None, top_k=120, rrf_k=None)
    assert (query.limit, query.prefetch_limit, query.fusion, query.rrf_k) == (120, 120, "rrf", 60)
    assert query.sources() == ["dense", "sparse", "text:content"]
    unused = policy(use_sparse=False).query([0.1], SPARSE, "fox", None, top_k=None, rrf_k=None)
    assert unused.sources() == ["dense"] and unused.limit == 50 and unused.prefetch_limit == 100
    with pytest.raises(InvalidRequestError, match="fusion 'dbsf' takes no rrf_k"):
        policy(fusion="dbsf").query([0.1], SPARSE, None, None, top_k=None, rrf_k=5)


def test_kept_hits_reach_the_threshold_and_a_floor_and_carry_their_provenance() -> None:
    hits = [
        Hit({"id": "a#chunk0"}, 0.03, 0.9, {"dense": 1, "sparse": None}, {"dense": 0.8, "sparse": None}),
        Hit({"id": "a#chunk1"}, 0.02, 0.7, {"dense": 2, "sparse": None}, {"dense": 0.6, "sparse": None}),
        Hit({"id": "b"}, 0.01, 0.5, {"dense": 3, "sparse": None}, {"dense": 0.2, "sparse": None}),
        Hit({"id": "c"}, 0.01, 0.1, {"dense": 4, "sparse": None}, {"dense": 0.1, "sparse": None}),
    ]
    documents, below = policy(relevance_floor={"dense": 0.3}).kept(hits, min_score=0.2)
    assert [d.id for d in documents] == ["a#chunk0"] and below == 1  # a#chunk1 is a's; c is below min_score
    assert documents[0].meta["scores"] == {
        "dense_rank": 1,
        "sparse_rank": None,
        "fused_score": 0.03,
        "dense_score": 0.8,
    }
    every, _ = policy(one_per_record=False, min_score=0.6).kept(hits, min_score=None)
    assert [d.id for d in every] == ["a#chunk0", "a#chunk1"]
    assert policy(relevance_floor={"dense": 0.3}).floor_metadata(1) == {"below_relevance_floor": 1}
    assert policy().floor_metadata(0) == {}


def test_a_listing_is_by_id_one_per_record_without_scores() -> None:
    documents = [Document(id=i, content=i, score=1.0) for i in ("c", "a#chunk1", "b", "a#chunk0")]
    assert [(d.id, d.score) for d in policy().listed(documents, 2)] == [("a#chunk0", None), ("b", None)]
    assert record_of("a#chunk12") == "a" and record_of("a#chunks") == "a#chunks"
