"""`Bm25SparseTextEmbedder`: the query side of BM25, tokenized exactly as Qdrant does."""

from typing import Any

from haystack import component, default_from_dict, default_to_dict
from haystack.dataclasses import SparseEmbedding

from haygate.text.bm25 import AvgLen, Bm25Settings


@component
class Bm25SparseTextEmbedder:
    """Embeds a query as a BM25 sparse vector, tokenized exactly as Qdrant tokenizes documents.

    The query side of `Bm25SparseDocumentEmbedder`: each query token weighs its count in the query, and the
    store applies IDF (the vector's modifier). Counting repeats is BM25's query-term-frequency factor with k3
    unbounded, which helps long queries (docs/benchmarks.md); `query_term_frequency: false` gives each unique
    token weight 1. `k`, `b` and `avg_len` belong to the document side; they are accepted here so both sides can
    be configured alike.

    ### Usage example

    ```python
    from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder

    embedder = Bm25SparseTextEmbedder()
    result = embedder.run(text="filter filter by version")
    print(result["sparse_embedding"])  # "filter" weighs 2
    ```
    """

    def __init__(
        self,
        *,
        language: str = "english",
        k: float = 1.2,
        b: float = 0.75,
        avg_len: AvgLen = 256.0,
        ascii_folding: bool = True,
        capitalised_stopwords: bool = True,
        query_term_frequency: bool = True,
    ) -> None:
        """Build the tokenizer; the BM25 settings mirror the document side's."""
        self.settings = Bm25Settings(
            language=language,
            k=k,
            b=b,
            avg_len=avg_len,
            ascii_folding=ascii_folding,
            capitalised_stopwords=capitalised_stopwords,
        )
        self.query_term_frequency = query_term_frequency
        self._tokenizer = self.settings.tokenizer()

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        s = self.settings
        return default_to_dict(
            self,
            language=s.language,
            k=s.k,
            b=s.b,
            avg_len=s.avg_len,
            ascii_folding=s.ascii_folding,
            capitalised_stopwords=s.capitalised_stopwords,
            query_term_frequency=self.query_term_frequency,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Bm25SparseTextEmbedder":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(sparse_embedding=SparseEmbedding)
    def run(self, text: str) -> dict[str, Any]:
        """Embed the query text as a sparse vector of its tokens' counts."""
        counts = self._tokenizer.counts(text)
        weights = [float(n) if self.query_term_frequency else 1.0 for n in counts.values()]
        return {"sparse_embedding": SparseEmbedding(indices=list(counts), values=weights)}
