"""`make eval`: the README's soak as written, 30 minutes of mixed traffic on a served haygate whose samples it
ingests cold, with a reload every three minutes and one `kill -9` midway. Its report goes to
`eval-out/soak.json`.

The same promises as the 30 seconds in `make test` (`tests/integration/test_soak.py`), and RSS flat after
warm-up: over the last third of each server's life, RSS grows no faster than the query cache's new entries
explain, give or take FLAT_MB_PER_MIN, and what each server added after its warm-up beyond them stays within
the script's own margin (64 MB: reloads, allocator slack, the written shard's pages).
"""

import json
import re
import subprocess
from typing import Any

import pytest

from tests.docs import PROJECT, documentation
from tests.integration.test_soak import assert_held, shown

pytestmark = pytest.mark.eval
OUT = PROJECT / "eval-out"
# A leak shows as a slope that does not level off. Ten minutes here levelled off to 2.6 MB/min in the last third
# of the first server's life, 1.8 of it the query cache's new entries (load average 9 to 13 on 2 cores); a
# reload inside the window adds a step of 2 to 4 MB.
FLAT_MB_PER_MIN = 3.0


def test_the_soak() -> None:
    written = re.search(r"`(\.venv/bin/python scripts/soak\.py --duration (\d+))`", documentation())
    assert written is not None, "the README no longer gives the soak's command"
    command, duration = written.group(1), int(written.group(2))
    done = subprocess.run(
        ["bash", "-ec", command], cwd=PROJECT, capture_output=True, text=True, timeout=duration + 1200
    )
    OUT.mkdir(exist_ok=True)
    (OUT / "soak.json").write_text(done.stdout)
    assert done.stdout.strip(), done.stderr[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    assert_held(report)
    lives = report["rss"]["lives"]
    assert all(life["late_unexplained_mb_per_min"] <= FLAT_MB_PER_MIN for life in lives), lives
    assert report["checks"]["rss_growth_within_bound"], lives
    assert report["passed"] and done.returncode == 0, shown(report, "checks")
