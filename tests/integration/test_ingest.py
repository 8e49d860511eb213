"""`haygate ingest` and `haygate delete` end to end, on a real store in a temp dir."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from components.collections import close_all, open_collection
from haygate.cli import main

pytestmark = pytest.mark.integration
PROJECT = Path(__file__).resolve().parents[2]


def write_jsonl(path: Path, records: list[dict | str]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def records(n: int) -> list[dict | str]:
    return [
        {
            "_id": f"r{i}",
            "title": f"Section {i}",
            "text": f"Body text number {i} about ingestion.",
            "version": "1.0",
            "heading_path": ["Guide", f"Section {i}"],
        }
        for i in range(n)
    ]


def test_reingest_is_idempotent_and_changes_are_reembedded(
    haygate_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(tmp_path / "docs.jsonl", records(5))
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    assert "5 new or changed, 0 unchanged" in capsys.readouterr().err
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    assert "0 new or changed, 5 unchanged" in capsys.readouterr().err
    changed = records(5)
    changed[2] = {
        **changed[2],
        "text": "Completely rewritten body for the third section. " * 60,
    }  # now chunked
    write_jsonl(source, changed)
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    assert "1 new or changed, 4 unchanged" in capsys.readouterr().err
    store = open_collection("docs")
    chunks = store.filter_documents({"field": "meta.record_id", "operator": "==", "value": "r2"})
    assert len(chunks) > 1 and all("rewritten" in c.content for c in chunks)
    assert store.count_documents() == 4 + len(chunks)


def test_bad_records_are_named_and_good_ones_land(
    haygate_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = records(3)
    source = write_jsonl(tmp_path / "mixed.jsonl", [good[0], "{broken json", good[1], {"_id": "x"}, good[2]])
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"{source}:2: invalid JSON" in err
    assert f"{source}:4: empty or missing content field" in err
    assert open_collection("docs").count_documents() == 3


def test_markdown_and_csv_ingest(haygate_env: Path, tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text(
        "---\nversion: '2.0'\nsource: mine\n---\n# Page\nIntro text.\n## Part\nMore text.\n"
    )
    (tmp_path / "rows.csv").write_text("_id,title,text\nc1,Row,CSV body\n")
    assert main(["ingest", "docs", str(tmp_path / "page.md"), str(tmp_path / "rows.csv"), "--no-progress"]) == 0
    store = open_collection("docs")
    assert store.count_documents() == 3
    [part] = store.filter_documents({"field": "meta.section_path", "operator": "==", "value": "page/part"})
    assert part.meta["version"] == "2.0" and part.meta["source_name"] == "mine"


def test_delete_by_id_and_unknown_id_fails(
    haygate_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", "docs", str(write_jsonl(tmp_path / "d.jsonl", records(3))), "--no-progress"]) == 0
    assert main(["delete", "docs", "r1"]) == 0
    assert open_collection("docs").count_documents() == 2
    assert main(["delete", "docs", "r0", "missing-id"]) == 1
    assert "not found in 'docs': missing-id" in capsys.readouterr().err
    assert open_collection("docs").count_documents() == 1


def test_ingest_while_store_is_in_use_is_refused(haygate_env: Path, tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "d.jsonl", records(2))
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    store = open_collection("docs")
    store.count_documents()  # this process now owns the shard
    result = subprocess.run(
        [sys.executable, "-m", "haygate.cli", "ingest", "docs", str(source), "--no-progress"],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=300,
        env={"HAYGATE_DATA_DIR": str(haygate_env), "PATH": ""},
    )
    assert result.returncode == 3
    assert "open in another process" in result.stderr and "Traceback" not in result.stderr
    close_all()
    assert open_collection("docs").count_documents() == 2


def test_unknown_collection(haygate_env: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_jsonl(tmp_path / "d.jsonl", records(1))
    assert main(["ingest", "nope", str(source)]) == 1
    assert "unknown collection 'nope'" in capsys.readouterr().err
