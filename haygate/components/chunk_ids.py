"""`ChunkIds`: stable ids for the parts Haystack's `DocumentSplitter` cuts a document into.

A document that stays whole keeps its id; the parts of a longer one are `<id>#chunk0`, `#chunk1`, ...
with `chunk_index` and `chunk_count` in their meta, so re-ingesting the same text writes the same points.
The splitter's bookkeeping (source id, offsets, overlaps) leaves the meta, and the word separator it
keeps after each part's last word goes too.
"""

import dataclasses
import re
from collections import Counter
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

SPLITTER_META = ("source_id", "page_number", "split_id", "split_idx_start", "_split_overlap")
CHUNK_MARK = "#chunk"
_CHUNK_SUFFIX = re.compile(re.escape(CHUNK_MARK) + r"\d+$")


def record_of(document_id: str) -> str:
    """The id of the record a stored part belongs to: `<id>#chunk3` -> `<id>`; a whole record's id is its own."""
    return _CHUNK_SUFFIX.sub("", document_id)


@component
class ChunkIds:
    def __init__(self, separator: str = " ") -> None:
        """:param separator: what the splitter split by (`split_by: word` splits at single spaces)."""
        self.separator = separator

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, separator=self.separator)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ChunkIds":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        parents = [str(d.meta.get("source_id", d.id)) for d in documents]
        count = Counter(parents)
        chunks = []
        for document, parent in zip(documents, parents, strict=True):
            meta = {k: v for k, v in document.meta.items() if k not in SPLITTER_META}
            index = int(document.meta.get("split_id", 0))
            content = document.content or ""
            if count[parent] == 1:
                chunks.append(dataclasses.replace(document, id=parent, content=content, meta=meta))
                continue
            if index < count[parent] - 1 and content.endswith(self.separator):
                content = content[: -len(self.separator)]
            meta.update(chunk_index=index, chunk_count=count[parent])
            chunks.append(dataclasses.replace(document, id=f"{parent}{CHUNK_MARK}{index}", content=content, meta=meta))
        return {"documents": chunks}
