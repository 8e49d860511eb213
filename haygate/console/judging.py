"""The console's Judge tab on disk: judged sets under the project's `evaluation/`, read and written in the
layout `haygate eval --judged` reads (`haygate.gateway.judged_sets`), and what a collection's ids name.

A set saved here has no `corpus` in its `eval.yaml`: it is judged on the collection as served, and evaluated
on it (`haygate eval --judged evaluation/<set>`, through the running server or on the data dir). Grades are
0 to 3, 0 included (judged, not relevant: the tab shows what is still unjudged). Saving one split keeps the
queries and grades of the others. Each query's ranking when it was graded goes to `judging.json`, so
re-opening the set after a pipeline edit shows which judged results moved and which are new.
"""

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from haygate.errors import DatasetError, InvalidRequestError, NotFoundError

if TYPE_CHECKING:
    from haygate.document_stores.hybrid import HybridDocumentStore

from haygate.gateway.judged_sets import (
    QUERY_SLOT,
    SPEC_FILE,
    JudgedSetSpec,
    read_all_grades,
    read_grades,
    read_judging,
    read_set_queries,
    read_spec,
    write_set,
)

SET_NAME = r"^[a-z0-9][a-z0-9_-]{0,63}$"
SPLIT_NAME = r"^[a-z0-9][a-z0-9_-]{0,31}$"
QUERY_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"


class JudgedQuery(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=QUERY_ID, description="The query's id, as the qrels name it.")
    text: str = Field(min_length=1, max_length=2000, pattern=r"\S", description="What the query asks.")
    arguments: dict[str, Any] | None = Field(None, description="Its own arguments, over the set's (filters).")


class SavedSet(BaseModel):
    """What the Judge tab saves: one split's queries and grades."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(min_length=1, description="The served tool the queries are judged on.")
    level: Literal["record", "section"] = Field(description="What a grade names: a whole record or a section.")
    split: str = Field("test", pattern=SPLIT_NAME)
    queries: list[JudgedQuery] = Field(min_length=1, max_length=5000)
    grades: dict[str, dict[str, int]] = Field(default_factory=dict, description="query id -> judged id -> 0..3")
    seen: dict[str, list[str]] = Field(
        default_factory=dict, description="query id -> the judged ids in the order the tool ranked them"
    )


def set_folder(root: Path, name: str) -> Path:
    if not re.match(SET_NAME, name):
        msg = f"a judged set's name is lowercase letters, digits, '-' and '_' (up to 64), got {name!r}"
        raise InvalidRequestError(msg, {"field": "name"})
    return root / name


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
    return {
        "name": name,
        "tool": spec.tool,
        "level": spec.level or "section",
        "split": split,
        "splits": sorted(p.stem for p in (folder / "qrels").glob("*.tsv")),
        "corpus": None if spec.corpus is None else str(spec.corpus),
        "queries": [{"id": q["id"], "text": q["text"], "arguments": q["arguments"]} for q in kept],
        "grades": grades,
        "seen": {q: entry.get("ranking", []) for q, entry in judging.items()},
    }


def save_set(root: Path, name: str, body: Any, served: set[str]) -> dict[str, Any]:
    """Write one split of a judged set, keeping the other splits' queries and grades and any eval.yaml keys
    the tab does not set (a corpus, metrics)."""
    saved = checked(body, served)
    ids = [q.id for q in saved.queries]
    folder = set_folder(root, name)
    folder.mkdir(parents=True, exist_ok=True)
    spec = read_spec(folder).model_dump(mode="json", exclude_none=True) if (folder / SPEC_FILE).is_file() else {}
    spec.setdefault("arguments", {"query": QUERY_SLOT})
    spec.update(tool=saved.tool, level=saved.level)
    JudgedSetSpec.model_validate(spec)

    queries = {q: entry for q, entry in read_set_queries(folder).items() if entry["split"] != saved.split}
    taken = sorted(set(ids) & set(queries))
    if taken:
        msg = f"judged set: query ids {taken} belong to another split of '{name}'; a query id names one query"
        raise InvalidRequestError(msg, {"field": "queries"})
    for query in saved.queries:
        queries[query.id] = {"id": query.id, "text": query.text, "arguments": query.arguments, "split": saved.split}
    grades = read_all_grades(folder, set(queries))
    grades[saved.split] = {q: dict(judged) for q, judged in saved.grades.items() if judged}
    judging = read_judging(folder)
    at = datetime.now(UTC).isoformat(timespec="seconds")
    before = judging.get(saved.split, {}) if isinstance(judging.get(saved.split), dict) else {}
    judging[saved.split] = {
        q: before[q]
        if isinstance(before.get(q), dict) and before[q].get("ranking") == ranking
        else {"ranking": ranking, "at": at}
        for q, ranking in saved.seen.items()
    }

    write_set(folder, queries, grades, spec, judging)
    judged_count = sum(len(docs) for docs in grades[saved.split].values())
    return {
        "name": name,
        "folder": f"{root.name}/{name}",
        "split": saved.split,
        "queries": len(saved.queries),
        "judged": judged_count,
    }


def checked(body: Any, served: set[str]) -> SavedSet:
    """What the tab sent, refused (with where) unless it would read back as it was saved."""
    try:
        saved = SavedSet.model_validate(body)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"]) or "body"
        raise InvalidRequestError(f"judged set: {where}: {problem['msg']}", {"field": where}) from None
    if saved.tool not in served:
        msg = f"tool '{saved.tool}' is not served here; served: {', '.join(sorted(served))}"
        raise InvalidRequestError(msg, {"field": "tool"})
    ids = [q.id for q in saved.queries]
    if len(set(ids)) != len(ids):
        raise InvalidRequestError("judged set: two queries have one id", {"field": "queries"})
    for query_id, judged in saved.grades.items():
        if query_id not in ids:
            raise InvalidRequestError(f"judged set: grades for '{query_id}', which is no query", {"field": "grades"})
        bad = {doc: grade for doc, grade in judged.items() if grade not in range(4) or not _usable_id(doc)}
        if bad:
            msg = (
                f"judged set: query '{query_id}': a grade is 0, 1, 2 or 3 for an id with no tab, line break or "
                f"surrounding space, got {bad}"
            )
            raise InvalidRequestError(msg, {"field": "grades"})
    strays = sorted(set(saved.seen) - set(ids))
    if strays:
        raise InvalidRequestError(f"judged set: rankings seen for {strays}, which are no queries", {"field": "seen"})
    return saved


def _usable_id(judged_id: str) -> bool:
    """An id a qrels line can hold and read back as it was: no tab or line break, no surrounding space."""
    return bool(judged_id) and judged_id == judged_id.strip() and not any(c in judged_id for c in "\t\r\n")


def judged_ids(store: "HybridDocumentStore", ids: list[str]) -> dict[str, Any]:
    """Which of `ids` name a record or a section of a collection, and the closest real ids of the others."""
    from haygate.ingest.judged import CorpusIds  # Haystack: when a set is judged, not at start-up

    corpus = CorpusIds.of_store(store)
    return {
        "records": sorted(i for i in ids if i in corpus.records),
        "sections": sorted(i for i in ids if i not in corpus.records and corpus.names(i)),
        "unknown": corpus.unknown(ids),
        "examples": corpus.examples(),
    }
