"""BM25 exactly as Qdrant computes it: Qdrant's own tokenizer (`qdrant_edge.Bm25`) and the BM25 weights.

Both backends and both sides (documents, queries) tokenize here, so a term means the same token id
everywhere: at ingest, at query time and in highlighting.
"""

from dataclasses import dataclass
from typing import Literal

import qdrant_edge as qe

AvgLen = float | Literal["auto"]


@dataclass(frozen=True)
class Bm25Settings:
    """BM25 parameters (Robertson et al.): term saturation `k`, length normalisation `b`, mean length."""

    language: str = "english"
    k: float = 1.2
    b: float = 0.75
    avg_len: AvgLen = 256.0
    ascii_folding: bool = True

    def __post_init__(self) -> None:
        if self.avg_len != "auto" and not isinstance(self.avg_len, int | float):
            raise ValueError(f"avg_len must be a positive number or 'auto', got {self.avg_len!r}")
        try:
            self.model()
        except ValueError as error:
            msg = (
                f"invalid BM25 settings (language={self.language!r}, k={self.k}, b={self.b}, "
                f"avg_len={self.avg_len}): {error}"
            )
            raise ValueError(msg) from error

    def model(self) -> qe.Bm25:
        """Qdrant's BM25 with these settings (a fixed 256 stands in for `auto` until the corpus is known)."""
        avg_len = 256.0 if self.avg_len == "auto" else float(self.avg_len)
        config = qe.Bm25Config(
            k=self.k, b=self.b, avg_len=avg_len, language=self.language, ascii_folding=self.ascii_folding
        )
        return qe.Bm25(config)

    def tokenizer(self) -> "Bm25Tokenizer":
        return Bm25Tokenizer(self.language, self.ascii_folding)


class Bm25Tokenizer:
    """Qdrant's tokenizer (lowercase, stemming, stopwords, ASCII folding) as raw term counts.

    With no saturation and no length normalisation, Qdrant's BM25 weight of a term is its count.
    """

    def __init__(self, language: str = "english", ascii_folding: bool = True) -> None:
        self._counter = qe.Bm25(
            qe.Bm25Config(k=1e9, b=0.0, avg_len=1.0, language=language, ascii_folding=ascii_folding)
        )

    def counts(self, text: str) -> dict[int, int]:
        """Token id -> how often it occurs in `text`."""
        vector = self._counter.embed_document(text)
        return {int(i): round(v) for i, v in zip(vector.indices, vector.values, strict=True)}

    def token_ids(self, text: str) -> set[int]:
        return set(self._counter.embed_document(text).indices)


def document_weights(counts: dict[int, int], k: float, b: float, avg_len: float) -> dict[int, float]:
    """BM25's document-side term weight `tf * (k + 1) / (tf + k * (1 - b + b * |d| / avgdl))`.

    IDF is the other factor; Qdrant applies it at query time (the sparse vector's IDF modifier).
    """
    length = sum(counts.values())
    norm = k * (1 - b + b * length / avg_len)
    return {token: n * (k + 1) / (n + norm) for token, n in counts.items()}
