"""The soak (`scripts/soak.py`) for 30 seconds: a served haygate, on a copy of the ingested samples, under searches
on every tool over REST and MCP, writes through both, hot reloads and one `kill -9` with a restart; then every
acknowledged write is read back through the server.

`make eval` runs the README's 30-minute soak (`tests/eval/test_soak.py`).
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.cache import copy_tree
from tests.support.project import PROJECT

pytestmark = [pytest.mark.integration, pytest.mark.slow]
DURATION = 30  # seconds of traffic
# RSS a server may add after its warm-up within the run: a minute adds 4 to 13 MB here (the query cache's new
# entries, a reload's new pipelines), so this is loose enough for a loaded machine and catches a gross leak.
RSS_GROWTH_MB = 48
TOOLS = {
    "search_docs",
    "search",
    "search_by_skills",
    "memory_search",
    "memory_fulltext_search",
    "get_decisions",
    "get_patterns",
    "get_warnings",
    "upsert_records",
    "delete_records",
}


def shown(report: dict[str, Any], *keys: str) -> str:
    """The parts of the report a failure needs."""
    return json.dumps({key: report[key] for key in keys}, indent=1)[:4000]


@pytest.mark.budget(150, "30 s of traffic, two server starts (one after the kill -9), reloads, the read-back")
def test_mixed_traffic_with_a_kill_loses_no_write(ingested_samples: Path, tmp_path: Path) -> None:
    """The script as a user runs it, on its own copy of the samples (it writes to them). One run, so one
    test: each assertion is one of the soak's promises."""
    data_dir = copy_tree(ingested_samples, tmp_path / "data")
    command = [sys.executable, "-m", "scripts.soak", "--duration", str(DURATION), "--data-dir", str(data_dir)]
    done = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, timeout=4 * DURATION + 120)
    assert done.stdout.strip(), done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    assert_held(report)
    lives = report["rss"]["lives"]
    assert all(life["growth_mb"] <= RSS_GROWTH_MB for life in lives), lives
    assert report["passed"] and done.returncode == 0, shown(report, "checks")


def assert_held(report: dict[str, Any]) -> None:
    """What every soak promises, whatever its length (`tests/eval/test_soak.py` holds the 30-minute one to it)."""
    calls, server, writes, read_back = (
        report["calls"],
        report["server"],
        report["writes"],
        report["writes"]["read_back"],
    )
    assert calls["unexpected_errors"] == {}, shown(report, "calls")
    assert calls["expected_errors"]["deliberately invalid"]["VALIDATION_ERROR"] > 0  # the mix provoked them

    assert [life["ended_by"] for life in server["lives"]] == ["SIGKILL", "SIGTERM"], shown(report, "server")
    assert server["reloads"] and all(r["outcome"] == "ok" for r in server["reloads"]), shown(report, "server")
    assert server["stop_exit_code"] == 0, shown(report, "server")
    assert server["log_problem_lines"] == 0 and server["log_problems"] == [], shown(report, "server")

    upserted = sum(writes[t]["acknowledged_records"].get("upserted", 0) for t in ("rest", "mcp"))
    deleted = writes["rest"]["deleted"] + writes["mcp"]["deleted"]
    assert upserted > 0 and deleted > 0 and read_back["found"] > 0, shown(report, "writes")
    assert read_back["missing"] == [] and read_back["stale"] == [], shown(report, "writes")  # every write found
    assert writes["rest"]["problems"] == [] and writes["mcp"]["problems"] == [], shown(report, "writes")
    assert read_back["resurrected"] == [], shown(report, "writes")  # no deleted record back
    assert read_back["never_acknowledged"] == [] and read_back["rest_equals_mcp"], shown(report, "writes")

    lives = report["rss"]["lives"]
    assert len(lives) == 2 and all("growth_mb" in life for life in lives), lives  # both sampled once warm

    assert set(report["tools"]) == TOOLS
    for tool in TOOLS:
        for transport in ("rest", "mcp"):
            assert report["by_tool"][tool][transport]["ok"] > 0, (tool, transport, report["by_tool"].get(tool))
