"""A judged set's files, as `haygate eval --judged` reads them and the console's Judge tab saves them.

A judged set is a folder (`evaluation/<set>/` in a project): `eval.yaml` (`JudgedSetSpec`: which tool, how it
is called, over which corpus), `queries.jsonl` (`{_id, text, metadata}`, BEIR's layout) and
`qrels/<split>.tsv` (`query-id<TAB>corpus-id<TAB>score`, a grade from 0, not relevant, to 3). A judged id
names a record or a section of the corpus (`haygate.ingest.judged`). The Judge tab also keeps, in
`judging.json`, the ranking each query had when it was graded, so a later edit of the pipeline shows what
moved.

The readers are strict: the first problem is a DatasetError naming the file and the line. This module is the
format's one reader and one writer: `haygate eval` (`evaluation.datasets`) and the Judge tab (`console.judging`
reads, the gateway's `save_judged_set` operation saves, `save_set`) both go through it.
"""

import csv
import io
import json
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, WithJsonSchema

from haygate import yamlfile
from haygate.errors import DatasetError, InvalidRequestError
from haygate.gateway.agreement import agreement, raters_of
from haygate.ingest.readers import read_records

if TYPE_CHECKING:
    import _csv

SPEC_FILE = "eval.yaml"
QUERIES_FILE = "queries.jsonl"
JUDGING_FILE = "judging.json"  # the Judge tab's record of what each query ranked when it was graded
KEPT_PER_QUERY = ("pooled", "raters")  # what else judging.json keeps of a query
QRELS_HEADER = ["query-id", "corpus-id", "score"]
QUERY_SLOT = "{query}"  # in `arguments`, a string that is exactly this becomes the judged query's text
GRADES = range(0, 4)  # 0 not relevant, 1 partly, 2 relevant, 3 exactly what was asked
SET_NAME = r"^[a-z0-9][a-z0-9_-]{0,63}$"
SPLIT_NAME = r"^[a-z0-9][a-z0-9_-]{0,31}$"
QUERY_ID = r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$"


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


# A query's grades by judged id. What a qrels line can hold and read back is published in the schema, and
# checked by `checked`, whose refusal names the grade and the rule.
def whole_number(value: Any) -> Any:
    """`3.0` is the integer JSON Schema says it is: a strict request model would refuse it as a float."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


Whole = Annotated[int, BeforeValidator(whole_number)]  # an int field of a strict request

JUDGED_ID = r"^\S([^\t\r\n]*\S)?$"  # what a qrels line holds and reads back: no tab or line break, no edge space
MAX_RANKINGS = 16  # rankings one pooled result names
JudgedGrades = Annotated[
    dict[str, Whole],
    WithJsonSchema(
        {
            "type": "object",
            "propertyNames": {"pattern": JUDGED_ID},
            "additionalProperties": {"type": "integer", "minimum": GRADES.start, "maximum": GRADES.stop - 1},
        }
    ),
]
RATER = r"^\S([^\t\r\n]{0,62}\S)?$"  # a rater's name or initials
RatersGrades = Annotated[
    dict[str, dict[Annotated[str, Field(pattern=RATER)], Whole]],
    WithJsonSchema(
        {
            "type": "object",
            "propertyNames": {"pattern": JUDGED_ID},
            "additionalProperties": {
                "type": "object",
                "propertyNames": {"pattern": RATER},
                "additionalProperties": {"type": "integer", "minimum": GRADES.start, "maximum": GRADES.stop - 1},
            },
        }
    ),
]
RankingNames = Annotated[list[Annotated[str, Field(min_length=1, max_length=300)]], Field(max_length=MAX_RANKINGS)]
PooledFrom = Annotated[
    dict[str, RankingNames],
    WithJsonSchema(
        {
            "type": "object",
            "propertyNames": {"pattern": JUDGED_ID},
            "additionalProperties": {
                "type": "array",
                "maxItems": MAX_RANKINGS,
                "items": {"type": "string", "minLength": 1, "maxLength": 300},
            },
        }
    ),
]


class JudgedQuery(BaseModel):
    """One judged query."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=QUERY_ID, description="The query's id, as the qrels name it.")
    text: str = Field(min_length=1, max_length=2000, pattern=r"\S", description="What the query asks.")
    arguments: dict[str, Any] | None = Field(None, description="Its own arguments, over the set's (filters).")


class SavedSet(BaseModel):
    """What the Judge tab saves: one split's queries and grades."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(min_length=1, description="The served tool the queries are judged on.")
    level: Literal["record", "section"] = Field(description="What a grade names: a whole record or a section.")
    split: str = Field("test", pattern=SPLIT_NAME, description="The split saved (the others are kept as they are).")
    queries: list[JudgedQuery] = Field(min_length=1, max_length=5000, description="The split's queries.")
    grades: dict[str, JudgedGrades] = Field(default_factory=dict, description="query id -> judged id -> 0..3")
    seen: dict[str, list[str]] = Field(
        default_factory=dict, description="query id -> the judged ids in the order the tool ranked them"
    )
    pooled: dict[str, PooledFrom] = Field(
        default_factory=dict,
        description="query id -> judged id -> the rankings whose top k put it in the judging pool (the served "
        "tool, a variant's pipeline, `dense only`, `BM25 only`)",
    )
    raters: dict[str, RatersGrades] = Field(
        default_factory=dict,
        description="query id -> judged id -> rater -> 0..3: who gave which grade (a grade in `grades` is the "
        "set's: the last given), for the agreement between raters",
    )


def read_text(path: Path, encoding: str = "utf-8-sig") -> str:
    """A judgments file's text (a byte-order mark dropped by default, as spreadsheets write one); a file that is not
    UTF-8 text is a DatasetError naming the line of its first bad byte, an unreadable one with why."""
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise DatasetError(f"{path}: cannot be read: {error.strerror or error}") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        msg = f"{path}:{line}: not UTF-8 text (byte {data[error.start]:#04x}); save the file as UTF-8"
        raise DatasetError(msg) from None


def csv_rows(path: Path, encoding: str = "utf-8-sig", delimiter: str = ",") -> "_csv.Reader":
    """A CSV or TSV file's rows, read as `read_text` reads it (`line_num` counts its lines)."""
    return csv.reader(io.StringIO(read_text(path, encoding), newline=""), delimiter=delimiter)


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
    reader = csv_rows(path, "utf-8", "\t")
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
            raise DatasetError(f"{path}:{number}: query id '{query_id}' has judgments but no query in queries.jsonl")
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
    reader = csv_rows(path, "utf-8", "\t")
    for row in reader:
        if len(row) >= 2 and row[1].strip() in corpus_ids:
            found.setdefault(row[1].strip(), []).append(reader.line_num)
    return found


def relevant(grades: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The judgments that count as relevant (grade above 0), per query; a query with none is left out."""
    kept = {q: {doc: g for doc, g in docs.items() if g > 0} for q, docs in grades.items()}
    return {q: docs for q, docs in kept.items() if docs}


def write_set(
    folder: Path,
    queries: dict[str, dict[str, Any]],
    grades: dict[str, dict[str, dict[str, int]]],
    spec: dict[str, Any] | None = None,
    judging: dict[str, Any] | None = None,
) -> None:
    """Every file of a set, each whole or not at all: its queries (`{id, text, arguments, split}`, as
    `read_set_queries` reads them back), each split's qrels, and when given its spec and the rankings seen."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = []
    for entry in queries.values():  # metadata read back (a hand-made set's `kind`...) is kept
        metadata: dict[str, Any] = {**(entry.get("metadata") or {}), "split": entry.get("split", "test")}
        metadata.pop("arguments", None)
        if entry.get("arguments"):
            metadata["arguments"] = entry["arguments"]
        rows.append(json.dumps({"_id": entry["id"], "text": entry["text"], "metadata": metadata}))
    write_whole(folder / QUERIES_FILE, "\n".join(rows) + "\n")
    for split, split_grades in grades.items():
        lines = ["\t".join(QRELS_HEADER)]
        lines += [f"{q}\t{doc}\t{grade}" for q, docs in split_grades.items() for doc, grade in docs.items()]
        (folder / "qrels").mkdir(exist_ok=True)
        write_whole(folder / "qrels" / f"{split}.tsv", "\n".join(lines) + "\n")
    if spec is not None:
        write_whole(folder / SPEC_FILE, yaml.safe_dump(spec, sort_keys=False))
    if judging is not None:
        write_whole(folder / JUDGING_FILE, json.dumps(judging, indent=1) + "\n")


def read_spec(folder: Path) -> JudgedSetSpec:
    """`eval.yaml`, strictly: a misspelt key is named with its line and the closest valid one."""
    spec_path = Path(folder) / SPEC_FILE
    if not spec_path.is_file():
        raise DatasetError(f"{spec_path}: missing (a tool's judged set says in it which tool to call and how)")
    text = read_text(spec_path, "utf-8")
    try:
        return JudgedSetSpec.model_validate(yamlfile.safe_load(text) or {})
    except yaml.YAMLError as error:
        raise DatasetError(f"{spec_path}: invalid YAML: {error}") from None
    except ValidationError as error:
        problems = yamlfile.validation_problems(error, JudgedSetSpec, text)
        raise DatasetError(f"{spec_path}: " + "; ".join(problems)) from None


def read_set_queries(folder: Path) -> dict[str, dict[str, Any]]:
    path = folder / QUERIES_FILE
    entries = (query_entry(row) for _, row in read_rows(path)) if path.is_file() else iter(())
    return {entry["id"]: entry for entry in entries}


def query_entry(row: dict[str, Any]) -> dict[str, Any]:
    """A queries.jsonl row as a set holds it: `{id, text, arguments, split, metadata}`."""
    metadata = row.get("metadata") or {}
    arguments = metadata.get("arguments") if isinstance(metadata.get("arguments"), dict) else None
    return {
        "id": str(row["_id"]),
        "text": str(row.get("text", "")),
        "arguments": arguments,
        "split": str(metadata.get("split", "test")),
        "metadata": dict(metadata) if isinstance(metadata, dict) else {},
    }


def read_all_grades(folder: Path, query_ids: set[str]) -> dict[str, dict[str, dict[str, int]]]:
    grades = {}
    for path in sorted((folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []:
        kept = read_grades(path, query_ids | query_ids_in(path), None)
        grades[path.stem] = {q: docs for q, docs in kept.items() if q in query_ids}
    return grades


def query_ids_in(path: Path) -> set[str]:
    """The query ids a qrels file names (a query since removed drops its grades, rather than failing)."""
    return {line.split("\t", 1)[0] for line in read_text(path, "utf-8").splitlines()[1:] if "\t" in line}


def read_judging(folder: Path) -> dict[str, Any]:
    path = folder / JUDGING_FILE
    try:
        loaded = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def write_whole(path: Path, text: str) -> None:
    """Whole or not at all: a save cut short leaves the previous file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# -- the Judge tab's save ---------------------------------------------------------------------------------


def set_folder(root: Path, name: str) -> Path:
    if not re.match(SET_NAME, name):
        msg = f"a judged set's name is lowercase letters, digits, '-' and '_' (up to 64), got {name!r}"
        raise InvalidRequestError(msg, {"field": "name"})
    return root / name


def save_set(root: Path, name: str, body: Any, served: set[str]) -> dict[str, Any]:
    """Write one split of a judged set as the Judge tab sent it (`write_split`)."""
    saved = checked(body, served)
    folder = set_folder(root, name)
    judged = write_split(
        folder,
        saved.tool,
        saved.split,
        saved.queries,
        saved.grades,
        saved.level,
        saved.seen,
        saved.pooled,
        saved.raters,
    )
    return {
        "name": name,
        "folder": f"{root.name}/{name}",
        "split": saved.split,
        "queries": len(saved.queries),
        "judged": judged,
        "agreement": [found.model_dump() for found in agreement(raters_of(read_judging(folder).get(saved.split)))],
    }


def write_split(
    folder: Path,
    tool: str,
    split: str,
    queries: list[JudgedQuery],
    grades: dict[str, dict[str, int]],
    level: Literal["record", "section"] | None = None,
    seen: dict[str, list[str]] | None = None,
    pooled: dict[str, dict[str, list[str]]] | None = None,
    raters: dict[str, dict[str, dict[str, int]]] | None = None,
) -> int:
    """Write one split of the set in `folder` (the Judge tab's save, `haygate judged import`), keeping the other
    splits' queries and grades and any eval.yaml keys not set here (a corpus, metrics). `seen`: the rankings
    the tab showed; without them (an import) the split's earlier rankings go, with the grades they belonged
    to. `pooled`: per query, the rankings each pooled result came from; `raters`: per query, each rater's grade of
    each result (each sent in place of the query's earlier one). Returns how many judgments the split holds."""
    folder.mkdir(parents=True, exist_ok=True)
    on_disk = read_spec(folder) if (folder / SPEC_FILE).is_file() else None
    spec = on_disk.model_dump(mode="json", exclude_none=True) if on_disk is not None else {}
    spec.setdefault("arguments", {"query": QUERY_SLOT})
    spec.update(tool=tool, **({"level": level} if level is not None else {}))
    unchanged = JudgedSetSpec.model_validate(spec) == on_disk  # a hand-written eval.yaml keeps its comments

    entries = {q: entry for q, entry in read_set_queries(folder).items() if entry["split"] != split}
    taken = sorted({q.id for q in queries} & set(entries))
    if taken:
        msg = f"judged set: query ids {taken} belong to another split of '{folder.name}'; a query id names one query"
        raise InvalidRequestError(msg, {"field": "queries"})
    for query in queries:
        entries[query.id] = {"id": query.id, "text": query.text, "arguments": query.arguments, "split": split}
    all_grades = read_all_grades(folder, set(entries))
    all_grades[split] = {q: dict(judged) for q, judged in grades.items() if judged}
    judging = read_judging(folder)
    had_judging = (folder / JUDGING_FILE).is_file()
    if seen is None:
        judging.pop(split, None)
    else:
        at = datetime.now(UTC).isoformat(timespec="seconds")
        before = judging.get(split, {}) if isinstance(judging.get(split), dict) else {}
        kept = {key: value for key, value in (("pooled", pooled), ("raters", raters)) if value is not None}
        per_query = {q: {key: value[q] for key, value in kept.items() if q in value} for q in entries}
        judging[split] = {
            q: judged_query_record(before.get(q), seen.get(q), per_query.get(q, {}), at)
            for q in [*seen, *[q for q, sent in per_query.items() if any(sent.values()) and q not in seen]]
        }

    write_set(
        folder, entries, all_grades, None if unchanged else spec, judging if seen is not None or had_judging else None
    )
    return sum(len(docs) for docs in all_grades[split].values())


def add_judgments(
    folder: Path,
    split: str,
    grades: dict[str, dict[str, int]] | None = None,
    pooled: dict[str, dict[str, list[str]]] | None = None,
    rater: str | None = None,
) -> int:
    """Grades added to a split, each in place of the set's grade of that result, and with `rater` recorded as
    theirs; and the rankings that pooled each query's results, added to those `judging.json` holds. The rest of
    the set stays as it is (`haygate judged pool`, `haygate judged import sheet`). Returns the split's
    judgments."""
    entries = read_set_queries(folder)
    all_grades = read_all_grades(folder, set(entries))
    merged = all_grades.setdefault(split, {})
    for query_id, judged in (grades or {}).items():
        merged.setdefault(query_id, {}).update(judged)
    judging = read_judging(folder)
    kept = judging[split] if isinstance(judging.get(split), dict) else {}
    judging[split] = kept
    for query_id, found in (pooled or {}).items():
        entry = kept.setdefault(query_id, {})
        before = entry.get("pooled") if isinstance(entry.get("pooled"), dict) else {}
        entry["pooled"] = {
            judged_id: list(dict.fromkeys([*(before.get(judged_id) or []), *(found.get(judged_id) or [])]))
            for judged_id in [*before, *[j for j in found if j not in before]]
        }
    for query_id, judged in (grades or {}).items() if rater else ():
        given = kept.setdefault(query_id, {}).setdefault("raters", {})
        for judged_id, grade in judged.items():
            given.setdefault(judged_id, {})[rater] = grade
    write_set(folder, entries, all_grades, None, judging)
    return sum(len(docs) for docs in merged.values())


def judged_query_record(before: Any, ranking: list[str] | None, kept: dict[str, Any], at: str) -> dict[str, Any]:
    """A query's entry in judging.json: the served ranking when it was graded (and when that was), and what else the
    save `kept` of it (`pooled`, `raters`), each in place of the earlier one; what it did not send stays."""
    before = before if isinstance(before, dict) else {}
    ranking = ranking if ranking is not None else before.get("ranking")
    entry = (
        {key: before[key] for key in ("ranking", "at") if key in before}
        if before.get("ranking") == ranking
        else {"ranking": ranking, "at": at}
    )
    for key in KEPT_PER_QUERY:
        value = kept[key] if key in kept else before.get(key)
        if isinstance(value, dict) and value:
            entry[key] = value
    return entry


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
    for name in ("seen", *KEPT_PER_QUERY):
        strays = sorted(set(getattr(saved, name)) - set(ids))
        if strays:
            raise InvalidRequestError(f"judged set: '{name}' names {strays}, which are no queries", {"field": name})
    for name in KEPT_PER_QUERY:
        for query_id, judged in getattr(saved, name).items():
            bad_ids = [judged_id for judged_id in judged if not _usable_id(judged_id)]
            if bad_ids:
                msg = f"judged set: query '{query_id}': {name} ids {bad_ids} have a tab, a line break or edge space"
                raise InvalidRequestError(msg, {"field": name})
    for query_id, rated in saved.raters.items():
        wrong = {doc: given for doc, given in rated.items() if any(g not in GRADES for g in given.values())}
        if wrong:
            msg = f"judged set: query '{query_id}': a rater's grade is 0, 1, 2 or 3, got {wrong}"
            raise InvalidRequestError(msg, {"field": "raters"})
    return saved


def _usable_id(judged_id: str) -> bool:
    """An id a qrels line can hold and read back as it was: no tab or line break, no surrounding space."""
    return bool(judged_id) and judged_id == judged_id.strip() and not any(c in judged_id for c in "\t\r\n")
