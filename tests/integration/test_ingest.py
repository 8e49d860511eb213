"""`haygate ingest`, `delete` and `optimize` end to end through the CLI, on a real store in a temp dir."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from haygate.cli import main
from haygate.errors import ExitCode
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.settings import Settings

pytestmark = pytest.mark.integration
PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cli_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The CLI builds its Settings from the shell: point it at this test's data dir."""
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(settings.data_dir))
    monkeypatch.delenv("HAYGATE_QDRANT_URL", raising=False)
    return settings


def write_jsonl(path: Path, records: list[dict | str]) -> Path:  # type: ignore[type-arg]
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def records(n: int) -> list[dict | str]:  # type: ignore[type-arg]
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
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = write_jsonl(tmp_path / "docs.jsonl", records(5))
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    assert "5 new or changed, 0 unchanged" in capsys.readouterr().err
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    assert "0 new or changed, 5 unchanged" in capsys.readouterr().err
    changed = records(5)
    changed[2] = {**changed[2], "text": "Completely rewritten body for the third section. " * 60}  # now chunked
    write_jsonl(source, changed)
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 0
    assert "1 new or changed, 4 unchanged" in capsys.readouterr().err
    with Loader(cli_settings) as loader:
        store = loader.store("docs")
        chunks = store.filter_documents({"field": "meta.record_id", "operator": "==", "value": "r2"})
        assert len(chunks) > 1 and all("rewritten" in (c.content or "") for c in chunks)
        assert sorted(c.id for c in chunks)[0] == "r2#chunk0" and store.count_documents() == 4 + len(chunks)


def test_bad_records_are_named_and_good_ones_land(
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = records(3)
    source = write_jsonl(tmp_path / "mixed.jsonl", [good[0], "{broken json", good[1], {"_id": "x"}, good[2]])
    assert main(["ingest", "docs", str(source), "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert f"{source}:2: invalid JSON" in err
    assert f"{source}:4: empty or missing content field" in err
    with Loader(cli_settings) as loader:
        assert loader.store("docs").count_documents() == 3


def test_markdown_is_split_at_headings_and_csv_rows_are_records(cli_settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "page.md").write_text(
        "---\nversion: '2.0'\nsource: mine\n---\n# Page\nIntro text.\n## Part\nMore text.\n```bash\n# no heading\n```\n"
    )
    (tmp_path / "rows.csv").write_text("_id,title,text\nc1,Row,CSV body\n")
    assert main(["ingest", "docs", str(tmp_path / "page.md"), str(tmp_path / "rows.csv"), "--no-progress"]) == 0
    with Loader(cli_settings) as loader:
        store = loader.store("docs")
        assert sorted(d.id for d in store.meta_by_filter(None)) == ["c1", "mine:page.md#Page", "mine:page.md#Page/Part"]
        [part] = store.filter_documents({"field": "meta.section_path", "operator": "==", "value": "page/part"})
        assert (
            part.meta["version"] == "2.0" and part.meta["source_name"] == "mine" and part.meta["title"] == "Page > Part"
        )
        assert part.content == "More text.\n\n```bash\n# no heading\n```" and part.meta["content_type"] == "mixed"
        assert part.meta["record_id"] == "mine:page.md"  # a file is one record: editing it replaces its sections


def test_delete_by_id_and_unknown_id_fails(
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", "docs", str(write_jsonl(tmp_path / "d.jsonl", records(3))), "--no-progress"]) == 0
    assert main(["delete", "docs", "r1"]) == 0
    assert main(["delete", "docs", "r0", "missing-id"]) == 1
    assert "not found in 'docs': missing-id" in capsys.readouterr().err
    with Loader(cli_settings) as loader:
        assert loader.store("docs").count_documents() == 1


@pytest.mark.slow  # a second process
def test_ingest_while_another_process_holds_the_store_is_refused(cli_settings: Settings, tmp_path: Path) -> None:
    entity = {"entity_type": "bug", "entity_id": "bug:1", "product_id": "product:1", "title": "Blank page"}
    source = write_jsonl(tmp_path / "e.jsonl", [entity])
    with Loader(cli_settings) as loader:
        loader.store("entities").shard  # noqa: B018  (this process now owns the shard)
        result = subprocess.run(
            [sys.executable, "-m", "haygate.cli", "ingest", "entities", str(source), "--no-progress"],
            capture_output=True,
            text=True,
            cwd=PROJECT,
            timeout=300,
            env={"HAYGATE_DATA_DIR": str(cli_settings.data_dir), "PATH": os.environ.get("PATH", "")},
        )
    assert result.returncode == 3, result.stderr
    assert "open in another process" in result.stderr and "Traceback" not in result.stderr
    assert main(["ingest", "entities", str(source), "--no-progress"]) == 0  # released: now it lands


def test_unknown_collection(cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_jsonl(tmp_path / "d.jsonl", records(1))
    assert main(["ingest", "nope", str(source)]) == 1
    assert "unknown collection 'nope'" in capsys.readouterr().err


def test_ingest_leaves_the_index_build_to_the_server_unless_told_to_wait(
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entity = {"entity_type": "bug", "entity_id": "bug:7", "product_id": "product:1", "title": "Blank page"}
    source = write_jsonl(tmp_path / "e.jsonl", [entity])
    assert main(["ingest", "entities", str(source), "--no-progress"]) == 0
    assert "`haygate serve` builds its index in the background" in capsys.readouterr().err
    with Loader(cli_settings) as loader:
        store = loader.store("entities")
        assert store.count_documents() == 1 and store.needs_optimizing()  # searchable, not yet optimized
    changed = write_jsonl(tmp_path / "e2.jsonl", [{**entity, "title": "Blank page on checkout"}])
    assert main(["ingest", "entities", str(changed), "--no-progress", "--wait"]) == 0
    with Loader(cli_settings) as loader:
        assert not loader.store("entities").needs_optimizing()


def test_an_included_file_changed_reingests_its_pages_and_changelogs_stay_out_unless_asked(
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    (site / "src").mkdir(parents=True)
    (site / "src" / "retry.py").write_text("def retry(times=3):\n    return times\n")
    (site / "retries.md").write_text('# Retries\n\nHow retrying works.\n\n```python\n--8<-- "src/retry.py"\n```\n')
    (site / "other.md").write_text("# Other\n\nNothing about that.\n")
    (site / "CHANGELOG.md").write_text("# Changelog\n\n## 1.1.0\n\n- Retries now back off exponentially.\n")
    assert main(["ingest", "docs", str(site), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "3 records read, 3 new or changed" in err and "1 includes read" in err and "1 changelog(s)" in err
    (site / "src" / "retry.py").write_text("def retry(times=5, backoff=2.0):\n    return times\n")
    assert main(["ingest", "docs", str(site), "--no-progress"]) == 0
    assert "1 new or changed, 2 unchanged" in capsys.readouterr().err  # the page that shows the file
    with Loader(cli_settings) as loader:
        store = loader.store("docs")
        [page] = store.filter_documents({"field": "meta.record_id", "operator": "==", "value": "file:retries.md"})
        assert "def retry(times=5, backoff=2.0):" in (page.content or "")
        gateway = Gateway.load(loader)
        plain = gateway.call("search_docs", {"query": "retries back off exponentially"})
        asked = gateway.call("search_docs", {"query": "retries back off exponentially", "changelogs": True})
        only_changelogs = gateway.call("search_docs", {"query": "retries back off", "section_path": "changelog"})
    assert [r["path"] for r in plain["results"]] == ["retries.md", "other.md"]  # the changelog left out
    assert only_changelogs["results"] == []  # and the answer says why, and what to ask instead
    assert "`changelogs` leaves out" in only_changelogs["metadata"]["message"]
    assert "changelogs: true" in only_changelogs["metadata"]["message"]
    assert asked["results"][0]["path"] == "CHANGELOG.md" and plain["metadata"]["filters"] == {}


def test_a_folder_with_nothing_to_read_is_an_error_not_a_summary_of_zeros(
    cli_settings: Settings, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A wrong folder (or a glob that leaves everything out) is said, with what is read, and fails the command."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "notes.txt").write_text("not a format haygate reads")
    assert main(["ingest", "docs", str(tmp_path / "site"), "--no-progress"]) == ExitCode.FAILED
    err = capsys.readouterr().err
    assert "error: nothing to ingest into 'docs' from" in err and ".md" in err and "records read" not in err
