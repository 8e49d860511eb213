"""Passages of a document: overlapping word windows, each embedded on its own (MaxP, Dai & Callan 2019).

A document's embedding is one vector for the whole text, truncated where the model stops reading (256
word pieces for all-MiniLM-L6-v2, about 190 words). A passage's is sharp where the document's is blurred:
a claim that one sentence of an abstract supports is closer to that sentence than to the abstract.
Windows of words need no sentence punctuation (Cranfield's abstracts have none) and have a bounded length.
"""


def word_windows(text: str, words: int, stride: int) -> list[str]:
    """`text` cut into windows of `words` words starting every `stride` words, until a window reaches the
    end of the text: the last one holds more than `words - stride` words. A short text is one window.
    Whitespace is normalised to single spaces.

    >>> word_windows("a b c d e f", 3, 2)
    ['a b c', 'c d e', 'e f']
    """
    if words < 1 or not 1 <= stride <= words:
        msg = f"passages need words >= 1 and 1 <= stride <= words, got words={words}, stride={stride}"
        raise ValueError(msg)
    tokens = text.split()
    if len(tokens) <= words:
        return [" ".join(tokens)] if tokens else []
    return [" ".join(tokens[start : start + words]) for start in range(0, len(tokens) - words + stride, stride)]
