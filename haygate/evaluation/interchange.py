"""Judgments in other tools' formats: TREC qrels read and written, and Quepid's ratings CSV read, for
`haygate judged import` and `haygate judged export`.

A judged set's own files are `haygate.gateway.judged_sets`' alone: this module reads a foreign file into
validated queries and grades, and `judged_sets.write_split` writes them. Every problem is a DatasetError that
names the file and the line.

TREC qrels are whitespace-separated (`query-id iteration doc-id grade`), and haygate's ids may hold a space (a
section's heading path): a space, any other whitespace and `%` itself are written percent-encoded (`%20`,
`%25`), so trec_eval and ranx read every line as four fields, and an import decodes them back.
"""

import hashlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote

from pydantic import ValidationError

from haygate.errors import DatasetError
from haygate.gateway.judged_sets import (
    GRADES,
    QRELS_HEADER,
    QUERY_ID,
    JudgedQuery,
    csv_rows,
    query_entry,
    read_grades,
    read_rows,
    read_set_queries,
    read_text,
)
from haygate.text.normalise import fold

JSONL_SUFFIXES = (".jsonl", ".ndjson", ".json")
TOPICS_HEADERS = {"query-id", "qid", "_id", "id"}  # the id column's name in a TSV topics file's header line
SHOWN = 3  # examples a note shows of what it counts

Grades = dict[str, dict[str, int]]  # query id -> judged id -> grade 0..3


@dataclass
class Imported:
    """What a foreign file holds, as a judged set's split: its queries, their grades, and what a user should
    read about the import (a scale mapped, queries left out)."""

    queries: list[JudgedQuery]
    grades: Grades
    notes: list[str] = field(default_factory=list)


def counted(number: int, noun: str) -> str:
    """`1 query`, `2 queries`: a count as a note says it."""
    plural = noun[:-1] + "ies" if noun.endswith("y") and noun[-2] not in "aeiou" else noun + "s"
    return f"{number:,} {noun if number == 1 else plural}"


# -- TREC qrels ------------------------------------------------------------------------------------------------


def trec_id(value: str) -> str:
    """An id as one whitespace-free TREC field: whitespace and `%` percent-encoded (UTF-8), nothing else."""
    return "".join(quote(c, safe="") if c.isspace() or c == "%" else c for c in value)


def qrels_lines(grades: Grades) -> list[str]:
    """Judgments as TREC qrels lines, `query-id 0 doc-id grade`, in the order given, each id one field."""
    return [f"{trec_id(q)} 0 {trec_id(doc)} {grade}" for q, docs in grades.items() for doc, grade in docs.items()]


def from_trec_id(field_text: str) -> str:
    """The id `trec_id` wrote (an id with a literal `%` followed by two hex digits is read as an escape)."""
    return unquote(field_text)


def trec_qrels(folder: Path, split: str) -> tuple[str, list[str]]:
    """A set's split as TREC qrels, `query-id 0 doc-id grade`, every grade kept (0 is judged not relevant),
    in the qrels file's order; and notes on what TREC qrels cannot hold (a query with no judgment)."""
    path = folder / "qrels" / f"{split}.tsv"
    if not path.is_file():
        splits = sorted(p.stem for p in (folder / "qrels").glob("*.tsv")) if (folder / "qrels").is_dir() else []
        raise DatasetError(f"{path}: no such split in {folder}; its splits: {', '.join(splits) or 'none'}")
    queries = read_set_queries(folder)
    grades = read_grades(path, set(queries), None)
    lines = qrels_lines(grades)
    notes = [f"{counted(len(lines), 'judgment')} of {counted(len(grades), 'query')} ({split} split of {folder})"]
    unjudged = [q for q, entry in queries.items() if entry["split"] == split and q not in grades]
    if unjudged:
        notes.append(
            f"{counted(len(unjudged), 'query')} with no judgment (they should find nothing) left out: TREC qrels hold "
            f"judgments only, e.g. {', '.join(unjudged[:SHOWN])}"
        )
    encoded = sum(trec_id(doc) != doc for docs in grades.values() for doc in docs)
    if encoded:
        notes.append(f"{counted(encoded, 'judged id')} with a space or '%': written percent-encoded (%20, %25)")
    return "".join(line + "\n" for line in lines), notes


def import_trec(qrels: Path, topics: Path) -> Imported:
    """TREC qrels (or BEIR's qrels TSV, by its header) with the texts of the queries they judge from `topics`
    (BEIR's queries.jsonl, or TSV `query-id<TAB>text`). A query of `topics` that the qrels do not judge is left
    out: in a judged set, a query without judgments is one that should find nothing."""
    grades, lines = read_qrels(qrels)
    texts = read_topics(topics)
    queries = []
    for query_id, line in lines.items():
        if query_id not in texts:
            raise DatasetError(f"{qrels}:{line}: query '{query_id}' is judged, but {topics} has no query with that id")
    for query_id, (line, text, arguments) in texts.items():
        if query_id in grades:
            queries.append(judged_query(topics, line, query_id, text, arguments))
    notes = []
    left_out = [query_id for query_id in texts if query_id not in grades]
    if left_out:
        notes.append(
            f"left out {counted(len(left_out), 'query')} of {topics} that {qrels} does not judge "
            f"(in a judged set they would be queries that should find nothing), e.g. {', '.join(left_out[:SHOWN])}"
        )
    return Imported(queries, grades, notes)


def read_qrels(path: Path) -> tuple[Grades, dict[str, int]]:
    """Every judgment of a TREC qrels file, or of a BEIR qrels TSV when its first line is BEIR's header; and
    the line that first judges each query. A grade is a whole number from 0 to 3; a pair judged twice with two
    grades is refused."""
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    rows = read_text(path).splitlines()
    beir = bool(rows) and [cell.strip() for cell in rows[0].split("\t")] == QRELS_HEADER
    grades: Grades = {}
    where: dict[tuple[str, str], int] = {}
    for number, row in enumerate(rows, start=1):
        if not row.strip() or (beir and number == 1):
            continue
        if beir:
            cells = [cell.strip() for cell in row.split("\t")]
            if len(cells) != 3:
                raise DatasetError(f"{path}:{number}: expected 3 tab-separated columns ({'/'.join(QRELS_HEADER)})")
            query_id, doc_id, grade = cells
        else:
            cells = row.split()
            if len(cells) != 4:
                hint = " (a doc id holding a space is written %20)" if len(cells) > 4 else ""
                msg = f"{path}:{number}: expected 4 fields 'query-id iteration doc-id grade', got {len(cells)}{hint}"
                raise DatasetError(msg)
            query_id, doc_id, grade = from_trec_id(cells[0]), from_trec_id(cells[2]), cells[3]
        add_judgment(grades, where, (path, number), query_id, doc_id, whole_grade(f"{path}:{number}", grade))
    if not grades:
        raise DatasetError(f"{path}: no judgments in it")
    first: dict[str, int] = {}
    for (query_id, _), number in where.items():
        first[query_id] = min(number, first.get(query_id, number))
    return grades, first


def whole_grade(where: str, text: str) -> int:
    try:
        grade = int(text)
    except ValueError:
        raise DatasetError(f"{where}: grade {text!r} is not a whole number") from None
    if grade not in GRADES:
        msg = f"{where}: grade {grade} is outside haygate's scale, 0 (not relevant) to 3 (exactly what was asked)"
        raise DatasetError(msg)
    return grade


def add_judgment(
    grades: Grades, where: dict[tuple[str, str], int], line: tuple[Path, int], query_id: str, doc_id: str, grade: int
) -> None:
    """One judgment, checked: ids a judged set can hold, and no pair judged twice with two grades. `where`: the
    line that first judged each pair."""
    at = f"{line[0]}:{line[1]}"
    if not re.match(QUERY_ID, query_id):
        msg = f"{at}: query id {query_id!r} is not one a judged set can hold (letters, digits, '_.:-', up to 64)"
        raise DatasetError(msg)
    if not doc_id or doc_id != doc_id.strip() or any(c in doc_id for c in "\t\r\n"):
        raise DatasetError(f"{at}: doc id {doc_id!r} is empty, or has a tab, a line break or surrounding space")
    earlier = grades.get(query_id, {}).get(doc_id)
    if earlier is not None and earlier != grade:
        first = where[(query_id, doc_id)]
        raise DatasetError(f"{at}: query '{query_id}' judges '{doc_id}' {grade}, but line {first} judged it {earlier}")
    grades.setdefault(query_id, {})[doc_id] = grade
    where.setdefault((query_id, doc_id), line[1])


def read_topics(path: Path) -> dict[str, tuple[int, str, dict[str, object] | None]]:
    """Each query's line, text and own arguments (`metadata.arguments`, BEIR JSONL only), by id: JSONL by its
    suffix, else TSV `query-id<TAB>text` (a header line naming the id column is skipped)."""
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    topics: dict[str, tuple[int, str, dict[str, object] | None]] = {}
    if path.suffix.lower() in JSONL_SUFFIXES:
        for number, row in read_rows(path):
            entry = query_entry(row)
            add_topic(topics, (path, number), entry["id"], entry["text"], entry["arguments"])
        return topics
    for number, written in enumerate(read_text(path).splitlines(), start=1):
        if not written.strip() or (number == 1 and written.split("\t", 1)[0].strip().lower() in TOPICS_HEADERS):
            continue
        cells = written.split("\t", 1)
        if len(cells) != 2:
            raise DatasetError(f"{path}:{number}: expected 'query-id<TAB>text'")
        add_topic(topics, (path, number), cells[0].strip(), cells[1].strip(), None)
    return topics


def add_topic(
    topics: dict[str, tuple[int, str, dict[str, object] | None]],
    line: tuple[Path, int],
    query_id: str,
    text: str,
    arguments: dict[str, object] | None,
) -> None:
    if query_id in topics:
        raise DatasetError(f"{line[0]}:{line[1]}: query '{query_id}' again (first on line {topics[query_id][0]})")
    topics[query_id] = (line[1], text, arguments)


def judged_query(path: Path, line: int, query_id: str, text: str, arguments: dict[str, object] | None) -> JudgedQuery:
    """A query as a judged set holds it, or the refusal that says which rule its line breaks."""
    try:
        return JudgedQuery(id=query_id, text=text, arguments=arguments)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise DatasetError(f"{path}:{line}: query '{query_id}': {where}: {problem['msg']}") from None


# -- Quepid ----------------------------------------------------------------------------------------------------

# The columns of Quepid's rating exports (o19s/quepid): the Basic export (`query,docid,rating`, the ratings
# controller's CSV), the file its ratings import takes (`Query Text,Doc ID,Rating`), and the case export's
# Detailed layout, whose columns after `Rating` are the fields the case shows (read past).
QUERY_COLUMNS = ("query", "Query Text")
DOC_COLUMNS = ("docid", "Doc ID")
RATING_COLUMNS = ("rating", "Rating")
CASE_COLUMNS = ("Team Name", "Case Name", "Case ID", "Doc Position", "Title")
LAYOUTS = (
    "query,docid,rating (Basic); Query Text,Doc ID,Rating; "
    "Team Name,Case Name,Case ID,Query Text,Doc ID,[Doc Position,Title,]Rating (Detailed)"
)


@dataclass(frozen=True)
class Scale:
    """A rating scale of Quepid's scorers and how its ratings become haygate's grades 0-3."""

    top: int
    grade: Callable[[int], int]
    mapping: str


SCALES = {
    "0-1": Scale(1, lambda rating: 2 * rating, "0 -> 0, 1 -> 2 (relevant)"),
    "0-3": Scale(3, lambda rating: rating, "as they are"),
    "0-10": Scale(10, lambda rating: math.ceil(rating * 3 / 10), "0 -> 0, 1-3 -> 1, 4-6 -> 2, 7-10 -> 3"),
}


def quepid_query_id(text: str) -> str:
    """A Quepid query's id, from its text alone (Quepid's exports name a query by its text): importing the case
    again gives the same ids. A slug of the words, for a person reading the qrels, and the first 10 hex digits
    of the text's SHA-256, so two texts never share an id."""
    slug = "-".join(re.findall(r"[a-z0-9]+", fold(text)))[:40].strip("-")
    return f"{slug or 'q'}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


@dataclass
class QuepidRows:
    """The rated rows of an export, by line: query text, doc id, rating."""

    rated: list[tuple[int, str, str, float]] = field(default_factory=list)
    unrated_queries: list[str] = field(default_factory=list)
    unrated_docs: int = 0


def import_quepid(path: Path, scale_name: str | None = None) -> Imported:
    """A Quepid case's ratings (any layout of `LAYOUTS`), each mapped from the case's scale to 0-3: `scale_name`
    names it, else it is the smallest of 0-1, 0-3, 0-10 that holds the highest rating. A query Quepid has no
    rating for is left out (in a judged set it would be one that should find nothing), and so is a doc listed
    without a rating."""
    rows = read_quepid_rows(path)
    if not rows.rated:
        raise DatasetError(f"{path}: no rated documents in it")
    highest = max(rating for *_, rating in rows.rated)
    name = scale_name or next((n for n, s in SCALES.items() if highest <= s.top), None)
    if name is None:
        line = next(number for number, *_, rating in rows.rated if rating == highest)
        raise DatasetError(f"{path}:{line}: rating {highest:g} is on none of the scales haygate maps: 0-1, 0-3, 0-10")
    scale = SCALES[name]
    grades: Grades = {}
    where: dict[tuple[str, str], int] = {}
    texts: dict[str, tuple[int, str]] = {}
    for number, text, doc_id, rating in rows.rated:
        if rating > scale.top:
            raise DatasetError(f"{path}:{number}: rating {rating:g} is above the {name} scale")
        query_id = quepid_query_id(text)
        if texts.setdefault(query_id, (number, text))[1] != text:
            raise DatasetError(f"{path}:{number}: two query texts share the id {query_id}")  # 40 bits: never seen
        add_judgment(grades, where, (path, number), query_id, doc_id, scale.grade(int(rating)))
    queries = [judged_query(path, line, query_id, text, None) for query_id, (line, text) in texts.items()]
    how = "given with --scale" if scale_name else f"the smallest that holds the highest rating, {highest:g}"
    notes = [f"ratings read on the {name} scale ({how}), mapped to grades 0-3: {scale.mapping}"]
    if name == "0-1" and not scale_name:
        notes[0] += "; if the case was rated 0-3, import again with --scale 0-3"
    if rows.unrated_queries:
        shown = ", ".join(repr(text) for text in rows.unrated_queries[:SHOWN])
        notes.append(f"left out {counted(len(rows.unrated_queries), 'query')} with no rating, e.g. {shown}")
    if rows.unrated_docs:
        notes.append(f"left out {counted(rows.unrated_docs, 'document')} listed without a rating")
    return Imported(queries, grades, notes)


def read_quepid_rows(path: Path) -> QuepidRows:
    """The rows of an export, checked: its header one of `LAYOUTS`, one case, each rating a whole number."""
    if not path.is_file():
        raise DatasetError(f"{path}: no such file")
    reader = csv_rows(path)
    header = [cell.strip() for cell in next(reader, [])]
    query, doc, rating, case = quepid_columns(path, header)
    rows, cases = QuepidRows(), dict[str, int]()
    for cells in reader:
        number = reader.line_num
        if not "".join(cells).strip():
            continue
        cell = [c.strip() for c in cells] + [""] * len(header)  # a query with no rating has short rows
        if case is not None:
            cases.setdefault(cell[case], number)
        if not cell[query]:
            raise DatasetError(f"{path}:{number}: no query text")
        if not cell[doc] and not cell[rating]:
            rows.unrated_queries.append(cell[query])
        elif not cell[rating]:
            rows.unrated_docs += 1
        elif not cell[doc]:
            raise DatasetError(f"{path}:{number}: a rating with no doc id")
        else:
            rows.rated.append((number, cell[query], cell[doc], whole_rating(f"{path}:{number}", cell[rating])))
    if len(cases) > 1:
        named = ", ".join(f"{c!r} (line {n})" for c, n in list(cases.items())[:SHOWN])
        raise DatasetError(f"{path}: ratings of {len(cases)} cases, {named}: import one case per judged set")
    rated = {text for _, text, *_ in rows.rated}
    rows.unrated_queries = [text for text in dict.fromkeys(rows.unrated_queries) if text not in rated]
    return rows


def quepid_columns(path: Path, header: list[str]) -> tuple[int, int, int, int | None]:
    """Where the query text, doc id, rating and case id are, or the refusal that names what is wrong."""
    found = []
    for names in (QUERY_COLUMNS, DOC_COLUMNS, RATING_COLUMNS):
        at = [i for i, cell in enumerate(header) if cell in names]
        if len(at) != 1:
            raise DatasetError(f"{path}:1: expected one {' or '.join(names)} column; Quepid's layouts: {LAYOUTS}")
        found.append(at[0])
    query, doc, rating = found
    detailed = "Team Name" in header  # its columns after Rating are the case's fields
    known = {*QUERY_COLUMNS, *DOC_COLUMNS, *RATING_COLUMNS, *CASE_COLUMNS}
    unknown = [cell for i, cell in enumerate(header) if cell not in known and not (detailed and i > rating)]
    if unknown:
        raise DatasetError(f"{path}:1: unknown columns {unknown}; Quepid's layouts: {LAYOUTS}")
    return query, doc, rating, header.index("Case ID") if "Case ID" in header else None


def whole_rating(where: str, text: str) -> float:
    """A rating as a number; a fraction or a negative one has no clean place on 0-3."""
    try:
        rating = float(text)
    except ValueError:
        raise DatasetError(f"{where}: rating {text!r} is not a number") from None
    if not math.isfinite(rating) or rating < 0 or rating != int(rating):
        raise DatasetError(f"{where}: rating {text} is not a whole number from 0: it has no clean place on 0-3")
    return rating
