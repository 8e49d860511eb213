"""Write an evaluation: report.json (docs/how-to/evaluate.md describes it), report.md, TREC run files and a PNG plot.

The first variant is the baseline: the tables and the plot compare every other variant with it.
"""

import json
import math
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from haygate.evaluation import coverage, differences, overlap
from haygate.evaluation.datasets import Dataset
from haygate.evaluation.interchange import qrels_lines, trec_id
from haygate.evaluation.runner import SIGNIFICANCE, STAT_TEST, Comparison, VariantResult
from haygate.gateway.agreement import agreement, raters_of
from haygate.gateway.judged_sets import read_judging

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PLOT_METRIC = "ndcg@10"
PANEL_COLUMNS = 3  # the plot wraps its panels (means, then one per variant) into rows of this many
BASELINE_COLOR, VARIANT_COLOR, BETTER_COLOR, WORSE_COLOR = "#8c8c8c", "#4c72b0", "#55a868", "#c44e52"


def report_dict(
    dataset: Dataset, results: Sequence[VariantResult], comparisons: Sequence[Comparison]
) -> dict[str, Any]:
    return {
        "dataset": dataset.name,
        "split": dataset.split,
        "n_queries": len(dataset.queries),
        "baseline": results[0].name if results else None,
        "stat_test": STAT_TEST,  # ranx's name: two-sided paired Student's t-test over queries
        "alpha": SIGNIFICANCE,
        "multiple_testing": "holm",  # p_holm: adjusted over every comparison of the run
        "warnings": [w for r in results if (w := variant_warning(r, dataset)) is not None],
        **judging_figures(dataset),
        "variants": [
            {"name": r.name, "pipeline": r.pipeline, "metrics": r.metrics, "latency_ms": r.latency}
            | {
                "intervals": {
                    m: [round(v, 4) for v in confidence_interval(list(scores.values()))]
                    for m, scores in r.per_query.items()
                }
            }
            | ({"unjudged": unjudged_summary(r)} if r.unjudged else {})
            | ({"judged_hits": r.judged_hits} if r.judged_hits is not None else {})
            | {
                "judged_at_k": {
                    "k": r.judged_k,
                    "mean": coverage.mean(r.judged_at),
                    "per_query": {q: round(s, 4) for q, s in r.judged_at.items()},
                },
                "condensed": r.condensed,
            }
            | {"per_query": {m: {q: round(s, 4) for q, s in scores.items()} for m, scores in r.per_query.items()}}
            for r in results
        ],
        "comparisons": [asdict(c) for c in comparisons],
        "per_query_differences": per_query_differences(dataset, results),
        "by_tag": by_tag(dataset, results),
        "overlap_with_baseline": overlap_with_baseline(results),
        "queries": dataset.queries,  # the judged queries' texts: a per-query win or loss is read by its words
    }


def overlap_with_baseline(results: Sequence[VariantResult]) -> dict[str, dict[str, Any]]:
    """Each variant's rank-biased overlap with the baseline, per query and on average: what the change moved,
    judged or not."""
    if not results:
        return {}
    baseline = results[0]
    found = {}
    for result in results[1:]:
        per_query = {
            q: round(overlap.rbo(coverage.top(baseline.run[q], OVERLAP_DEPTH), coverage.top(ranked, OVERLAP_DEPTH)), 4)
            for q, ranked in result.run.items()
            if q in baseline.run
        }
        found[result.name] = {"p": overlap.DEFAULT_P, "mean": coverage.mean(per_query), "per_query": per_query}
    return found


OVERLAP_DEPTH = 100  # ranks of each run compared (the runs' own depth)


def by_tag(dataset: Dataset, results: Sequence[VariantResult]) -> dict[str, dict[str, Any]]:
    """Every metric's mean over the queries of each tag (`metadata.tags` in queries.jsonl), per variant."""
    tagged: dict[str, list[str]] = {}
    for query_id, tags in dataset.tags.items():
        for tag in tags:
            tagged.setdefault(tag, []).append(query_id)
    return {
        tag: {
            "queries": len(ids),
            "variants": {
                r.name: {
                    m: round(sum(scores.get(q, 0.0) for q in ids) / len(ids), 4) for m, scores in r.per_query.items()
                }
                for r in results
            },
        }
        for tag, ids in sorted(tagged.items())
    }


def variant_warning(result: VariantResult, dataset: Dataset) -> str | None:
    return coverage.coverage_warning(result.name, result.judged_k, result.judged_at, dataset.queries)


def per_query_differences(dataset: Dataset, results: Sequence[VariantResult]) -> dict[str, list[dict[str, Any]]]:
    """Every variant against the baseline on the plotted metric: the queries that moved, and how."""
    if not results:
        return {}
    metric, baseline = plot_metric(results), results[0]
    return {
        r.name: differences.per_query(
            baseline.run, r.run, baseline.per_query[metric], r.per_query[metric], dataset.qrels, dataset.queries
        )
        for r in results[1:]
    }


def unjudged_summary(result: VariantResult) -> dict[str, Any]:
    """How many of the queries that should find nothing found something."""
    answered = sorted(q for q, count in result.unjudged.items() if count)
    return {"queries": len(result.unjudged), "answered": len(answered), "answered_ids": answered}


def confidence_interval(values: Sequence[float]) -> tuple[float, float]:
    """The 95% normal-approximation interval of the mean, clipped to [0, 1], the range of every ranx metric
    reported here: with few queries near 1.0 the symmetric interval would run past what the metric can be."""
    array = np.asarray(values, dtype=float)
    if len(array) == 0:
        return 0.0, 0.0
    mean = float(array.mean())
    half = float(1.96 * array.std(ddof=1) / np.sqrt(len(array))) if len(array) > 1 else 0.0
    return max(0.0, mean - half), min(1.0, mean + half)


def judging_figures(dataset: Dataset) -> dict[str, Any]:
    """What the set's judging recorded (`judging.json`, the Judge tab's and `haygate judged pool`'s): how many
    results each ranking pooled, over the queries (`pooled_from`: none, a set judged on one ranking); and how far
    its raters agree, where two graded the same results (`agreement`)."""
    split = read_judging(dataset.root).get(dataset.split)
    entries = [entry for entry in split.values() if isinstance(entry, dict)] if isinstance(split, dict) else []
    pooled: dict[str, int] = {}
    for entry in entries:
        for rankings in (entry.get("pooled") or {}).values() if isinstance(entry.get("pooled"), dict) else ():
            for name in rankings if isinstance(rankings, list) else ():
                pooled[str(name)] = pooled.get(str(name), 0) + 1
    return {"pooled_from": pooled, "agreement": [pair.model_dump() for pair in agreement(raters_of(split))]}


def markdown(report: dict[str, Any], results: Sequence[VariantResult]) -> str:
    """A summary table of every variant, then one table per variant against the baseline."""
    metrics = list(report["variants"][0]["metrics"]) if report["variants"] else []
    baseline = report["baseline"]
    lines = [f"# Evaluation: {report['dataset']} ({report['split']}, {report['n_queries']} judged queries)", ""]
    lines += [f"> **Warning.** {warning}\n" for warning in report.get("warnings", [])]
    if report.get("pooled_from"):
        counts = ", ".join(f"{name} ({count})" for name, count in report["pooled_from"].items())
        lines += [f"Judged on pools: the results each ranking put in its query's pool, {counts}.", ""]
    for pair in report.get("agreement", []):
        kappa = "undefined" if pair["weighted_kappa"] is None else f"{pair['weighted_kappa']:.2f}"
        lines += [
            f"Raters {' and '.join(pair['raters'])} graded {pair['results']} results alike {pair['agreed']:.0%} of the "
            f"time: Cohen's weighted kappa {kappa} ({pair['reading']}).",
            "",
        ]
    if baseline is not None:
        lines += [f"Baseline: `{baseline}`; every other variant is compared with it.", ""]
    lines += [
        "| variant | " + " | ".join(metrics) + " | p50 ms | p95 ms |",
        "|---" * (len(metrics) + 3) + "|",
    ]
    for variant, result in zip(report["variants"], results, strict=True):
        cells = [
            f"{variant['metrics'][m]:.4f} [{low:.3f}, {high:.3f}]"
            for m in metrics
            for low, high in [confidence_interval(list(result.per_query[m].values()))]
        ]
        label = f"{variant['name']} (baseline)" if variant["name"] == baseline else variant["name"]
        lines.append(
            f"| {label} | "
            + " | ".join(cells)
            + f" | {variant['latency_ms']['p50']:.1f} | {variant['latency_ms']['p95']:.1f} |"
        )
    lines += judged_table(report, metrics)
    lines += tag_table(report, metrics)
    for variant in report["variants"]:
        if "unjudged" in variant:
            seen = variant["unjudged"]
            lines += [
                "",
                f"`{variant['name']}`: {seen['answered']} of {seen['queries']} queries with no relevant document "
                "got results (they should get none).",
            ]
    by_variant: dict[str, list[dict[str, Any]]] = {}
    for comparison in report["comparisons"]:
        by_variant.setdefault(comparison["variant"], []).append(comparison)
    for name, rows in by_variant.items():
        lines += comparison_table(baseline, name, rows)
        alike = report.get("overlap_with_baseline", {}).get(name)
        if alike and alike["mean"] is not None:
            least = sorted(alike["per_query"].items(), key=lambda pair: (pair[1], pair[0]))[:MOVERS]
            named = ", ".join(f"`{q}` ({value:.2f})" for q, value in least)
            lines += [
                "",
                f"Rank-biased overlap with {baseline} (p = {alike['p']}, no judgment needed): {alike['mean']:.3f} on "
                f"average; least alike: {named}.",
            ]
        moved = differences.describe(report.get("per_query_differences", {}).get(name, []), MOVERS)
        if moved:
            lines += [
                "",
                f"Queries that moved most on {plot_metric_of(report)} (relevant results: rank before → after):",
            ]
            lines += ["", *(f"- `{line[0]}` {line[2:]}" for line in moved)]
    lines += ["", "[low, high]: the 95% confidence interval of the mean, within the metric's range [0, 1]."]
    if by_variant:
        lines[-1] += (
            " delta is variant minus baseline, with its 95% t interval. p (t): two-sided paired Student's t-test "
            "over queries (ranx `compare`); Holm p: that p adjusted by Holm's method over every comparison of this "
            f"run, `*` Holm p ≤ {SIGNIFICANCE}; p (rand.): the paired randomization test. d_z: the mean difference "
            "in standard deviations of the per-query differences, with its 95% interval. better / tied / worse: "
            "queries where the variant scores above, equal to, below the baseline."
        )
    return "\n".join(lines) + "\n"


MOVERS = 3  # the largest gains and losses report.md lists per variant


def plot_metric_of(report: dict[str, Any]) -> str:
    measured = list(report["variants"][0]["metrics"]) if report["variants"] else []
    return PLOT_METRIC if PLOT_METRIC in measured or not measured else measured[0]


def judged_table(report: dict[str, Any], metrics: Sequence[str]) -> list[str]:
    """judged@k per variant, and every metric on condensed lists (unjudged results removed) beside the default."""
    rows = [v for v in report["variants"] if "judged_at_k" in v]
    if not rows:
        return []
    k = rows[0]["judged_at_k"]["k"]
    lines = [
        "",
        f"What the figures rest on: judged@{k} is the share of each variant's top {k} that has a grade; the "
        "default counts an unjudged result as not relevant, the condensed list leaves it out (Sakai 2007).",
        "",
        f"| variant | judged@{k} | " + " | ".join(f"{m} default / condensed" for m in metrics) + " |",
        "|---" * (len(metrics) + 2) + "|",
    ]
    for variant in rows:
        share = variant["judged_at_k"]["mean"]
        cells = [f"{variant['metrics'][m]:.4f} / {variant['condensed'].get(m, 0.0):.4f}" for m in metrics]
        lines.append(
            f"| {variant['name']} | {'n/a' if share is None else f'{share:.0%}'} | " + " | ".join(cells) + " |"
        )
    return lines


def tag_table(report: dict[str, Any], metrics: Sequence[str]) -> list[str]:
    """Each tag's queries scored apart: where a variant gains or loses (navigational, paraphrase, ...)."""
    tags = report.get("by_tag") or {}
    if not tags:
        return []
    lines = ["", "## Metrics per tag", "", "| tag | queries | variant | " + " | ".join(metrics) + " |"]
    lines.append("|---" * (len(metrics) + 3) + "|")
    for tag, entry in tags.items():
        for name, means in entry["variants"].items():
            cells = " | ".join(f"{means[m]:.4f}" for m in metrics)
            lines.append(f"| {tag} | {entry['queries']} | {name} | {cells} |")
    return lines


def comparison_table(baseline: str, name: str, rows: Sequence[dict[str, Any]]) -> list[str]:
    lines = [
        "",
        f"## {name} vs {baseline}",
        "",
        f"| metric | {baseline} | {name} | delta [95% CI] | p (t) | Holm p | p (rand.) | d_z [95% CI] "
        "| better / tied / worse |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in rows:
        mark = " *" if c["significant_holm"] else ""
        low, high = c["delta_interval"]
        effect = (
            "n/a"
            if c["effect_size"] is None
            else f"{c['effect_size']:+.2f} [{c['effect_interval'][0]:+.2f}, {c['effect_interval'][1]:+.2f}]"
        )
        lines.append(
            f"| {c['metric']} | {c['baseline_value']:.4f} | {c['variant_value']:.4f} | {c['delta']:+.4f} "
            f"[{low:+.3f}, {high:+.3f}] | {c['p_value']:.4g} | {c['p_holm']:.4g}{mark} | {c['p_randomization']:.4g} "
            f"| {effect} | {c['better']} / {c['tied']} / {c['worse']} |"
        )
    return lines


def write_trec(result: VariantResult, path: Path) -> None:
    """A variant's run as a TREC run file, each id one whitespace-free field (`interchange.trec_id`)."""
    with path.open("w") as handle:
        for query_id, ranked in result.run.items():
            ordered = sorted(ranked.items(), key=lambda item: -item[1])
            for rank, (doc_id, value) in enumerate(ordered, start=1):
                if doc_id != "__none__":
                    handle.write(f"{trec_id(query_id)} Q0 {trec_id(doc_id)} {rank} {value:.6f} {result.name}\n")


def plot_metric(results: Sequence[VariantResult]) -> str:
    """nDCG@10 when it was measured, else the first metric measured."""
    measured = list(results[0].metrics) if results else []
    return PLOT_METRIC if PLOT_METRIC in measured or not measured else measured[0]


def comparison_figure(results: Sequence[VariantResult], comparisons: Sequence[Comparison]) -> "Figure":
    """The means of every variant (95% CI), then one per-query difference panel per variant vs the baseline.

    Difference panels share their y axis, so variants compare by eye; panels wrap into rows of three.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    metric = plot_metric(results)
    baseline = results[0]
    tests = {c.variant: c for c in comparisons if c.metric == metric}
    panels = len(results)  # the means, then one per variant after the baseline
    columns = min(PANEL_COLUMNS, panels)
    rows = math.ceil(panels / columns)
    figure, grid = plt.subplots(rows, columns, figsize=(5.5 * columns, 4.2 * rows), squeeze=False)
    axes = list(grid.flat)
    for unused in axes[panels:]:
        unused.set_visible(False)

    means_axis = axes[0]
    labels = [f"{r.name}\n(baseline)" if r is baseline else r.name for r in results]
    means = [r.metrics[metric] for r in results]
    intervals = [confidence_interval(list(r.per_query[metric].values())) for r in results]
    below = [max(0.0, m - low) for m, (low, _) in zip(means, intervals, strict=True)]
    above = [max(0.0, high - m) for m, (_, high) in zip(means, intervals, strict=True)]
    colors = [BASELINE_COLOR] + [VARIANT_COLOR] * (len(results) - 1)
    bars = means_axis.bar(labels, means, yerr=[below, above], capsize=6, color=colors)
    top = max(1e-6, max(m + e for m, e in zip(means, above, strict=True)))
    for bar, result, error in zip(bars, results, above, strict=True):
        test = tests.get(result.name)
        if test is not None:
            mark = "*" if test.significant_holm else ""
            means_axis.annotate(
                f"{test.delta:+.3f}{mark}",
                (bar.get_x() + bar.get_width() / 2, bar.get_height() + error),
                ha="center",
                va="bottom",
                fontsize=9,
                xytext=(0, 2),
                textcoords="offset points",
            )
    means_axis.set_ylabel(metric)
    means_axis.set_title(f"{metric} per variant (95% CI)\nlabels: delta vs {baseline.name}, * Holm p ≤ {SIGNIFICANCE}")
    means_axis.set_ylim(0, top * 1.2)
    means_axis.tick_params(axis="x", rotation=20)

    queries = sorted(baseline.per_query[metric])
    deltas = {
        r.name: sorted(r.per_query[metric].get(q, 0.0) - baseline.per_query[metric][q] for q in queries)
        for r in results[1:]
    }
    reach = max((abs(d) for values in deltas.values() for d in values), default=0.0) or 1.0
    for axis, result in zip(axes[1:panels], results[1:], strict=True):
        values = deltas[result.name]
        axis.bar(range(len(values)), values, width=1.0, color=[BETTER_COLOR if d > 0 else WORSE_COLOR for d in values])
        axis.axhline(0, color="black", linewidth=0.8)
        axis.set_ylim(-reach * 1.1, reach * 1.1)
        test = tests.get(result.name)
        summary = f"delta {test.delta:+.4f}, p = {test.p_value:.3g}" if test is not None else ""
        axis.set_title(f"per-query {metric}: {result.name} minus {baseline.name}\n{summary}")
        better, worse = sum(d > 0 for d in values), sum(d < 0 for d in values)
        tied = len(values) - better - worse
        axis.set_xlabel(f"queries sorted by difference: {better} better, {worse} worse, {tied} tied")
    figure.tight_layout()
    return figure


def plot(results: Sequence[VariantResult], comparisons: Sequence[Comparison], path: Path) -> None:
    figure = comparison_figure(results, comparisons)  # chooses the Agg backend before pyplot is imported here
    import matplotlib.pyplot as plt

    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_report(
    out: Path, dataset: Dataset, results: Sequence[VariantResult], comparisons: Sequence[Comparison]
) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "runs").mkdir(exist_ok=True)
    report = report_dict(dataset, results, comparisons)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "report.md").write_text(markdown(report, results))
    for result in results:
        write_trec(result, out / "runs" / f"{result.name}.trec")
    # The judgments the runs were scored with, grade 0 included: `trec_eval qrels.trec runs/<variant>.trec`.
    (out / "qrels.trec").write_text("".join(line + "\n" for line in qrels_lines(dataset.judgments)))
    if results:
        plot(results, comparisons, out / "plot.png")
    return report
