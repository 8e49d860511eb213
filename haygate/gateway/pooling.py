"""A judging pool: the top k of every ranking in play for one query, de-duplicated, in an order that does not
reveal which ranking found what (TREC's pooling, as trec_eval's sets are judged).

A set judged on the served ranking alone favours it over any variant: a variant's results the judges never saw
count as not relevant. Pooled, each ranking's top k is graded. The rankings are the tool as served, each
pipeline variant named, and the tool's own pipeline with its retrievers on the dense source alone and on BM25
alone (`one_source`). The order is a hash of the query and the judged id: the same for every visit of the
query, and blind to the rankings. The reply still says which rankings found each result, for the set to keep
(`judging.json`), never for the judge to see: the Judge tab shows none of it, and the rows go without their
scores.

The Judge tab asks for a pool through the gateway's `pool` operation, and so does `haygate judged pool`.
"""

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from haygate.errors import InvalidRequestError
from haygate.gateway.tool import ranked_rows
from haygate.ingest.judged import graded_id

SERVED = "served"  # the tool as served, among a pool's rankings
SOURCE_RANKINGS = {"dense": "dense only", "bm25": "BM25 only"}  # a source, and its ranking's name in a pool
HIDDEN_FIELDS = ("score", "scores")  # a row's fields that would tell the judge which ranking found it

# One ranking's explained call: (pipeline file under pipelines/ or None, source or None) -> the `explain` answer.
Explain = Callable[[str | None, str | None], dict[str, Any]]


@dataclass
class PooledResult:
    judged_id: str
    row: dict[str, Any]
    document_id: str | None
    record_id: str | None
    rankings: list[str] = field(default_factory=list)


@dataclass
class Pool:
    rankings: dict[str, list[str]]  # each ranking's judged ids, best first, its top k
    unavailable: dict[str, str]  # a ranking that could not run here, and why
    results: list[PooledResult]  # the pool, source-blind
    collections: list[str]
    unjudgeable: int = 0  # rows of the rankings' top k that name no document: nothing to grade them as


def pool(
    explain: Explain, query: str, pipelines: Sequence[str], sources: Sequence[str], depth: int, level: str
) -> Pool:
    """Every ranking's top `depth` judged ids for one query, pooled. The served ranking and the named variants
    must run (a failure is the caller's to fix); a one-source ranking the pipeline cannot give, or cannot give
    for these arguments (an `rrf_k` with nothing left to fuse), is listed as unavailable, with why."""
    answers: dict[str, dict[str, Any]] = {SERVED: explain(None, None)}
    for pipeline in pipelines:
        answers[pipeline] = explain(pipeline, None)
    unavailable = {}
    for source in sources:
        try:
            answers[SOURCE_RANKINGS[source]] = explain(None, source)
        except InvalidRequestError as error:  # no such source, or an argument it takes no meaning from (rrf_k)
            unavailable[SOURCE_RANKINGS[source]] = error.message
    rankings: dict[str, list[str]] = {}
    found: dict[str, PooledResult] = {}
    unjudgeable = 0
    for name, answer in answers.items():
        rankings[name] = []
        graded = judged_rows(answer, level)
        unjudgeable += min(depth, len(ranked_rows(answer.get("result") or {}) or [])) - min(depth, len(graded))
        for judged_id, row, entry in graded:
            if judged_id in rankings[name]:
                continue  # two chunks of one section: one result of the ranking
            if len(rankings[name]) == depth:
                break
            rankings[name].append(judged_id)
            if judged_id not in found:
                shown = {key: value for key, value in row.items() if key not in HIDDEN_FIELDS}
                found[judged_id] = PooledResult(judged_id, shown, entry.get("id"), entry.get("record_id"))
            found[judged_id].rankings.append(name)
    ordered = sorted(found.values(), key=lambda result: blind_key(query, result.judged_id))
    collections = list(dict.fromkeys(c for answer in answers.values() for c in answer.get("collections") or []))
    return Pool(rankings, unavailable, ordered, collections, max(0, unjudgeable))


def judged_rows(answer: dict[str, Any], level: str) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """Each row of an explained answer with the id a judge grades it by at `level` (its section, or its record),
    as the Judge tab counts it; a row that names no document is left out."""
    rows = ranked_rows(answer.get("result") or {}) or []
    provenance = answer.get("provenance") or []
    graded = []
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            continue
        entry = provenance[index] if index < len(provenance) and isinstance(provenance[index], dict) else {}
        document_id = entry.get("id") or row.get("id")
        if document_id is None or str(document_id) == "":
            continue
        entry = {"id": str(document_id), "record_id": entry.get("record_id") or row.get("record_id")}
        record_id = None if entry["record_id"] is None else str(entry["record_id"])
        graded.append((graded_id(str(document_id), record_id, level), row, entry))
    return graded


def blind_key(query: str, judged_id: str) -> str:
    """Where a result sits in its query's pool: stable across visits, and no ranking's order."""
    return hashlib.sha256(f"{query}\0{judged_id}".encode()).hexdigest()
