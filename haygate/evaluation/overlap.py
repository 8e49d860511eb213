"""Rank-biased overlap (Webber, Moffat and Zobel 2010): how alike two rankings of one query are, top-weighted,
with no judgment needed. What a pipeline change moves, before anyone judges: 1.0 is the same ranking, 0 none of
the same results; with p = 0.9 the first 10 ranks carry about 86% of the weight."""

from collections.abc import Sequence

DEFAULT_P = 0.9


def rbo(first: Sequence[str], second: Sequence[str], p: float = DEFAULT_P) -> float:
    """RBO_ext (their equation 32) of two rankings cut to the same depth (the shorter one's): the overlap seen up
    to that depth, extrapolated as if it held beyond. Two empty rankings are the same; one empty, none alike."""
    depth = min(len(first), len(second))
    if depth == 0:
        return 1.0 if not first and not second else 0.0
    seen_first: set[str] = set()
    seen_second: set[str] = set()
    overlap = 0
    weighted = 0.0
    for d in range(1, depth + 1):
        a, b = first[d - 1], second[d - 1]
        if a == b:
            overlap += 1
        else:
            overlap += (a in seen_second) + (b in seen_first)
        seen_first.add(a)
        seen_second.add(b)
        weighted += overlap / d * p**d
    return min(1.0, overlap / depth * p**depth + (1 - p) / p * weighted)
