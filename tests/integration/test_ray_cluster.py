"""`haygate ingest --ray`: the embedding runs on a real two-node Ray cluster of this machine (`ray start --head`,
then `ray start --address`, one CPU each), and the collection equals a local ingest of the same files.

Each block of docs/how-to/ray.md runs here, with `HEAD:6379` as this cluster's address. The cluster is stopped
whatever happens (`scripts.ray_cluster`); the last test kills a node mid-ingest.
"""

import importlib.util
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from haystack import Document

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from scripts.ray_cluster import ENV, LocalCluster, local_cluster
from tests.support.cache import copy_tree
from tests.support.docs import block, commands
from tests.support.installed import require
from tests.support.processes import run_cli
from tests.support.project import PROJECT, make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.fixture(scope="module", autouse=True)
def ray_installed() -> None:
    """`make test` installs the `ray` extra: a skip here would hide a missing piece, so CI fails instead."""
    require(importlib.util.find_spec("ray") is not None, "Ray (the `ray` extra)", "pip install 'haygate[ray]'")


HOW_TO = PROJECT / "docs" / "how-to" / "ray.md"
CORPUS = PROJECT / "samples" / "docs"
RECORDS = len(list(CORPUS.glob("*.md")))
QUERIES = ["comparison operators in filters", "deploy behind a reverse proxy", "evaluate a tool on a judged set"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with local_cluster(nodes=2, cpus_per_node=1) as started:
        yield started
    assert not started.processes(), "a process of the Ray cluster outlived it"
    assert not started.temp_dir.exists(), "the Ray cluster's folder outlived it"


def env_for(data_dir: Path, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HAYGATE_")}
    return {**env, **ENV, "HAYGATE_HOME": str(PROJECT), "HAYGATE_DATA_DIR": str(data_dir), **settings}


def documented(first_line: str, cluster: LocalCluster | None = None) -> list[list[str]]:
    """A block's commands as argument lists: comments dropped, `HEAD:6379` this cluster's address."""
    text = block(first_line, HOW_TO).text
    if cluster is not None:
        text = text.replace("HEAD:6379", cluster.address)
    return [shlex.split(command, comments=True) for command in commands(text)]


def haygate(argv: list[str], env: dict[str, str], expect: int = 0) -> subprocess.CompletedProcess[str]:
    """A documented `.venv/bin/haygate ...` command, run from the project folder."""
    assert argv[0] == ".venv/bin/haygate", argv
    arguments = [str(PROJECT / a) if a.startswith(("samples/", "evaluation/")) else a for a in argv[1:]]
    done = run_cli(env, arguments, timeout=240)
    assert done.returncode == expect, done.stderr
    assert "Traceback" not in done.stderr
    return done


def stored(data_dir: Path, **settings: Any) -> dict[str, Document]:
    with Loader(make_settings(data_dir, **settings)) as loader:
        return {d.id: d for d in loader.store("docs").filter_documents(None)}


def top_results(data_dir: Path) -> list[list[str]]:
    with Loader(make_settings(data_dir)) as loader:
        gateway = Gateway.load(loader)
        return [[r["id"] for r in gateway.call("search_docs", {"query": q})["results"]] for q in QUERIES]


def assert_same_documents(mine: dict[str, Document], theirs: dict[str, Document]) -> None:
    """Chunk count, ids, record hashes and vectors within float tolerance."""
    assert len(theirs) == len(mine) > RECORDS
    assert set(theirs) == set(mine)
    for doc_id, document in mine.items():
        np.testing.assert_allclose(np.array(theirs[doc_id].embedding), np.array(document.embedding), atol=1e-5)
        assert theirs[doc_id].meta["record_hash"] == document.meta["record_hash"]


@pytest.fixture(scope="module")
def local_ingest(ingested_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same files ingested with no Ray: a copy of the session's sample build (`ingest --samples`)."""
    return copy_tree(ingested_samples, tmp_path_factory.mktemp("local") / "data")


@pytest.mark.budget(90, "two ingests through the cluster, each starting two actors that load the model")
def test_an_ingest_on_two_nodes_equals_a_local_one(cluster: LocalCluster, local_ingest: Path, tmp_path: Path) -> None:
    """The how-to's cluster block: its `ray start` flags are the ones this cluster was started with, and its
    ingest gives the local ingest's collection and the same top results."""
    *starts, ingest = documented("ray start --head", cluster)
    for written, used in zip(starts, cluster.commands, strict=True):
        assert written[:2] == ["ray", "start"]
        port = cluster.address.rpartition(":")[2]
        assert {a.replace("6379", port) for a in written[2:]} <= set(used), (written, used)
    done = haygate(ingest, env_for(tmp_path / "ray"))
    assert f"embedding on Ray at {cluster.address}: 2 actor(s) wanted" in done.stderr
    assert f"{RECORDS} new or changed" in done.stderr
    assert_same_documents(stored(local_ingest), stored(tmp_path / "ray"))
    assert top_results(tmp_path / "ray") == top_results(local_ingest)
    again = haygate(ingest, env_for(tmp_path / "ray"))  # the same records: nothing to embed, no actor started
    assert f"0 new or changed, {RECORDS} unchanged" in again.stderr


@pytest.mark.budget(90, "an ingest through Ray Client, whose head starts a server process for this driver")
def test_a_qdrant_server_as_the_store_and_a_driver_off_the_cluster(
    cluster: LocalCluster, local_ingest: Path, tmp_path: Path
) -> None:
    """The vectors made on the cluster go straight to the Qdrant server (its local mode stands in for one). The
    driver joins through Ray Client (`ray://`), as the how-to says for a machine that only reaches the cluster."""
    assert "`ray://HEAD:10001` through Ray Client" in " ".join(HOW_TO.read_text().split())
    export, ingest = documented("# the store is a Qdrant server", cluster)
    assert export[:1] == ["export"] and export[1].startswith("HAYGATE_QDRANT_URL=")
    ingest = [cluster.client_address if a == cluster.address else a for a in ingest]
    url = f"local:{tmp_path / 'qdrant'}"
    # A busy head sometimes fails to start a Ray Client session, and haygate asks again (`connect`); Ray's head
    # holds a failed session open for the driver's reconnect grace (30 s), 5 s here.
    env = env_for(tmp_path / "data", HAYGATE_QDRANT_URL=url, RAY_CLIENT_RECONNECT_GRACE_PERIOD="5")
    done = haygate(ingest, env)
    assert f"embedding on Ray at {cluster.client_address}: 2 actor(s) wanted" in done.stderr
    assert_same_documents(stored(local_ingest), stored(tmp_path / "data", qdrant_url=url))


@pytest.mark.budget(20, "one refused ingest: it joins the cluster and is told at once, whatever its batches")
def test_a_gpu_actor_on_a_cpu_cluster_is_refused(cluster: LocalCluster, tmp_path: Path) -> None:
    """No node here has a GPU (the block's `ray start --num-gpus=1` needs one): the ingest says so at once.
    The samples come in several batches (progress lines without a terminal), two in flight: the second is told
    why the first could not start the actors, rather than waiting for actors that never come."""
    gpu_node, ingest = documented("ray start --address=HEAD:6379 --num-gpus=1", cluster)
    assert "--num-gpus=1" in gpu_node
    done = haygate(ingest, env_for(tmp_path / "data"), expect=2)
    assert "no node of the Ray cluster" in done.stderr and "1 CPU and 1 GPU each" in done.stderr


@pytest.mark.budget(60, "indexes a judged sample on the cluster's actors, then evaluates it")
def test_the_evaluation_indexes_on_the_cluster(cluster: LocalCluster, tmp_path: Path) -> None:
    [evaluate] = documented(".venv/bin/haygate eval --judged evaluation/memory_search --ray", cluster)
    done = haygate([*evaluate, "--limit", "1", "--out", str(tmp_path / "out")], env_for(tmp_path / "data"))
    assert "embedding on Ray at" in done.stderr
    assert "ndcg@10" in done.stdout


@pytest.mark.budget(60, "starts a Ray of its own for one ingest")
def test_a_ray_of_this_machine(local_ingest: Path, tmp_path: Path) -> None:
    [ingest] = documented(".venv/bin/haygate ingest docs samples/docs --ray local")
    done = haygate(ingest, env_for(tmp_path / "data"))
    assert "embedding on Ray at local" in done.stderr
    assert set(stored(tmp_path / "data")) == set(stored(local_ingest))


@pytest.mark.budget(60, "an ingest through the cluster with a node killed, and the wait for its processes to end")
def test_a_node_lost_mid_ingest_costs_nothing(cluster: LocalCluster, local_ingest: Path, tmp_path: Path) -> None:
    """Node 2 dies while its actor embeds: its work runs again on the head's actor, and the collection is whole.
    With a progress bar the batches are small (8 records, then as many as take 2 s): two are in flight."""
    command = [sys.executable, "-m", "haygate.cli", "ingest", "docs", str(CORPUS), "--progress"]
    command += ["--ray", cluster.address]
    running = subprocess.Popen(
        command, env=env_for(tmp_path / "ray"), stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert running.stderr is not None
    lines = []
    for line in running.stderr:  # both actors are up and about to have their first tasks: the node goes now
        lines.append(line)
        if "embedding on Ray at" in line:
            assert "2 actor(s) wanted, 2 ready" in line, line
            cluster.kill_node(1)
            break
    _, rest = running.communicate(timeout=240)
    err = "".join(lines) + rest
    assert running.returncode == 0, err
    assert "is gone" in err and "runs again" in err  # the loss was seen and the work redone
    assert "embedding actor(s) on the Ray cluster" in err and "every record was embedded" in err  # and reported
    assert f"{RECORDS} new or changed" in err
    assert_same_documents(stored(local_ingest), stored(tmp_path / "ray"))
    deadline = time.monotonic() + 30
    while cluster.processes(cluster.sessions[1]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not cluster.processes(cluster.sessions[1])
