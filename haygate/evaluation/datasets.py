"""BEIR-layout datasets: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`.

Everything is checked before any indexing starts, and every problem names the file and the line.
"""

import hashlib
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from haygate.errors import DatasetError
from haygate.gateway.judged_sets import read_grades, read_queries, read_rows, read_set_queries, relevant
from haygate.ingest.readers import files_under

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
    judged: dict[str, dict[str, int]] = field(default_factory=dict)  # every grade, 0 included (judged@k reads it)
    tags: dict[str, list[str]] = field(default_factory=dict)  # query id -> its `metadata.tags` in queries.jsonl

    @property
    def judgments(self) -> dict[str, dict[str, int]]:
        """Every judged result per query, grade 0 included: what a result must be in to count as judged."""
        return self.judged or self.qrels

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
        judged={q: dataset.judged[q] for q in kept if q in dataset.judged},
        tags={q: dataset.tags[q] for q in kept if q in dataset.tags},
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
    query_text = read_queries(queries_path)
    grades = read_grades(qrels_path, set(query_text), corpus_ids)
    qrels = relevant(grades)
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
    dataset = replace(dataset, judged={q: grades[q] for q in qrels}, tags=query_tags(queries_path, set(qrels)))
    return dataset if limit is None else limited(dataset, list(dataset.queries)[:limit])


def query_tags(path: Path, query_ids: set[str]) -> dict[str, list[str]]:
    """Each query's tags, for metrics per tag: `metadata.tags` (a list of names, or one name), and the
    `metadata.kind` the committed sets already give each query (`paraphrase`, `heading`, ...)."""
    tags = {}
    for number, record in read_rows(path):
        query_id, metadata = str(record["_id"]), record.get("metadata") or {}
        own = metadata.get("tags")
        if query_id not in query_ids or (own is None and not isinstance(metadata.get("kind"), str)):
            continue
        own = [] if own is None else [own] if isinstance(own, str) else own
        if not isinstance(own, list) or not all(isinstance(tag, str) and tag.strip() for tag in own):
            raise DatasetError(f"{path}:{number}: query '{query_id}': metadata.tags is a list of names, got {own!r}")
        kind = [metadata["kind"]] if isinstance(metadata.get("kind"), str) and metadata["kind"].strip() else []
        tags[query_id] = sorted({tag.strip() for tag in [*own, *kind]})
    return tags


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
    query_text = read_queries(queries_path)
    grades = read_grades(qrels_path, set(query_text), None)
    qrels = relevant(grades)
    if not qrels:
        raise DatasetError(f"{qrels_path}: no judgments with a positive score")
    metadata = {query_id: entry["metadata"] for query_id, entry in read_set_queries(root).items()}
    judged_anywhere = set(qrels)
    for other in sorted((root / "qrels").glob("*.tsv")):
        if other != qrels_path:
            judged_anywhere |= set(relevant(read_grades(other, set(query_text), None)))
    # A query judged in no split should find nothing; it belongs to the split its metadata names (default test).
    unjudged = {q for q in query_text if q not in judged_anywhere and metadata[q].get("split", "test") == split}
    dataset = Dataset(root, split, {q: query_text[q] for q in qrels}, qrels, 0)
    dataset = replace(dataset, judged={q: grades[q] for q in qrels}, tags=query_tags(queries_path, set(qrels)))
    return dataset, {q: (query_text[q], metadata[q]) for q in query_text if q in qrels or q in unjudged}


def _corpus_ids(path: Path) -> tuple[set[str], list[str]]:
    ids: set[str] = set()
    empty: list[str] = []
    for _, record in read_rows(path):
        ids.add(str(record["_id"]))
        if not (str(record.get("text") or "").strip() or str(record.get("title") or "").strip()):
            empty.append(str(record["_id"]))
    return ids, empty


def file_digest(path: Path) -> str:
    """Of a file's bytes; of a folder, the paths and bytes of every file haygate reads there."""
    digest = hashlib.sha256()
    files = [(path, "")] if not path.is_dir() else [(f, f.relative_to(path).as_posix()) for f in files_under(path)]
    for file, name in files:
        if name:  # a folder's file: its name counts (a file alone is its bytes, as eval stores were keyed before)
            digest.update(f"{name}\n".encode())
        with file.open("rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()
