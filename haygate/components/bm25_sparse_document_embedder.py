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
    """Adds a BM25 sparse vector to each document, equal to the one Qdrant's own BM25 would store.

    Place it in an indexing pipeline beside the dense embedder, with `Bm25SparseTextEmbedder` (same settings) on
    the query side: the store's IDF modifier completes the score. Each term's frequency is saturated by `k` and
    normalised by `b` and `avg_len`. `fields` are the document paths whose terms are counted, e.g.
    `[meta.title, content]`, or a mapping that weighs each field's counts before saturation, BM25F-style
    (Robertson et al. 2004): `{meta.title: 3, content: 1}` counts a title word three times, the weight the BEIR
    pipelines chose by leave-one-dataset-out (docs/benchmarks.md). `avg_len: auto` uses the mean length (in
    tokens) of the documents of each run: right for a corpus indexed in one run, as `haygate eval` does;
    collections ingested piecemeal want a fixed number.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.bm25_sparse_document_embedder import Bm25SparseDocumentEmbedder

    embedder = Bm25SparseDocumentEmbedder(fields={"meta.title": 3, "content": 1})
    result = embedder.run(documents=[Document(content="Filters narrow a search", meta={"title": "Filters"})])
    print(result["documents"][0].sparse_embedding)
    ```
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
        """Check the fields and their weights, and build the tokenizer."""
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
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
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
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Add each document's BM25 sparse vector, as a new Document."""
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
