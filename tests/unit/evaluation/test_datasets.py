"""BEIR-layout datasets are checked before anything is indexed; every problem names the file and line."""

import shutil
from pathlib import Path

import pytest

from haygate.errors import DatasetError
from haygate.evaluation.datasets import load_dataset

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
