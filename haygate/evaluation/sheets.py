"""A judged set pooled from the command line: every query's pool (`haygate judged pool`) as a grading sheet, and
the sheet's grades back into the set (`haygate judged import sheet`).

The Judge tab pools one query at a time as its judge goes; this is the same pool (the gateway's `pool`
operation: the tool as served, each variant named, its retrievers on one source alone) for every query of a
split at once, for judges who grade in a spreadsheet. The sheet is a CSV, one row per pooled result the set has
not graded (every pooled result with `every`: a second rater's pass), in its query's pool order (no ranking's),
its `grade` cell empty: a rater sees no other rater's grade. The rankings each result came from are recorded in
the set (`judging.json`), not in the sheet, so the sheet does not tell its judge which ranking found what.
Importing the sheet adds its grades to the split (a grade in the sheet replaces the set's), and with `--rater`
records them as that rater's.
"""

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from haygate.errors import DatasetError
from haygate.evaluation.interchange import counted, whole_grade
from haygate.evaluation.tools import load_judged_set
from haygate.gateway.agreement import agreement, raters_of
from haygate.gateway.judged_sets import (
    add_judgments,
    csv_rows,
    read_all_grades,
    read_judging,
    read_set_queries,
    read_spec,
)

SHEET_HEADER = ["query-id", "query", "judged-id", "grade", "title", "excerpt"]
EXCERPT_CHARS = 600  # of a result's text, in the sheet
TITLE_KEYS = ("title", "name", "heading")
TEXT_KEYS = ("text", "content", "summary", "snippet")

Operate = Callable[[str, dict[str, Any]], dict[str, Any]]  # the gateway's operations, here or through a server


@dataclass
class PooledSet:
    """What a set's pooling made: the sheet's rows, and how much of each ranking's top k the set had judged."""

    rows: list[list[str]] = field(default_factory=list)
    pooled: int = 0  # results pooled, over every query
    unjudgeable: int = 0  # rows of the rankings that name no document, over every query
    judged_before: dict[str, list[float]] = field(default_factory=dict)  # ranking -> per query, judged share
    unavailable: dict[str, str] = field(default_factory=dict)

    def sheet(self) -> str:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(SHEET_HEADER)
        writer.writerows(self.rows)
        return out.getvalue()


def pool_set(
    folder: Path,
    split: str,
    operate: Operate,
    pipelines: list[str],
    sources: list[str],
    depth: int,
    every: bool = False,
) -> PooledSet:
    """Pool every query of the split, record in the set which rankings pooled each result, and lay out as a sheet
    the pooled results the set has not graded (`every`: all of them)."""
    spec = read_spec(folder)
    if spec.corpus is not None:
        msg = (
            f"{folder}: the set names a corpus ({spec.corpus}), indexed into an eval store of its own; pools are made "
            "on the collection as served (a set saved by the Judge tab, or one with no `corpus` in eval.yaml)"
        )
        raise DatasetError(msg)
    calls = load_judged_set(folder, split).calls
    queries = read_set_queries(folder)
    grades = read_all_grades(folder, set(queries)).get(split, {})
    pooled = PooledSet()
    kept: dict[str, dict[str, list[str]]] = {}
    for query_id, arguments in calls.items():
        request = {
            "tool": spec.tool,
            "arguments": arguments,
            "pipelines": pipelines,
            "sources": sources,
            "depth": depth,
            "level": spec.level or "section",
        }
        reply = operate("pool", request)
        graded = grades.get(query_id, {})
        for ranking, ids in reply["rankings"].items():
            share = sum(1 for judged_id in ids if judged_id in graded) / len(ids) if ids else 1.0
            pooled.judged_before.setdefault(ranking, []).append(share)
        pooled.unavailable.update(reply["unavailable"])
        kept[query_id] = {result["judged_id"]: result["rankings"] for result in reply["results"]}
        pooled.pooled += len(reply["results"])
        pooled.unjudgeable += reply["unjudgeable"]
        for result in reply["results"]:
            if result["judged_id"] in graded and not every:
                continue
            row = result["row"]
            pooled.rows.append(
                [
                    query_id,
                    queries[query_id]["text"],
                    result["judged_id"],
                    "",
                    first_text(row, TITLE_KEYS, 300),
                    first_text(row, TEXT_KEYS, EXCERPT_CHARS),
                ]
            )
    add_judgments(folder, split, pooled=kept)
    return pooled


def first_text(row: dict[str, Any], keys: tuple[str, ...], limit: int) -> str:
    """A row's first non-empty field of `keys`, on one line, cut at `limit` characters."""
    value = next((row[key] for key in keys if isinstance(row.get(key), str) and row[key].strip()), "")
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass
class SheetGrades:
    grades: dict[str, dict[str, int]]
    ungraded: int  # rows left without a grade


def read_sheet(path: Path, query_ids: set[str]) -> SheetGrades:
    """The grades a sheet holds, by query and judged id; every problem names the line."""
    reader = csv_rows(path)
    header = [cell.strip() for cell in next(reader, [])]
    missing = [name for name in ("query-id", "judged-id", "grade") if name not in header]
    if missing:
        raise DatasetError(f"{path}:1: a grading sheet has the columns {SHEET_HEADER}; missing {missing}")
    at = {name: header.index(name) for name in ("query-id", "judged-id", "grade")}
    grades: dict[str, dict[str, int]] = {}
    ungraded = 0
    for row in reader:
        where = f"{path}:{reader.line_num}"
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            raise DatasetError(f"{where}: expected {len(header)} columns, got {len(row)}")
        query_id, judged_id, grade = (row[at[name]].strip() for name in ("query-id", "judged-id", "grade"))
        if query_id not in query_ids:
            raise DatasetError(f"{where}: query '{query_id}' is not a query of the set")
        if not judged_id:
            raise DatasetError(f"{where}: no judged id")
        if not grade:
            ungraded += 1
            continue
        value = whole_grade(where, grade)
        if grades.get(query_id, {}).get(judged_id, value) != value:
            raise DatasetError(f"{where}: '{judged_id}' is graded twice for query '{query_id}', differently")
        grades.setdefault(query_id, {})[judged_id] = value
    return SheetGrades(grades, ungraded)


def import_sheet(folder: Path, split: str, path: Path, rater: str | None) -> str:
    """A graded sheet's grades added to the split (a sheet's grade replaces the set's), and with `rater` recorded
    as theirs. Returns what was done, as the command prints it."""
    queries = {q for q, entry in read_set_queries(folder).items() if entry["split"] == split}
    if not queries:
        raise DatasetError(f"{folder}: no queries in the split '{split}'")
    sheet = read_sheet(path, queries)
    judged = add_judgments(folder, split, sheet.grades, rater=rater)
    graded = sum(len(grades) for grades in sheet.grades.values())
    said = f"{folder}: {counted(graded, 'grade')} from {path}" + (f", recorded as {rater}'s" if rater else "")
    said += f"; the {split} split holds {counted(judged, 'judgment')}"
    said += f"; {counted(sheet.ungraded, 'row')} left ungraded" if sheet.ungraded else ""
    return "\n".join([said, *agreement_lines(raters_of(read_judging(folder).get(split)))])


def agreement_lines(raters: dict[str, dict[str, dict[str, int]]]) -> list[str]:
    """Each pair of raters' agreement, as the command prints it."""

    def shown(value: float | None) -> str:
        return "undefined" if value is None else f"{value:.2f}"

    return [
        f"  {' and '.join(pair.raters)}: {counted(pair.results, 'result')} graded by both, {pair.agreed:.0%} alike; "
        f"Cohen's kappa {shown(pair.kappa)}, weighted {shown(pair.weighted_kappa)}, relevant or not "
        f"{shown(pair.relevant_kappa)}: {pair.reading}"
        for pair in agreement(raters)
    ]
