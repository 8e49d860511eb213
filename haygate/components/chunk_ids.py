"""`ChunkIds`: stable ids for the parts Haystack's `DocumentSplitter` cuts a document into.

A document that stays whole keeps its id; the parts of a longer one are `<id>#chunk0`, `#chunk1`, ...
with `chunk_index` and `chunk_count` in their meta, so re-ingesting the same text writes the same points.
The splitter's bookkeeping (source id, offsets, overlaps) leaves the meta, and the word separator it
keeps after each part's last word goes too.
"""

import dataclasses
from collections import Counter
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.document_stores.hybrid import CHUNK_MARK, record_of  # the store keeps one record's best chunk

__all__ = ["CHUNK_MARK", "ChunkIds", "record_of"]

SPLITTER_META = ("source_id", "page_number", "split_id", "split_idx_start", "_split_overlap")


@component
class ChunkIds:
    """Gives the parts Haystack's `DocumentSplitter` cuts a document into stable ids.

    Place it right after the splitter in an indexing pipeline, so re-ingesting the same text writes the same
    points: a document that stays whole keeps its id, the parts of a longer one are `<id>#chunk0`, `#chunk1`,
    ... with `chunk_index` and `chunk_count` in their meta.

    ### Usage example

    ```python
    from haystack import Document
    from haystack.components.preprocessors import DocumentSplitter

    from haygate.components.chunk_ids import ChunkIds

    splitter = DocumentSplitter(split_by="word", split_length=4, split_overlap=0)
    parts = splitter.run(documents=[Document(id="guide", content="one two three four five six")])["documents"]
    result = ChunkIds().run(documents=parts)
    print([d.id for d in result["documents"]])  # ['guide#chunk0', 'guide#chunk1']
    ```
    """

    def __init__(self, separator: str = " ") -> None:
        """Set what the splitter split by.

        :param separator: what the splitter split by (`split_by: word` splits at single spaces).
        """
        self.separator = separator

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, separator=self.separator)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ChunkIds":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Give each part its stable id and drop the splitter's bookkeeping."""
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
