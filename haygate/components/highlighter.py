"""`Highlighter`: adds a snippet of each document's text around its matches, each matched word marked
`<mark>word</mark>` (`haygate.text.snippets`): the text's own bold stays its own.
"""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.text.bm25 import Bm25Tokenizer
from haygate.text.normalise import WORD
from haygate.text.paths import check_document_path, document_text
from haygate.text.snippets import snippet

WORDS_KEPT = 100_000  # distinct words whose token ids a highlighter keeps


@component
class Highlighter:
    """Adds a snippet of each document's text around its matches, each matched word marked `<mark>word</mark>`.

    Place it after the ranker of a tool whose results show why they matched. Words match by BM25 token (the
    store's tokenizer: stemming, stopwords, ASCII folding), so "indexing" is highlighted for the term "index"
    and "café" for "cafe"; the text's own bold stays its own (`haygate.text.snippets`).

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.highlighter import Highlighter

    highlighter = Highlighter(max_chars=80)
    result = highlighter.run(documents=[Document(content="Indexing a café menu takes seconds.")], query="cafe index")
    print(result["documents"][0].meta["snippet"])
    ```
    """

    stage = "formatting"  # what telemetry times its runs as (haygate.api.Stage)

    def __init__(
        self, field: str = "content", max_chars: int = 300, snippet_key: str = "snippet", language: str = "english"
    ) -> None:
        """Set the field excerpted, the snippet's length and where it is written.

        :param field: the document path whose text is excerpted.
        :param max_chars: the longest snippet, markers and ellipses included.
        :param snippet_key: the meta key the snippet is written to.
        """
        self.field = check_document_path(field)
        self.max_chars = max_chars
        self.snippet_key = snippet_key
        self.language = language
        self._tokenizer = Bm25Tokenizer(language)
        # word -> its token ids: a section's words recur within it and across calls, and each lookup is a call
        # into the engine's tokenizer (6 ms of a call's 20 ms, measured, before this)
        self._words: dict[str, frozenset[int]] = {}

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self, field=self.field, max_chars=self.max_chars, snippet_key=self.snippet_key, language=self.language
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Highlighter":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(
        self, documents: list[Document], terms: list[str] | None = None, query: str | None = None
    ) -> dict[str, Any]:
        """Write each document's snippet, its matched words marked.

        :param terms: the words that matched (a full-text query's scoring words).
        :param query: or the query itself: its words, as the BM25 side tokenizes them, are the terms.
        """
        wanted = self._tokenizer.token_ids(" ".join([*(terms or []), query or ""]))
        out = []
        for document in documents:
            text = document_text(document, self.field)
            meta = {**document.meta, self.snippet_key: self.snippet(text, wanted)}
            out.append(dataclasses.replace(document, meta=meta))
        return {"documents": out}

    def snippet(self, text: str, wanted: set[int]) -> str:
        """At most `max_chars` characters around the words whose tokens are `wanted`."""
        spans = [(m.start(), m.end()) for m in WORD.finditer(text) if self._word_tokens(m.group(0)) & wanted]
        return snippet(text, spans, self.max_chars)

    def _word_tokens(self, word: str) -> frozenset[int]:
        found = self._words.get(word)
        if found is None:
            if len(self._words) >= WORDS_KEPT:
                self._words.clear()  # a bounded memory; the common words come back within a few calls
            found = self._words[word] = frozenset(self._tokenizer.token_ids(word))
        return found

    def token_ids(self, text: str) -> set[int]:
        """The BM25 token ids of a text, as the highlighter matches them."""
        return self._tokenizer.token_ids(text)
