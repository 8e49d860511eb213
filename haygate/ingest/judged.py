"""What a judged id names in a collection, and which judged id a result counts as.

People judge at the level they read: a *record* (an input record: a Markdown file, a CV, a memory) or a
*section* (a document the indexing pipeline made of a record, before any cut into `#chunkN` windows). A tool
returns the stored documents, whatever its formatter writes of them. So a result counts as the most specific
of its ancestors that the query judged: its own id, the section it is a chunk of, or its record
(`meta.record_id`, which every stored document carries). A file judged relevant is found by any of its
sections; a section by any of its chunks.

The ids a corpus holds at each level come from the store (a collection as ingested) or from the documents an
ingest would write (`CorpusIds.of_documents`, before anything is embedded), so a judged id that names nothing
is refused, with the closest real ids, before any indexing.
"""

import difflib
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from haystack import Document

from haygate import __version__
from haygate.components.chunk_ids import record_of
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.ingest.mapping import RECORD_ID

LEVELS = ("record", "section")  # what a judge grades: a whole record, or one section of it
RECORD_FIELD = f"meta.{RECORD_ID}"
CLOSEST = 3  # real ids suggested for a judged id that names nothing
_ATTRIBUTE_LIST = re.compile(r"\s*\{:?\s*[#.][^{}]*\}")  # `{ #id .class }` written after a heading
_ATTRIBUTE_ANCHOR = re.compile(r"\{:?\s*#([\w.:-]+)[^{}]*\}")


def ancestors(document_id: str, record_id: Any = None) -> list[str]:
    """A stored document's id, the section it is a chunk of, and its record: most specific first, each once."""
    chain = [document_id, record_of(document_id)]
    if record_id is not None:
        chain.append(str(record_id))
    return list(dict.fromkeys(chain))


def counted_as(chain: list[str], judged: Mapping[str, Any]) -> str:
    """The id a result counts as for one query: its most specific ancestor the query judged, else its own id."""
    return next((level for level in chain if level in judged), chain[0])


def graded_id(document_id: str, record_id: Any, level: str) -> str:
    """The id a judge grades a result by, at `level`: its record, or its section."""
    if level == "record" and record_id is not None:
        return str(record_id)
    return record_of(document_id)


def record_ids(store: HybridDocumentStore, document_ids: list[str]) -> dict[str, str]:
    """The record of each stored document among `document_ids` (one read of their `meta.record_id`)."""
    if not document_ids:
        return {}
    found = store.meta_by_filter({"field": "id", "operator": "in", "value": document_ids}, fields=[RECORD_FIELD])
    return {document.id: str(document.meta[RECORD_ID]) for document in found if RECORD_ID in document.meta}


@dataclass(frozen=True)
class CorpusIds:
    """Every id a judgment may name in one corpus: its records and its stored documents (and so the sections
    those are chunks of)."""

    records: frozenset[str]
    documents: frozenset[str]
    record_of_document: Mapping[str, str]  # a document's record
    # A section named by its author's anchor (`file:a.md#request-files`), by the id its heading path gives
    # (`file:a.md#Files/Request Files`), which an earlier version wrote: judged sets may name it so.
    by_heading_path: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of_documents(cls, documents: Iterable[Document]) -> "CorpusIds":
        parents: dict[str, str] = {}
        by_path: dict[str, str] = {}
        for document in documents:
            if document.meta.get(RECORD_ID) is None:
                continue
            parents[document.id] = record = str(document.meta[RECORD_ID])
            path = document.meta.get("heading_path")
            section = record_of(document.id)
            if isinstance(path, list) and path and (heading := f"{record}#{'/'.join(map(str, path))}") != section:
                by_path.setdefault(heading, section)
        return cls(frozenset(parents.values()), frozenset(parents), parents, by_path)

    @classmethod
    def read(cls, path: Path) -> "CorpusIds | None":
        """The ids `write` kept at `path`, or None: nothing there, or kept by another haygate (its preview may
        cut and split otherwise), or not readable as kept."""
        try:
            kept = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(kept, dict) or kept.get("haygate") != __version__:
            return None
        parents, by_path = kept.get("record_of_document"), kept.get("by_heading_path", {})
        if not isinstance(parents, dict) or not isinstance(by_path, dict):
            return None
        return cls(frozenset(parents.values()), frozenset(parents), parents, by_path)

    def write(self, path: Path) -> None:
        """Keep these ids at `path` (whole or not at all: written aside, then moved in)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        aside = path.with_name(f".{path.name}.{os.getpid()}")
        try:
            kept = {"record_of_document": dict(self.record_of_document), "by_heading_path": dict(self.by_heading_path)}
            aside.write_text(json.dumps({"haygate": __version__, **kept}))
            os.replace(aside, path)
        except OSError:
            aside.unlink(missing_ok=True)  # a full disk leaves no torn file behind
            raise

    @classmethod
    def of_store(cls, store: HybridDocumentStore) -> "CorpusIds":
        return cls.of_documents(store.meta_by_filter(None, fields=[RECORD_FIELD, "meta.heading_path"]))

    @property
    def sections(self) -> frozenset[str]:
        return frozenset(record_of(document) for document in self.documents)

    def names(self, judged_id: str) -> bool:
        return judged_id in self.records or judged_id in self.documents or judged_id in self.sections

    def unknown(self, judged_ids: Iterable[str]) -> dict[str, list[str]]:
        """The judged ids that name nothing here, each with the closest real ids (records and sections)."""
        missing = sorted({i for i in judged_ids if not self.names(i)})
        if not missing:
            return {}
        candidates = sorted(self.records | self.sections)
        return {i: difflib.get_close_matches(i, candidates, n=CLOSEST, cutoff=0.5) for i in missing}

    def current(self, judged_id: str) -> str | None:
        """The id a section has now that an earlier version named `judged_id`, or None: the same heading with
        its attribute list (`Request Files { #request-files }`) written into the id, or its heading path
        where the author's anchor names it now."""
        record, _, fragment = judged_id.partition("#")
        if not fragment or record not in self.records:
            return None
        anchors = _ATTRIBUTE_ANCHOR.findall(fragment)
        cleaned = "/".join(" ".join(_ATTRIBUTE_LIST.sub(" ", part).split()) for part in fragment.split("/"))
        for candidate in ([f"{record}#{anchors[-1]}"] if anchors else []) + [f"{record}#{cleaned}"]:
            if candidate != judged_id and candidate in self.sections:
                return candidate
            if candidate in self.by_heading_path:
                return self.by_heading_path[candidate]
        return None

    def examples(self) -> dict[str, str]:
        """An id of each level, to show what ids look like here."""
        record = min(self.records, default=None)
        section = min((s for s in self.sections if s not in self.records), default=None)
        return {kind: found for kind, found in (("record", record), ("section", section)) if found}

    def level_of(self, judged_id: str) -> str:
        """ "record" for a record's id, "section" for a section or chunk."""
        return "record" if judged_id in self.records else "section"


def unknown_ids_message(where: str, collection: str, unknown: dict[str, list[str]], examples: dict[str, str]) -> str:
    """A refusal that names the ids, the closest real ones, and what ids look like here (`CorpusIds.examples`)."""
    shown = []
    for judged_id, close in list(unknown.items())[:5]:
        near = f" (closest: {', '.join(repr(c) for c in close)})" if close else ""
        shown.append(f"{judged_id!r}{near}")
    more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
    looks = ", ".join(f"a {kind} {example!r}" for kind, example in examples.items())
    return (
        f"{where}: {len(unknown)} judged id(s) name no record or section of '{collection}': "
        f"{'; '.join(shown)}{more}. Ids here look like {looks or 'nothing: the collection is empty'}."
    )


def judged_ids(store: HybridDocumentStore, ids: list[str]) -> dict[str, Any]:
    """Which of `ids` name a record or a section of a collection, and the closest real ids of the others."""
    corpus = CorpusIds.of_store(store)
    return {
        "records": sorted(i for i in ids if i in corpus.records),
        "sections": sorted(i for i in ids if i not in corpus.records and corpus.names(i)),
        "unknown": corpus.unknown(ids),
        "examples": corpus.examples(),
    }
