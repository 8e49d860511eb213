"""The README's walk-through, "Adding a tool with YAML only", run as written: its files go into a copy of
the project, two notes are ingested, and the new tool answers with its filters."""

import json
import re
import shutil
from pathlib import Path

import pytest

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway, load_tools
from haygate.ingest.indexer import ingest_files
from tests.conftest import PROJECT, make_settings

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
