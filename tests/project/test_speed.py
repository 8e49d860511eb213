"""Budgets scaled by the machine's measured speed (`tests/support/speed.py`, `tests/support/budgets.py`): the
reference is taken for the probe as it is, the run's ratio is what its parts say, and a run of the budget plugin
(a pytest of its own, on a test file written here) scales a test's budget by the ratio and says so."""

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support import speed
from tests.support.budgets import TIMINGS_KEY, Profile, Timings, judged
from tests.support.project import PROJECT

RETAKE = "the probe's work changed since the reference was taken: re-take it with `make speed-reference`"


def test_the_reference_is_taken_for_the_probe_as_it_is() -> None:
    reference = speed.read_reference()
    assert reference["fingerprint"] == speed.fingerprint(), RETAKE
    assert reference["work"] == speed.WORK, RETAKE
    assert set(reference["seconds"]) == set(speed.PARTS)
    assert all(seconds > 0 for seconds in reference["seconds"].values())
    assert reference["copies"] >= 1 and reference["runs"] >= 3


def test_the_fingerprint_follows_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    before = speed.fingerprint()
    monkeypatch.setitem(speed.WORK, "python", {"records": speed.WORK["python"]["records"] + 1})
    assert speed.fingerprint() != before


def test_this_runs_ratio_is_the_geometric_mean_of_its_parts_clipped(request: pytest.FixtureRequest) -> None:
    measured = request.config.stash[TIMINGS_KEY].speed
    if measured.source != "probe":
        assert measured.source == speed.OVERRIDE and measured.ratio == float(os.environ[speed.OVERRIDE])
        return
    assert set(measured.parts) == set(speed.PARTS) and measured.copies >= 1 and not measured.stale
    mean = math.exp(sum(math.log(value) for value in measured.parts.values()) / len(measured.parts))
    assert measured.ratio == pytest.approx(min(max(mean, speed.LIMITS[0]), speed.LIMITS[1]), rel=0.01)


def test_the_ratio_is_each_parts_mean_against_the_reference_and_clipped() -> None:
    reference = {"seconds": {"model": 0.1, "store": 0.2, "python": 0.4}}
    copies = [{"model": 0.1, "store": 0.4, "python": 0.4}, {"model": 0.1, "store": 0.4, "python": 0.4}]
    ratio, parts = speed.ratio_of(copies, reference)
    assert parts == {"model": 1.0, "store": 2.0, "python": 1.0}
    assert ratio == pytest.approx((1.0 * 2.0 * 1.0) ** (1 / 3))
    assert speed.ratio_of([{"model": 1.0, "store": 2.0, "python": 4.0}], reference)[0] == speed.LIMITS[1]
    assert speed.ratio_of([{"model": 0.001, "store": 0.002, "python": 0.004}], reference)[0] == speed.LIMITS[0]


def test_a_profile_total_and_a_shared_fixture_are_judged_at_the_runs_speed() -> None:
    profile = Profile("fast", "not slow", total=60, shared=30, started_from_env=False, contention=1)
    slow_hour = Timings(profile, started=0.0, speed=speed.Speed(1.5, {}, 0, 0.0, speed.OVERRIDE))
    slow_hour.fixtures = {"samples": 40.0}
    slow_hour.tests = {"tests/x.py::test": 1.0}
    assert judged(slow_hour, spent=80.0) == []  # 80 s of 90, 40 s of 45
    usual = Timings(profile, started=0.0, speed=speed.Speed(1.0, {}, 0, 0.0, speed.OVERRIDE))
    usual.fixtures, usual.tests = slow_hour.fixtures, slow_hour.tests
    assert judged(usual, spent=80.0) == [
        "shared fixture 'samples' took 40.0 s to set up and tear down; the fast profile allows "
        "30.0 s (30.0 s at the reference speed x speed ratio 1.00)",
        "the fast profile took 80 s; its budget is 60.0 s (60.0 s at the reference speed x speed ratio 1.00)",
    ]


INNER = """
import time

import pytest

from tests.support.budgets import TIMINGS_KEY

BUDGET = 0.5


@pytest.mark.budget(BUDGET, "what the outer test sets")
def test_slower_than_its_budget(request):
    time.sleep({sleep})
"""


def run_inner(folder: Path, sleep: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A pytest of its own with the budget plugin, on one test of a 0.5 s budget that sleeps `sleep` seconds (a
    Python expression)."""
    (folder / "test_inner.py").write_text(textwrap.dedent(INNER.format(sleep=sleep)))
    environment = {name: value for name, value in os.environ.items() if name != speed.OVERRIDE}
    environment.update(PYTHONPATH=str(PROJECT), **env)
    command = [sys.executable, "-m", "pytest", "-p", "tests.support.budgets", "--profile", "fast", "-p", "no:xdist"]
    return subprocess.run([*command, "test_inner.py"], cwd=folder, env=environment, capture_output=True, text=True)


def test_a_slower_hour_fails_nothing_and_a_slower_test_fails_naming_its_ratio(tmp_path: Path) -> None:
    at_ratio_one = run_inner(tmp_path, "0.8", **{speed.OVERRIDE: "1.0"})  # 1.6 times its budget
    assert at_ratio_one.returncode == 1, at_ratio_one.stdout
    assert "speed ratio 1.00 (set by HAYGATE_SPEED_RATIO" in at_ratio_one.stdout
    assert "took 0.8 s of its own" in at_ratio_one.stdout
    assert "allows it 0.5 s (0.5 s at the reference speed x speed ratio 1.00)" in at_ratio_one.stdout
    slow_hour = run_inner(tmp_path, "0.8", **{speed.OVERRIDE: "1.8"})  # 0.8 s of 0.9
    assert slow_hour.returncode == 0, slow_hour.stdout
    assert "1 passed" in slow_hour.stdout and "time budget: fast profile" in slow_hour.stdout


@pytest.mark.slow
def test_a_test_made_slower_fails_its_budget_at_the_probes_ratio(tmp_path: Path) -> None:
    """The real probe, in a run of one test 1.6 times its budget at the speed the probe measured."""
    done = run_inner(tmp_path, "BUDGET * 1.6 * request.config.stash[TIMINGS_KEY].speed.ratio")
    assert done.returncode == 1, done.stdout
    header = next(line for line in done.stdout.splitlines() if line.startswith("time budgets:"))
    assert "of the reference (model " in header and "1 copy side by side" in header, header
    ratio = float(header.split("speed ratio ")[1].split()[0])
    assert f"(0.5 s at the reference speed x speed ratio {ratio:.2f})" in done.stdout


@pytest.mark.slow
def test_the_reference_command_takes_one_for_the_probe_as_it_is(tmp_path: Path) -> None:
    """`make speed-reference`'s command, writing elsewhere, from one probe of one copy."""
    written = tmp_path / "reference.json"
    command = [sys.executable, "-m", "tests.support.speed", "--write", "--output", str(written), "--runs", "1"]
    done = subprocess.run([*command, "--copies", "1"], cwd=PROJECT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    reference = json.loads(written.read_text())
    assert reference["fingerprint"] == speed.fingerprint() and reference["copies"] == 1
    assert set(reference["seconds"]) == set(speed.PARTS) and min(reference["seconds"].values()) > 0
    assert set(reference["taken"]) == {"at", "cores", "machine", "python", "packages", "load_average"}
