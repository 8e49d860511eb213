"""`haygate ingest` tells what happened: the summary line's chunks and rate, and the long-record warning, as the
CLI prints them and as a server's write answers them; on a real store in a temp dir."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from haygate.cli import main
from haygate.gateway.loader import Loader
from haygate.gateway.writer import Writer
from haygate.settings import Settings

pytestmark = pytest.mark.integration

SUMMARY = re.compile(
    r"^(?P<collection>\w+): (?P<records>\d+) records read, (?P<written>\d+) new or changed, (?P<unchanged>\d+) "
    r"unchanged, (?P<rejected>\d+) rejected, (?P<chunks>\d+) chunks written( \((?P<rate>\d+\.\d) chunks/s\))?"
    r"(?P<rest>.*)$",
    re.MULTILINE,
)


@pytest.fixture
def cli_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The CLI builds its Settings from the shell: point it at this test's data dir."""
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(settings.data_dir))
    monkeypatch.delenv("HAYGATE_QDRANT_URL", raising=False)
    return settings


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def memory(key: str, words: int) -> dict[str, Any]:
    return {"key": key, "summary": f"About {key}", "content": " ".join(f"w{i}" for i in range(words - 2))}


def test_the_cli_prints_the_warning_then_the_summary_with_its_chunks(
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(tmp_path / "m.jsonl", [memory("a", 30), memory("long", 1840), {"key": "x"}])
    assert main(["ingest", "memories", str(source), "--no-progress"]) == 1  # the record without a summary
    err = capsys.readouterr().err
    warning = "warning: record 'long' is 1,840 words and became one document: the embedder reads its first ~200 words"
    assert err.count("warning: ") == 1 and warning in err
    assert "add a splitter to pipelines/indexing/memories.yaml" in err
    [summary] = SUMMARY.finditer(err)
    assert summary.group(0).startswith("memories: 3 records read, 2 new or changed, 0 unchanged, 1 rejected")
    assert (summary["chunks"], summary["rest"]) == ("2", ", 1 warning(s)") and float(summary["rate"]) > 0
    assert err.index(warning) < summary.start()


def test_a_split_collection_reports_more_chunks_than_records_and_no_warning(
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs cuts a section into 220-word windows (30 overlap): one of 250 words is 2 chunks."""
    section = {"_id": "long", "title": "Long", "text": "Chunked body text about ingestion. " * 50, "version": "1"}
    source = write_jsonl(tmp_path / "docs.jsonl", [section])
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    err = capsys.readouterr().err
    [summary] = SUMMARY.finditer(err)
    assert summary.group(0).startswith("docs: 1 records read, 1 new or changed")  # the wording scripts grep
    assert (summary["chunks"], summary["rest"]) == ("2", "") and "warning" not in err
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    [again] = SUMMARY.finditer(capsys.readouterr().err)
    assert again.group(0) == "docs: 1 records read, 0 new or changed, 1 unchanged, 0 rejected, 0 chunks written"


def test_a_write_through_a_server_answers_the_warning(loader: Loader) -> None:
    writer = Writer(loader, optimize_after=60)
    try:
        answer = writer.upsert("memories", [memory("long", 700), memory("short", 10)])
    finally:
        writer.close()
    assert answer["added"] == 2
    [warning] = answer["warnings"]
    assert warning.startswith("record 'long' is 700 words and became one document")
