"""`haygate eval` and `haygate tune` end to end on a tiny judged dataset written for these tests."""

import json
import re
from pathlib import Path

import pytest

from haygate.cli import main
from haygate.evaluation.datasets import OTHERS_PER_QUERY
from haygate.extras import extra_command
from haygate.gateway.loader import Loader
from haygate.settings import Settings
from tests.support.project import make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # ranx compiles its kernels; a model indexes the corpus
PROJECT = Path(__file__).resolve().parents[2]
TINY = PROJECT / "tests" / "fixtures" / "tiny_beir"
PIPELINES = PROJECT / "pipelines" / "eval"


@pytest.fixture
def data_dir(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CLI builds its Settings from the shell: point it at this test's data dir."""
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(settings.data_dir))
    return settings.data_dir


def test_eval_compares_every_variant_with_the_first_and_reuses_the_index(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = [
        "eval",
        "--dataset",
        str(TINY),
        "--split",
        "train",
        "--out",
        str(out),
        "--pipeline",
        str(PIPELINES / "beir_lexical.yaml"),
        "--pipeline",
        str(PIPELINES / "beir_hybrid.yaml"),
        "--pipeline",
        str(PIPELINES / "beir_dense.yaml"),
        "--metric",
        "precision@1",
    ]
    assert main([*argv, "--progress"]) == 0  # stderr is captured, no terminal: the bars are asked for
    bars = capsys.readouterr().err
    # The bars count documents indexed and queries run, with a rate and an ETA.
    assert re.search(r"index tiny_beir: 100%.*25/25 \[[0-9:]+<[0-9:]+, *[0-9.]+(doc/s|s/doc)\]", bars), bars
    assert re.search(r"query beir_dense: 100%.*5/5 \[[0-9:]+<[0-9:]+, *[0-9.]+(q/s|s/q)\]", bars), bars

    report = json.loads((out / "report.json").read_text())
    assert report["dataset"] == "tiny_beir" and report["split"] == "train" and report["n_queries"] == 5
    assert [v["name"] for v in report["variants"]] == ["beir_lexical", "beir_hybrid", "beir_dense"]
    metrics = {"ndcg@10", "recall@100", "mrr@10", "map@100", "precision@1"}
    for variant in report["variants"]:
        assert set(variant["metrics"]) == metrics
        assert 0.5 < variant["metrics"]["ndcg@10"] <= 1.0  # the fixture's judged answers are easy to find
        assert variant["latency_ms"]["p95"] >= variant["latency_ms"]["p50"] > 0
    assert report["baseline"] == "beir_lexical"
    compared = {(c["baseline"], c["variant"], c["metric"]) for c in report["comparisons"]}
    assert compared == {("beir_lexical", v, m) for v in ("beir_hybrid", "beir_dense") for m in metrics}
    by_name = {v["name"]: v["metrics"] for v in report["variants"]}
    for c in report["comparisons"]:
        assert 0 <= c["p_value"] <= 1 and c["better"] + c["tied"] + c["worse"] == 5
        assert c["baseline_value"] == pytest.approx(by_name["beir_lexical"][c["metric"]], abs=1e-4)
        assert c["variant_value"] == pytest.approx(by_name[c["variant"]][c["metric"]], abs=1e-4)
        assert c["delta"] == pytest.approx(c["variant_value"] - c["baseline_value"], abs=2e-4)
    text = (out / "report.md").read_text()
    assert "| beir_lexical (baseline) |" in text
    assert "## beir_hybrid vs beir_lexical" in text and "## beir_dense vs beir_lexical" in text
    assert "| metric | beir_lexical | beir_dense | delta [95% CI] | p (t) | Holm p | p (rand.) | d_z [95% CI] |" in text
    holm = sorted(c["p_holm"] for c in report["comparisons"])  # six tests: Holm multiplies the smallest p by six
    assert holm[0] == pytest.approx(min(1.0, 6 * min(c["p_value"] for c in report["comparisons"])), rel=1e-2)
    trec = (out / "runs" / "beir_hybrid.trec").read_text().splitlines()
    assert trec[0].split()[1] == "Q0" and trec[0].split()[3] == "1"
    assert (out / "plot.png").read_bytes()[:4] == b"\x89PNG"
    stores = list((data_dir / "eval").iterdir())
    assert len(stores) == 1
    assert main([*argv[:-2], "--no-progress"]) == 0  # a second run reuses the same eval store
    assert list((data_dir / "eval").iterdir()) == stores
    assert "index tiny_beir" not in capsys.readouterr().err


def test_tune_writes_best_pipeline_and_validates(data_dir: Path, tmp_path: Path) -> None:
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


def test_unknown_metric_and_pipeline_fail_before_indexing(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["eval", "--dataset", str(TINY), "--split", "train", "--no-progress", "--out", str(tmp_path / "o")]
    assert main([*base, "--pipeline", str(PIPELINES / "beir_dense.yaml"), "--metric", "ndcg@ten"]) == 1
    assert "unknown metric 'ndcg@ten'" in capsys.readouterr().err
    assert main([*base, "--pipeline", str(tmp_path / "missing.yaml")]) == 2
    assert "missing.yaml: cannot read pipeline" in capsys.readouterr().err
    assert not (data_dir / "eval").exists()  # nothing was indexed


def test_a_quick_run_indexes_the_sample_alone(data_dir: Path, tmp_path: Path) -> None:
    """`--limit 1`: one judged query (q1: d1 and d21) over those two documents and the corpus's first
    OTHERS_PER_QUERY others; the figures are computed on that."""
    out = tmp_path / "out"
    argv = ["eval", "--dataset", str(TINY), "--split", "train", "--out", str(out), "--no-progress", "--limit", "1"]
    assert main([*argv, "--pipeline", str(PIPELINES / "beir_lexical.yaml")]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["n_queries"] == 1 and 0 < report["variants"][0]["metrics"]["ndcg@10"] <= 1
    [store] = (data_dir / "eval").iterdir()
    assert store.name.startswith("tiny_beir-limit-")
    with Loader(make_settings(store)) as loader:
        indexed = {str(d.meta["record_id"]) for d in loader.store("beir").meta_by_filter(None)}
    corpus = [json.loads(line)["_id"] for line in (TINY / "corpus.jsonl").read_text().splitlines()]
    assert indexed == {"d1", "d21", *[d for d in corpus if d not in {"d1", "d21"}][:OTHERS_PER_QUERY]}


@pytest.mark.parametrize("limit", ["0", "-3", "two"])
def test_a_limit_must_be_a_whole_number_of_at_least_one(limit: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["eval", "--dataset", str(TINY), "--pipeline", "x.yaml", "--limit", limit])
    assert stopped.value.code == 2
    assert f"expected a whole number of at least 1, got '{limit}'" in capsys.readouterr().err


def test_without_the_eval_extra_eval_says_what_to_install(tmp_path: Path) -> None:
    """ranx and matplotlib are the `eval` extra: where they are not installed (here: made unimportable),
    `haygate eval` exits 2 and names the extra, before it reads or indexes anything."""
    import os
    import subprocess
    import sys

    program = (
        "import sys; sys.modules['ranx'] = None; sys.modules['matplotlib'] = None; from haygate.cli import main; "
        f"sys.exit(main(['eval', '--dataset', {str(TINY)!r}, '--pipeline', {str(PIPELINES / 'beir_dense.yaml')!r}]))"
    )
    env = {**os.environ, "HAYGATE_HOME": str(PROJECT), "HAYGATE_DATA_DIR": str(tmp_path / "data")}
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "ranx and matplotlib" in done.stderr and extra_command("eval") in done.stderr, done.stderr
    assert not (tmp_path / "data").exists()
