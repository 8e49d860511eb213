"""A judged set's files, as `haygate eval --judged` reads them and the console's Judge tab writes them.

A judged set is a folder (`evaluation/<set>/` in a project): `eval.yaml` (`JudgedSetSpec`: which tool, how it
is called, over which corpus), `queries.jsonl` (`{_id, text, metadata}`, BEIR's layout) and
`qrels/<split>.tsv` (`query-id<TAB>corpus-id<TAB>score`, a grade from 0, not relevant, to 3). A judged id
names a record or a section of the corpus (`haygate.ingest.judged`). The Judge tab also keeps, in
`judging.json`, the ranking each query had when it was graded, so a later edit of the pipeline shows what
moved.

The readers are strict: the first problem is a DatasetError naming the file and the line.
"""

import csv
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from haygate.errors import DatasetError
from haygate.ingest.readers import read_records

SPEC_FILE = "eval.yaml"
QUERIES_FILE = "queries.jsonl"
JUDGING_FILE = "judging.json"  # the Judge tab's record of what each query ranked when it was graded
QRELS_HEADER = ["query-id", "corpus-id", "score"]
QUERY_SLOT = "{query}"  # in `arguments`, a string that is exactly this becomes the judged query's text
GRADES = range(0, 4)  # 0 not relevant, 1 partly, 2 relevant, 3 exactly what was asked


class JudgedSetSpec(BaseModel):
    """`eval.yaml`: which tool a judged set calls, how, and over which corpus. Its keys are these fields."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(min_length=1, description="The served tool each judged query calls.")
    corpus: Path | None = Field(
        None,
        description="A file or folder of records (JSONL, CSV or Markdown, as `haygate ingest` reads them), relative "
        "to the judged set's folder: indexed into the tool's collection in an eval store shared by every judged "
        "set over the same corpus. Leave it out to evaluate the collection as ingested (no indexing).",
    )
    collection: str | None = Field(
        None, description="The collection the corpus goes into, or is read from (default: the one the tool reads)."
    )
    project: str | None = Field(
        None, description="The tenant a tenant-scoped tool serves (default: the server's `project_id`)."
    )
    arguments: dict[str, Any] = Field(
        default_factory=lambda: {"query": QUERY_SLOT},
        description="Each call's arguments; a string that is exactly \"{query}\" becomes the query's text. A "
        "query's `metadata.arguments` in queries.jsonl add to them, or replace them, for that query.",
    )
    results: str = Field("results", min_length=1, description="The answer's ranked list, best first.")
    id: str = Field(
        "id",
        min_length=1,
        description="Only for a tool whose answer rows cannot be traced to stored documents (no formatter input or "
        "Documents to pair them with): each row's field holding its id, or a template of its fields that makes "
        "one, `{entity_type}:{entity_id}`. Otherwise each row's id is its stored document's, whatever it shows.",
    )
    level: Literal["record", "section"] | None = Field(
        None,
        description="The level the judges graded at, as the Judge tab records it: whole records (files) or "
        "sections. The evaluation reads each judged id at the level it names, whatever this says.",
    )
    metrics: list[str] = Field(
        default_factory=lambda: ["ndcg@10", "mrr@10", "recall@10"],
        min_length=1,
        description="ranx metrics, e.g. ndcg@10, mrr@10, recall@10, precision@5, map@100.",
    )


def read_rows(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """JSONL through the ingest reader (one parser for the project), but here the first bad line is fatal."""
    rows = []
    for record in read_records(path):
        if record.error or record.data is None:
            raise DatasetError(f"{path}:{record.line}: {record.error}")
        if not str(record.data.get("_id", "")).strip():
            raise DatasetError(f"{path}:{record.line}: a record needs a non-empty '_id'")
        rows.append((record.line, record.data))
    return rows


def read_queries(path: Path) -> dict[str, str]:
    queries = {}
    for number, record in read_rows(path):
        text = str(record.get("text") or "").strip()
        if not text:
            raise DatasetError(f"{path}:{number}: query '{record['_id']}' has no text")
        queries[str(record["_id"])] = text
    return queries


def read_grades(path: Path, query_ids: set[str], corpus_ids: set[str] | None) -> dict[str, dict[str, int]]:
    """Every judgment of a qrels file, grade 0 (judged not relevant) included. `corpus_ids` None: the corpus
    is not a BEIR file, and the judged ids are checked against the corpus itself."""
    grades: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:3]] != QRELS_HEADER:
            raise DatasetError(f"{path}:1: expected the header 'query-id<TAB>corpus-id<TAB>score', got {header!r}")
        for row in reader:
            number = reader.line_num
            if not row or not "".join(row).strip():
                continue
            if len(row) < 3:
                raise DatasetError(f"{path}:{number}: expected 3 tab-separated columns, got {len(row)}")
            query_id, corpus_id, score = row[0].strip(), row[1].strip(), row[2].strip()
            if query_id not in query_ids:
                raise DatasetError(
                    f"{path}:{number}: query id '{query_id}' has judgments but no query in queries.jsonl"
                )
            if corpus_ids is not None and corpus_id not in corpus_ids:
                raise DatasetError(f"{path}:{number}: corpus id '{corpus_id}' is not in corpus.jsonl")
            try:
                grade = int(float(score))
            except ValueError:
                raise DatasetError(f"{path}:{number}: score {score!r} is not a number") from None
            grades.setdefault(query_id, {})[corpus_id] = grade
    return grades


def lines_naming(path: Path, corpus_ids: set[str]) -> dict[str, list[int]]:
    """The lines of a qrels file that judge each of these corpus ids (for a refusal that says where to look)."""
    found: dict[str, list[int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        for row in reader:
            if len(row) >= 2 and row[1].strip() in corpus_ids:
                found.setdefault(row[1].strip(), []).append(reader.line_num)
    return found


def relevant(grades: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The judgments that count as relevant (grade above 0), per query; a query with none is left out."""
    kept = {q: {doc: g for doc, g in docs.items() if g > 0} for q, docs in grades.items()}
    return {q: docs for q, docs in kept.items() if docs}


def write_judged_queries(folder: Path, queries: list[dict[str, Any]], qrels: dict[str, dict[str, int]]) -> None:
    """Write a judged set's `queries.jsonl` (each `{_id, text, metadata}`) and its `qrels/<split>.tsv` files in
    the BEIR layout that `load_dataset` reads: a query's judgments go to the split its `metadata.split` names
    (default `test`), the rule `load_judged_queries` reads back. The corpus stays where the builder found it."""
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with (folder / QUERIES_FILE).open("w") as file:
        for query in queries:
            file.write(json.dumps({key: query[key] for key in ("_id", "text", "metadata")}) + "\n")
    splits: dict[str, list[str]] = {}
    for query in queries:
        splits.setdefault(str((query.get("metadata") or {}).get("split", "test")), []).append(query["_id"])
    for split, query_ids in splits.items():
        with (folder / "qrels" / f"{split}.tsv").open("w") as file:
            file.write("\t".join(QRELS_HEADER) + "\n")
            for query_id in query_ids:
                file.writelines(f"{query_id}\t{doc_id}\t{score}\n" for doc_id, score in qrels.get(query_id, {}).items())
