"""Per-query differences between two runs: which queries got better or worse, by how much, and how each query's
relevant results moved (rank in one run, rank in the other), best gain first. The report holds them for every
variant against the baseline; `haygate compare` reads any two runs of a report folder (their TREC run files and
the qrels written beside them, `haygate.evaluation.interchange` reading and writing the TREC formats)."""

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from haygate.errors import DatasetError
from haygate.evaluation.coverage import top
from haygate.evaluation.interchange import from_trec_id

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]
MOVES_DEPTH = 100  # ranks a relevant result is looked for in, in either run


def rank_moves(before: Mapping[str, float], after: Mapping[str, float], grades: Mapping[str, int]) -> list[dict]:
    """Each relevant result whose rank changed: its grade, its rank before and after (None: not in the first
    `MOVES_DEPTH`), the biggest rise first."""
    ranks_before = {doc: rank for rank, doc in enumerate(top(before, MOVES_DEPTH), start=1)}
    ranks_after = {doc: rank for rank, doc in enumerate(top(after, MOVES_DEPTH), start=1)}
    moves = []
    for doc, grade in grades.items():
        was, now = ranks_before.get(doc), ranks_after.get(doc)
        if grade > 0 and was != now:
            moves.append({"doc": doc, "grade": grade, "from": was, "to": now})
    far = MOVES_DEPTH + 1
    return sorted(moves, key=lambda move: ((move["to"] or far) - (move["from"] or far), move["doc"]))


def per_query(
    before: Run,
    after: Run,
    scores_before: Mapping[str, float],
    scores_after: Mapping[str, float],
    qrels: Qrels,
    texts: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """Every query whose score changed, with its text and its relevant results' moves, the biggest gain first
    and the biggest loss last."""
    changed = []
    for query_id in sorted(scores_before):
        old, new = scores_before[query_id], scores_after.get(query_id, 0.0)
        if abs(new - old) > 1e-9:
            changed.append(
                {
                    "query": query_id,
                    "text": texts.get(query_id, ""),
                    "before": round(old, 4),
                    "after": round(new, 4),
                    "delta": round(new - old, 4),
                    "moves": rank_moves(before.get(query_id, {}), after.get(query_id, {}), qrels.get(query_id, {})),
                }
            )
    return sorted(changed, key=lambda row: (-row["delta"], row["query"]))


def read_trec_run(path: Path) -> dict[str, dict[str, float]]:
    """A TREC run file (`qid Q0 doc rank score tag`), as the report writes one per variant."""
    run: dict[str, dict[str, float]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise DatasetError(f"{path}: cannot be read ({error.strerror or error})") from None
    for number, line in enumerate(lines, start=1):
        fields = line.split()
        try:
            query_id, _, doc_id, _, value, _ = fields
            run.setdefault(from_trec_id(query_id), {})[from_trec_id(doc_id)] = float(value)
        except ValueError:
            msg = (
                f"{path}:{number}: a TREC run line is `query-id Q0 doc-id rank score tag`, got {len(fields)} fields "
                "(a run written before ids were percent-encoded splits an id with a space: evaluate it again)"
            )
            raise DatasetError(msg) from None
    return run


def describe(rows: list[dict[str, Any]], limit: int) -> list[str]:
    """The largest gains and losses as lines: a query, its scores, and its relevant results' moves."""

    def line(row: dict[str, Any]) -> str:
        moved = ", ".join(f"{m['doc']} ({m['grade']}) {m['from'] or '-'}→{m['to'] or '-'}" for m in row["moves"][:3])
        text = str(row["text"])[:70]
        scores = f"{row['before']:.4f} → {row['after']:.4f} ({row['delta']:+.4f})"
        return f"{row['query']} {text!r}: {scores}" + (f"; {moved}" if moved else "")

    gains = [row for row in rows if row["delta"] > 0][:limit]
    losses = [row for row in reversed(rows) if row["delta"] < 0][:limit]
    return [*(f"+ {line(row)}" for row in gains), *(f"- {line(row)}" for row in losses)]
