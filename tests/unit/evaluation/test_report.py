"""Every variant is compared with the first (the baseline) by ranx, in report.json, report.md and the plot."""

import json
from pathlib import Path

import numpy as np
import pytest

from haygate.evaluation.datasets import Dataset, load_dataset
from haygate.evaluation.report import comparison_figure, markdown, report_dict, write_report
from haygate.evaluation.runner import Comparison, VariantResult, compare_with_baseline, score

TINY = Path(__file__).resolve().parents[2] / "fixtures" / "tiny_beir"
METRICS = ["ndcg@10", "mrr@10", "recall@100"]


def ranked(*doc_ids: str) -> dict[str, float]:
    """A ranking as the runner stores it: scores from ranks."""
    return {doc_id: 1.0 / rank for rank, doc_id in enumerate(doc_ids, start=1)}


# Train split judgments: q1 -> d1 (d21), q2 -> d2, q3 -> d21 (d22), q4 -> d5, q5 -> d10.
BASELINE_RUN = {
    "q1": ranked("d7", "d8", "d1"),
    "q2": ranked("d7", "d8", "d2"),
    "q3": ranked("d7", "d8", "d21"),
    "q4": ranked("d7", "d8", "d5"),
    "q5": ranked("d7", "d8", "d10"),
}
BETTER_RUN = {  # better on three queries, worse on one, tied on one
    "q1": ranked("d1", "d21"),
    "q2": ranked("d2"),
    "q3": ranked("d8", "d21", "d22"),
    "q4": ranked("d7", "d8", "d5"),
    "q5": ranked("d7", "d8", "d9", "d10"),
}


@pytest.fixture(scope="module")
def dataset() -> Dataset:
    return load_dataset(TINY, "train")


def variant(name: str, run: dict[str, dict[str, float]], dataset: Dataset) -> VariantResult:
    result = VariantResult(name=name, pipeline=f"{name}.yaml", run=run, latencies_ms=[1.0, 2.0, 3.0])
    score(result, dataset, METRICS)
    return result


@pytest.fixture(scope="module")
def three(dataset: Dataset) -> list[VariantResult]:
    """A baseline, a variant that differs from it, and one identical to it."""
    runs = {"base": BASELINE_RUN, "better": BETTER_RUN, "same": BASELINE_RUN}
    return [variant(name, run, dataset) for name, run in runs.items()]


@pytest.fixture(scope="module")
def comparisons(three: list[VariantResult], dataset: Dataset) -> list[Comparison]:
    return compare_with_baseline(three, dataset, METRICS)


def test_every_variant_is_compared_with_the_first_only(comparisons: list[Comparison]) -> None:
    pairs = [(c.baseline, c.variant, c.metric) for c in comparisons]
    assert pairs == [("base", v, m) for v in ("better", "same") for m in METRICS]


def test_comparison_numbers_match_the_per_query_scores(
    three: list[VariantResult], comparisons: list[Comparison]
) -> None:
    base, better, _ = three
    [ndcg] = [c for c in comparisons if c.variant == "better" and c.metric == "ndcg@10"]
    left = np.array([base.per_query["ndcg@10"][q] for q in sorted(base.per_query["ndcg@10"])])
    right = np.array([better.per_query["ndcg@10"][q] for q in sorted(base.per_query["ndcg@10"])])
    assert ndcg.baseline_value == pytest.approx(base.metrics["ndcg@10"], abs=1e-4)
    assert ndcg.variant_value == pytest.approx(better.metrics["ndcg@10"], abs=1e-4)
    assert ndcg.delta == pytest.approx(right.mean() - left.mean(), abs=1e-4) and ndcg.delta > 0
    from scipy.stats import ttest_rel  # here, not at collection: a second of every worker's start

    assert ndcg.p_value == pytest.approx(ttest_rel(right, left).pvalue, rel=1e-3)  # scipy as an independent check
    assert (ndcg.better, ndcg.tied, ndcg.worse) == (3, 1, 1)
    assert ndcg.significant == (ndcg.p_value <= 0.05)


def test_an_identical_variant_has_no_difference(comparisons: list[Comparison]) -> None:
    for same in (c for c in comparisons if c.variant == "same"):
        assert (same.delta, same.p_value, same.significant) == (0.0, 1.0, False)
        assert (same.better, same.tied, same.worse) == (0, 5, 0)


def test_markdown_has_one_table_per_variant_against_the_baseline(
    dataset: Dataset, three: list[VariantResult], comparisons: list[Comparison]
) -> None:
    text = markdown(report_dict(dataset, three, comparisons), three)
    assert "| base (baseline) |" in text and "| better |" in text
    assert "## better vs base" in text and "## same vs base" in text and "vs better" not in text
    header = "| metric | base | better | delta [95% CI] | p (t) | Holm p | p (rand.) | d_z [95% CI] |"
    assert header + " better / tied / worse |" in text
    [ndcg] = [c for c in comparisons if c.variant == "better" and c.metric == "ndcg@10"]
    low, high = ndcg.delta_interval
    row = (
        f"| ndcg@10 | {ndcg.baseline_value:.4f} | {ndcg.variant_value:.4f} | {ndcg.delta:+.4f} "
        f"[{low:+.3f}, {high:+.3f}] | {ndcg.p_value:.4g} | {ndcg.p_holm:.4g}"
    )
    assert row in text and "| 3 / 1 / 1 |" in text


def test_plot_has_a_difference_panel_for_every_variant(
    three: list[VariantResult], comparisons: list[Comparison]
) -> None:
    figure = comparison_figure(three, comparisons)
    axes = [a for a in figure.axes if a.get_visible()]
    assert len(axes) == 3
    means, *differences = axes
    assert len(means.patches) == 3 and "ndcg@10 per variant" in means.get_title()
    assert [a.get_title().splitlines()[0] for a in differences] == [
        "per-query ndcg@10: better minus base",
        "per-query ndcg@10: same minus base",
    ]
    assert all(len(a.patches) == 5 for a in differences)  # one bar per judged query
    assert differences[0].get_ylim() == differences[1].get_ylim()  # one scale, comparable by eye
    assert "3 better, 1 worse, 1 tied" in differences[0].get_xlabel()


def test_plot_wraps_five_variants_into_rows(dataset: Dataset) -> None:
    five = [variant(name, BETTER_RUN if i % 2 else BASELINE_RUN, dataset) for i, name in enumerate("abcde")]
    figure = comparison_figure(five, compare_with_baseline(five, dataset, METRICS))
    visible = [a for a in figure.axes if a.get_visible()]
    assert len(visible) == 5 and len(figure.axes) == 6  # a 2 x 3 grid, the last cell hidden
    assert {a.get_title().splitlines()[0] for a in visible[1:]} == {
        f"per-query ndcg@10: {name} minus a" for name in "bcde"
    }


def test_write_report_structures_the_comparisons(
    tmp_path: Path, dataset: Dataset, three: list[VariantResult], comparisons: list[Comparison]
) -> None:
    write_report(tmp_path, dataset, three, comparisons)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["baseline"] == "base" and report["stat_test"] == "student" and report["alpha"] == 0.05
    assert {(c["variant"], c["metric"]) for c in report["comparisons"]} == {
        (v, m) for v in ("better", "same") for m in METRICS
    }
    assert set(report["comparisons"][0]) == {
        "baseline",
        "variant",
        "metric",
        "baseline_value",
        "variant_value",
        "delta",
        "p_value",
        "significant",
        "better",
        "tied",
        "worse",
        "delta_interval",
        "effect_size",
        "effect_interval",
        "p_randomization",
        "p_holm",
        "significant_holm",
    }
    assert (tmp_path / "qrels.trec").read_text().splitlines()[0].split()[:3] == ["q1", "0", "d1"]
    from ranx import Qrels, Run, evaluate  # the files as another tool reads them: TREC runs and qrels

    again = evaluate(
        Qrels.from_file(str(tmp_path / "qrels.trec"), kind="trec"),
        Run.from_file(str(tmp_path / "runs" / "better.trec"), kind="trec"),
        "ndcg@10",
    )
    assert again == pytest.approx(report["variants"][1]["metrics"]["ndcg@10"], abs=1e-4)
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == ["base.trec", "better.trec", "same.trec"]


def test_a_single_variant_has_no_comparisons(tmp_path: Path, dataset: Dataset) -> None:
    alone = [variant("base", BASELINE_RUN, dataset)]
    assert compare_with_baseline(alone, dataset, METRICS) == []
    report = write_report(tmp_path, dataset, alone, [])
    assert report["baseline"] == "base" and report["comparisons"] == []
    assert " vs " not in (tmp_path / "report.md").read_text()
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"


def test_an_interval_stays_within_the_metric_range() -> None:
    from haygate.evaluation.report import confidence_interval

    low, high = confidence_interval([1.0, 1.0, 1.0, 0.0])
    assert 0.0 <= low < 0.75 < high == 1.0  # the symmetric interval would pass 1.0
    assert confidence_interval([0.0, 0.0, 0.1])[0] == 0.0
    assert confidence_interval([0.5]) == (0.5, 0.5)


def test_judged_at_k_and_condensed_lists_say_what_the_figures_rest_on(
    dataset: Dataset, three: list[VariantResult]
) -> None:
    """The baseline's top 10 holds three results per query, one of them judged: judged@10 is a third, and its
    condensed lists (unjudged removed) put the judged result first."""
    base, better, _ = three
    assert base.judged_k == 10 and base.judged_at == {q: pytest.approx(1 / 3) for q in BASELINE_RUN}
    assert better.judged_at["q1"] == 1.0 and better.judged_at["q3"] == pytest.approx(2 / 3)
    assert base.condensed["mrr@10"] == 1.0 and base.metrics["mrr@10"] == pytest.approx(1 / 3, abs=1e-4)
    report = report_dict(dataset, three, [])
    [warning, *_] = report["warnings"]
    assert warning.startswith("base: only 33% of its top 10 was judged (judged@10)") and "q1 (33%" in warning
    assert report["variants"][0]["judged_at_k"]["mean"] == pytest.approx(1 / 3, abs=1e-4)
    text = markdown(report, three)
    assert "> **Warning.** base: only 33%" in text
    assert "| base | 33% | 0.4520 / 0.9041 | 0.3333 / 1.0000 |" in text  # default and condensed, per metric


def test_holm_randomization_and_effect_sizes_beside_the_t_test(comparisons: list[Comparison]) -> None:
    """Holm over all six comparisons, an exact randomization test over the 2^5 sign flips, d_z with intervals."""
    import itertools

    ranked = sorted(comparisons, key=lambda c: c.p_value)
    holm = []
    for rank, c in enumerate(ranked):
        holm.append(max([*holm[-1:], min(1.0, (len(ranked) - rank) * c.p_value)]))
    assert [c.p_holm for c in ranked] == pytest.approx(holm, rel=1e-3)
    assert all(c.significant_holm == (c.p_holm <= 0.05) for c in comparisons)
    [ndcg] = [c for c in comparisons if c.variant == "better" and c.metric == "ndcg@10"]
    assert ndcg.delta_interval[0] < ndcg.delta < ndcg.delta_interval[1]
    assert ndcg.effect_size is not None and ndcg.effect_size > 0
    same = [c for c in comparisons if c.variant == "same"]
    assert all((c.p_randomization, c.effect_size, c.p_holm) == (1.0, 0.0, 1.0) for c in same)
    assert 0 < ndcg.p_randomization <= 1 and ndcg.p_randomization * 32 == pytest.approx(
        round(ndcg.p_randomization * 32)
    )  # exact: a count of the 32 sign flips
    assert len(list(itertools.product((1, -1), repeat=5))) == 32


def test_per_query_differences_name_the_queries_and_their_moves(
    dataset: Dataset, three: list[VariantResult], comparisons: list[Comparison]
) -> None:
    report = report_dict(dataset, three, comparisons)
    rows = report["per_query_differences"]["better"]
    assert [row["query"] for row in rows] == ["q1", "q2", "q3", "q5"]  # the biggest gain first, the loss last
    assert rows[0]["moves"] == [  # the biggest rise first: d21 came from beyond the run
        {"doc": "d21", "grade": 1, "from": None, "to": 2},
        {"doc": "d1", "grade": 2, "from": 3, "to": 1},
    ]
    assert rows[-1]["delta"] < 0 and report["per_query_differences"]["same"] == []
    assert "Queries that moved most on ndcg@10" in markdown(report, three)


def test_queries_carry_tags_and_the_report_scores_each_tag(tmp_path: Path) -> None:
    """`metadata.tags` in queries.jsonl (a list, or one name): every metric's mean per tag, per variant."""
    import shutil

    copy = tmp_path / "tiny"
    shutil.copytree(TINY, copy)
    rows = [json.loads(line) for line in (copy / "queries.jsonl").read_text().splitlines() if line.strip()]
    for row in rows:
        row["metadata"] = {"tags": ["navigational"] if row["_id"] in ("q1", "q2") else "paraphrase"}
    (copy / "queries.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    tagged = load_dataset(copy, "train")
    assert tagged.tags["q1"] == ["navigational"] and tagged.tags["q3"] == ["paraphrase"]
    results = [variant(name, run, tagged) for name, run in {"base": BASELINE_RUN, "better": BETTER_RUN}.items()]
    report = report_dict(tagged, results, [])
    navigational = report["by_tag"]["navigational"]
    assert navigational["queries"] == 2
    expected = (results[1].per_query["mrr@10"]["q1"] + results[1].per_query["mrr@10"]["q2"]) / 2
    assert navigational["variants"]["better"]["mrr@10"] == pytest.approx(expected, abs=1e-4)
    assert "## Metrics per tag" in markdown(report, results) and "| paraphrase | 3 | base |" in markdown(
        report, results
    )
    rows[0]["metadata"] = {"tags": [3]}
    (copy / "queries.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    with pytest.raises(Exception, match=r"queries.jsonl:1: query 'q1': metadata.tags is a list of names"):
        load_dataset(copy, "train")


def test_rank_biased_overlap_says_what_a_change_moved(
    dataset: Dataset, three: list[VariantResult], comparisons: list[Comparison]
) -> None:
    from haygate.evaluation.overlap import rbo

    assert rbo(list("abcde"), list("abcde")) == 1.0 and rbo(list("abc"), list("xyz")) == 0.0
    assert rbo(list("abcde"), list("bacde")) == pytest.approx(0.9)  # the first two swapped: p = 0.9 of the weight
    report = report_dict(dataset, three, comparisons)
    assert report["overlap_with_baseline"]["same"]["mean"] == 1.0
    moved = report["overlap_with_baseline"]["better"]
    assert moved["per_query"]["q4"] == 1.0 and moved["per_query"]["q2"] < 0.5 and moved["mean"] < 1.0
    assert "Rank-biased overlap with base (p = 0.9, no judgment needed)" in markdown(report, three)
