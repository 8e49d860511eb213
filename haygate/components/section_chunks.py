"""`SectionChunks`: documentation sections cut into pieces a reader and the embedder can use.

A section is cleaned (HTML comments dropped, reference links as their text, table padding trimmed:
`haygate.text.markdown.clean`) and, when it is longer than a window, cut into windows of whole blocks: a
paragraph cut between sentences, a table between rows with its header repeated, code between lines and
fenced again. A window is sized in the model's own word pieces, the title the embedder puts before it
included, and nothing is repeated between windows (a window ends where a block or a sentence does), so the
model reads each piece of text once.

How long a window is, is a retrieval choice: BM25 scores all of it, the dense vector what the model reads
(256 word pieces for all-MiniLM-L6-v2). The docs pipeline sets 320, measured on two judged sets at the section
level (the benchmarks page): windows of 320 pieces held the haystack-docs set where it was and raised the npm
docs' set, where 256 fell behind on both and 384 and 512 each lost one.

Ids are `ChunkIds`' (the section's id when it stays whole, `<id>#chunkN` otherwise, with `chunk_index` and
`chunk_count`), so a judged section, or a record, is found by any of its pieces.
"""

import dataclasses
import json
from pathlib import Path
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.components.chunk_ids import CHUNK_MARK
from haygate.components.models import DEFAULT_MODEL, model_folder
from haygate.errors import ConfigurationError
from haygate.text.markdown import clean, pieces

SPECIAL_TOKENS = 2  # [CLS] and [SEP], which every embedded text carries


@component
class SectionChunks:
    """Cuts documentation sections into pieces that fit the embedding model, at block and sentence bounds.

    Place it in an indexing pipeline before the embedders (as `pipelines/indexing/docs.yaml` does). A section is
    cleaned (HTML comments dropped, reference links as their text, table padding trimmed) and, when it is longer
    than a window, cut into windows of whole blocks, sized in the model's own word pieces with the title the
    embedder puts before each included, and nothing repeated between windows. How long a window is, is a
    retrieval choice; the docs pipeline's was measured (docs/benchmarks.md).

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.section_chunks import SectionChunks

    chunks = SectionChunks(max_tokens=40, title_field="title")
    chunks.warm_up()  # the model's tokenizer only
    section = Document(id="guide.md#Install", content="Install it with pip. " * 20, meta={"title": "Install"})
    result = chunks.run(documents=[section])
    print([d.id for d in result["documents"]])
    ```
    """

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        max_tokens: int | None = None,
        title_field: str | None = "title",
        separator: str = "\n",
    ) -> None:
        """Set the model whose tokenizer sizes the windows; it loads in `warm_up`.

        :param model: the embedding model whose tokenizer sizes the windows (a name or a local folder).
        :param max_tokens: word pieces a window holds, the title's included; None: what the model reads of a
            text (its `max_seq_length`).
        :param title_field: the meta field the embedder puts before each piece (`meta_fields_to_embed`), whose
            tokens a window leaves room for; None when nothing is.
        :param separator: what the embedder joins the title and the piece with.
        """
        if max_tokens is not None and max_tokens < 32:
            raise ConfigurationError(f"max_tokens is the word pieces a model reads (32 or more), got {max_tokens}")
        self.model = model
        self.max_tokens = max_tokens
        self.title_field = title_field
        self.separator = separator
        self._tokenizer: Any = None
        self._limit = max_tokens or 0

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            model=self.model,
            max_tokens=self.max_tokens,
            title_field=self.title_field,
            separator=self.separator,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SectionChunks":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    def warm_up(self) -> None:
        """The model's tokenizer (no weights): a fast Rust tokenizer, loaded once."""
        if self._tokenizer is not None:
            return
        from tokenizers import Tokenizer

        folder = model_folder(self.model)
        tokenizer = Tokenizer.from_file(str(Path(folder) / "tokenizer.json"))
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        if self.max_tokens is None:
            self._limit = _max_seq_length(Path(folder))

    def count(self, text: str) -> int:
        """Word pieces of `text`, without the special tokens."""
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Cut each section into windows that fit the model, with ids by `ChunkIds`' rule."""
        self.warm_up()
        counted: dict[str, int] = {}  # a block is counted as a block, then as a window's part: encoded once

        def count(text: str) -> int:
            found = counted.get(text)
            if found is None:
                found = counted[text] = self.count(text)
            return found

        chunks = []
        for document in documents:
            title = str(document.meta.get(self.title_field) or "") if self.title_field else ""
            lead = count(title + self.separator) if title else 0
            budget = max(16, self._limit - SPECIAL_TOKENS - lead)
            windows = pieces(document.content or "", budget, count) or [clean(document.content or "")]
            if len(windows) == 1:
                chunks.append(dataclasses.replace(document, content=windows[0]))
                continue
            for index, window in enumerate(windows):
                meta = {**document.meta, "chunk_index": index, "chunk_count": len(windows)}
                chunk_id = f"{document.id}{CHUNK_MARK}{index}"
                chunks.append(dataclasses.replace(document, id=chunk_id, content=window, meta=meta))
        return {"documents": chunks}


def _max_seq_length(folder: Path) -> int:
    """What the model reads of a text: sentence-transformers' `max_seq_length`, else the tokenizer's limit."""
    for name, key in (("sentence_bert_config.json", "max_seq_length"), ("tokenizer_config.json", "model_max_length")):
        try:
            value = json.loads((folder / name).read_text()).get(key)
        except (OSError, ValueError):
            continue
        if isinstance(value, int) and 0 < value <= 100_000:
            return value
    return 512
