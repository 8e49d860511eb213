"""The README's walk-through, "Adding a tool with YAML only", run as written: its files go into a copy of
the project, two notes are ingested, and the new tool answers with its filters. And the commands of "A live
service", run against a running server."""

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway, load_tools
from haygate.ingest.indexer import ingest_files
from tests.conftest import PROJECT, free_port, make_settings

pytestmark = pytest.mark.integration
README = (PROJECT / "README.md").read_text()


def walkthrough_files() -> dict[str, str]:
    """The YAML blocks of the walk-through, by the path their first line names."""
    section = README[README.index("## Adding a tool with YAML only") : README.index("## Evaluating and tuning")]
    blocks = re.findall(r"```yaml\n(.*?)```", section, re.DOTALL)
    files = {}
    for block in blocks:
        text = "\n".join(line.removeprefix("   ") for line in block.splitlines())
        first, _, _ = text.partition("\n")
        files[first.removeprefix("# ").strip()] = text
    return files


def test_the_walkthrough_declares_four_files() -> None:
    assert sorted(walkthrough_files()) == [
        "configs/collections/release_notes.yaml",
        "configs/tools/search_release_notes.yaml",
        "pipelines/indexing/release_notes.yaml",
        "pipelines/tools/search_release_notes.yaml",
    ]


def test_the_walkthrough_tool_works(tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(PROJECT / "configs", home / "configs")
    shutil.copytree(PROJECT / "pipelines", home / "pipelines")
    for relative, text in walkthrough_files().items():
        (home / relative).write_text(text)
    notes = tmp_path / "notes.jsonl"
    notes.write_text(
        json.dumps(
            {
                "id": "n1",
                "title": "Faster ingest",
                "body": "Ingest runs twice as fast.",
                "product": "haygate",
                "version": "1.2",
                "date": "2026-03-01",
            }
        )
        + "\n"
        + json.dumps(
            {
                "id": "n2",
                "title": "New filters",
                "body": "Filter on dates.",
                "product": "other",
                "version": "0.9",
                "date": "2025-01-01",
            }
        )
        + "\n"
    )
    with Loader(make_settings(tmp_path / "data", home=home)) as loader:
        report = ingest_files(loader.collection("release_notes"), [notes], progress=False)
        assert (report.written, report.errors) == (2, [])
        runtimes, problems = load_tools(loader)
        assert problems == [] and "search_release_notes" in runtimes
        gateway = Gateway.load(loader)
        everything = gateway.call("search_release_notes", {"query": "faster ingest"})
        recent = gateway.call(
            "search_release_notes", {"query": "faster ingest", "product": "haygate", "since": "2026-01-01"}
        )
    assert everything["results"][0]["id"] == "n1" and len(everything["results"]) == 2
    assert [r["id"] for r in recent["results"]] == ["n1"]
    assert recent["metadata"]["filters"] == {"product": "haygate", "since": "2026-01-01"}


def live_commands() -> list[str]:
    """The commands of "A live service", one per entry (continued lines joined)."""
    section = README[README.index("## A live service") : README.index("## Settings")]
    block = re.search(r"```bash\n(.*?)```", section, re.DOTALL)
    assert block is not None
    return block.group(1).replace("\\\n", " ").strip().splitlines()


def wait_for_health(url: str, server: subprocess.Popen[bytes]) -> None:
    """Until the server answers at all (`make run` has indexed and is serving); it may still be starting."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and server.poll() is None:
        try:
            httpx.get(f"{url}/health", timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError("the server did not answer /health")


@pytest.mark.slow
def test_the_live_service_commands_run_against_a_running_server(tmp_path: Path) -> None:
    """Each command as written, against `haygate serve --http` on the bundled configs (port swapped)."""
    port = free_port()
    data_dir = tmp_path / "data"
    env = {**os.environ, "HAYGATE_DATA_DIR": str(data_dir), "HAYGATE_HOME": str(PROJECT)}
    command = [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)]
    with (tmp_path / "server.log").open("wb") as log:
        server = subprocess.Popen(command, env=env, stderr=log, cwd=PROJECT)
    try:
        wait_for_health(f"http://127.0.0.1:{port}", server)
        outputs = []
        for line in live_commands():
            done = subprocess.run(
                ["bash", "-c", line.replace("localhost:8000", f"127.0.0.1:{port}")],
                env=env,
                cwd=PROJECT,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert done.returncode == 0, (line, done.stdout, done.stderr, (tmp_path / "server.log").read_text())
            outputs.append((done.stdout, done.stderr))
    finally:
        server.terminate()
        assert server.wait(60) == 0
    put, search, delete, ingest, call, reload, health = outputs
    assert json.loads(put[0])["added"] == 1
    assert json.loads(search[0])["results"][0]["key"] == "ops-redis-eviction"
    assert json.loads(delete[0])["deleted"] == 1
    assert "going through it" in ingest[1] and "0 rejected" in ingest[1]
    assert json.loads(call[0])["results"] and "going through it" in call[1]
    assert json.loads(reload[0])["reloaded"] is True
    assert json.loads(health[0])["status"] == "ready"
