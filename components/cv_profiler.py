"""`CvProfiler`: at ingest, each whole CV gets its profile, stored on every chunk it is later split into.

- skills, named outright or by an alias of the vocabulary (`configs/skills.yaml`);
- years of experience (a stated total, else merged work-history ranges), what they rest on
  (`experience_basis`, `experience_open_ended`) and the experience level;
- semantic evidence: for each vocabulary skill the CV does not name, its closest short phrase and the
  cosine similarity, so `SkillCoverageRanker` can match "container orchestration" to Kubernetes with a
  threshold set at query time (calibrating needs no re-index).

Its second output, `profiles`, is each CV's profile as a point of its own (`document_type: profile`, the
CV's meta and profile, no text, no vectors): matching reads a few hundred profiles a call, and a chunk's
350-word text made each such read five times larger.

Its third output, `phrases`, is every distinct short phrase of the batch's CVs as a document of its own
(`document_type: phrase`, the vector already computed), written beside the CV's chunks: a requested skill
outside the vocabulary is then matched against what the CVs say, by a vector search over these phrases. A
phrase is stored once however many CVs say it, and names them in `meta.record_ids`, so the collection grows by
the phrases no CV said before, not by 150 a CV. Each phrase here names the batch's CVs alone: its writer
(`SharedDocumentWriter`) adds them to the stored list, and ingest takes a deleted or replaced CV off those lists
first (`haygate.ingest.indexer.remove_records`). The profiler reads nothing from the store, so several ingests
writing one collection at a time lose no CV from a list.
"""

import dataclasses
import datetime as dt
import hashlib
from collections import OrderedDict
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from haystack import Document, component, default_from_dict, default_to_dict

from components.cv_profile import PHRASE, PHRASE_WORDS, PROFILE, SkillVocabulary, cv_profile, phrases
from haygate.api import (
    DEFAULT_MODEL,
    RECORD_ID,
    SHARED_BY,
    DenseTextEmbedder,
    InvalidRecordError,
)


@component
class CvProfiler:
    """Profiles each whole CV at ingest: skills, years of experience, and semantic evidence per skill.

    Place it in the CV collection's indexing pipeline before the splitter, so every chunk carries its CV's
    profile. Skills are named outright or by an alias of the vocabulary (`configs/skills.yaml`); years of
    experience come from a stated total, else merged work-history ranges; for each vocabulary skill the CV does
    not name, its closest short phrase and the cosine similarity are kept, so `SkillCoverageRanker` can match
    "container orchestration" to Kubernetes with a threshold set at query time. Its `profiles` and `phrases`
    outputs are written beside the chunks (a profile point per CV, a phrase point per distinct phrase).

    ### Usage example

    ```python
    from pathlib import Path

    from haystack import Document

    from components.cv_profiler import CvProfiler

    Path("skills.yaml").write_text("{Kubernetes: [k8s], Python: []}")
    profiler = CvProfiler(vocabulary=Path("skills.yaml"))
    cv = Document(id="cv1", content="Senior engineer, 9 years of experience. Python, K8s.", meta={"record_id": "cv1"})
    result = profiler.run(documents=[cv])
    print(result["documents"][0].meta["skills"], result["documents"][0].meta["years_of_experience"])
    ```
    """

    # What the loader's preview sets (the ids an ingest would write, known before a judged set is indexed):
    # profiles alone, with no model loaded and no phrase embedded.
    preview_parameters: ClassVar[dict[str, Any]] = {"embed_phrases": False}

    def __init__(
        self,
        vocabulary: Path,
        model: str = DEFAULT_MODEL,
        floor: float = 0.5,
        phrase_words: int = PHRASE_WORDS,
        model_cache_dir: Path | None = None,
        embed_phrases: bool = True,
    ) -> None:
        """Set the vocabulary and the model; both load in `warm_up`.

        :param vocabulary: the skill vocabulary file (relative paths are resolved against the haygate home).
        :param model: the embedding model for phrases and skills; the ranker must use the same one.
        :param floor: similarities below this are not stored; the ranker's threshold must not be lower.
        :param phrase_words: the longest phrase, in words.
        :param model_cache_dir: where the model's ONNX export is kept; the loader sets it beside the data.
        :param embed_phrases: False: no semantic evidence and no `phrases` output, and no model loaded (the
            documents and their ids are the same).
        """
        self.vocabulary = str(vocabulary)
        self.model = model
        self.floor = floor
        self.phrase_words = phrase_words
        self.model_cache_dir = None if model_cache_dir is None else str(model_cache_dir)
        self.embed_phrases = embed_phrases
        self._embedder = DenseTextEmbedder(model=model, model_cache_dir=model_cache_dir)
        self._vocabulary: SkillVocabulary | None = None
        self._skill_vectors: np.ndarray | None = None
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()  # phrase -> vector, the last ones embedded

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            vocabulary=self.vocabulary,
            model=self.model,
            floor=self.floor,
            phrase_words=self.phrase_words,
            model_cache_dir=self.model_cache_dir,
            embed_phrases=self.embed_phrases,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CvProfiler":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    def warm_up(self) -> None:
        """Load the vocabulary and the model, and embed the vocabulary's skills once."""
        if self._vocabulary is None:
            self._vocabulary = SkillVocabulary.load(Path(self.vocabulary))
            if not self.embed_phrases:
                return
            self._embedder.warm_up()
            self._skill_vectors = self._embedder.embed_many(
                [self._vocabulary.semantic_text(s) for s in self._vocabulary.skills]
            )

    @component.output_types(documents=list[Document], profiles=list[Document], phrases=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Profile each CV, and make its profile point and its phrases' points.

        :param documents: whole CVs (before splitting). `meta.as_of` (an ISO date) is when the CV was
        written, where its "to Present" ranges end. Without it they end at the latest date the CV's work
        history states, and the profile says the years are a lower bound (`experience_open_ended`).
        """
        self.warm_up()
        assert self._vocabulary is not None
        vocabulary = self._vocabulary
        profiles = [cv_profile(d.content or "", vocabulary, _as_of(d)).as_meta() for d in documents]
        if not self.embed_phrases:
            profiled = [dataclasses.replace(d, meta={**d.meta, **p}) for d, p in zip(documents, profiles, strict=True)]
            return {"documents": profiled, "profiles": [_profile_document(d) for d in profiled], "phrases": []}
        cv_phrases = [phrases(d.content or "", self.phrase_words) for d in documents]
        unique = list(dict.fromkeys(p for ps in cv_phrases for p in ps))
        vectors = self._phrase_vectors(unique)
        row = {p: i for i, p in enumerate(unique)}
        profiled = []
        for document, profile, found in zip(documents, profiles, cv_phrases, strict=True):
            evidence = self._evidence(found, vectors, row, profile["skills"])
            profiled.append(
                dataclasses.replace(document, meta={**document.meta, **profile, "skill_semantic": evidence})
            )
        return {
            "documents": profiled,
            "profiles": [_profile_document(document) for document in profiled],
            "phrases": self._phrase_documents(documents, cv_phrases, unique, vectors),
        }

    def _phrase_documents(
        self, documents: list[Document], cv_phrases: list[list[str]], unique: list[str], vectors: np.ndarray
    ) -> list[Document]:
        """One document per distinct phrase, naming the batch's CVs that say it (and no other: the writer adds
        them to those the stored phrase names, never writing a list back).
        """
        holders: dict[str, set[str]] = {phrase: set() for phrase in unique}
        for document, found in zip(documents, cv_phrases, strict=True):
            for phrase in found:
                holders[phrase].add(str(document.meta.get(RECORD_ID, document.id)))
        return [
            Document(
                id=phrase_id(phrase),
                content=phrase,
                meta={"document_type": PHRASE, SHARED_BY: sorted(holders[phrase])},
                embedding=vector.tolist(),
            )
            for phrase, vector in zip(unique, vectors, strict=True)
        ]

    def _phrase_vectors(self, unique: list[str]) -> np.ndarray:
        """One row per phrase. CVs share many phrases (headings, "Email me on Indeed", common duties: 28 % of
        the real CVs' phrases recur), so the last `RECENT_PHRASES` vectors of this ingest are kept and only
        new phrases are embedded; a phrase an earlier ingest embedded is read from the vectors kept on disk
        (`haygate.api.DenseTextEmbedder.embed_many`, `kept`). The embedder's query cache is for queries.
        """
        fresh = [p for p in unique if p not in self._recent]
        computed = self._embedder.embed_many(fresh, kept=True) if fresh else np.zeros((0, 1), dtype=np.float32)
        for phrase, vector in zip(fresh, computed, strict=True):
            self._recent[phrase] = vector
        rows = []
        for phrase in unique:
            self._recent.move_to_end(phrase)
            rows.append(self._recent[phrase])
        while len(self._recent) > RECENT_PHRASES:
            self._recent.popitem(last=False)
        return np.asarray(rows, dtype=np.float32) if rows else np.zeros((0, 1), dtype=np.float32)

    def _evidence(
        self, cv_phrases: list[str], vectors: np.ndarray, row: dict[str, int], named: list[str]
    ) -> list[dict[str, Any]]:
        assert self._vocabulary is not None and self._skill_vectors is not None
        if not cv_phrases:
            return []
        similarity = self._skill_vectors @ vectors[[row[p] for p in cv_phrases]].T
        evidence = []
        for index, skill in enumerate(self._vocabulary.skills):
            best = int(np.argmax(similarity[index]))
            score = float(similarity[index, best])
            if skill not in named and score >= self.floor:
                evidence.append({"skill": skill, "phrase": cv_phrases[best], "similarity": round(score, 4)})
        return evidence


RECENT_PHRASES = 50_000  # phrase vectors kept between batches: 75 MB


def _profile_document(cv: Document) -> Document:
    """The CV's profile alone: replaced and deleted with the CV (its `record_id`), never retrieved (no vectors)."""
    record = str(cv.meta.get(RECORD_ID, cv.id))
    return Document(id=f"{record}#profile", content=None, meta={**cv.meta, "document_type": PROFILE})


def phrase_id(phrase: str) -> str:
    """The one id of a phrase's point in a collection, whichever CVs say it."""
    return f"phrase:{hashlib.sha1(phrase.encode()).hexdigest()[:16]}"


def _as_of(document: Document) -> dt.date | None:
    """The record's own date; never today, which says nothing about when the CV was written."""
    as_of = document.meta.get("as_of")
    if not as_of:
        return None
    try:
        return dt.date.fromisoformat(str(as_of)[:10])
    except ValueError as error:
        raise InvalidRecordError(f"{document.id}: as_of must be an ISO date, got {as_of!r}") from error
