"""Embedding on Ray, without a cluster: the refusals a user meets first, the swap of a collection's embedders,
and how a batch is cut into tasks. The real cluster: tests/integration/test_ray_cluster.py."""

import importlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from haystack import Document

from haygate.cli import main
from haygate.components.bm25_sparse_document_embedder import Bm25SparseDocumentEmbedder
from haygate.errors import ConfigurationError
from haygate.extras import extra_command
from haygate.gateway.loader import Loader
from haygate.ingest.cluster import (
    TASKS_PER_ACTOR,
    ActorPool,
    ClusterDocumentEmbedder,
    Member,
    RayOptions,
    RayUnavailableError,
    connect,
    require_ray,
)
from haygate.ingest.indexer import IndexingPlan, embeds_densely
from tests.support.installed import require
from tests.support.project import make_settings


@pytest.fixture
def without_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """As where the `ray` extra is not installed: importing it fails."""
    monkeypatch.setitem(sys.modules, "ray", None)


def test_without_ray_the_flag_names_the_extra(without_ray: None) -> None:
    with pytest.raises(RayUnavailableError, match=re.escape(extra_command("ray"))):
        require_ray()


def test_the_command_refuses_before_reading_a_record(
    without_ray: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
    source = tmp_path / "notes.md"
    source.write_text("# Notes\n\nSome text.\n")
    assert main(["ingest", "docs", str(source), "--ray", "auto"]) == 2
    err = capsys.readouterr().err
    assert extra_command("ray") in err and "Traceback" not in err
    assert not (tmp_path / "data").exists()  # nothing was opened, nothing written


def test_an_actor_share_must_be_above_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["ingest", "docs", "x.md", "--ray", "auto", "--ray-actor-cpus", "0"])
    assert stopped.value.code == 2
    assert "expected a number above 0, got '0'" in capsys.readouterr().err


@pytest.mark.slow  # builds the docs indexing pipeline
def test_only_the_dense_document_embedders_go_to_the_cluster(tmp_path: Path) -> None:
    require(importlib.util.find_spec("ray") is not None, "Ray (the `ray` extra)", "pip install 'haygate[ray]'")
    settings = make_settings(tmp_path / "data", ray_address="auto", ray_actors=3)
    with Loader(settings) as loader:
        collection = loader.collection("docs")
        kinds = {name: type(instance).__name__ for name, instance in collection.indexing.walk()}
        proxy = collection.indexing.get_component("dense_embedder")
        assert isinstance(proxy, ClusterDocumentEmbedder) and proxy.options.actors == 3
        assert proxy.embedder["type"] == "haygate.components.dense_document_embedder.DenseDocumentEmbedder"
        assert proxy.passages == proxy.embedder["init_parameters"]["passages"]
        assert kinds["sparse_embedder"] == "Bm25SparseDocumentEmbedder"  # BM25 stays here
        assert collection.runner is not None
        assert [s.instance for s in collection.runner.steps if s.name == "dense_embedder"] == [proxy]  # type: ignore[attr-defined]
        plan = IndexingPlan.of(collection.indexing, collection.entry)
        assert plan.truncates_long_records is False  # the docs pipeline splits: nothing is embedded cut off
    assert not proxy.pool  # no actor started: no record was embedded
    assert embeds_densely(type(proxy)) and not embeds_densely(Bm25SparseDocumentEmbedder)


def test_a_batch_is_cut_into_tasks_every_actor_shares() -> None:
    pool = ActorPool({}, RayOptions("auto", documents_per_task=64))
    pool.members = [Member(handle=None, node="a"), Member(handle=None, node="b")]
    assert pool.task_size(10_000) == 64  # a big batch: full tasks
    assert pool.task_size(40) == 40 // (2 * TASKS_PER_ACTOR * 2)  # a small one: several tasks per actor
    assert pool.task_size(1) == 1


def test_a_proxy_runs_nothing_for_no_documents() -> None:
    proxy = ClusterDocumentEmbedder({"type": "x.Y", "init_parameters": {}}, RayOptions("auto"))
    assert proxy.run(documents=[]) == {"documents": []}
    assert proxy.pool is None


def test_an_address_nothing_answers_on_is_refused_at_once() -> None:
    require(importlib.util.find_spec("ray") is not None, "Ray (the `ray` extra)", "pip install 'haygate[ray]'")
    import ray

    if ray.is_initialized():  # joined by another test of this process: the check is made before joining
        ray.shutdown()
    proxy = ClusterDocumentEmbedder({"type": "x.Y", "init_parameters": {}}, RayOptions("127.0.0.1:1"))
    with pytest.raises(ConfigurationError, match=r"cannot join the Ray cluster at '127.0.0.1:1': nothing answers"):
        proxy.run(documents=[Document(content="text")])
    assert not ray.is_initialized()


SESSION_FAILED = (
    'Initialization failure from server:\nTraceback (most recent call last):\n  File "proxier.py", line 766\n'
    "RuntimeError: Starting Ray client server failed. See ray_client_server_23000.err for detailed logs.\n"
)


class HeadStartingSessions:
    """Ray as a driver sees it through Ray Client (`ray://`) when the head fails to start the driver's session
    `failures` times: what `ray.init` raises then (a `ConnectionAbortedError`, the head's traceback inside)."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.attempts = 0

    def is_initialized(self) -> bool:
        return self.attempts > self.failures

    def init(self, **_: Any) -> None:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise ConnectionAbortedError(SESSION_FAILED)


@pytest.fixture
def head(monkeypatch: pytest.MonkeyPatch) -> Any:
    def head_failing(failures: int) -> HeadStartingSessions:
        ray = HeadStartingSessions(failures)
        monkeypatch.setattr("haygate.ingest.cluster.require_ray", lambda: ray)
        monkeypatch.setattr("haygate.ingest.cluster.CLIENT_RETRY_SECONDS", 0.0)
        return ray

    return head_failing


def test_a_session_the_head_failed_to_start_is_asked_for_again(head: Any, caplog: pytest.LogCaptureFixture) -> None:
    ray = head(failures=2)
    assert connect(RayOptions("ray://head")) is ray
    assert ray.attempts == 3
    assert "failed to start this driver's session (RuntimeError: Starting Ray client server failed" in caplog.text


def test_a_head_that_never_starts_a_session_is_refused_with_its_cause(head: Any) -> None:
    ray = head(failures=3)
    cause = r"RuntimeError: Starting Ray client server failed\. See ray_client_server_23000\.err"
    with pytest.raises(ConfigurationError, match=f"cannot join the Ray cluster at 'ray://head': {cause}") as refused:
        connect(RayOptions("ray://head"))
    assert ray.attempts == 3 and "Traceback" not in str(refused.value)


def test_every_ray_worker_starts_with_haygates_patches() -> None:
    """Ray imports the setup hook by name in each worker, before an actor's class: Haystack then comes without
    torch there too (seconds of each actor's start)."""
    from haygate.compat import install
    from haygate.ingest.cluster import WORKER_SETUP

    module, _, name = WORKER_SETUP.rpartition(".")
    assert getattr(importlib.import_module(module), name) is install
