"""The backend-neutral hybrid plan: sources, the requests, ranks, stable order and score normalisation."""

import pytest
from haystack.dataclasses import SparseEmbedding

from haygate.document_stores.query import (
    Hit,
    HybridQuery,
    RankedList,
    ScoredPoint,
    dbsf_scaled,
    normalized_score,
    plan,
    ranked,
    rescored,
    stable_order,
)
from haygate.errors import InvalidRequestError

SPARSE = SparseEmbedding(indices=[1], values=[1.0])


def test_sources_in_a_fixed_order() -> None:
    query = HybridQuery(dense=[0.1], sparse=SPARSE, text="x", text_fields=("content", "meta.title"))
    assert query.sources() == ["dense", "sparse", "text:content", "text:meta.title"]
    assert HybridQuery(dense=[0.1], sparse=SparseEmbedding(indices=[], values=[]), text=" ").sources() == ["dense"]


def test_plan_fuses_first_then_ranks_each_source_alone() -> None:
    query = HybridQuery(dense=[0.1], sparse=SPARSE, limit=5, prefetch_limit=40, payload_fields=("meta.record_id",))
    assert plan(query) == [
        RankedList(("dense", "sparse"), 5, ["id", "meta.record_id"]),
        RankedList(("dense",), 40, False),
        RankedList(("sparse",), 40, False),
    ]


def test_tied_scores_share_a_rank() -> None:
    points = [ScoredPoint(i, s, None) for i, s in (("a", 3.0), ("b", 2.0), ("c", 2.0), ("d", 1.0))]
    assert ranked(points) == {"a": (1, 3.0), "b": (2, 2.0), "c": (2, 2.0), "d": (4, 1.0)}


def test_stable_order_breaks_ties_by_best_rank_then_id() -> None:
    hits = [
        Hit({"id": "z"}, 0.5, 0.5, {"dense": 3, "sparse": None}),
        Hit({"id": "b"}, 0.5, 0.5, {"dense": 2, "sparse": 9}),
        Hit({"id": "a"}, 0.5, 0.5, {"dense": 2, "sparse": None}),
        Hit({"id": "y"}, 0.9, 0.9, {"dense": 5, "sparse": 5}),
    ]
    assert [h.payload["id"] for h in stable_order(hits)] == ["y", "a", "b", "z"]


def test_rrf_scores_are_normalised_to_the_best_possible() -> None:
    query = HybridQuery(dense=[0.1], sparse=SPARSE, rrf_k=60, weights={"dense": 2.0})
    best = (2.0 + 1.0) / 60
    assert normalized_score(best, query, 2) == pytest.approx(1.0)
    assert normalized_score(1 / 60 + 1 / 61, HybridQuery(dense=[0.1], sparse=SPARSE), 2) == pytest.approx(
        (1 / 60 + 1 / 61) / (2 / 60)
    )
    assert normalized_score(1.4, HybridQuery(dense=[0.1], sparse=SPARSE, fusion="dbsf"), 2) == pytest.approx(0.7)
    dense_only = HybridQuery(dense=[0.1])  # a query without BM25 terms: the cosine, clamped to [0, 1]
    assert normalized_score(-0.02, dense_only, 1) == 0.0 and normalized_score(0.83, dense_only, 1) == 0.83


def test_validation_names_the_problem() -> None:
    with pytest.raises(InvalidRequestError, match="rrf_k must be at least 1"):
        HybridQuery(rrf_k=0).validate()
    with pytest.raises(InvalidRequestError, match="unknown sources"):
        HybridQuery(dense=[0.1], weights={"text:title": 2.0}).validate()


def test_dbsf_scaling_is_qdrants_mean_plus_minus_three_sigma() -> None:
    # mean 2, sigma sqrt(2/3): the list spans 2 - 3 sigma .. 2 + 3 sigma
    sigma = (2 / 3) ** 0.5
    assert dbsf_scaled([1.0, 2.0, 3.0]) == pytest.approx([(x - (2 - 3 * sigma)) / (6 * sigma) for x in (1, 2, 3)])
    assert dbsf_scaled([4.0, 4.0]) == [0.0, 0.0]  # no spread: nothing to tell apart


def test_rescoring_adds_the_weighted_scaled_passage_scores() -> None:
    hits = [Hit({"id": i}, s, s, {"dense": n}) for n, (i, s) in enumerate((("a", 3.0), ("b", 2.0), ("c", 1.0)), 1)]
    passages = {"pa": 0.2, "pb": 0.9}  # "c" has no passage vectors
    again = rescored(hits, passages, 0.5, ["pa", "pb", "pc"])
    fused, scaled = dbsf_scaled([3.0, 2.0, 1.0]), dbsf_scaled([0.2, 0.9])
    assert [h.fused_score for h in again] == pytest.approx(
        [fused[0] + 0.5 * scaled[0], fused[1] + 0.5 * scaled[1], fused[2]]
    )
    assert [h.ranks["passages"] for h in again] == [2, 1, None]
    assert [h.source_scores["passages"] for h in again] == [0.2, 0.9, None]
    assert again[1].score == pytest.approx(min(1.0, again[1].fused_score / 1.5))
    assert hits[0].fused_score == 3.0  # inputs are not changed
