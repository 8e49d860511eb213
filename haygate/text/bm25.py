"""BM25 exactly as Qdrant computes it: Qdrant's own tokenizer (`qdrant_edge.Bm25`) and the BM25 weights.

Both backends and both sides (documents, queries) tokenize here, so a term means the same token id
everywhere: at ingest, at query time and in highlighting.
"""

import re
from dataclasses import dataclass
from typing import Literal

import qdrant_edge as qe

AvgLen = float | Literal["auto"]

# A word of two or more capitals: an operator (NOT, OR), an acronym (IT, US) or a keyword (IN, IS).
_CAPITALISED = re.compile(r"\b[A-Z]{2,}\b")


@dataclass(frozen=True)
class Bm25Settings:
    """BM25 parameters (Robertson et al.): term saturation `k`, length normalisation `b`, mean length."""

    language: str = "english"
    k: float = 1.2
    b: float = 0.75
    avg_len: AvgLen = 256.0
    ascii_folding: bool = True
    capitalised_stopwords: bool = True

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
        return Bm25Tokenizer(self.language, self.ascii_folding, self.capitalised_stopwords)


class Bm25Tokenizer:
    """Qdrant's tokenizer (lowercase, stemming, stopwords, ASCII folding) as raw term counts.

    With no saturation and no length normalisation, Qdrant's BM25 weight of a term is its count.

    `capitalised_stopwords`: a stop word written in capitals is a term, not filler. "how do NOT filters
    work" asks about the NOT operator, and documentation writes `NOT`, `OR`, `IN` in capitals; lower-case
    "not" stays a stop word. Such a word gets the token id Qdrant gives it without stop words, on both sides.
    """

    def __init__(self, language: str = "english", ascii_folding: bool = True, capitalised_stopwords: bool = False):
        self._counter = _counter(language, ascii_folding)
        self._unstopped = _counter(language, ascii_folding, qe.StopwordsSet()) if capitalised_stopwords else None
        self._stopword: dict[str, bool] = {}  # capitalised word -> is it a stop word (a small, bounded set)

    def counts(self, text: str) -> dict[int, int]:
        """Token id -> how often it occurs in `text`."""
        counts = self._counts(self._counter, text)
        if self._unstopped is not None:
            kept = [word for word in _CAPITALISED.findall(text) if self._is_stopword(word)]
            for token, n in self._counts(self._unstopped, " ".join(kept)).items():
                counts[token] = counts.get(token, 0) + n
        return counts

    def token_ids(self, text: str) -> set[int]:
        return set(self.counts(text))

    def _is_stopword(self, word: str) -> bool:
        if word not in self._stopword:
            self._stopword[word] = not self._counter.embed_document(word).indices
        return self._stopword[word]

    @staticmethod
    def _counts(model: qe.Bm25, text: str) -> dict[int, int]:
        if not text:
            return {}
        vector = model.embed_document(text)
        return {int(i): round(v) for i, v in zip(vector.indices, vector.values, strict=True)}


def _counter(language: str, ascii_folding: bool, stopwords: qe.StopwordsSet | None = None) -> qe.Bm25:
    """Qdrant's BM25 with no saturation and no length normalisation: a term's weight is its count."""
    config = qe.Bm25Config(
        k=1e9, b=0.0, avg_len=1.0, language=language, ascii_folding=ascii_folding, stopwords=stopwords
    )
    return qe.Bm25(config)


def document_weights(counts: dict[int, float], k: float, b: float, avg_len: float) -> dict[int, float]:
    """BM25's document-side term weight `tf * (k + 1) / (tf + k * (1 - b + b * |d| / avgdl))`.

    IDF is the other factor; Qdrant applies it at query time (the sparse vector's IDF modifier).
    """
    length = sum(counts.values())
    norm = k * (1 - b + b * length / avg_len)
    return {token: n * (k + 1) / (n + norm) for token, n in counts.items()}
