"""Quiet unless asked: with no terminal, `haygate ingest` writes its report and nothing else, no progress bar of
its own or of a library; `--progress` draws haygate's bar all the same."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # three processes, two loading the model


def ingest(project: Path, data_dir: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "haygate.cli", "ingest", "docs", "notes", *flags]
    env = {**os.environ, "HAYGATE_DATA_DIR": str(data_dir)}
    return subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )


@pytest.mark.budget(40, "two ingests of three Markdown files, each a process that loads the model")
def test_ingest_without_a_terminal_prints_its_report_and_no_bar(tmp_path: Path) -> None:
    project = tmp_path / "project"
    subprocess.run([sys.executable, "-m", "haygate.cli", "init", str(project)], check=True, capture_output=True)
    notes = project / "notes"
    notes.mkdir()
    for n in range(3):
        (notes / f"note{n}.md").write_text(f"# Note {n}\n\nThe {n}th note says how to rotate a token.\n")
    quiet = ingest(project, tmp_path / "data-quiet")
    assert quiet.returncode == 0, quiet.stderr
    assert "3 records read" in quiet.stderr  # the report, as a log line
    assert "%|" not in quiet.stderr + quiet.stdout, quiet.stderr
    asked = ingest(project, tmp_path / "data-asked", "--progress")
    assert asked.returncode == 0, asked.stderr
    assert "ingest docs: 100%|" in asked.stderr
