"""BEIR-layout datasets: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`.

Everything is checked before any indexing starts, and every problem names the file and the line.
"""

import csv
import hashlib
import json
import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from haygate.errors import DatasetError
from haygate.ingest.readers import read_records

logger = logging.getLogger(__name__)

OTHERS_PER_QUERY = 10  # a limited run's corpus: the kept queries' judged records and this many others per query


@dataclass(frozen=True)
class CorpusSample:
    """A limited run's corpus (`--limit`): the judged records of the kept queries, and the corpus's first
    `others` records besides, in file order. Small enough to index in seconds, with something to rank against;
    its figures are not comparable with a full run's."""

    judged: frozenset[str]
    others: int

    @property
    def key(self) -> str:
        """Names the sample in an eval store's folder: another sample is another index."""
        text = "\n".join([str(self.others), *sorted(self.judged)])
        return hashlib.sha256(text.encode()).hexdigest()[:8]


@dataclass(frozen=True)
class Dataset:
    root: Path
    split: str
    queries: dict[str, str]  # judged queries only
    qrels: dict[str, dict[str, int]]
    corpus_size: int
    empty_documents: tuple[str, ...] = ()  # real corpora have some (Cranfield): kept unretrievable, not fatal
    sample: CorpusSample | None = None  # set by `limited`: index only part of the corpus

    @property
    def store_name(self) -> str:
        """The eval store's name for this corpus (and sample)."""
        return self.name if self.sample is None else f"{self.name}-limit-{self.sample.key}"

    @property
    def name(self) -> str:
        return self.root.name

    @property
    def corpus_path(self) -> Path:
        return self.root / "corpus.jsonl"


def limited(dataset: Dataset, query_ids: list[str]) -> Dataset:
    """The dataset cut to the judged ones of `query_ids`, over a corpus sample (`CorpusSample`)."""
    kept = [q for q in query_ids if q in dataset.qrels]
    if not kept:
        raise DatasetError(f"{dataset.root}: none of the first {len(query_ids)} queries has judgments; raise --limit")
    judged = frozenset(doc for q in kept for doc in dataset.qrels[q])
    sample = CorpusSample(judged, OTHERS_PER_QUERY * len(query_ids))
    size = min(dataset.corpus_size, len(judged) + sample.others) if dataset.corpus_size else 0
    return replace(
        dataset,
        queries={q: dataset.queries[q] for q in kept},
        qrels={q: dataset.qrels[q] for q in kept},
        corpus_size=size,
        sample=sample,
    )


def load_dataset(root: Path, split: str, limit: int | None = None) -> Dataset:
    """`limit`: only the first `limit` judged queries, over a sample of the corpus (`limited`)."""
    root = Path(root)
    corpus_path, queries_path, qrels_path = (
        root / "corpus.jsonl",
        root / "queries.jsonl",
        root / "qrels" / f"{split}.tsv",
    )
    if not root.is_dir():
        raise DatasetError(f"{root}: not a dataset folder (expected corpus.jsonl, queries.jsonl, qrels/)")
    for path in (corpus_path, queries_path, qrels_path):
        if not path.exists():
            available = sorted(p.stem for p in (root / "qrels").glob("*.tsv")) if (root / "qrels").is_dir() else []
            hint = f"; splits available: {', '.join(available) or 'none'}" if path == qrels_path else ""
            raise DatasetError(f"{path}: missing (BEIR layout: corpus.jsonl, queries.jsonl, qrels/<split>.tsv){hint}")
    corpus_ids, empty = _corpus_ids(corpus_path)
    query_text = _queries(queries_path)
    qrels = _qrels(qrels_path, set(query_text), corpus_ids)
    if not qrels:
        raise DatasetError(f"{qrels_path}: no judgments with a positive score")
    if empty:
        logger.warning(
            "%s: %d documents have neither title nor text (e.g. '%s'); they cannot be retrieved",
            corpus_path,
            len(empty),
            empty[0],
        )
    dataset = Dataset(root, split, {q: query_text[q] for q in qrels}, qrels, len(corpus_ids), tuple(empty))
    return dataset if limit is None else limited(dataset, list(dataset.queries)[:limit])


def load_judged_queries(root: Path, split: str) -> tuple[Dataset, dict[str, tuple[str, dict[str, Any]]]]:
    """A judged set whose corpus is not in the folder (a tool's judged set): the dataset of its judged
    queries, and every query of this split with its text and `metadata`: the judged ones, and those judged in
    no split (they should find nothing) whose `metadata.split` is this one (default `test`). The corpus size
    is 0: the corpus is counted when it is indexed."""
    root = Path(root)
    queries_path, qrels_path = root / "queries.jsonl", root / "qrels" / f"{split}.tsv"
    for path in (queries_path, qrels_path):
        if not path.exists():
            raise DatasetError(f"{path}: missing (a judged set holds queries.jsonl and qrels/<split>.tsv)")
    query_text = _queries(queries_path)
    qrels = _qrels(qrels_path, set(query_text), None)
    if not qrels:
        raise DatasetError(f"{qrels_path}: no judgments with a positive score")
    metadata = {str(r["_id"]): dict(r.get("metadata") or {}) for _, r in _records(queries_path)}
    judged_anywhere = set(qrels)
    for other in sorted((root / "qrels").glob("*.tsv")):
        if other != qrels_path:
            judged_anywhere |= set(_qrels(other, set(query_text), None))
    # A query judged in no split should find nothing; it belongs to the split its metadata names (default test).
    unjudged = {q for q in query_text if q not in judged_anywhere and metadata[q].get("split", "test") == split}
    dataset = Dataset(root, split, {q: query_text[q] for q in qrels}, qrels, 0)
    return dataset, {q: (query_text[q], metadata[q]) for q in query_text if q in qrels or q in unjudged}


def _records(path: Path) -> list[tuple[int, dict]]:
    """JSONL through the ingest reader (one parser for the project), but here the first bad line is fatal."""
    rows = []
    for record in read_records(path):
        if record.error or record.data is None:
            raise DatasetError(f"{path}:{record.line}: {record.error}")
        if not str(record.data.get("_id", "")).strip():
            raise DatasetError(f"{path}:{record.line}: a record needs a non-empty '_id'")
        rows.append((record.line, record.data))
    return rows


def _corpus_ids(path: Path) -> tuple[set[str], list[str]]:
    ids: set[str] = set()
    empty: list[str] = []
    for _, record in _records(path):
        ids.add(str(record["_id"]))
        if not (str(record.get("text") or "").strip() or str(record.get("title") or "").strip()):
            empty.append(str(record["_id"]))
    return ids, empty


def _queries(path: Path) -> dict[str, str]:
    queries = {}
    for number, record in _records(path):
        text = str(record.get("text") or "").strip()
        if not text:
            raise DatasetError(f"{path}:{number}: query '{record['_id']}' has no text")
        queries[str(record["_id"])] = text
    return queries


def _qrels(path: Path, query_ids: set[str], corpus_ids: set[str] | None) -> dict[str, dict[str, int]]:
    """`corpus_ids` None: the corpus is not a BEIR file, and the judged ids are checked once it is indexed."""
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader, None)
        if header is None or [h.strip() for h in header[:3]] != ["query-id", "corpus-id", "score"]:
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
            if grade > 0:
                qrels.setdefault(query_id, {})[corpus_id] = grade
    return qrels


def file_digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_judged_queries(folder: Path, queries: list[dict[str, Any]], qrels: dict[str, dict[str, int]]) -> None:
    """Write a judged set's `queries.jsonl` (each `{_id, text, metadata}`) and its `qrels/<split>.tsv` files in
    the BEIR layout that `load_dataset` reads: a query's judgments go to the split its `metadata.split` names
    (default `test`), the rule `load_judged_queries` reads back. The corpus stays where the builder found it."""
    (folder / "qrels").mkdir(parents=True, exist_ok=True)
    with (folder / "queries.jsonl").open("w") as file:
        for query in queries:
            file.write(json.dumps({key: query[key] for key in ("_id", "text", "metadata")}) + "\n")
    splits: dict[str, list[str]] = {}
    for query in queries:
        splits.setdefault(str((query.get("metadata") or {}).get("split", "test")), []).append(query["_id"])
    for split, query_ids in splits.items():
        with (folder / "qrels" / f"{split}.tsv").open("w") as file:
            file.write("query-id\tcorpus-id\tscore\n")
            for query_id in query_ids:
                file.writelines(f"{query_id}\t{doc_id}\t{score}\n" for doc_id, score in qrels.get(query_id, {}).items())
