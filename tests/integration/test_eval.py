"""`haygate eval` and `haygate tune` end to end on a tiny judged dataset written for these tests."""

import json
import shutil
from pathlib import Path

import pytest

from haygate.cli import main
from haygate.evaluation.datasets import DatasetError, load_dataset

pytestmark = pytest.mark.integration
PROJECT = Path(__file__).resolve().parents[2]
TINY = PROJECT / "tests" / "fixtures" / "tiny_beir"
PIPELINES = PROJECT / "pipelines"


def test_eval_writes_reports_and_reuses_the_index(haygate_env: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    argv = [
        "eval",
        "--dataset",
        str(TINY),
        "--split",
        "train",
        "--no-progress",
        "--out",
        str(out),
        "--pipeline",
        str(PIPELINES / "beir_lexical.yaml"),
        "--pipeline",
        str(PIPELINES / "beir_hybrid.yaml"),
        "--metric",
        "precision@1",
    ]
    assert main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["dataset"] == "tiny_beir" and report["split"] == "train" and report["n_queries"] == 5
    assert [v["name"] for v in report["variants"]] == ["beir_lexical", "beir_hybrid"]
    for variant in report["variants"]:
        assert set(variant["metrics"]) == {"ndcg@10", "recall@100", "mrr@10", "map@100", "precision@1"}
        assert 0.5 < variant["metrics"]["ndcg@10"] <= 1.0  # the fixture's judged answers are easy to find
        assert variant["latency_ms"]["p95"] >= variant["latency_ms"]["p50"] > 0
    comparison = report["comparisons"][0]
    assert comparison.keys() == {"a", "b", "metric", "delta", "p_value"} and 0 <= comparison["p_value"] <= 1
    assert "| beir_hybrid |" in (out / "report.md").read_text()
    trec = (out / "runs" / "beir_hybrid.trec").read_text().splitlines()
    assert trec[0].split()[1] == "Q0" and trec[0].split()[3] == "1"
    assert (out / "plot.png").read_bytes()[:4] == b"\x89PNG"
    stores = list((haygate_env / "eval").iterdir())
    assert len(stores) == 1
    assert main([*argv[:-2]]) == 0  # a second run reuses the same eval store
    assert list((haygate_env / "eval").iterdir()) == stores


def test_tune_writes_best_pipeline_and_validates(haygate_env: Path, tmp_path: Path) -> None:
    out = tmp_path / "tune"
    assert (
        main(
            [
                "tune",
                "--dataset",
                str(TINY),
                "--split",
                "train",
                "--validate-split",
                "test",
                "--no-progress",
                "--pipeline",
                str(PIPELINES / "beir_hybrid.yaml"),
                "--grid",
                str(PROJECT / "tests" / "fixtures" / "tiny_grid.yaml"),
                "--out",
                str(out),
            ]
        )
        == 0
    )
    summary = json.loads((out / "tune.json").read_text())
    assert len(summary["points"]) == 4
    scores = [p["metrics"]["ndcg@10"] for p in summary["points"]]
    assert scores == sorted(scores, reverse=True)
    assert summary["best"]["params"] == summary["points"][0]["params"]
    best = Path(summary["best"]["pipeline"])
    assert best.exists() and "Tuned by `haygate tune`" in best.read_text()
    assert set(summary["validation"]) == {"split", "default", "best"}
    assert main(["validate"]) == 0
    assert "| 1 |" in (out / "tune.md").read_text()


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


def test_unknown_metric_and_pipeline_fail_before_indexing(
    haygate_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["eval", "--dataset", str(TINY), "--split", "train", "--no-progress", "--out", str(tmp_path / "o")]
    assert main([*base, "--pipeline", str(PIPELINES / "beir_dense.yaml"), "--metric", "ndcg@ten"]) == 1
    assert "unknown metric 'ndcg@ten'" in capsys.readouterr().err
    assert main([*base, "--pipeline", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml: cannot read pipeline" in capsys.readouterr().err
    assert not (haygate_env / "eval").exists()  # nothing was indexed
