from pathlib import Path

import pytest
from haystack import Document

from haygate.components.ranker import Ranker
from haygate.errors import ConfigurationError

DOCS = [
    Document(id=str(i), content=c, score=s)
    for i, (c, s) in enumerate([("Paris is the capital of France", 0.9), ("Bananas are yellow", 0.6), ("Berlin", 0.3)])
]


class TestRanker:
    def test_init_rejects_bad_top_k(self) -> None:
        with pytest.raises(ConfigurationError):
            Ranker(top_k=0)

    def test_to_dict(self) -> None:
        assert Ranker(top_k=3).to_dict() == {
            "type": "haygate.components.ranker.Ranker",
            "init_parameters": {
                "model": None,
                "top_k": 3,
                "scale_score": True,
                "meta_fields_to_embed": [],
                "min_score": None,
                "batch_size": 16,
            },
        }

    def test_from_dict(self) -> None:
        assert Ranker.from_dict(Ranker(model="x", top_k=4).to_dict()).model == "x"

    def test_run_without_model_keeps_fused_order(self) -> None:
        out = Ranker(top_k=2).run(query="q", documents=DOCS)
        assert out["reranked"] is False and [d.id for d in out["documents"]] == ["0", "1"]

    def test_run_min_score_and_top_k_override(self) -> None:
        out = Ranker(top_k=10).run(query="q", documents=DOCS, top_k=3, min_score=0.5)
        assert [d.id for d in out["documents"]] == ["0", "1"]

    def test_configured_model_that_cannot_load_fails_fast(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="cannot load cross-encoder"):
            Ranker(model=str(tmp_path / "nope")).warm_up()

    def test_run_with_tiny_cross_encoder(self, tiny_cross_encoder: Path) -> None:
        ranker = Ranker(model=str(tiny_cross_encoder), top_k=3)
        ranker.warm_up()
        out = ranker.run(query="capital of France", documents=DOCS)
        assert out["reranked"] is True
        scores = [d.score for d in out["documents"]]
        assert scores == sorted(scores, reverse=True) and all(0.0 < s < 1.0 for s in scores)
        assert all("rerank_score" in d.meta["scores"] for d in out["documents"])
        assert DOCS[0].score == 0.9  # inputs are not mutated
