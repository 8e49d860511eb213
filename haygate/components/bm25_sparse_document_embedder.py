"""`Bm25SparseDocumentEmbedder`: the document side of BM25, equal to Qdrant's own BM25 document vectors."""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.dataclasses import SparseEmbedding

from haygate.errors import ConfigurationError
from haygate.text.bm25 import AvgLen, Bm25Settings, document_weights
from haygate.text.paths import check_document_path, document_text


@component
class Bm25SparseDocumentEmbedder:
    """Term-frequency weights saturated by `k` and normalised by `b` and `avg_len`.

    `fields` are the document paths whose terms are counted, e.g. `[meta.title, content]`, or a mapping that
    weighs each field's counts before saturation, BM25F-style (Robertson et al. 2004): `{meta.title: 3,
    content: 1}` counts a title word three times. Chosen by leave-one-dataset-out for the BEIR pipelines:
    a title weight of 3 added 0.003-0.004 nDCG@10 on SciFact and Cranfield (scripts/ranking_study.py).
    `avg_len: auto` uses the mean length (in tokens) of the documents of each run: right for a corpus
    indexed in one run, as `haygate eval` does; collections ingested piecemeal want a fixed number.
    """

    def __init__(
        self,
        *,
        fields: list[str] | dict[str, float] | None = None,
        language: str = "english",
        k: float = 1.2,
        b: float = 0.75,
        avg_len: AvgLen = 256.0,
        ascii_folding: bool = True,
        capitalised_stopwords: bool = True,
    ) -> None:
        weights = fields if isinstance(fields, dict) else dict.fromkeys(fields or ["content"], 1.0)
        for field, weight in weights.items():
            check_document_path(field)
            if isinstance(weight, bool) or not isinstance(weight, int | float) or weight <= 0:
                raise ConfigurationError(f"fields: the weight of '{field}' must be a number above 0, got {weight!r}")
        self.fields = fields if isinstance(fields, dict) else list(weights)
        self._weights = {field: float(weight) for field, weight in weights.items()}
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

    def term_counts(self, document: Document) -> dict[int, float]:
        """Each term's count in the document, every field's counts times the field's weight."""
        counts: dict[int, float] = {}
        for field, weight in self._weights.items():
            text = document_text(document, field)
            for token, n in self._tokenizer.counts(text).items() if text else ():
                counts[token] = counts.get(token, 0.0) + weight * n
        return counts
