"""How far a judged set's raters agree: Cohen's kappa for each pair of raters, over the results both graded.

The Judge tab records who gave each grade (`raters` in `judging.json`, `haygate.gateway.judged_sets`). Two
raters' grades of the same results say how far a grade is a fact about the result rather than about its rater:
graded sets from one rater are only as good as that rater. Kappa is the agreement beyond what the two raters'
own grade frequencies would give by chance (1: always agree, 0: no better than chance, below 0: worse). It is
given three ways: on the four grades, with quadratic weights (a 2 against a 3 costs less than a 0 against a 3,
as the grades are ordered), and on relevant (1 to 3) or not (0), the split the binary metrics count.
Landis and Koch's words name the ranges (moderate: 0.41 to 0.60); they are a convention, not a test.
"""

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

GRADE_COUNT = 4  # grades 0 to 3
MIN_SHARED = 10  # fewer results graded by both: the kappa is shown, with a word that it says little yet
WORDS = ((0.2, "slight"), (0.4, "fair"), (0.6, "moderate"), (0.8, "substantial"), (1.0, "almost perfect"))

Raters = Mapping[str, Mapping[str, Mapping[str, int]]]  # query id -> judged id -> rater -> grade


class Agreement(BaseModel):
    """Two raters' agreement over the results both graded."""

    raters: list[str] = Field(description="The two raters.")
    results: int = Field(description="Results both graded.")
    agreed: float = Field(description="The share of those they gave the same grade.")
    kappa: float | None = Field(description="Cohen's kappa on the four grades (None: undefined, one grade throughout).")
    weighted_kappa: float | None = Field(description="Cohen's kappa with quadratic weights: near grades agree in part.")
    relevant_kappa: float | None = Field(description="Cohen's kappa on relevant (1 to 3) or not (0).")
    reading: str = Field(description="Landis and Koch's word for the weighted kappa, and whether the sample is small.")


def cohen_kappa(first: Sequence[int], second: Sequence[int], categories: int, quadratic: bool = False) -> float | None:
    """Cohen's kappa of two raters' grades of the same items (grades 0 to categories - 1); None when the chance
    agreement leaves nothing to agree beyond (both gave one grade throughout)."""
    import numpy as np  # here: the operations table, read before a tools/list, imports this module

    confusion = np.zeros((categories, categories))
    for a, b in zip(first, second, strict=True):
        confusion[a, b] += 1
    observed = confusion / confusion.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    i, j = np.indices((categories, categories))
    weights = ((i - j) / (categories - 1)) ** 2 if quadratic else (i != j).astype(float)
    chance = float((weights * expected).sum())
    if chance == 0:
        return None
    return round(1 - float((weights * observed).sum()) / chance, 4)


def agreement(raters: Raters) -> list[Agreement]:
    """Each pair of raters who graded some results alike, with their kappas; pairs with none in common are left out."""
    by_rater: dict[str, dict[tuple[str, str], int]] = {}
    for query_id, judged in raters.items():
        for judged_id, given in judged.items():
            for rater, grade in given.items():
                by_rater.setdefault(rater, {})[(query_id, judged_id)] = grade
    found = []
    for one, other in itertools.combinations(sorted(by_rater), 2):
        shared = sorted(by_rater[one].keys() & by_rater[other].keys())
        if not shared:
            continue
        first = [by_rater[one][key] for key in shared]
        second = [by_rater[other][key] for key in shared]
        weighted = cohen_kappa(first, second, GRADE_COUNT, quadratic=True)
        found.append(
            Agreement(
                raters=[one, other],
                results=len(shared),
                agreed=round(sum(a == b for a, b in zip(first, second, strict=True)) / len(shared), 4),
                kappa=cohen_kappa(first, second, GRADE_COUNT),
                weighted_kappa=weighted,
                relevant_kappa=cohen_kappa([int(g > 0) for g in first], [int(g > 0) for g in second], 2),
                reading=reading(weighted, len(shared)),
            )
        )
    return found


def reading(kappa: float | None, results: int) -> str:
    """Landis and Koch's word for a kappa, and a caution when few results were graded by both."""
    if kappa is None:
        said = "undefined: both raters gave one grade throughout"
    else:
        said = next(word for bound, word in WORDS if kappa <= bound) if kappa >= 0 else "poor: worse than chance"
    return said + (f" (only {results} results graded by both: grade more)" if results < MIN_SHARED else "")


def raters_of(judging: Any) -> dict[str, dict[str, dict[str, int]]]:
    """One split's raters, from judging.json's entries for it (`{query id: {raters: ...}}`)."""
    if not isinstance(judging, Mapping):
        return {}
    return {
        query_id: entry["raters"]
        for query_id, entry in judging.items()
        if isinstance(entry, dict) and isinstance(entry.get("raters"), dict)
    }
