"""SkillCoverageRanker with the real MiniLM, on tiny CVs profiled by CvProfiler."""

import pytest
from haystack import Document
from haystack.document_stores.types import DuplicatePolicy
from hypothesis import given
from hypothesis import strategies as st

from components.cv_profiler import CvProfiler
from components.skill_coverage_ranker import SkillCoverageRanker, match_score
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.errors import ConfigurationError, OperatorError
from tests.components.cvs import CVS, VOCABULARY


@pytest.fixture(scope="module")
def profiler_output() -> dict[str, list[Document]]:
    return CvProfiler(vocabulary=VOCABULARY).run(CVS)


@pytest.fixture(scope="module")
def profiled(profiler_output: dict[str, list[Document]]) -> list[Document]:
    """The CVs with their profiles: a chunk each (they are short), and the profile points matching reads."""
    return profiler_output["documents"] + profiler_output["profiles"]


class TestSkillCoverageRanker:
    def test_init_validates(self, tiny_store: EdgeDocumentStore) -> None:
        with pytest.raises(ConfigurationError, match="semantic_threshold"):
            SkillCoverageRanker(tiny_store, vocabulary=VOCABULARY, semantic_threshold=1.5)

    def test_to_dict_and_from_dict(self, tiny_store: EdgeDocumentStore) -> None:
        data = SkillCoverageRanker(tiny_store, vocabulary=VOCABULARY, top_k=3).to_dict()
        assert (
            data["init_parameters"]["top_k"] == 3 and data["init_parameters"]["document_store"] == tiny_store.to_dict()
        )
        assert SkillCoverageRanker.from_dict(data).semantic_threshold == 0.7

    def test_run_ranks_by_required_coverage_and_explains(
        self, tiny_store: EdgeDocumentStore, profiled: list[Document]
    ) -> None:
        tiny_store.write_documents(profiled)
        hits = [
            Document(id=d.id, meta={"record_id": d.id}, score=0.5) for d in profiled if d.meta["document_type"] == "CV"
        ]
        ranker = SkillCoverageRanker(tiny_store, vocabulary=VOCABULARY)
        ranked = ranker.run(hits, required_skills=["Kubernetes", "Python"])["documents"]
        assert [d.meta["candidate_id"] for d in ranked] == ["cv1", "cv3"]  # Bo shares no required skill
        methods = {m["skill"]: m["method"] for m in ranked[1].meta["match_details"]}
        assert methods == {"Kubernetes": "semantic", "Python": "exact"}
        assert ranked[0].meta["match_details"][0] == {
            "skill": "Kubernetes",
            "required": True,
            "method": "alias",
            "evidence": "k8s",
        }
        assert len(ranker.run(hits, required_skills=["Python"], top_k=1)["documents"]) == 1

    def test_profiles_read_once_are_kept_until_the_collection_changes(
        self, tiny_store: EdgeDocumentStore, profiled: list[Document], monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """On the real store: a second call reads no profile again; a write (any change to the points) makes
        the next call read them afresh, and sees the changed profile."""
        tiny_store.write_documents(profiled)
        hits = [
            Document(id=d.id, meta={"record_id": d.id}, score=0.5) for d in profiled if d.meta["document_type"] == "CV"
        ]
        ranker = SkillCoverageRanker(tiny_store, vocabulary=VOCABULARY)
        reads: list[list[str]] = []
        read = ranker._read_profiles
        monkeypatch.setattr(ranker, "_read_profiles", lambda ids, filters: reads.append(ids) or read(ids, filters))
        first = ranker.run(hits, required_skills=["Python"])["documents"]
        again = ranker.run(hits, required_skills=["Python"])["documents"]
        assert len(reads) == 1 and [d.meta for d in again] == [d.meta for d in first]
        [profile] = [d for d in profiled if d.meta["document_type"] == "profile" and d.meta["record_id"] == "cv3"]
        renamed = Document(id=profile.id, content=profile.content, meta={**profile.meta, "name": "Renamed"})
        tiny_store.write_documents([renamed], policy=DuplicatePolicy.OVERWRITE)
        changed = ranker.run(hits, required_skills=["Python"])["documents"]
        assert len(reads) == 2 and "Renamed" in [d.meta["name"] for d in changed]

    def test_cvs_indexed_without_profile_points_are_named_not_answered_empty(
        self, tiny_store: EdgeDocumentStore, profiler_output: dict[str, list[Document]]
    ) -> None:
        tiny_store.write_documents(profiler_output["documents"])  # as a collection indexed before profiles
        hits = [Document(id=d.id, meta={"record_id": d.id}, score=0.5) for d in profiler_output["documents"]]
        with pytest.raises(OperatorError, match="indexed before their profiles were stored apart: run `haygate ingest"):
            SkillCoverageRanker(tiny_store, vocabulary=VOCABULARY).run(hits, required_skills=["Python"])

    def test_a_wording_that_names_a_skill_means_that_skill(
        self, tiny_store: EdgeDocumentStore, profiled: list[Document]
    ) -> None:
        """A requirement is often a phrase around the skill's name; it must not come back empty."""
        tiny_store.write_documents(profiled)
        ranker = SkillCoverageRanker(tiny_store, vocabulary=VOCABULARY, vocabulary_threshold=0.99)
        ranked = ranker.run([], required_skills=["core Java and multithreading for backends"])["documents"]
        assert [d.meta["candidate_id"] for d in ranked] == ["cv2"]
        assert ranked[0].meta["match_details"][0]["method"] == "exact"
        both = ranker.run([], required_skills=["Python scripting with K8s"])["documents"]  # names two skills
        assert both and both[0].meta["candidate_id"] == "cv1"  # Ada names both; one of them decides


def test_match_score_orders_required_then_preferred_then_retrieval() -> None:
    all_required_nothing_else = match_score(3, 3, 0, 5, 0.0, 0.0)
    one_missing_everything_else = match_score(2, 3, 5, 5, 1.0, 1.0)
    assert one_missing_everything_else < all_required_nothing_else
    assert match_score(3, 3, 1, 2, 0.7, 0.2) > match_score(3, 3, 0, 2, 1.0, 0.9)
    assert match_score(3, 3, 1, 2, 1.0, 0.9) > match_score(3, 3, 1, 2, 1.0, 0.2)
    assert match_score(3, 3, 1, 2, 1.0, 0.0) > match_score(3, 3, 1, 2, 0.72, 0.9)  # a name beats a paraphrase
    assert match_score(0, 1, 0, 0, 0.0, 0.0) >= 0 and match_score(50, 50, 50, 50, 1.0, 1.0) <= 1


@given(
    required=st.integers(1, 12),
    preferred=st.integers(0, 12),
    data=st.data(),
    strength=st.floats(0, 1),
    retrieval=st.floats(0, 1),
)
def test_one_more_required_skill_outranks_anything_else_a_candidate_has(
    required: int, preferred: int, data: st.DataObject, strength: float, retrieval: float
) -> None:
    """The band promise: the best candidate short of one required skill scores below the weakest one with it."""
    matched = data.draw(st.integers(0, required - 1))
    best_without = match_score(matched, required, preferred, preferred, strength, retrieval)
    weakest_with = match_score(matched + 1, required, 0, preferred, 0.0, 0.0)
    assert 0.0 <= best_without < weakest_with <= 1.0
