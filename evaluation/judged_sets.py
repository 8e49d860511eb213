"""What every judged set's check shares: reading a set, and the checks that do not depend on its tool.

A judged set (`evaluation/<tool>/`) is data edited by hand: `queries.jsonl` (`{_id, text, metadata}`) and
`qrels/<split>.tsv` in the BEIR layout, read by `haygate eval --judged`. Its `check.py` writes nothing: it says
whether the data still agrees with the corpus, the tool's declaration and the figures its README states, and
names every problem. Run one with `.venv/bin/python -m evaluation.<tool>.check`.
"""

import argparse
import csv
import itertools
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from haygate.errors import DatasetError
from haygate.evaluation.datasets import load_judged_queries
from haygate.text.normalise import fold

EVALUATION = Path(__file__).resolve().parent
PROJECT = EVALUATION.parent
DEFAULT_SPLIT = "test"  # a query's split when its metadata names none: the rule haygate's eval reads
TENANT_FIELDS = ("project_id", "project", "tenant", "org_id")  # a record with one of these is tenant data


@dataclass(frozen=True)
class Query:
    id: str
    text: str
    metadata: dict[str, Any]
    qrels: dict[str, int]  # judged id -> score, in file order; empty: the query should find nothing

    @property
    def kind(self) -> str:
        return str(self.metadata.get("kind"))

    @property
    def arguments(self) -> dict[str, Any]:
        return self.metadata.get("arguments") or {}


@dataclass(frozen=True)
class JudgedSet:
    folder: Path
    spec: dict[str, Any]  # eval.yaml
    queries: list[Query]
    problems: list[str]  # what reading the files found

    @property
    def judged(self) -> list[Query]:
        return [q for q in self.queries if q.qrels]

    @property
    def readme(self) -> str:
        """The README with its line breaks folded, so a stated figure is found wherever the line wraps."""
        path = self.folder / "README.md"
        return " ".join(path.read_text().split()) if path.is_file() else ""


@dataclass
class Report:
    """A check's outcome: problems make it fail; skipped parts (shared data absent) are said, not failed."""

    problems: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


def load(folder: Path) -> JudgedSet:
    """The set's queries with their qrels. Problems of the layout are collected, not raised: the qrels' header,
    scores, unknown or repeated lines, a query judged outside the split its `metadata.split` names, and
    anything haygate's own reader (`load_judged_queries`) refuses."""
    problems: list[str] = []
    spec = yaml.safe_load((folder / "eval.yaml").read_text()) or {}
    rows = []
    for number, line in enumerate((folder / "queries.jsonl").read_text().splitlines(), start=1):
        try:
            rows += [json.loads(line)] if line.strip() else []
        except json.JSONDecodeError as error:
            problems.append(f"queries.jsonl:{number}: {error}")
    ids = Counter(str(row.get("_id")) for row in rows)
    problems += [f"queries.jsonl: _id {query_id} is there {n} times" for query_id, n in ids.items() if n > 1]
    split_of = {str(row.get("_id")): str((row.get("metadata") or {}).get("split", DEFAULT_SPLIT)) for row in rows}
    qrels: dict[str, dict[str, int]] = {}
    for path in sorted((folder / "qrels").glob("*.tsv")):
        with path.open(newline="") as handle:
            lines = list(csv.reader(handle, delimiter="\t"))
        if not lines or lines[0] != ["query-id", "corpus-id", "score"]:
            problems.append(f"qrels/{path.name}: the header is not query-id, corpus-id, score")
        for number, row in enumerate(lines[1:], start=2):
            where = f"qrels/{path.name}:{number}"
            if len(row) != 3 or not row[2].isdigit():
                problems.append(f"{where}: expected query-id, corpus-id and an integer score: {row}")
                continue
            query_id, doc_id, score = row[0], row[1], int(row[2])
            if query_id not in split_of:
                problems.append(f"{where}: query {query_id} is not in queries.jsonl")
            elif split_of[query_id] != path.stem:
                problems.append(f"{where}: query {query_id} is judged here but its split is {split_of[query_id]}")
            if doc_id in qrels.get(query_id, {}):
                problems.append(f"{where}: {query_id} judges {doc_id} twice")
            qrels.setdefault(query_id, {})[doc_id] = score
    for split in sorted({p.stem for p in (folder / "qrels").glob("*.tsv")}):
        try:
            load_judged_queries(folder, split)
        except DatasetError as error:
            problems.append(f"haygate's reader refuses the {split} split: {error}")
    queries = [
        Query(
            str(row.get("_id")),
            str(row.get("text") or ""),
            dict(row.get("metadata") or {}),
            qrels.get(str(row.get("_id")), {}),
        )
        for row in rows
    ]
    problems += [f"{q.id}: empty text" for q in queries if not q.text.strip()]
    return JudgedSet(folder, spec, queries, problems)


def read_corpus(
    judged: JudgedSet, id_field: str, report: Report, path: Path | None = None
) -> dict[str, dict[str, Any]]:
    """The corpus `eval.yaml` names (or `path`), by record id. A corpus outside the project (../shared/data)
    that is absent is skipped with a message; any other missing corpus is a problem. Empty when not read."""
    path = (path or judged.folder / str(judged.spec.get("corpus"))).resolve()
    if not path.is_file():
        if path.is_relative_to(PROJECT):
            report.problems.append(f"corpus {path}: missing")
        else:
            report.skipped.append(f"{path} is absent (../shared/data is not here): the checks against it are skipped")
        return {}
    records: dict[str, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        if line.strip():
            record = json.loads(line)
            if str(record.get(id_field)) in records:
                report.problems.append(f"corpus {path.name}: {id_field} {record.get(id_field)} is there twice")
            records[str(record.get(id_field))] = record
    return records


def normalise(text: str) -> str:
    """Words only, without case or accents: how two texts are compared for "the same" or "verbatim"."""
    return " ".join(re.findall(r"[^\W_]+", fold(text)))


def strings(value: Any) -> list[str]:
    """Every string in a record, at any depth."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in strings(item)]


class Texts:
    """Texts by id, searched for a term as a whole word in any case and without accents. All texts are
    searched at once first: most terms are absent from all of them, and that answer should be fast."""

    def __init__(self, texts: Mapping[str, str]) -> None:
        self.texts = {key: fold(text) for key, text in texts.items()}
        self.joined = "\n".join(self.texts.values())

    def having(self, term: str) -> list[str]:
        pattern = re.compile(rf"(?<!\w){re.escape(fold(term))}(?!\w)")
        if not pattern.search(self.joined):
            return []
        return [key for key, text in self.texts.items() if pattern.search(text)]


def absent_terms(queries: Sequence[Query], texts: Texts, where: str = "") -> list[str]:
    """Each query that should find nothing lists `metadata.terms`, and none of them occurs in `texts`."""
    problems = [f"{q.id} '{q.text}': lists no terms to check" for q in queries if not q.metadata.get("terms")]
    for q in queries:
        for term in q.metadata.get("terms") or []:
            if found := texts.having(term):
                problems.append(f"{q.id} '{q.text}': '{term}' occurs in {where}{found[:5]}")
    return problems


def verbatim(judged: JudgedSet, texts: Sequence[tuple[str, str]], what: str) -> list[str]:
    """No query is one of the corpus's `texts` ((record id, text) pairs), compared without case or accents."""
    owner = {normalise(text): key for key, text in texts}
    return [
        f"{q.id} '{q.text}' is {what} of {owner[normalise(q.text)]}"
        for q in judged.queries
        if normalise(q.text) in owner
    ]


def common(
    judged: JudgedSet,
    records: Mapping[str, Any],
    kinds: Sequence[str],
    empty: Sequence[str] = ("unrelated",),
    picked: str | None = "picked",
) -> list[str]:
    """Problems of any set: reading; texts listed twice; judged ids missing from the corpus (when it was read);
    a kind other than `kinds` (judged) or `empty` (should find nothing, no qrels). With `picked`, the metadata
    key naming the record a query was written for: it has score 2, any other judged record 1."""
    problems = list(judged.problems)
    texts = Counter(normalise(q.text) for q in judged.queries)
    problems += [f"'{text}' is listed twice" for text, n in texts.items() if n > 1]
    for q in judged.queries:
        if records:
            problems += [f"{q.id}: judged {doc} is not in the corpus" for doc in q.qrels if doc not in records]
        if q.kind not in (*kinds, *empty) or (q.kind in empty) == bool(q.qrels):
            problems.append(f"{q.id}: a query of kind {q.kind} with {len(q.qrels)} judged records")
        if picked is None:
            continue
        own = q.metadata.get(picked)
        if q.qrels and q.qrels != {doc: 2 if doc == own else 1 for doc in q.qrels} | {own: 2}:
            problems.append(f"{q.id}: its {picked} {own} must have score 2 and every other judged record 1")
        if not q.qrels and own is not None:
            problems.append(f"{q.id}: should find nothing, yet names {picked} {own}")
    return problems


def tenant_free(tools_file: Path, tool: str, records: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """The set judges every record: right only while the tool is not tenant-scoped and no record names a
    tenant. When one of these changes, the set needs a `project` in eval.yaml and judgments of one tenant."""
    declared = yaml.safe_load(tools_file.read_text())
    tools = {t.get("name"): t for t in declared.get("tools", [declared])}
    if tool not in tools:
        return [f"{tools_file}: no tool {tool}"]
    scoped = tools[tool].get("tenant_field")
    problems = [f"{tool} is tenant-scoped ({scoped}): judge only one tenant's records"] if scoped else []
    tenanted = sorted(key for key, record in records.items() if any(f in record for f in TENANT_FIELDS))
    if tenanted:
        problems.append(f"{len(tenanted)} records name a tenant, e.g. {tenanted[:3]}: judge only one tenant's")
    return problems


# The columns most README count tables have, each a function of a row's queries.
COUNTS: dict[str, Callable[[list[Query]], object]] = {
    "queries": len,
    "qrels lines": lambda queries: sum(len(q.qrels) for q in queries),
    "with more than one relevant": lambda queries: sum(len(q.qrels) > 1 for q in queries),
}


def table(
    judged: JudgedSet, columns: Mapping[str, Callable[[list[Query]], object]], queries: list[Query] | None = None
) -> list[str]:
    """The README's "## Counts" table (its first one) agrees with `queries` (default: all): a row per kind and
    `**all**`; each column named in `columns` is that function of the row's queries."""
    queries = judged.queries if queries is None else queries
    lines = (judged.folder / "README.md").read_text().split("## Counts", 1)[-1].strip().splitlines()
    first = list(
        itertools.takewhile(
            lambda line: line.startswith("|"), itertools.dropwhile(lambda line: not line.startswith("|"), lines)
        )
    )
    rows = [[cell.strip().strip("*") for cell in line.strip().strip("|").split("|")] for line in first]
    if len(rows) < 3:
        return ["README: no table under ## Counts"]
    header, problems, kinds = rows[0], [], {q.kind for q in queries}
    for row in rows[2:]:
        of_row = queries if row[0] == "all" else [q for q in queries if q.kind == row[0]]
        for name, cell in zip(header[1:], row[1:], strict=False):
            if name in columns and str(columns[name](of_row)) != cell:
                problems.append(f"README counts: {row[0]} / {name} says {cell}, the data gives {columns[name](of_row)}")
    missing = kinds - {row[0] for row in rows[2:]}
    return problems + [f"README counts: no row for kind {kind}" for kind in sorted(missing)]


QUERIES_STATED = r"^# .*? (\d+) hand-written queries"
QRELS_STATED = r"There are ([\d,]+) qrels lines: ([\d,]+) with score 2 and ([\d,]+) with score 1"


def stated(judged: JudgedSet, figures: Mapping[str, object]) -> list[str]:
    """What the README states is the data's: for each pattern, its groups ("1,417" reads as 1417) are the
    figure (or tuple of figures) given."""
    problems = []
    for pattern, expected in figures.items():
        match = re.search(pattern, judged.readme)
        found = tuple(_figure(group) for group in match.groups()) if match else None
        if found != (expected if isinstance(expected, tuple) else (expected,)):
            problems.append(f"README: {pattern!r} finds {found}; the data gives {expected}")
    return problems


def _figure(text: str) -> int | str:
    return int(text.replace(",", "")) if text.replace(",", "").isdigit() else text


def basic_figures(judged: JudgedSet) -> dict[str, object]:
    """The figures most READMEs state: the number of queries, and of qrels lines by score."""
    scores = [score for q in judged.queries for score in q.qrels.values()]
    return {QUERIES_STATED: len(judged.queries), QRELS_STATED: (len(scores), scores.count(2), scores.count(1))}


def share(queries: list[Query], texts: Mapping[str, str], stopwords: str) -> Counter[str]:
    """Per kind, the average share (percent) of a query's words, stopwords left out, found in the text of its
    `picked` record (`texts` by id; a query whose record is not there is left out: `common` reports it)."""
    stop = set(stopwords.split())
    shares: dict[str, list[float]] = {}
    for q in [q for q in queries if q.metadata.get("picked") in texts]:
        own = {w for w in re.findall(r"\w+", fold(q.text)) if w not in stop}
        found = own & set(re.findall(r"\w+", fold(texts[q.metadata["picked"]])))
        shares.setdefault(q.kind, []).append(len(found) / len(own) if own else 0.0)
    return Counter({kind: round(100 * sum(values) / len(values)) for kind, values in shares.items()})


def pick(figures: Mapping[Any, object], names: str) -> tuple[object, ...]:
    """The figures of `names` (space-separated), in that order: what a README sentence lists."""
    return tuple(figures[name] for name in names.split())


def main(check: Callable[[Path, Path | None], Report], folders: Sequence[str], description: str) -> None:
    """Run a check on its sets, say what it skipped, and exit non-zero naming every problem."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus", type=Path, help="another copy of the corpus eval.yaml names")
    args = parser.parse_args()
    failed = False
    for name in folders:
        report = check(EVALUATION / name, args.corpus)
        for line in report.skipped:
            print(f"{name}: skipped: {line}")
        for line in report.problems:
            print(f"{name}: {line}", file=sys.stderr)
        print(f"{name}: {len(report.problems)} problems")
        failed = failed or bool(report.problems)
    sys.exit(1 if failed else 0)


# -- judged sets of documentation sections (npm_docs, pydantic_docs, redux_docs) ---------------------------------


def docs_sections(corpus: Path) -> set[str]:
    """The section ids an ingest of the docs folder `corpus` into the `docs` collection would make (chunk ids,
    `#chunkN` cut), by the docs indexing pipeline up to its first embedder: no model, no store."""
    import tempfile

    from haygate.components.chunk_ids import record_of
    from haygate.gateway.loader import Loader
    from haygate.ingest.indexer import planned_documents
    from haygate.ingest.readers import read_records
    from haygate.settings import Settings

    with tempfile.TemporaryDirectory() as data:
        values: dict[str, Any] = {"qdrant_url": None, "qdrant_api_key": None, "token": None}
        settings = Settings(home=PROJECT, data_dir=Path(data), tier="public", project_id="default", **values)
        with Loader(settings) as loader:
            preview, schema = loader.preview("docs"), loader.schema("docs")
            records = read_records(corpus, schema.read_options())
            return {record_of(doc.id) for doc in planned_documents(preview, schema, records)}


def page_folder(doc: str) -> str:
    """The folder of a section id's page (`file:api/Store.md#...` -> `api`); `top` for a page at the corpus
    root. Only the path before the first `#` counts: a heading path may hold a `/` of its own."""
    path = doc.removeprefix("file:").split("#", 1)[0]
    return path.split("/", 1)[0] if "/" in path else "top"


@dataclass(frozen=True)
class SectionSet:
    """What a documentation set's check states of itself: its query ids' prefix (`n1`, `n2`...), the kinds and
    folders a query may name, and the README figures of its own (from the set, its sections, its corpus)."""

    prefix: str
    kinds: tuple[str, ...]
    folders: tuple[str, ...]
    figures: Callable[[JudgedSet, set[str], Path], dict[str, object]] = lambda *_: {}


def check_sections(spec: SectionSet, folder: Path, corpus: Path | None) -> Report:
    """Every problem of the section set in `folder` (`corpus` replaces the docs folder eval.yaml names, from
    `folder`): judged ids that are no section, ids out of order, grades other than 1 and 2, a query with no
    score-2 section in its folder, and README figures the data no longer gives."""
    report = Report()
    judged = load(folder)
    path = corpus or folder / str(judged.spec.get("corpus"))
    known = docs_sections(path) if path.is_dir() else set()
    if not path.is_dir():
        report.skipped.append(f"{path} is absent: whether every judged id is one of its sections is not checked")
    elif not known:
        report.problems.append(f"{path}: the docs pipeline makes no sections of it")
    report.problems += common(judged, dict.fromkeys(known), spec.kinds, empty=(), picked=None)
    ids = [q.id for q in judged.queries]
    if ids != [f"{spec.prefix}{i}" for i in range(1, len(ids) + 1)]:
        report.problems.append(f"queries.jsonl: the ids are not {spec.prefix}1, {spec.prefix}2, ... in order")
    for q in judged.queries:
        grade2 = [doc for doc, score in q.qrels.items() if score == 2]
        report.problems += [f"{q.id}: {doc} has score {s}" for doc, s in q.qrels.items() if s not in (1, 2)]
        if not grade2:
            report.problems.append(f"{q.id}: no section with score 2")
        elif q.metadata.get("folder") not in spec.folders or not any(
            page_folder(doc) == q.metadata["folder"] for doc in grade2
        ):
            report.problems.append(f"{q.id}: folder {q.metadata.get('folder')} is none of its score-2 sections'")
    judgments = [doc for q in judged.queries for doc in q.qrels]
    sizes = [len(q.qrels) for q in judged.queries] or [0]
    figures: dict[str, object] = {
        **basic_figures(judged),
        r"They name ([\d,]+) distinct sections": len(set(judgments)),
        r"Each query has (\d+) to (\d+) judged sections\. (\d+) queries have more than 10": (
            min(sizes),
            max(sizes),
            sum(size > 10 for size in sizes),
        ),
        **spec.figures(judged, known, path),
    }
    if known:
        figures[r"which haygate cuts into ([\d,]+) sections"] = len(known)
    columns: dict[str, Callable[[list[Query]], object]] = {
        "queries": len,
        **{name: _in_folder(name) for name in spec.folders},
        "qrels lines": COUNTS["qrels lines"],
        "with score 2": lambda queries: sum(s == 2 for q in queries for s in q.qrels.values()),
    }
    report.problems += table(judged, columns) + stated(judged, figures)
    return report


def _in_folder(folder: str) -> Callable[[list[Query]], int]:
    """A count column of the README table: the queries written for a section of `folder`."""
    return lambda queries: sum(q.metadata.get("folder") == folder for q in queries)
