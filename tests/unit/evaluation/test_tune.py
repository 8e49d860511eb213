"""`haygate tune` grids: an axis must name a real parameter and be able to change results (no model runs)."""

from pathlib import Path
from typing import Any

import pytest
import yaml

from haygate.cli import main
from haygate.errors import ConfigurationError
from haygate.evaluation.tune import load_grid
from haygate.settings import Settings
from tests.support.project import PROJECT

EVAL = PROJECT / "pipelines" / "eval"
HYBRID = EVAL / "beir_hybrid.yaml"  # DBSF over dense + sparse
LEXICAL = EVAL / "beir_lexical.yaml"  # BM25 sparse alone


def grid_points(tmp_path: Path, grid: dict[str, Any], pipeline: Path = HYBRID) -> list[dict[str, Any]]:
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(grid))
    return load_grid(path, yaml.safe_load(pipeline.read_text()), pipeline)


@pytest.mark.parametrize(
    ("grid", "pipeline", "named"),
    [
        (
            {"retriever.weights": [{"dense": 1.0, "sparse": 1.0}, {"dense": 2.0, "sparse": 1.0}]},
            HYBRID,
            "grid axis 'retriever.weights' cannot change results: fusion 'dbsf' takes no weights",
        ),
        ({"retriever.rrf_k": [2, 60]}, HYBRID, "grid axis 'retriever.rrf_k' cannot change results: fusion 'dbsf'"),
        (  # rrf_k counts at the rrf points only: the dbsf points would repeat each other
            {"retriever.fusion": ["rrf", "dbsf"], "retriever.rrf_k": [2, 60]},
            HYBRID,
            "grid axis 'retriever.rrf_k' cannot change results: fusion 'dbsf' takes no rrf_k",
        ),
        (
            {"retriever.fusion": ["rrf", "dbsf"]},
            LEXICAL,
            "grid axis 'retriever.fusion' cannot change results: use_dense, use_sparse and text_fields leave one",
        ),
        ({"retriever.prefetch_limit": [50, 200]}, HYBRID, "prefetch_limit 50 is below top_k 100"),
    ],
    ids=["weights-dbsf", "rrf_k-dbsf", "rrf_k-some-points", "fusion-one-source", "prefetch-below-top_k"],
)
def test_an_axis_that_cannot_change_results_is_refused(
    tmp_path: Path, grid: dict[str, Any], pipeline: Path, named: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        grid_points(tmp_path, grid, pipeline)
    assert caught.value.message.startswith(str(tmp_path / "grid.yaml")) and named in caught.value.message


def test_axes_that_change_results_give_every_combination(tmp_path: Path) -> None:
    points = grid_points(tmp_path, {"retriever.fusion": ["rrf", "sum"], "retriever.weights": [{}, {"dense": 2.0}]})
    assert points == [
        {"retriever.fusion": "rrf", "retriever.weights": {}},
        {"retriever.fusion": "rrf", "retriever.weights": {"dense": 2.0}},
        {"retriever.fusion": "sum", "retriever.weights": {}},
        {"retriever.fusion": "sum", "retriever.weights": {"dense": 2.0}},
    ]
    assert len(grid_points(tmp_path, {"retriever.fusion": ["rrf"], "retriever.rrf_k": [2, 60]})) == 2
    assert len(grid_points(tmp_path, {"ranker.top_k": [10, 100]})) == 2  # a component with no such rule


@pytest.mark.parametrize(
    "grid", [PROJECT / "configs" / "grids" / "beir_hybrid.yaml", PROJECT / "tests" / "fixtures" / "tiny_grid.yaml"]
)
def test_the_bundled_grids_are_accepted(grid: Path) -> None:
    points = load_grid(grid, yaml.safe_load(HYBRID.read_text()), HYBRID)
    assert len(points) == len({yaml.safe_dump(p, sort_keys=True) for p in points}) > 1


@pytest.mark.parametrize(
    ("grid", "named"),
    [
        ({"retriver.top_k": [1, 2]}, "'retriver.top_k' must be component.parameter; components: query_builder"),
        ({"retriever.rrf": [1, 2]}, "component 'retriever' has no parameter 'rrf'; its parameters: document_store"),
        ({"retriever.prefetch_limit": [200, 200]}, "'retriever.prefetch_limit' repeats a value"),
    ],
)
def test_an_axis_naming_nothing_or_repeating_itself_is_refused(
    tmp_path: Path, grid: dict[str, Any], named: str
) -> None:
    with pytest.raises(ConfigurationError, match=r"grid\.yaml") as caught:
        grid_points(tmp_path, grid)
    assert named in caught.value.message


def test_the_cli_refuses_the_grid_before_indexing(
    tmp_path: Path, settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(settings.data_dir))
    grid = tmp_path / "grid.yaml"
    grid.write_text("retriever.weights: [{dense: 1.0, sparse: 1.0}, {dense: 1.0, sparse: 1.5}]\n")
    argv = ["tune", "--dataset", str(PROJECT / "tests" / "fixtures" / "tiny_beir"), "--split", "train"]
    argv += ["--pipeline", str(HYBRID), "--grid", str(grid), "--out", str(tmp_path / "out"), "--no-progress"]
    assert main(argv) == 2
    assert "grid axis 'retriever.weights' cannot change results" in capsys.readouterr().err
    assert not (tmp_path / "out").exists() and not (settings.data_dir / "eval").exists()
