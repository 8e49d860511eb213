"""The console's Judge tab on disk: judged sets under the project's `evaluation/`, listed and read in the
layout `haygate eval --judged` reads (`haygate.gateway.judged_sets`, which also saves them: the gateway's
`save_judged_set` operation), and what a collection's ids name.

A set saved from the tab has no `corpus` in its `eval.yaml`: it is judged on the collection as served, and
evaluated on it (`haygate eval --judged evaluation/<set>`, through the running server or on the data dir).
Grades are 0 to 3, 0 included (judged, not relevant: the tab shows what is still unjudged). Each query's
ranking when it was graded is in `judging.json`, so re-opening the set after a pipeline edit shows which judged
results moved and which are new.
"""

from pathlib import Path
from typing import Any

from haygate.errors import DatasetError, NotFoundError
from haygate.gateway.agreement import agreement, raters_of
from haygate.gateway.judged_sets import (
    KEPT_PER_QUERY,
    SPEC_FILE,
    SPLIT_NAME,
    read_grades,
    read_judging,
    read_set_queries,
    read_spec,
    set_folder,
)

__all__ = ["SPLIT_NAME", "list_sets", "read_set"]


def list_sets(root: Path) -> list[dict[str, Any]]:
    """Every judged set under `root` (each folder with an eval.yaml), with what a list shows of it."""
    found: list[dict[str, Any]] = []
    for spec_path in sorted(root.glob(f"*/{SPEC_FILE}")) if root.is_dir() else []:
        folder = spec_path.parent
        try:
            spec = read_spec(folder)
        except DatasetError as error:
            found.append({"name": folder.name, "problem": error.message})
            continue
        splits = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        found.append(
            {
                "name": folder.name,
                "tool": spec.tool,
                "level": spec.level,
                "corpus": None if spec.corpus is None else str(spec.corpus),
                "splits": splits,
            }
        )
    return found


def read_set(root: Path, name: str, split: str) -> dict[str, Any]:
    """One split of a judged set: its queries (those of this split), every grade, and the rankings seen."""
    folder = set_folder(root, name)
    if not (folder / SPEC_FILE).is_file():
        raise NotFoundError(f"no judged set '{name}' under {root.name}/", {"field": "name"})
    spec = read_spec(folder)
    queries = read_set_queries(folder)
    grades_path = folder / "qrels" / f"{split}.tsv"
    grades = read_grades(grades_path, set(queries), None) if grades_path.is_file() else {}
    kept = [q for q in queries.values() if q["split"] == split or q["id"] in grades]
    judging = read_judging(folder).get(split, {})
    judging = judging if isinstance(judging, dict) else {}
    return {
        "name": name,
        "tool": spec.tool,
        "level": spec.level or "section",
        "split": split,
        "splits": sorted(p.stem for p in (folder / "qrels").glob("*.tsv")),
        "corpus": None if spec.corpus is None else str(spec.corpus),
        "queries": [{"id": q["id"], "text": q["text"], "arguments": q["arguments"]} for q in kept],
        "grades": grades,
        "seen": {q: entry.get("ranking") or [] for q, entry in judging.items() if isinstance(entry, dict)},
        **{
            key: {q: entry[key] for q, entry in judging.items() if isinstance(entry, dict) and entry.get(key)}
            for key in KEPT_PER_QUERY
        },
        "agreement": [found.model_dump() for found in agreement(raters_of(judging))],
    }
