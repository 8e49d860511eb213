"""`SkillCoverageRanker`: candidates ranked by how many requested skills their whole CV covers.

Each required and preferred skill is matched against a candidate in three ways, and the match says which:
`exact` (the CV uses the skill's own name), `alias` (a name from the vocabulary: "K8s" for Kubernetes) or
`semantic` (a short phrase of the CV embeds close to the skill: "container orchestration"). A requested
wording that names a vocabulary skill inside a longer phrase ("pixel-perfect UI implementation with CSS")
means that skill. For vocabulary
skills, phrase similarities were stored at ingest by `CvProfiler`. Any requested wording, in the vocabulary
or not ("relational databases"), is also searched among the CVs' own phrases (`document_type: phrase`), and
the closest phrase of each CV at `phrase_threshold` or above is a semantic match. Thresholds apply here,
so calibrating needs no re-index.

Candidates are not only the CVs whose chunks retrieval ranked: every CV that holds a required skill
(by the vocabulary's profile or by a phrase match) is considered, so a good candidate is not lost because
the sentence the query builder wrote ranked its chunks low.
"""

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from haystack import Document, component, default_from_dict, default_to_dict

from components.cv_profile import CV, PHRASE, PROFILE, MatchMethod, SkillVocabulary, normalise
from haygate.api import (
    DEFAULT_MODEL,
    DENSE,
    SHARED_BY,
    ConfigurationError,
    DenseTextEmbedder,
    HybridDocumentStore,
    HybridQuery,
    OperatorError,
    check_store,
)


class KeptProfiles:
    """Profiles already read, by the filters they were read under, until the collection changes."""

    LIMIT = 50_000  # profiles kept in all; past it, the memory starts afresh

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._version: Any = None
        self._by_filters: dict[str, dict[str, dict[str, Any] | None]] = {}  # None: does not pass the filters
        self._count = 0

    def get(
        self,
        version: Any,
        filters: dict[str, Any] | None,
        record_ids: list[str],
        read: Callable[[list[str], dict[str, Any] | None], dict[str, dict[str, Any]]],
    ) -> dict[str, dict[str, Any]]:
        """The profiles of `record_ids` under `filters`: those kept, and the others `read` now. A store that
        cannot say when it changes (`version` None) is read every time.
        """
        if version is None:
            return read(record_ids, filters)
        key = json.dumps(filters, sort_keys=True, default=str)
        with self._guard:
            if version != self._version or self._count > self.LIMIT:
                self._version, self._by_filters, self._count = version, {}, 0
            kept = self._by_filters.setdefault(key, {})
            missing = [rid for rid in record_ids if rid not in kept]
        found = read(missing, filters) if missing else {}
        with self._guard:
            if version == self._version:  # not a change in between: what was read holds
                for rid in missing:
                    kept[rid] = found.get(rid)
                self._count += len(missing)
            known = {rid: kept.get(rid, found.get(rid)) for rid in record_ids}
        return {rid: profile for rid, profile in known.items() if profile is not None}


PROFILE_FIELDS = (  # what matching and the result read of a CV's profile
    "record_id",
    "name",
    "skills",
    "skill_forms",
    "skill_semantic",
    "experience_level",
    "years_of_experience",
    "experience_basis",
    "experience_open_ended",
)


@dataclass(frozen=True)
class SkillMatch:
    """How one requested skill matched one CV, and on what evidence."""

    skill: str
    required: bool
    method: MatchMethod
    evidence: str
    similarity: float | None = None
    named: bool = False  # the CV names the vocabulary skill the request was mapped to by meaning

    @property
    def strength(self) -> float:
        """1 when the CV names the skill (itself, an alias, or the vocabulary skill the request means), else
        the similarity of the CV phrase that matched: a CV that names the skill outranks one that does not.
        """
        return 1.0 if self.similarity is None or self.named else self.similarity

    def as_dict(self) -> dict[str, Any]:
        """The match as a result's `match_details` entry shows it."""
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
    """Ranks candidates by how many requested skills their whole CV covers, and says how each matched.

    Use it after the retriever of a skill search over CVs that `CvProfiler` profiled. Each required and
    preferred skill is matched `exact` (the CV uses the skill's own name), by `alias` (a vocabulary name: "K8s"
    for Kubernetes) or `semantic` (a short phrase of the CV embeds close to the skill). Every CV that holds a
    required skill is a candidate, not only those whose chunks retrieval ranked, so a good candidate is not lost
    because the query text ranked its chunks low. Thresholds apply here, so calibrating needs no re-index.

    ### Usage example

    ```python
    from pathlib import Path

    from haystack import Document

    from components.cv_profiler import CvProfiler
    from components.skill_coverage_ranker import SkillCoverageRanker
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    Path("skills.yaml").write_text("{Kubernetes: [k8s], Python: []}")
    cvs = [
        Document(id="cv1", content="Senior engineer. Python and K8s.", meta={"record_id": "cv1"}),
        Document(id="cv2", content="Junior developer in Java.", meta={"record_id": "cv2"}),
    ]
    profiled = CvProfiler(vocabulary=Path("skills.yaml")).run(documents=cvs)
    store = EdgeDocumentStore("cvs", "data")
    store.write_documents(profiled["documents"] + profiled["profiles"])
    ranker = SkillCoverageRanker(document_store=store, vocabulary=Path("skills.yaml"))
    hits = [Document(id=cv.id, meta={"record_id": cv.id}, score=0.5) for cv in cvs]
    result = ranker.run(documents=hits, required_skills=["Kubernetes"])
    print([(d.meta["candidate_id"], d.meta["match_details"]) for d in result["documents"]])
    ```
    """

    def __init__(
        self,
        document_store: HybridDocumentStore,
        vocabulary: Path,
        semantic_model: str | None = DEFAULT_MODEL,
        semantic_threshold: float = 0.7,
        top_k: int = 5,
        model_cache_dir: Path | None = None,
        phrase_threshold: float | None = None,
        phrase_limit: int = 500,
        max_candidates: int = 300,
        vocabulary_threshold: float | None = None,
    ) -> None:
        """Set the collection, the vocabulary and the thresholds; the model loads in `warm_up`.

        :param document_store: the CV collection; a candidate's whole CV is read from it, not just the hits.
        :param vocabulary: skill vocabulary file (relative paths are resolved against the haygate home).
        :param semantic_model: the model `CvProfiler` used at ingest; null turns semantic matches off.
        :param semantic_threshold: cosine similarity a CV phrase needs to count as a semantic match.
        :param top_k: how many candidates to return when the run does not say.
        :param model_cache_dir: where the model's ONNX export is kept; the loader sets it beside the data.
        :param phrase_threshold: cosine similarity between the requested wording and a CV phrase that counts
            as a semantic match (None: phrases are not searched).
        :param phrase_limit: the most similar phrases read per requested skill (each names every CV that says it).
        :param max_candidates: the most CVs read per call (retrieved ones first, then skill holders).
        :param vocabulary_threshold: cosine similarity between the requested wording and a vocabulary skill's
            description (`Skill (means)`) that maps the request to that skill, so its holders match
            semantically (None: `semantic_threshold`).
        """
        thresholds = (
            ("semantic_threshold", semantic_threshold),
            ("phrase_threshold", phrase_threshold),
            ("vocabulary_threshold", vocabulary_threshold),
        )
        for name, threshold in thresholds:
            if threshold is not None and not 0 < threshold <= 1:
                raise ConfigurationError(f"{name} must be in (0, 1], got {threshold}")
        if phrase_threshold is not None and not semantic_model:
            raise ConfigurationError("phrase_threshold needs semantic_model: phrases are matched by embedding")
        self.document_store = check_store(document_store, "skill ranker")
        self.vocabulary = str(vocabulary)
        self.semantic_model = semantic_model
        self.semantic_threshold = semantic_threshold
        self.top_k = top_k
        self.model_cache_dir = None if model_cache_dir is None else str(model_cache_dir)
        self.phrase_threshold = phrase_threshold
        self.phrase_limit = phrase_limit
        self.max_candidates = max_candidates
        self.vocabulary_threshold = vocabulary_threshold
        self._embedder = (
            DenseTextEmbedder(model=semantic_model, model_cache_dir=model_cache_dir) if semantic_model else None
        )
        self._vocabulary: SkillVocabulary | None = None
        self._skill_vectors: np.ndarray | None = None
        self._kept_profiles = KeptProfiles()

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            document_store=self.document_store,
            vocabulary=self.vocabulary,
            semantic_model=self.semantic_model,
            semantic_threshold=self.semantic_threshold,
            top_k=self.top_k,
            model_cache_dir=self.model_cache_dir,
            phrase_threshold=self.phrase_threshold,
            phrase_limit=self.phrase_limit,
            max_candidates=self.max_candidates,
            vocabulary_threshold=self.vocabulary_threshold,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SkillCoverageRanker":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    def warm_up(self) -> None:
        """Load the vocabulary and the model, and embed the vocabulary's skills once."""
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
        filters: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Rank the candidates by the skills they cover, each match explained.

        :param documents: retrieved CV chunks; several can belong to one candidate.
        :param filters: the retrieval's filters (experience level, tenant): a CV found by its skills rather
            than by retrieval is considered only if it passes them too.
        :returns: one Document per candidate, best first, with the match in its meta.
        """
        self.warm_up()
        required = _skills(required_skills)
        preferred = [s for s in _skills(preferred_skills) if s not in required]
        targets = {skill: self._target(skill) for skill in required + preferred}
        said = {skill: self._phrase_matches(skill) for skill in required + preferred}
        best_score: dict[str, float] = {}
        for document in documents:
            rid = str(document.meta.get("record_id", document.id))
            best_score[rid] = max(best_score.get(rid, 0.0), float(document.score or 0.0))
        holders = self._skill_holders([c for s in required if (c := targets[s][0]) is not None], filters)
        holders += [rid for skill in required for rid in said[skill]]
        considered = list(dict.fromkeys([*best_score, *holders]))[: self.max_candidates]
        # A CV's profile (skills, their forms and semantic evidence, experience) is all the matching reads; a
        # requested wording the vocabulary does not know is looked for in the CVs' text index instead.
        profiles = self._profiles(considered, filters)
        mentioning = {
            skill: self._mentioning(skill, considered, filters)
            for skill in required + preferred
            if targets[skill][0] is None
        }
        ranked = []
        for rid in considered:
            profile = profiles.get(rid)
            if profile is None:
                continue
            matches = [
                m
                for skills, is_required in ((required, True), (preferred, False))
                for skill in skills
                if (
                    m := self._match(
                        profile,
                        skill,
                        is_required,
                        *targets[skill],
                        said[skill].get(rid),
                        rid in mentioning.get(skill, ()),
                    )
                )
                is not None
            ]
            if required and not any(m.required for m in matches):
                continue  # nothing in common with the request: not a candidate
            ranked.append(Candidate(rid, profile, matches, best_score.get(rid, 0.0), required, preferred))
        ranked.sort(key=lambda c: (-c.score, c.record_id))
        return {"documents": [c.document() for c in ranked[: top_k if top_k is not None else self.top_k]]}

    def _target(self, skill: str) -> tuple[str | None, float | None]:
        """The vocabulary skill a requested skill means: by name or alias; else the one its wording names
        ("core Java and multithreading" is Java; of several, the one it is closest to by meaning); else the
        semantically closest one, at `vocabulary_threshold`. The similarity is None when a name decided.
        """
        assert self._vocabulary is not None
        canonical = self._vocabulary.canonical(skill)
        if canonical is not None:
            return canonical, None
        named = sorted(self._vocabulary.find(skill))
        if len(named) == 1 or (named and (self._embedder is None or self._skill_vectors is None)):
            return named[0], None
        if self._embedder is None or self._skill_vectors is None:
            return None, None
        similarity = self._skill_vectors @ self._embedder.embed_many([skill])[0]
        if named:
            rows = [self._vocabulary.skills.index(name) for name in named]
            return named[int(np.argmax(similarity[rows]))], None
        best = int(np.argmax(similarity))
        threshold = self.vocabulary_threshold if self.vocabulary_threshold is not None else self.semantic_threshold
        if similarity[best] >= threshold:
            return self._vocabulary.skills[best], float(similarity[best])
        return None, None

    def _phrase_matches(self, skill: str) -> dict[str, tuple[str, float]]:
        """Record id -> (its CV phrase closest to the requested wording, similarity), at the threshold or above."""
        if self.phrase_threshold is None or self._embedder is None:
            return {}
        query = HybridQuery(
            dense=self._embedder.embed_many([skill])[0].tolist(),
            filters=_of_type(PHRASE),
            limit=self.phrase_limit,
            payload_fields=(f"meta.{SHARED_BY}", "content"),
            score_threshold=self.phrase_threshold,  # the engine reads no phrase below it
        )
        found: dict[str, tuple[str, float]] = {}
        for hit in self.document_store.hybrid_search(query):
            similarity = hit.source_scores.get(DENSE)
            if similarity is None or similarity < self.phrase_threshold:
                break  # best first: the rest are further away
            said = (str(hit.payload.get("content", "")), float(similarity))
            for rid in hit.payload["meta"].get(SHARED_BY) or []:  # every CV that says this phrase
                found.setdefault(str(rid), said)
        return found

    def _skill_holders(self, skills: list[str], filters: dict[str, Any] | None) -> list[str]:
        """Record ids of the CVs whose profile names any of these vocabulary skills (and pass `filters`)."""
        if not skills:
            return []
        condition = {"field": "meta.skills", "operator": "in", "value": sorted(set(skills))}
        holders = self.document_store.distinct_values("meta.record_id", _of_type(PROFILE, condition, _untyped(filters)))
        return [str(holder) for holder in holders]

    def _mentioning(self, skill: str, record_ids: list[str], filters: dict[str, Any] | None) -> set[str]:
        """The record ids among these whose CV uses the wording as it was requested. The text index finds the
        CVs with the phrase (stemmed, as it indexes), and only their text is read, to confirm the words as
        written, so no other CV's text is read at all.
        """
        if not record_ids:
            return set()
        among = {"field": "meta.record_id", "operator": "in", "value": record_ids}
        phrase = {"field": "content", "operator": "phrase", "value": skill}
        found = self.document_store.distinct_values("meta.record_id", _of_type(CV, among, phrase, filters))
        if not found:
            return set()
        texts = self._texts([str(rid) for rid in found], filters)
        return {rid for rid, text in texts.items() if _mentions(text, skill)}

    def _profiles(self, record_ids: list[str], filters: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
        """Each candidate's profile (`document_type: profile`, one point a CV, no text), by record id; those
        whose CV does not pass `filters` are left out. Profiles read before are kept until the collection
        changes: a call's candidates are mostly CVs earlier calls read (a third of a call's time, measured).
        """
        if not record_ids:
            return {}
        return self._kept_profiles.get(self.document_store.change_count(), filters, record_ids, self._read_profiles)

    def _read_profiles(self, record_ids: list[str], filters: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
        among = {"field": "meta.record_id", "operator": "in", "value": record_ids}
        found = self.document_store.meta_by_filter(
            _of_type(PROFILE, among, _untyped(filters)), fields=[f"meta.{field}" for field in PROFILE_FIELDS]
        )
        if not found:
            self._check_profiled()
        return {str(document.meta["record_id"]): document.meta for document in found}

    def _check_profiled(self) -> None:
        """A collection of CVs without profile points was indexed before haygate stored them: say so, rather
        than answer every request with no candidates.
        """
        if self.document_store.count_documents(_of_type(PROFILE)) == 0 and self.document_store.count_documents(
            _of_type(CV)
        ):
            collection = self.document_store.collection
            msg = (
                f"collection '{collection}' holds CVs indexed before their profiles were stored apart: "
                f"run `haygate ingest {collection}` on them again"
            )
            raise OperatorError(msg, {"collection": collection})

    def _texts(self, record_ids: list[str], filters: dict[str, Any] | None) -> dict[str, str]:
        """Each CV's whole text, its chunks joined in order (a skill can sit in any of them), by record id."""
        among = {"field": "meta.record_id", "operator": "in", "value": record_ids}
        by_record: dict[str, list[Document]] = {}
        for chunk in self.document_store.meta_by_filter(_of_type(CV, among, filters)):
            by_record.setdefault(str(chunk.meta["record_id"]), []).append(chunk)
        return {
            rid: "\n".join(p.content or "" for p in sorted(parts, key=lambda d: d.meta.get("chunk_index", 0)))
            for rid, parts in by_record.items()
        }

    def _match(
        self,
        profile: dict[str, Any],
        skill: str,
        is_required: bool,
        canonical: str | None,
        mapped: float | None,
        said: tuple[str, float] | None,
        mentions: bool = False,
    ) -> SkillMatch | None:
        """The strongest way this CV covers the skill: its own name or an alias (or, for a wording outside the
        vocabulary, the CV's own words: `mentions`), then a semantic match (the vocabulary's stored evidence,
        then the CV phrase closest to the wording as requested).
        """
        match = self._vocabulary_match(profile, skill, is_required, canonical, mapped)
        if match is None and canonical is None and mentions:
            match = SkillMatch(skill, is_required, "exact", normalise(skill))  # the CV's own words
        if match is None and said is not None:
            match = SkillMatch(skill, is_required, "semantic", said[0], said[1])
        return match

    def _vocabulary_match(
        self, profile: dict[str, Any], skill: str, is_required: bool, canonical: str | None, mapped: float | None
    ) -> SkillMatch | None:
        assert self._vocabulary is not None
        forms = set(profile.get("skill_forms") or [])
        if canonical is None:
            return None
        if canonical in (profile.get("skills") or []):
            if mapped is not None:  # the request named something the vocabulary only knows by meaning
                return SkillMatch(skill, is_required, "semantic", canonical, mapped, named=True)
            own = sorted({normalise(skill), normalise(canonical)} & forms)
            if own:
                return SkillMatch(skill, is_required, "exact", ", ".join(own))
            aliases = sorted(f for f in forms if self._vocabulary.canonical_by_form.get(f) == canonical)
            return SkillMatch(skill, is_required, "alias", ", ".join(aliases))
        for evidence in profile.get("skill_semantic") or []:
            if evidence["skill"] == canonical and evidence["similarity"] >= self.semantic_threshold:
                similarity = min(evidence["similarity"], mapped) if mapped is not None else evidence["similarity"]
                return SkillMatch(skill, is_required, "semantic", evidence["phrase"], similarity)
        return None


class Candidate:
    """A CV that matched, scored; it becomes a Document only if it is among those returned."""

    __slots__ = ("matches", "profile", "record_id", "required", "retrieval_score", "score")

    def __init__(
        self,
        record_id: str,
        profile: dict[str, Any],
        matches: list[SkillMatch],
        retrieval_score: float,
        required: list[str],
        preferred: list[str],
    ) -> None:
        self.record_id, self.profile, self.matches, self.retrieval_score = record_id, profile, matches, retrieval_score
        self.required = required
        strength = sum(m.strength for m in matches) / len(matches) if matches else 0.0
        self.score = match_score(
            sum(m.required for m in matches),
            len(required),
            sum(not m.required for m in matches),
            len(preferred),
            strength,
            retrieval_score,
        )

    def document(self) -> Document:
        """The candidate as the Document a result is made of."""
        matched_required = [m.skill for m in self.matches if m.required]
        profile = self.profile
        meta = {
            "candidate_id": self.record_id,
            "name": profile.get("name") or self.record_id,
            "matched_required_skills": matched_required,
            "matched_preferred_skills": [m.skill for m in self.matches if not m.required],
            "missing_skills": [s for s in self.required if s not in matched_required],
            "experience_level": profile.get("experience_level", "unknown"),
            "years_of_experience": profile.get("years_of_experience"),
            # Why the level: null when the CV was profiled before haygate recorded these.
            "experience_basis": profile.get("experience_basis"),
            "experience_open_ended": profile.get("experience_open_ended"),
            "match_details": [m.as_dict() for m in self.matches],
            "retrieval_score": round(self.retrieval_score, 4),
        }
        return Document(id=self.record_id, content=None, meta=meta, score=self.score)


def match_score(
    matched_required: int, required: int, matched_preferred: int, preferred: int, strength: float, retrieval: float
) -> float:
    """A score in [0, 1] that orders: required coverage, preferred coverage, then how strong the matches are
    and the retrieval score.

    Each extra required skill is worth a whole band of width 1/(required+1); preferred coverage, the
    matches' strength (1 for a name or an alias, the similarity for a semantic match) and the retrieval
    score only move a candidate within its band, so missing a required skill always costs more than any
    amount of preferred skills can give back.
    """
    strength, retrieval = min(max(strength, 0.0), 1.0), min(max(retrieval, 0.0), 1.0)
    closeness = (round(strength, 2) * 100 + retrieval) / 101  # strength first (to 0.01), then retrieval
    within = (matched_preferred + 0.99 * closeness) / (preferred + 1)
    return round((matched_required + within) / (required + 1), 6)


def _of_type(document_type: str, *conditions: dict[str, Any] | None) -> dict[str, Any]:
    """Documents of this type that meet every given condition (None ones are skipped)."""
    kind = {"field": "meta.document_type", "operator": "==", "value": document_type}
    given = [c for c in conditions if c]
    return kind if not given else {"operator": "AND", "conditions": [kind, *given]}


def _untyped(filters: dict[str, Any] | None) -> dict[str, Any] | None:
    """The retrieval's filters without its conditions on `meta.document_type` (CV chunks): the same filters
    (level, tenant) on the profile points, which are a type of their own.
    """
    if not filters:
        return None
    if filters.get("field") == "meta.document_type":
        return None
    if filters.get("operator") != "AND":
        return filters
    kept = [c for c in filters["conditions"] if c.get("field") != "meta.document_type"]
    return {"operator": "AND", "conditions": kept} if kept else None


def _skills(value: Any) -> list[str]:
    return list(dict.fromkeys(s.strip() for s in value or [] if isinstance(s, str) and s.strip()))


def _mentions(text: str, skill: str) -> bool:
    body = r"[\s_-]+".join(re.escape(w) for w in skill.split())
    return re.search(rf"(?<![\w+#.]){body}(?![\w+#])", text, re.IGNORECASE) is not None
