"""BEIR-layout datasets are checked before anything is indexed; every problem names the file and line."""

import shutil
from pathlib import Path
from typing import Any

import pytest

from haygate.errors import DatasetError
from haygate.evaluation.datasets import OTHERS_PER_QUERY, limited, load_dataset, load_judged_queries
from haygate.gateway.judged_sets import write_set

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "tiny_beir"


@pytest.mark.parametrize(
    ("breakage", "fragment"),
    [
        (lambda d: (d / "queries.jsonl").unlink(), "queries.jsonl: missing"),
        (
            lambda d: (d / "corpus.jsonl").write_text('{"_id": "d1", "text": "x"}\nnot json\n'),
            "corpus.jsonl:2: invalid JSON",
        ),
        (
            lambda d: (d / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\nq404\td1\t1\n"),
            "train.tsv:2: query id 'q404' has judgments but no query",
        ),
        (
            lambda d: (d / "qrels" / "train.tsv").write_text("query-id\tcorpus-id\tscore\nq1\tnope\t1\n"),
            "train.tsv:2: corpus id 'nope' is not in corpus.jsonl",
        ),
        (lambda d: (d / "qrels" / "train.tsv").write_text("qid\tdid\n"), "train.tsv:1: expected the header"),
    ],
)
def test_bad_datasets_name_file_and_line(tmp_path: Path, breakage, fragment: str) -> None:  # type: ignore[no-untyped-def]
    dataset = tmp_path / "tiny_beir"
    shutil.copytree(TINY, dataset)
    breakage(dataset)
    with pytest.raises(DatasetError, match=fragment.replace("(", r"\(")):
        load_dataset(dataset, "train")


def test_empty_documents_are_reported_not_fatal() -> None:
    dataset = load_dataset(TINY, "train")
    assert dataset.empty_documents == ("d25",) and dataset.corpus_size == 25


def test_unknown_split_lists_available(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="splits available: test, train"):
        load_dataset(TINY, "dev")


def write_judged_queries(folder: Path, queries: list[dict[str, Any]], qrels: dict[str, dict[str, int]]) -> None:
    """A set as the Judge tab writes one (`write_set`): each query's judgments in the split its metadata names."""
    entries = {
        q["_id"]: {"id": q["_id"], "text": q["text"], "split": q["metadata"].get("split", "test")} for q in queries
    }
    by_split: dict[str, dict[str, dict[str, int]]] = {}
    for query_id, judged in qrels.items():
        by_split.setdefault(entries[query_id]["split"], {})[query_id] = judged
    write_set(folder, entries, by_split)


def test_a_written_judged_set_reads_back(tmp_path: Path) -> None:
    """What a judged set's builder writes is what evaluation reads, graded scores included."""
    shutil.copy(TINY / "corpus.jsonl", tmp_path / "corpus.jsonl")
    corpus_ids = [line.split('"')[3] for line in (TINY / "corpus.jsonl").read_text().splitlines()[:2]]
    queries = [
        {"_id": "a", "text": "first question", "metadata": {"kind": "paraphrase"}, "_relevant": "ignored"},
        {"_id": "b", "text": "nobody asked", "metadata": {}},
    ]
    write_judged_queries(tmp_path, queries, {"a": {corpus_ids[0]: 2, corpus_ids[1]: 1}})
    dataset = load_dataset(tmp_path, "test")
    assert dataset.queries == {"a": "first question"}  # only judged queries are scored
    assert dataset.qrels == {"a": {corpus_ids[0]: 2, corpus_ids[1]: 1}}


def test_a_written_judged_set_keeps_each_query_in_its_split(tmp_path: Path) -> None:
    """A calibration split and a held-out split in one set: each query's judgments go where its metadata says."""
    shutil.copy(TINY / "corpus.jsonl", tmp_path / "corpus.jsonl")
    first, second = [line.split('"')[3] for line in (TINY / "corpus.jsonl").read_text().splitlines()[:2]]
    queries = [
        {"_id": "a", "text": "tuned on", "metadata": {"split": "dev"}},
        {"_id": "b", "text": "held out", "metadata": {}},
        {"_id": "c", "text": "nonsense held out", "metadata": {}},
    ]
    write_judged_queries(tmp_path, queries, {"a": {first: 1}, "b": {second: 1}})
    assert load_dataset(tmp_path, "dev").qrels == {"a": {first: 1}}
    assert load_dataset(tmp_path, "test").qrels == {"b": {second: 1}}
    _, test_queries = load_judged_queries(tmp_path, "test")
    assert sorted(test_queries) == ["b", "c"]  # the unjudged one belongs to its own split, test


def test_a_limited_dataset_keeps_the_first_judged_queries_and_samples_the_corpus() -> None:
    full = load_dataset(TINY, "train")
    quick = load_dataset(TINY, "train", limit=2)
    assert list(quick.queries) == list(full.queries)[:2] == ["q1", "q2"]
    assert quick.qrels == {"q1": {"d1": 2, "d21": 1}, "q2": {"d2": 2}}
    assert quick.sample is not None and quick.sample.judged == {"d1", "d21", "d2"}
    assert quick.sample.others == 2 * OTHERS_PER_QUERY
    assert quick.corpus_size == min(full.corpus_size, 3 + 2 * OTHERS_PER_QUERY)
    assert quick.store_name != full.store_name == "tiny_beir"  # another sample is another eval index
    assert load_dataset(TINY, "train", limit=3).store_name != quick.store_name


def test_a_limit_past_the_judged_queries_is_the_whole_split() -> None:
    assert load_dataset(TINY, "train", limit=50).queries == load_dataset(TINY, "train").queries


def test_a_limit_whose_queries_have_no_judgments_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    write_judged_queries(
        folder,
        [{"_id": "u1", "text": "nothing", "metadata": {}}, {"_id": "j1", "text": "something", "metadata": {}}],
        {"j1": {"d1": 1}},
    )
    dataset, _ = load_judged_queries(folder, "test")
    with pytest.raises(DatasetError, match="none of the first 1 queries has judgments; raise --limit"):
        limited(dataset, ["u1"])
