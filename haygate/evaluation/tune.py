"""Grid search over pipeline parameters on one split, reusing one index; the best point becomes YAML.

A grid is a YAML mapping `component.parameter -> [values]`, e.g.

    retriever.prefetch_limit: [100, 200, 400]
    retriever.weights: [{dense: 1.0, sparse: 1.0}, {dense: 1.0, sparse: 1.5}]   # with fusion rrf or sum

Every axis must be able to change results. An axis naming no component parameter is refused, and so is one
the rest of the point makes irrelevant, as the component itself says: a component class may answer
`ignored_settings(init_parameters) -> {parameter: why}` (HybridRetriever does: `weights` with DBSF, `rrf_k`
without RRF, ...), the same answer its `__init__` refuses set parameters by. Otherwise a 12-point grid can be
3 distinct points run 4 times each, and nothing says so.
"""

import copy
import inspect
import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from haygate import yamlfile
from haygate.errors import ConfigurationError
from haygate.evaluation.datasets import Dataset
from haygate.evaluation.runner import (
    DEFAULT_METRICS,
    check_metrics,
    ensure_index,
    eval_settings,
    load_variants,
    run_variant,
    score,
)
from haygate.gateway.loader import Loader, _allowed_class
from haygate.settings import Settings


@dataclass(frozen=True)
class GridPoint:
    index: int
    params: dict[str, Any]
    metrics: dict[str, float]
    latency: dict[str, float]
    path: Path


def load_grid(path: Path, pipeline: dict[str, Any], pipeline_path: Path) -> list[dict[str, Any]]:
    """Every combination of the grid, after checking each key names a real component parameter that some
    point could change results with, and that no axis repeats a value."""
    try:
        grid = yamlfile.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ConfigurationError(f"{path}: cannot read grid: {error}") from None
    if not isinstance(grid, dict) or not grid:
        raise ConfigurationError(f"{path}: a grid is a mapping of component.parameter to a list of values")
    classes: dict[str, type] = {}
    for key, values in grid.items():
        component, _, parameter = str(key).partition(".")
        if component not in pipeline["components"] or not parameter:
            known = ", ".join(pipeline["components"])
            raise ConfigurationError(f"{path}: '{key}' must be component.parameter; components: {known}")
        if component not in classes:
            classes[component] = _allowed_class(Path(pipeline_path), component, pipeline["components"][component])
        init = classes[component].__init__  # type: ignore[misc]
        accepted = [name for name in inspect.signature(init).parameters if name != "self"]
        if parameter not in accepted:
            raise ConfigurationError(
                f"{path}: '{key}': component '{component}' has no parameter '{parameter}'; "
                f"its parameters: {', '.join(accepted)}"
            )
        if not isinstance(values, list) or not values:
            raise ConfigurationError(f"{path}: '{key}' needs a non-empty list of values")
        distinct = {json.dumps(value, sort_keys=True, default=str) for value in values}
        if len(distinct) < len(values):
            raise ConfigurationError(f"{path}: '{key}' repeats a value: {values}")
    keys = list(grid)
    points = [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k] for k in keys))]
    for params in points:
        _refuse_ignored_axes(path, pipeline, classes, params)
    return points


def _refuse_ignored_axes(
    path: Path, pipeline: dict[str, Any], classes: dict[str, type], params: dict[str, Any]
) -> None:
    """Ask each tuned component which of its parameters this point makes irrelevant; none may be an axis."""
    for component, cls in classes.items():
        ignored_settings = getattr(cls, "ignored_settings", None)
        if not callable(ignored_settings):
            continue
        axes = {key.partition(".")[2]: value for key, value in params.items() if key.partition(".")[0] == component}
        settings = {**(pipeline["components"][component].get("init_parameters") or {}), **axes}
        for parameter, why in ignored_settings(settings).items():
            if parameter in axes:
                raise ConfigurationError(
                    f"{path}: grid axis '{component}.{parameter}' cannot change results: {why} "
                    f"(at the point {json.dumps(params, default=str)}); drop the axis, or tune it where it counts"
                )


def apply_point(pipeline: dict[str, Any], params: dict[str, Any]) -> dict[str, Any]:
    changed = copy.deepcopy(pipeline)
    for key, value in params.items():
        component, _, parameter = key.partition(".")
        changed["components"][component].setdefault("init_parameters", {})[parameter] = value
    return changed


def tune(
    settings: Settings,
    dataset: Dataset,
    pipeline_path: Path,
    grid_path: Path,
    out: Path,
    objective: str = "ndcg@10",
    validate: Dataset | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    base = yamlfile.safe_load(Path(pipeline_path).read_text())
    points = load_grid(grid_path, base, Path(pipeline_path))  # a broken grid is refused at once, before ranx loads
    metrics = check_metrics([*DEFAULT_METRICS, objective])
    out.mkdir(parents=True, exist_ok=True)
    point_dir = out / "points"
    point_dir.mkdir(exist_ok=True)
    paths = []
    for number, params in enumerate(points):
        path = point_dir / f"point-{number:03d}.yaml"
        path.write_text(yaml.safe_dump(apply_point(base, params), sort_keys=False))
        paths.append(path)
    results: list[GridPoint] = []
    default: dict[str, float] = {}
    with Loader(eval_settings(settings, dataset)) as loader:
        variants = load_variants(loader, [Path(pipeline_path), *paths])  # every point is checked before indexing
        folder = ensure_index(loader, dataset, progress=progress)
        for number, (_, path, loaded) in enumerate(variants):
            result = run_variant(path.stem, path, loaded, dataset, progress=progress, index=folder)
            score(result, dataset, metrics)
            if number == 0:
                default = result.metrics
                continue
            results.append(GridPoint(number - 1, points[number - 1], result.metrics, result.latency, path))
    ranked = sorted(results, key=lambda p: -p.metrics[objective])
    best = ranked[0]
    best_yaml = out / f"{Path(pipeline_path).stem}_tuned.yaml"
    header = (
        f"# Tuned by `haygate tune` on {dataset.name}/{dataset.split} for {objective}: "
        f"{best.metrics[objective]:.4f} (default {default[objective]:.4f}).\n# Parameters: {json.dumps(best.params)}\n"
    )
    best_yaml.write_text(header + best.path.read_text())
    summary: dict[str, Any] = {
        "dataset": dataset.name,
        "split": dataset.split,
        "objective": objective,
        "default": {"pipeline": str(pipeline_path), "metrics": default},
        "best": {"params": best.params, "metrics": best.metrics, "pipeline": str(best_yaml)},
        "points": [
            {"rank": r, "params": p.params, "metrics": p.metrics, "latency_ms": p.latency}
            for r, p in enumerate(ranked, start=1)
        ],
    }
    if validate is not None:
        summary["validation"] = _validate(settings, validate, Path(pipeline_path), best_yaml, metrics, progress)
    (out / "tune.json").write_text(json.dumps(summary, indent=2) + "\n")
    (out / "tune.md").write_text(_markdown(summary, metrics))
    return summary


def _validate(
    settings: Settings, dataset: Dataset, default: Path, best: Path, metrics: list[str], progress: bool
) -> dict[str, Any]:
    """The default and the best point on a second split: a gain that vanishes here was overfitting."""
    report: dict[str, Any] = {"split": dataset.split}
    with Loader(eval_settings(settings, dataset)) as loader:
        variants = load_variants(loader, [default, best])
        folder = ensure_index(loader, dataset, progress=progress)
        for label, (_, path, loaded) in zip(("default", "best"), variants, strict=True):
            result = run_variant(path.stem, path, loaded, dataset, progress=progress, index=folder)
            score(result, dataset, metrics)
            report[label] = result.metrics
    return report


def _markdown(summary: dict[str, Any], metrics: list[str]) -> str:
    objective = summary["objective"]
    lines = [
        f"# Tuning on {summary['dataset']} ({summary['split']}), objective {objective}",
        "",
        f"Default: {summary['default']['metrics'][objective]:.4f}. "
        f"Best: {summary['best']['metrics'][objective]:.4f} with `{json.dumps(summary['best']['params'])}`.",
        "",
        "| rank | parameters | " + " | ".join(metrics) + " | p50 ms |",
        "|---" * (len(metrics) + 3) + "|",
    ]
    for point in summary["points"]:
        cells = " | ".join(f"{point['metrics'][m]:.4f}" for m in metrics)
        lines.append(
            f"| {point['rank']} | `{json.dumps(point['params'])}` | {cells} | {point['latency_ms']['p50']:.1f} |"
        )
    if "validation" in summary:
        v = summary["validation"]
        lines += [
            "",
            f"Validation split `{v['split']}`: default {v['default'][objective]:.4f}, "
            f"best {v['best'][objective]:.4f} ({v['best'][objective] - v['default'][objective]:+.4f}).",
        ]
    return "\n".join(lines) + "\n"
