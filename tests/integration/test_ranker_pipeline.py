"""The ranker inside search_docs: a configured cross-encoder reranks; a broken one stops a strict server,
and is left out (and reported) by any other."""

from pathlib import Path

import pytest
import yaml

from haygate.cli import main
from haygate.errors import ConfigurationError
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from tests.support.project import copy_project, make_settings

pytestmark = pytest.mark.integration


def home_with_ranker(tmp_path: Path, model: str, reads: list[str] | None = None) -> Path:
    """A copy of the project's configs and pipelines whose search_docs ranker names `model`, and whose
    retriever reads `reads` of each candidate (as the pipeline's comment says a cross-encoder needs)."""
    home = tmp_path / "home"
    copy_project(home)
    path = home / "pipelines" / "tools" / "search_docs.yaml"
    pipeline = yaml.safe_load(path.read_text())
    pipeline["components"]["ranker"]["init_parameters"]["model"] = model
    pipeline["components"]["retriever"]["init_parameters"]["payload_fields"] = reads or []
    path.write_text(yaml.safe_dump(pipeline))
    return home


def test_configured_cross_encoder_reranks(tmp_path: Path, samples_dir: Path, tiny_cross_encoder: Path) -> None:
    home = home_with_ranker(tmp_path, str(tiny_cross_encoder), reads=["content", "meta.title"])
    with Loader(make_settings(samples_dir, home=home)) as loader:
        gateway = Gateway.load(loader, files=[home / "configs" / "tools" / "search_docs.yaml"])
        gateway.warm_up()
        result = gateway.call("search_docs", {"query": "reciprocal rank fusion", "max_results": 5})
    assert result["metadata"]["reranked"] is True
    scores = [r["score"] for r in result["results"]]
    assert len(scores) == 5 and scores == sorted(scores, reverse=True)
    assert all("rerank_score" in r["scores"] and r["scores"]["fused_score"] > 0 for r in result["results"])


def test_a_cross_encoder_given_no_content_says_what_to_read(
    tmp_path: Path, samples_dir: Path, tiny_cross_encoder: Path
) -> None:
    """The served pipeline reads ids only until the ranker has chosen; a cross-encoder reads content, so
    leaving `payload_fields: []` with one configured is named, never a ranking of empty texts."""
    home = home_with_ranker(tmp_path, str(tiny_cross_encoder))
    with Loader(make_settings(samples_dir, home=home)) as loader:
        gateway = Gateway.load(loader, files=[home / "configs" / "tools" / "search_docs.yaml"])
        with pytest.raises(ConfigurationError, match=r"add `content` .* to its payload_fields"):
            gateway.call("search_docs", {"query": "reciprocal rank fusion"})


def test_unloadable_model_stops_the_server_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    home = home_with_ranker(tmp_path, "/nonexistent/cross-encoder")
    declared = [home / "configs" / "tools" / "search_docs.yaml"]
    for other in (home / "configs" / "tools").glob("*.yaml"):
        if other not in declared:
            other.unlink()  # `serve --strict` then loads search_docs alone: what the test is about
    with (
        Loader(make_settings(tmp_path / "data", home=home)) as loader,
        pytest.raises(ConfigurationError, match="cannot load cross-encoder '/nonexistent/cross-encoder'"),
    ):
        Gateway.load(loader, files=declared).warm_up()
    monkeypatch.setenv("HAYGATE_HOME", str(home))
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
    assert main(["serve", "--strict"]) == 2
    assert "cannot load cross-encoder" in capsys.readouterr().err


def test_without_strict_the_broken_tool_is_left_out_and_the_others_served(tmp_path: Path) -> None:
    from haygate.server.service import GatewayService

    home = home_with_ranker(tmp_path, "/nonexistent/cross-encoder")
    service = GatewayService(make_settings(tmp_path / "data", home=home))
    service.start(background=False)
    assert service.state == "ready" and "search_docs" not in service.listing() and "search" in service.listing()
    assert any("cannot load cross-encoder" in p for p in service.health()["problems"])
    service.close()
