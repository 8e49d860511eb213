"""`Bm25SparseDocumentEmbedder`: the document side of BM25, equal to Qdrant's own BM25 document vectors."""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.dataclasses import SparseEmbedding

from haygate.text.bm25 import AvgLen, Bm25Settings, document_weights
from haygate.text.paths import check_document_path, document_text


@component
class Bm25SparseDocumentEmbedder:
    """Term-frequency weights saturated by `k` and normalised by `b` and `avg_len`.

    `fields` are the document paths whose text is concatenated, e.g. `meta.title` then `content`.
    `avg_len: auto` uses the mean length (in tokens) of the documents of each run: right for a corpus
    indexed in one run, as `haygate eval` does; collections ingested piecemeal want a fixed number.
    """

    def __init__(
        self,
        *,
        fields: list[str] | None = None,
        language: str = "english",
        k: float = 1.2,
        b: float = 0.75,
        avg_len: AvgLen = 256.0,
        ascii_folding: bool = True,
        capitalised_stopwords: bool = True,
    ) -> None:
        self.fields = [check_document_path(f) for f in fields or ["content"]]
        self.settings = Bm25Settings(
            language=language,
            k=k,
            b=b,
            avg_len=avg_len,
            ascii_folding=ascii_folding,
            capitalised_stopwords=capitalised_stopwords,
        )
        self._tokenizer = self.settings.tokenizer()

    def to_dict(self) -> dict[str, Any]:
        s = self.settings
        return default_to_dict(
            self,
            fields=self.fields,
            language=s.language,
            k=s.k,
            b=s.b,
            avg_len=s.avg_len,
            ascii_folding=s.ascii_folding,
            capitalised_stopwords=s.capitalised_stopwords,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Bm25SparseDocumentEmbedder":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        counts = [self.term_counts(document) for document in documents]
        if self.settings.avg_len == "auto":
            # BM25's avgdl is a corpus statistic: exact when the whole corpus is one run (eval indexes).
            lengths = [sum(tf.values()) for tf in counts]
            avg_len = max(sum(lengths) / len(lengths), 1.0) if lengths else 1.0
        else:
            avg_len = float(self.settings.avg_len)
        embedded = []
        for document, tf in zip(documents, counts, strict=True):
            weights = document_weights(tf, self.settings.k, self.settings.b, avg_len)
            sparse = SparseEmbedding(indices=list(weights), values=list(weights.values()))
            embedded.append(dataclasses.replace(document, sparse_embedding=sparse))
        return {"documents": embedded}

    def term_counts(self, document: Document) -> dict[int, int]:
        text = "\n".join(t for t in (document_text(document, f) for f in self.fields) if t)
        return self._tokenizer.counts(text)
