"""`haygate compare REPORT [BEFORE AFTER]`: any two runs of an evaluation report folder, query by query. It reads
what `haygate eval` wrote (report.json's per-query scores and query texts, runs/*.trec, qrels.trec), so it needs
no model and no index, and compares variants the report did not test against each other."""

import json
from pathlib import Path
from typing import Any

from haygate.errors import DatasetError
from haygate.evaluation import differences, overlap
from haygate.evaluation.coverage import mean, top
from haygate.evaluation.interchange import read_qrels
from haygate.evaluation.report import OVERLAP_DEPTH, PLOT_METRIC


def load_report(folder: Path) -> dict[str, Any]:
    path = folder / "report.json"
    try:
        report = json.loads(path.read_text())
    except OSError:
        raise DatasetError(f"{path}: no report there (`haygate eval --out {folder}` writes one)") from None
    except ValueError as error:
        raise DatasetError(f"{path}: not JSON ({error})") from None
    if not isinstance(report, dict) or not isinstance(report.get("variants"), list):
        raise DatasetError(f"{path}: not a haygate evaluation report")
    return report


def compare_runs(folder: Path, before: str | None, after: str | None, metric: str | None, limit: int) -> str:
    """The two runs' per-query differences on `metric`, their rank-biased overlap, and the largest gains and
    losses with their relevant results' moves, as lines."""
    report = load_report(folder)
    variants = {variant["name"]: variant for variant in report["variants"]}
    names = list(variants)
    before = before or report.get("baseline") or names[0]
    after = after or next((name for name in names if name != before), before)
    for name in (before, after):
        if name not in variants:
            raise DatasetError(f"{folder}: no run '{name}'; its runs: {', '.join(names)}", {"run": name})
    measured = list(variants[before]["per_query"])
    metric = metric or (PLOT_METRIC if PLOT_METRIC in measured else measured[0])
    if metric not in measured:
        raise DatasetError(f"{folder}: no per-query {metric}; measured: {', '.join(measured)}", {"metric": metric})
    runs = {name: differences.read_trec_run(folder / "runs" / f"{name}.trec") for name in (before, after)}
    qrels_file = folder / "qrels.trec"
    qrels = read_qrels(qrels_file)[0] if qrels_file.is_file() else {}
    rows = differences.per_query(
        runs[before],
        runs[after],
        variants[before]["per_query"][metric],
        variants[after]["per_query"][metric],
        qrels,
        report.get("queries") or {},
    )
    alike = {
        q: overlap.rbo(top(runs[before][q], OVERLAP_DEPTH), top(runs[after].get(q, {}), OVERLAP_DEPTH))
        for q in runs[before]
    }
    better, worse = sum(row["delta"] > 0 for row in rows), sum(row["delta"] < 0 for row in rows)
    tied = len(variants[before]["per_query"][metric]) - better - worse
    average = mean(alike)
    lines = [
        f"{after} against {before} on {metric}: {better} queries better, {worse} worse, {tied} tied; "
        f"mean {variants[before]['metrics'][metric]:.4f} → {variants[after]['metrics'][metric]:.4f}",
        f"rank-biased overlap (p = {overlap.DEFAULT_P}): {average if average is not None else 'n/a'} on average",
        *differences.describe(rows, limit),
    ]
    if not qrels:
        lines.append(f"(no {qrels_file.name} beside the runs: relevant results' moves are not shown)")
    return "\n".join(lines)
