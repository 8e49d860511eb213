"""Check the judged section set of `search_docs` over Redux's docs against the sections; it writes nothing.

Each query in queries.jsonl was written by hand, and every section that answers it is judged in qrels/test.tsv
(score 2 answers it, 1 partly). README.md says how the set was made. The section ids are recomputed from the
docs folder eval.yaml names (`corpus/`, checked in beside this file), by the docs indexing pipeline up to its
first embedder (no model, no store). Without that folder only the checks that do not need the sections run.
To extend the set, add the query to queries.jsonl and its sections to the qrels, update the README's counts,
then run:

    .venv/bin/python -m evaluation.redux_docs.check
"""

import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evaluation import judged_sets as js
from evaluation.judged_sets import Query, Report
from haygate.components.chunk_ids import record_of
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import planned_documents
from haygate.ingest.readers import read_records
from haygate.settings import Settings

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
KINDS = ("paraphrase", "task", "keyword", "option", "concept")
FOLDERS = ("faq", "api", "understanding", "introduction", "top")  # `top`: a page at the corpus root (FAQ.md)
LINKS = re.compile(r"[#/]Further [Ii]nformation(#\d+)?$")  # a FAQ answer's list of links, a section of its own


def sections(corpus: Path) -> set[str]:
    """The section ids an ingest of `corpus` into the `docs` collection would make (chunk ids, `#chunkN` cut)."""
    with tempfile.TemporaryDirectory() as data:
        values: dict[str, Any] = {
            "qdrant_url": None,
            "qdrant_api_key": None,
            "token": None,
            "tier": "public",
            "project_id": "default",
        }
        with Loader(Settings(home=js.PROJECT, data_dir=Path(data), **values)) as loader:
            preview, schema = loader.preview("docs"), loader.schema("docs")
            return {record_of(doc.id) for doc in planned_documents(preview, schema, read_records(corpus))}


def folder_of(doc: str) -> str:
    """The folder of a section id's page (`file:api/Store.md#...` -> `api`); `top` for a page at the corpus
    root. Only the path before the first `#` counts: a heading path may hold a `/` of its own."""
    path = doc.removeprefix("file:").split("#", 1)[0]
    return path.split("/", 1)[0] if "/" in path else "top"


def in_folder(folder: str) -> Callable[[list[Query]], int]:
    """A count column of the README table: the queries written for a section of `folder`."""
    return lambda queries: sum(q.metadata.get("folder") == folder for q in queries)


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the docs folder eval.yaml names (from `folder`)."""
    report = Report()
    judged = js.load(folder)
    path = corpus or folder / str(judged.spec.get("corpus"))
    known = sections(path) if path.is_dir() else set()
    if not path.is_dir():
        report.skipped.append(f"{path} is absent: whether every judged id is one of its sections is not checked")
    elif not known:
        report.problems.append(f"{path}: the docs pipeline makes no sections of it")
    report.problems += js.common(judged, dict.fromkeys(known), KINDS, empty=(), picked=None)
    ids = [q.id for q in judged.queries]
    if ids != [f"r{i}" for i in range(1, len(ids) + 1)]:
        report.problems.append("queries.jsonl: the ids are not r1, r2, ... in order")
    for q in judged.queries:
        grade2 = [doc for doc, score in q.qrels.items() if score == 2]
        report.problems += [f"{q.id}: {doc} has score {s}" for doc, s in q.qrels.items() if s not in (1, 2)]
        if not grade2:
            report.problems.append(f"{q.id}: no section with score 2")
        elif q.metadata.get("folder") not in FOLDERS or not any(
            folder_of(doc) == q.metadata["folder"] for doc in grade2
        ):
            report.problems.append(f"{q.id}: folder {q.metadata.get('folder')} is none of its score-2 sections'")
    judgments = [doc for q in judged.queries for doc in q.qrels]
    sizes = [len(q.qrels) for q in judged.queries] or [0]
    figures = {
        **js.basic_figures(judged),
        r"They name ([\d,]+) distinct sections": len(set(judgments)),
        r"Each query has (\d+) to (\d+) judged sections\. (\d+) queries have more than 10": (
            min(sizes),
            max(sizes),
            sum(size > 10 for size in sizes),
        ),
        r"([\d,]+) of the qrels lines name a section of another folder than the query's": sum(
            folder_of(doc) != q.metadata.get("folder") for q in judged.queries for doc in q.qrels
        ),
        r"([\d,]+) of the qrels lines name a `Further information` section": sum(
            bool(LINKS.search(doc)) for doc in judgments
        ),
    }
    if known:
        figures[r"which haygate cuts into ([\d,]+) sections"] = len(known)
        figures[r"([\d,]+) of them are `Further information` lists of links"] = sum(
            bool(LINKS.search(doc)) for doc in known
        )
    columns = {
        "queries": len,
        **{name: in_folder(name) for name in FOLDERS},
        "qrels lines": js.COUNTS["qrels lines"],
        "with score 2": lambda queries: sum(s == 2 for q in queries for s in q.qrels.values()),
    }
    report.problems += js.table(judged, columns) + js.stated(judged, figures)
    return report


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
