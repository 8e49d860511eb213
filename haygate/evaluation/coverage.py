"""What a ranking's figures rest on: how much of each variant's top k was judged at all.

Every metric here counts a result nobody judged as not relevant (trec_eval's and ranx's convention). That is
fair when the judgments were pooled from every ranking compared; it flatters the ranking the judges looked at
when they were not (grade the served tool's top 5, and its recall@10 is 1.0 by construction). So each variant
gets judged@k (the share of its top k with a grade, 0 included) per query, every metric again on condensed lists
(unjudged results removed, Sakai 2007: a bound from the other side), and a warning that names the worst queries
when more than a fifth of a variant's top k was never judged.
"""

import re
from collections.abc import Mapping, Sequence
from typing import Any

NO_RESULTS = "__none__"  # the runner's stand-in for a query that found nothing
DEFAULT_K = 10
UNJUDGED_LIMIT = 0.2  # warn when more than this share of a variant's top k was never judged
WORST_NAMED = 5  # queries a warning names
_CUTOFF = re.compile(r"@(\d+)$")

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]


def cutoff(metrics: Sequence[str]) -> int:
    """The k judged@k is measured at: the first metric's cutoff (ndcg@10: 10), else 10."""
    for metric in metrics:
        if match := _CUTOFF.search(metric):
            return int(match.group(1))
    return DEFAULT_K


def top(ranked: Mapping[str, float], k: int) -> list[str]:
    """A query's first k results, best first, as ranx orders a run (score, then id)."""
    ordered = sorted(ranked.items(), key=lambda pair: (-pair[1], pair[0]))
    return [doc_id for doc_id, _ in ordered[:k] if doc_id != NO_RESULTS]


def judged_at(run: Run, qrels: Qrels, k: int) -> dict[str, float]:
    """Per judged query that found something: the share of its top k that has a grade (0 included)."""
    shares = {}
    for query_id, grades in qrels.items():
        found = top(run.get(query_id, {}), k)
        if found:
            shares[query_id] = sum(doc_id in grades for doc_id in found) / len(found)
    return shares


def condensed(run: Run, qrels: Qrels) -> dict[str, dict[str, float]]:
    """The run with every unjudged result taken out, each query's judged results keeping their order."""
    kept = {}
    for query_id, ranked in run.items():
        grades = qrels.get(query_id, {})
        judged = {doc_id: score for doc_id, score in ranked.items() if doc_id in grades}
        kept[query_id] = judged or {NO_RESULTS: 0.0}
    return kept


def mean(values: Mapping[str, float]) -> float | None:
    return round(sum(values.values()) / len(values), 4) if values else None


def coverage_warning(name: str, k: int, shares: Mapping[str, float], texts: Mapping[str, Any]) -> str | None:
    """The warning for one variant, or None when at least four fifths of its top k were judged."""
    average = mean(shares)
    if average is None or 1 - average <= UNJUDGED_LIMIT:
        return None
    worst = sorted(shares, key=lambda query_id: (shares[query_id], query_id))[:WORST_NAMED]
    named = ", ".join(f"{q} ({shares[q]:.0%}: {str(texts.get(q, ''))[:60]!r})" for q in worst)
    return (
        f"{name}: only {average:.0%} of its top {k} was judged (judged@{k}); every unjudged result counts as not "
        f"relevant, so its figures are a lower bound and favour the rankings that were judged. Least judged: "
        f"{named}. Judge these queries' results (the Judge tab and `haygate judged pool` pool every ranking), "
        "or read the condensed figures."
    )
