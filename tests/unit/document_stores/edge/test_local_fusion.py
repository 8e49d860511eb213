"""Qdrant Edge runs in this process, so RRF is fused here from the sources' own lists (`hybrid.rrf`) instead
of by the engine: every query must give the engine's own fused list, the same points with the same float32
scores and payloads, whatever the weights, constant, filter and sources."""

import random
from typing import Any

import numpy as np
from haystack import Document
from haystack.dataclasses import SparseEmbedding

from haygate.document_stores.hybrid import HybridQuery, ScoredPoint, plan, rrf

WORDS = [f"w{i}" for i in range(40)]


def engine_fused(store: Any, query: HybridQuery) -> list[ScoredPoint]:
    """The fused list as the engine makes it: the plan's fused request, run."""
    return store._query_batch(query, plan(query))[0]  # type: ignore[no-any-return]


def above_the_cut(points: list[ScoredPoint]) -> dict[Any, tuple[float, Any]]:
    """Score and payload of each point scoring above the last one (points tied at the cut may differ)."""
    return {p.id: (p.score, p.payload) for p in points if p.score > points[-1].score}


def test_fusing_here_gives_the_engines_fused_list(tiny_store: Any) -> None:
    rng, numbers = random.Random(3), np.random.default_rng(3)
    documents = []
    for i in range(400):
        vector = numbers.standard_normal(3)
        terms = sorted(rng.sample(range(200), 5))
        documents.append(
            Document(
                id=f"d{i}",
                content=" ".join(rng.choices(WORDS, k=12)),
                meta={"title": rng.choice(WORDS), "group": rng.choice("abc"), "record_id": f"d{i}"},
                embedding=(vector / np.linalg.norm(vector)).tolist(),
                sparse_embedding=SparseEmbedding(indices=terms, values=[rng.random() for _ in terms]),
            )
        )
    tiny_store.write_documents(documents)
    assert tiny_store.fuses_rrf_here
    compared = 0
    for _ in range(60):
        vector = numbers.standard_normal(3)
        query = HybridQuery(
            dense=(vector / np.linalg.norm(vector)).tolist(),
            sparse=SparseEmbedding(indices=sorted(rng.sample(range(200), 4)), values=[1.0, 0.6, 0.3, 0.1]),
            text=" ".join(rng.sample(WORDS, 3)),
            text_fields=rng.choice([(), ("content",), ("content", "meta.title")]),
            filters=rng.choice([None, {"field": "meta.group", "operator": "==", "value": "b"}]),
            limit=rng.choice([5, 20, 50]),
            prefetch_limit=rng.choice([50, 80]),
            rrf_k=rng.choice([1, 2, 10, 60]),
            weights=rng.choice([{}, {"dense": 2.0}, {"dense": 0.3, "sparse": 1.7}, {"sparse": 0.9}]),
            payload_fields=rng.choice([(), ("meta.title",), None]),
        )
        ours, alone = tiny_store._fused_and_alone(query)
        engines = engine_fused(tiny_store, query)
        assert len(alone) == len(query.sources())
        assert len(ours) == len(engines)
        assert above_the_cut(ours) == above_the_cut(engines)
        assert ours[-1].score == engines[-1].score
        compared += 1
    assert compared == 60


def test_rrf_weights_a_list_by_dividing_its_ranks() -> None:
    """Qdrant's weighted RRF: 1 / (k + rank / w - 1), so weight 2 makes rank 3 score as rank 1.5 would."""
    dense = [ScoredPoint("a", 0.9, None), ScoredPoint("b", 0.8, None), ScoredPoint("c", 0.7, None)]
    sparse = [ScoredPoint("c", 5.0, None)]
    scores = rrf([dense, sparse], [2.0, 1.0], 60)
    assert scores["a"] == np.float32(1) / np.float32(59.5)
    assert scores["c"] == np.float32(np.float32(1) / np.float32(60.5) + np.float32(1) / np.float32(60))
    assert rrf([dense, []], [1.0, 1.0], 60)["b"] == np.float32(1) / np.float32(61)
