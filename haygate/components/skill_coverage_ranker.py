"""`SkillCoverageRanker`: candidates ranked by how many requested skills their whole CV covers.

Each required and preferred skill is matched against a candidate in three ways, and the match says which:
`exact` (the CV uses the skill's own name), `alias` (a name from the vocabulary: "K8s" for Kubernetes) or
`semantic` (a short phrase of the CV embeds close to the skill: "container orchestration"). Phrase
similarities were stored at ingest by `CvProfiler`; the threshold is applied here, so calibrating needs
no re-index.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from haystack import Document, component, default_from_dict, default_to_dict

from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.components.models import DEFAULT_MODEL
from haygate.document_stores.hybrid import HybridDocumentStore, check_store
from haygate.errors import ConfigurationError
from haygate.text.cv_profile import MatchMethod, SkillVocabulary, normalise


@dataclass(frozen=True)
class SkillMatch:
    skill: str
    required: bool
    method: MatchMethod
    evidence: str
    similarity: float | None = None

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "skill": self.skill,
            "required": self.required,
            "method": self.method,
            "evidence": self.evidence,
        }
        if self.similarity is not None:
            data["similarity"] = round(self.similarity, 3)
        return data


@component
class SkillCoverageRanker:
    def __init__(
        self,
        document_store: HybridDocumentStore,
        vocabulary: Path,
        semantic_model: str | None = DEFAULT_MODEL,
        semantic_threshold: float = 0.7,
        top_k: int = 5,
        model_cache_dir: Path | None = None,
    ) -> None:
        """
        :param document_store: the CV collection; a candidate's whole CV is read from it, not just the hits.
        :param vocabulary: skill vocabulary file (relative paths are resolved against the haygate home).
        :param semantic_model: the model `CvProfiler` used at ingest; null turns semantic matches off.
        :param semantic_threshold: cosine similarity a CV phrase needs to count as a semantic match.
        :param top_k: how many candidates to return when the run does not say.
        :param model_cache_dir: where the model's ONNX export is kept; the loader sets it beside the data.
        """
        if not 0 < semantic_threshold <= 1:
            raise ConfigurationError(f"semantic_threshold must be in (0, 1], got {semantic_threshold}")
        self.document_store = check_store(document_store, "skill ranker")
        self.vocabulary = str(vocabulary)
        self.semantic_model = semantic_model
        self.semantic_threshold = semantic_threshold
        self.top_k = top_k
        self.model_cache_dir = None if model_cache_dir is None else str(model_cache_dir)
        self._embedder = (
            DenseTextEmbedder(model=semantic_model, model_cache_dir=model_cache_dir) if semantic_model else None
        )
        self._vocabulary: SkillVocabulary | None = None
        self._skill_vectors: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            document_store=self.document_store,
            vocabulary=self.vocabulary,
            semantic_model=self.semantic_model,
            semantic_threshold=self.semantic_threshold,
            top_k=self.top_k,
            model_cache_dir=self.model_cache_dir,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SkillCoverageRanker":
        return default_from_dict(cls, data)

    def warm_up(self) -> None:
        if self._vocabulary is None:
            self._vocabulary = SkillVocabulary.load(Path(self.vocabulary))
            if self._embedder is not None:
                self._embedder.warm_up()
                self._skill_vectors = self._embedder.embed_many(
                    [self._vocabulary.semantic_text(s) for s in self._vocabulary.skills]
                )

    @component.output_types(documents=list[Document])
    def run(
        self,
        documents: list[Document],
        required_skills: list[str],
        preferred_skills: list[str] | None = None,
        top_k: int | None = None,
    ) -> dict[str, Any]:
        """
        :param documents: retrieved CV chunks; several can belong to one candidate.
        :returns: one Document per candidate, best first, with the match in its meta.
        """
        self.warm_up()
        required = _skills(required_skills)
        preferred = [s for s in _skills(preferred_skills) if s not in required]
        targets = {skill: self._target(skill) for skill in required + preferred}
        best_score: dict[str, float] = {}
        for document in documents:
            rid = str(document.meta.get("record_id", document.id))
            best_score[rid] = max(best_score.get(rid, 0.0), float(document.score or 0.0))
        whole = self._whole_cvs(list(best_score))
        ranked = []
        for rid, retrieval_score in best_score.items():
            cv = whole.get(rid)
            if cv is None:
                continue
            matches = [
                m
                for skills, is_required in ((required, True), (preferred, False))
                for skill in skills
                if (m := self._match(cv, skill, is_required, *targets[skill])) is not None
            ]
            if required and not any(m.required for m in matches):
                continue  # nothing in common with the request: not a candidate
            ranked.append(self._candidate(cv, rid, required, preferred, matches, retrieval_score))
        ranked.sort(key=lambda d: (-(d.score or 0.0), d.meta["candidate_id"]))
        return {"documents": ranked[: top_k if top_k is not None else self.top_k]}

    def _target(self, skill: str) -> tuple[str | None, float | None]:
        """The vocabulary skill a requested skill means: by name or alias, else the semantically closest one."""
        assert self._vocabulary is not None
        canonical = self._vocabulary.canonical(skill)
        if canonical is not None or self._embedder is None or self._skill_vectors is None:
            return canonical, None
        similarity = self._skill_vectors @ self._embedder.embed_many([skill])[0]
        best = int(np.argmax(similarity))
        if similarity[best] >= self.semantic_threshold:
            return self._vocabulary.skills[best], float(similarity[best])
        return None, None

    def _whole_cvs(self, record_ids: list[str]) -> dict[str, Document]:
        """All chunks of each candidate, joined in order: skills can sit in a chunk retrieval did not return."""
        if not record_ids:
            return {}
        chunks = self.document_store.meta_by_filter({"field": "meta.record_id", "operator": "in", "value": record_ids})
        by_record: dict[str, list[Document]] = {}
        for chunk in chunks:
            by_record.setdefault(str(chunk.meta["record_id"]), []).append(chunk)
        whole = {}
        for rid, parts in by_record.items():
            parts.sort(key=lambda d: d.meta.get("chunk_index", 0))
            text = "\n".join(p.content or "" for p in parts)
            whole[rid] = Document(id=rid, content=text, meta=parts[0].meta)
        return whole

    def _match(
        self, cv: Document, skill: str, is_required: bool, canonical: str | None, mapped: float | None
    ) -> SkillMatch | None:
        assert self._vocabulary is not None
        forms = set(cv.meta.get("skill_forms") or [])
        if canonical is None:
            # Not in the vocabulary: only the CV's own words can match it.
            found = _mentions(cv.content or "", skill)
            return SkillMatch(skill, is_required, "exact", normalise(skill)) if found else None
        if canonical in (cv.meta.get("skills") or []):
            if mapped is not None:  # the request named something the vocabulary only knows by meaning
                return SkillMatch(skill, is_required, "semantic", canonical, mapped)
            own = sorted({normalise(skill), normalise(canonical)} & forms)
            if own:
                return SkillMatch(skill, is_required, "exact", ", ".join(own))
            aliases = sorted(f for f in forms if self._vocabulary.canonical_by_form.get(f) == canonical)
            return SkillMatch(skill, is_required, "alias", ", ".join(aliases))
        for evidence in cv.meta.get("skill_semantic") or []:
            if evidence["skill"] == canonical and evidence["similarity"] >= self.semantic_threshold:
                similarity = min(evidence["similarity"], mapped) if mapped is not None else evidence["similarity"]
                return SkillMatch(skill, is_required, "semantic", evidence["phrase"], similarity)
        return None

    def _candidate(
        self,
        cv: Document,
        rid: str,
        required: list[str],
        preferred: list[str],
        matches: list[SkillMatch],
        retrieval_score: float,
    ) -> Document:
        matched_required = [m.skill for m in matches if m.required]
        matched_preferred = [m.skill for m in matches if not m.required]
        score = match_score(
            len(matched_required), len(required), len(matched_preferred), len(preferred), retrieval_score
        )
        meta = {
            "candidate_id": rid,
            "name": cv.meta.get("name") or rid,
            "matched_required_skills": matched_required,
            "matched_preferred_skills": matched_preferred,
            "missing_skills": [s for s in required if s not in matched_required],
            "experience_level": cv.meta.get("experience_level", "unknown"),
            "years_of_experience": cv.meta.get("years_of_experience"),
            # Why the level: null when the CV was profiled before haygate recorded these.
            "experience_basis": cv.meta.get("experience_basis"),
            "experience_open_ended": cv.meta.get("experience_open_ended"),
            "match_details": [m.as_dict() for m in matches],
            "retrieval_score": round(retrieval_score, 4),
        }
        return Document(id=rid, content=None, meta=meta, score=score)


def match_score(
    matched_required: int, required: int, matched_preferred: int, preferred: int, retrieval: float
) -> float:
    """A score in [0, 1] that orders lexicographically: required coverage, preferred coverage, retrieval.

    Each extra required skill is worth a whole band of width 1/(required+1); preferred coverage and the
    retrieval score only move a candidate within its band, so missing a required skill always costs more
    than any amount of preferred skills can give back.
    """
    within = (matched_preferred + 0.99 * min(max(retrieval, 0.0), 1.0)) / (preferred + 1)
    return round((matched_required + within) / (required + 1), 6)


def _skills(value: Any) -> list[str]:
    return list(dict.fromkeys(s.strip() for s in value or [] if isinstance(s, str) and s.strip()))


def _mentions(text: str, skill: str) -> bool:
    body = r"[\s_-]+".join(re.escape(w) for w in skill.split())
    return re.search(rf"(?<![\w+#.]){body}(?![\w+#])", text, re.IGNORECASE) is not None
