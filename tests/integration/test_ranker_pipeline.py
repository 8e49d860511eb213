"""The ranker inside search_docs: a configured cross-encoder reranks; a broken one stops the server."""

import shutil
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml

from components.collections import close_all
from components.errors import ConfigurationError
from haygate.cli import main
from haygate.gateway import Gateway
from haygate.settings import settings_override

pytestmark = pytest.mark.integration
PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home_with_model(tmp_path: Path, samples_dir: Path) -> Iterator[callable]:  # type: ignore[valid-type]
    """A copy of the project's configs and pipelines whose search_docs ranker names a given model."""

    def make(model: str) -> Path:
        home = tmp_path / "home"
        shutil.copytree(PROJECT / "configs", home / "configs", dirs_exist_ok=True)
        shutil.copytree(PROJECT / "pipelines", home / "pipelines", dirs_exist_ok=True)
        path = home / "pipelines" / "search_docs.yaml"
        pipeline = yaml.safe_load(path.read_text())
        pipeline["components"]["ranker"]["init_parameters"]["model"] = model
        path.write_text(yaml.safe_dump(pipeline))
        stack.enter_context(settings_override(home=str(home), data_dir=str(samples_dir)))
        return home

    with ExitStack() as stack:
        yield make
        close_all()


def test_configured_cross_encoder_reranks(home_with_model, tiny_cross_encoder: Path) -> None:  # type: ignore[no-untyped-def]
    home_with_model(str(tiny_cross_encoder))
    gateway = Gateway.load()
    gateway.warm_up()
    result = gateway.call("search_docs", {"query": "reciprocal rank fusion", "max_results": 5})
    assert result["metadata"]["reranked"] is True
    scores = [r["score"] for r in result["results"]]
    assert len(scores) == 5 and scores == sorted(scores, reverse=True)
    assert all("rerank_score" in r["scores"] and r["scores"]["fused_score"] > 0 for r in result["results"])


def test_unloadable_model_stops_the_server_at_start(home_with_model, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    home_with_model("/nonexistent/cross-encoder")
    with pytest.raises(ConfigurationError, match="cannot load cross-encoder '/nonexistent/cross-encoder'"):
        Gateway.load().warm_up()
    assert main(["serve"]) == 2
    assert "cannot load cross-encoder" in capsys.readouterr().err
