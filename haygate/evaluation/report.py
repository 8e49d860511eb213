"""Write an evaluation: report.json (the schema in issue #3), report.md, TREC run files and a PNG plot."""

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from haygate.evaluation.datasets import Dataset
from haygate.evaluation.runner import VariantResult

PLOT_METRIC = "ndcg@10"


def report_dict(
    dataset: Dataset, results: Sequence[VariantResult], comparisons: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "dataset": dataset.name,
        "split": dataset.split,
        "n_queries": len(dataset.queries),
        "variants": [
            {"name": r.name, "pipeline": r.pipeline, "metrics": r.metrics, "latency_ms": r.latency} for r in results
        ],
        "comparisons": comparisons,
    }


def confidence_interval(values: Sequence[float]) -> float:
    """Half-width of the 95% normal-approximation interval of the mean."""
    array = np.asarray(values, dtype=float)
    return float(1.96 * array.std(ddof=1) / np.sqrt(len(array))) if len(array) > 1 else 0.0


def markdown(report: dict[str, Any], results: Sequence[VariantResult]) -> str:
    metrics = list(report["variants"][0]["metrics"]) if report["variants"] else []
    lines = [
        f"# Evaluation: {report['dataset']} ({report['split']}, {report['n_queries']} judged queries)",
        "",
        "| variant | " + " | ".join(metrics) + " | p50 ms | p95 ms |",
        "|---" * (len(metrics) + 3) + "|",
    ]
    for variant, result in zip(report["variants"], results, strict=True):
        cells = [
            f"{variant['metrics'][m]:.4f} ± {confidence_interval(list(result.per_query[m].values())):.3f}"
            for m in metrics
        ]
        lines.append(
            f"| {variant['name']} | "
            + " | ".join(cells)
            + f" | {variant['latency_ms']['p50']:.1f} | {variant['latency_ms']['p95']:.1f} |"
        )
    if report["comparisons"]:
        lines += [
            "",
            "Paired two-sided t-test over queries (b minus a).",
            "",
            "| a | b | metric | delta | p-value |",
            "|---|---|---|---|---|",
        ]
        for c in report["comparisons"]:
            mark = " *" if c["p_value"] < 0.05 else ""
            lines.append(f"| {c['a']} | {c['b']} | {c['metric']} | {c['delta']:+.4f} | {c['p_value']:.4g}{mark} |")
        lines += ["", "`*` p < 0.05. ± is the 95% confidence half-width of the mean."]
    return "\n".join(lines) + "\n"


def write_trec(result: VariantResult, path: Path) -> None:
    with path.open("w") as handle:
        for query_id, ranked in result.run.items():
            ordered = sorted(ranked.items(), key=lambda item: -item[1])
            for rank, (doc_id, value) in enumerate(ordered, start=1):
                if doc_id != "__none__":
                    handle.write(f"{query_id} Q0 {doc_id} {rank} {value:.6f} {result.name}\n")


def plot(results: Sequence[VariantResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 2 if len(results) >= 2 else 1
    figure, axes = plt.subplots(1, panels, figsize=(6 * panels, 4), squeeze=False)
    names = [r.name for r in results]
    means = [r.metrics[PLOT_METRIC] for r in results]
    errors = [confidence_interval(list(r.per_query[PLOT_METRIC].values())) for r in results]
    bars = axes[0][0]
    bars.bar(names, means, yerr=errors, capsize=6, color="#4c72b0")
    bars.set_ylabel(PLOT_METRIC)
    bars.set_title(f"{PLOT_METRIC} per variant (95% CI)")
    bars.set_ylim(0, max(1e-6, max(m + e for m, e in zip(means, errors, strict=True))) * 1.15)
    bars.tick_params(axis="x", rotation=20)
    if panels == 2:
        first, second = results[0], results[1]
        queries = sorted(first.per_query[PLOT_METRIC])
        deltas = sorted(second.per_query[PLOT_METRIC].get(q, 0.0) - first.per_query[PLOT_METRIC][q] for q in queries)
        diff = axes[0][1]
        diff.bar(range(len(deltas)), deltas, width=1.0, color=["#55a868" if d > 0 else "#c44e52" for d in deltas])
        diff.axhline(0, color="black", linewidth=0.8)
        diff.set_title(f"per-query {PLOT_METRIC}: {second.name} minus {first.name}")
        diff.set_xlabel("queries, sorted by difference")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def write_report(
    out: Path, dataset: Dataset, results: Sequence[VariantResult], comparisons: list[dict[str, Any]]
) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "runs").mkdir(exist_ok=True)
    report = report_dict(dataset, results, comparisons)
    (out / "report.json").write_text(json.dumps(report, indent=2) + "\n")
    (out / "report.md").write_text(markdown(report, results))
    for result in results:
        write_trec(result, out / "runs" / f"{result.name}.trec")
    if results:
        plot(results, out / "plot.png")
    return report
