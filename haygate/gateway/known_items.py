"""A known-item judged set made from a collection as ingested, before anyone judges: each section's heading, as
its author wrote it, becomes a query, and that section is its one judged answer.

What it measures is narrow, and `LIMITS` says so wherever the set is made: whether a tool finds a section by its
own title (navigational search), in the section's own words. It says nothing of questions in other words, and
each query judges one section, so another section that answers it counts as not relevant (its judged@k is low by
construction: read the condensed figures too). A heading several sections share (`Examples`, `Parameters`) names
no one section and is left out; so are headings of one character.
"""

import hashlib
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from haygate.document_stores.hybrid import HybridDocumentStore, record_of
from haygate.errors import DatasetError
from haygate.gateway.judged_sets import write_set
from haygate.ingest.mapping import RECORD_ID

TAG = "known-item"
GRADE = 2
LIMITS = (
    "known-item queries are headings: they share the words of their answers, so the set measures whether a "
    "section is found by its own title, not how questions in other words are answered; each query judges one "
    "section, so other sections that answer it count as not relevant (judged@k is low by construction: read the "
    "condensed figures too)"
)


@dataclass
class KnownItems:
    """What a collection's sections gave: queries and grades, and what was left out and why."""

    queries: dict[str, dict[str, Any]] = field(default_factory=dict)
    grades: dict[str, dict[str, int]] = field(default_factory=dict)
    shared_headings: int = 0  # headings several sections share: left out
    sections: int = 0  # sections with a heading, in all

    def summary(self, folder: Path) -> str:
        return (
            f"wrote {len(self.queries)} known-item queries into {folder} from {self.sections} headed sections "
            f"({self.shared_headings} headings shared by several sections left out). Limits: {LIMITS}."
        )


def sections_of(store: HybridDocumentStore) -> dict[str, str]:
    """Each section's id and its own heading (the last of its heading path), as ingested."""
    headed: dict[str, str] = {}
    for document in store.meta_by_filter(None, fields=["meta.heading_path", f"meta.{RECORD_ID}"]):
        path = document.meta.get("heading_path")
        if document.meta.get(RECORD_ID) is not None and isinstance(path, list) and path:
            heading = " ".join(str(path[-1]).split())
            if len(heading) > 1:
                headed.setdefault(record_of(document.id), heading)
    return headed


def known_items(store: HybridDocumentStore, limit: int | None = None, seed: int = 0) -> KnownItems:
    """One query per section whose heading no other section shares; `limit`: a seeded sample of them."""
    headed = sections_of(store)
    if not headed:
        msg = f"collection '{store.collection}' holds no section with a heading (is it ingested, as Markdown?)"
        raise DatasetError(msg, {"collection": store.collection})
    counts: dict[str, int] = {}
    for heading in headed.values():
        counts[heading.casefold()] = counts.get(heading.casefold(), 0) + 1
    unique = sorted(section for section, heading in headed.items() if counts[heading.casefold()] == 1)
    if limit is not None and limit < len(unique):
        unique = sorted(random.Random(seed).sample(unique, limit))
    made = KnownItems(sections=len(headed), shared_headings=sum(1 for n in counts.values() if n > 1))
    for section in unique:
        query_id = "k" + hashlib.sha1(section.encode()).hexdigest()[:10]  # the same section, the same id
        made.queries[query_id] = {"id": query_id, "text": headed[section], "metadata": {"tags": [TAG]}}
        made.grades[query_id] = {section: GRADE}
    return made


def write_known_items(folder: Path, made: KnownItems, tool: str) -> None:
    """The set, in the one judged-set format: judged at the section level, evaluated on the collection as
    ingested (no corpus to index)."""
    if (folder / "queries.jsonl").exists():
        raise DatasetError(f"{folder}: a judged set is there already; choose another folder, or delete it first")
    spec = {"tool": tool, "level": "section"}
    write_set(folder, made.queries, {"test": made.grades}, spec=spec)
