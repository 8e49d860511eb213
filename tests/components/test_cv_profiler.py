"""CvProfiler with the real MiniLM, on tiny CVs."""

import pytest
from haystack import Document

from components.cv_profiler import CvProfiler
from haygate.errors import InvalidRecordError
from tests.components.cvs import CVS, VOCABULARY


@pytest.fixture(scope="module")
def profiled() -> list[Document]:
    return CvProfiler(vocabulary=VOCABULARY).run(CVS)["documents"]


class TestCvProfiler:
    def test_to_dict_and_from_dict(self) -> None:
        data = CvProfiler(vocabulary=VOCABULARY).to_dict()
        assert data["init_parameters"] == {
            "vocabulary": str(VOCABULARY),
            "model": "sentence-transformers/all-MiniLM-L6-v2",
            "floor": 0.5,
            "phrase_words": 6,
            "model_cache_dir": None,
            "embed_phrases": True,
        }
        assert CvProfiler.from_dict(data).vocabulary == str(VOCABULARY)

    def test_the_preview_settings_make_the_same_documents_with_no_model(self, profiled: list[Document]) -> None:
        """What `haygate eval` checks judged ids against: the same documents and profiles, without the phrases'
        vectors (no model is loaded)."""
        previewing = CvProfiler(vocabulary=VOCABULARY, **CvProfiler.preview_parameters)
        out = previewing.run(CVS)
        assert [d.id for d in out["documents"]] == [d.id for d in profiled]
        unsemantic = [{k: v for k, v in d.meta.items() if k != "skill_semantic"} for d in profiled]
        assert [{k: v for k, v in d.meta.items() if k != "skill_semantic"} for d in out["documents"]] == unsemantic
        assert [d.id for d in out["profiles"]] == [f"{d.id}#profile" for d in CVS] and out["phrases"] == []
        assert previewing._embedder.embedding_backend is None

    def test_run_derives_the_profile(self, profiled: list[Document]) -> None:
        ada = profiled[0].meta
        assert ada["skills"] == ["Kubernetes", "Machine Learning", "Python"] and ada["experience_level"] == "senior"
        assert ada["document_type"] == "CV" and profiled[1].meta["experience_level"] == "junior"
        assert CVS[0].meta.get("skills") is None  # inputs are not mutated

    def test_run_keeps_semantic_evidence_for_unnamed_skills(self, profiled: list[Document]) -> None:
        [evidence] = [e for e in profiled[2].meta["skill_semantic"] if e["skill"] == "Kubernetes"]
        assert "container orchestration" in evidence["phrase"] and evidence["similarity"] >= 0.7

    def test_present_ends_at_as_of_and_is_open_ended_without_it(self) -> None:
        """Issue #13: without `as_of`, "Nov 2017 to Present" is not measured to today (nor called senior)."""
        cv = "WORK EXPERIENCE\nData Analyst, Acme\nNov 2017 to Present\n"
        dated, undated = CvProfiler(vocabulary=VOCABULARY).run(
            [
                Document(id="dated", content=cv, meta={"as_of": "2026-11-01"}),
                Document(id="undated", content=cv, meta={}),
            ]
        )["documents"]
        assert (dated.meta["experience_basis"], dated.meta["experience_open_ended"]) == ("as_of", False)
        assert dated.meta["experience_level"] == "senior"  # Nov 2017..Nov 2026
        assert (undated.meta["experience_basis"], undated.meta["experience_open_ended"]) == ("open_ended", True)
        assert (undated.meta["years_of_experience"], undated.meta["experience_level"]) == (0.08, "junior")

    def test_run_rejects_a_bad_as_of(self) -> None:
        with pytest.raises(InvalidRecordError, match="as_of must be an ISO date"):
            CvProfiler(vocabulary=VOCABULARY).run([Document(id="x", content="CV", meta={"as_of": "last year"})])
