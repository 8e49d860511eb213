"""Budgets scaled by the machine's measured speed (`tests/support/speed.py`, `tests/support/budgets.py`): the
reference is taken for the probe as it is, the start's ratio is what its factors say, a stretch of the run is
judged at the speed sampled within it, and a run of the budget plugin (a pytest of its own, on a test file
written here) scales a test's budget and says so."""

import itertools
import json
import math
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.support import speed
from tests.support.budgets import TIMINGS_KEY, Profile, Timings, judged
from tests.support.project import PROJECT

RETAKE = "the probe's work changed since the reference was taken: re-take it with `make speed-reference`"
REFERENCE = speed.read_reference()["seconds"]


def test_the_reference_is_taken_for_the_probe_as_it_is() -> None:
    reference = speed.read_reference()
    assert reference["fingerprint"] == speed.fingerprint(), RETAKE
    assert reference["work"] == speed.WORK, RETAKE
    assert set(reference["seconds"]) == set(speed.PARTS)
    assert all(seconds > 0 for seconds in reference["seconds"].values())
    assert reference["copies"] >= 1 and reference["runs"] >= 3 and reference["taken"]["priority_raised"]


def test_the_fingerprint_follows_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    before = speed.fingerprint()
    monkeypatch.setitem(speed.WORK, "python", {"records": speed.WORK["python"]["records"] + 1})
    assert speed.fingerprint() != before


def test_this_runs_start_is_host_times_load_clipped(request: pytest.FixtureRequest) -> None:
    measured = request.config.stash[TIMINGS_KEY].speed
    if measured.source != "probe":
        assert measured.source == speed.OVERRIDE
        assert measured.ratio == speed.clipped(float(os.environ[speed.OVERRIDE]))
        return
    assert set(measured.parts) == set(speed.PARTS) and measured.copies >= 1 and not measured.stale
    assert measured.host == pytest.approx(speed.geometric_mean(measured.parts.values()), rel=0.01)
    assert measured.load >= 1.0
    assert measured.ratio == pytest.approx(speed.clipped(measured.host * measured.load), rel=0.01)


def copy(highest: dict[str, float], normal: dict[str, float]) -> dict[str, object]:
    return {"highest": highest, "normal": normal, "raised": True}


def test_host_is_the_highest_prioritys_rounds_and_load_what_normal_priority_adds() -> None:
    reference = {"seconds": {"model": 0.1, "store": 0.2, "python": 0.4}}
    alone = {"model": 0.1, "store": 0.4, "python": 0.4}
    host, load, parts = speed.factors([copy(alone, alone), copy(alone, alone)], reference)
    assert parts == {"model": 1.0, "store": 2.0, "python": 1.0} and load == 1.0
    assert host == pytest.approx((1.0 * 2.0 * 1.0) ** (1 / 3))
    beside_a_busy_loop = {name: seconds * 1.5 for name, seconds in alone.items()}
    assert speed.factors([copy(alone, beside_a_busy_loop)], reference)[1] == pytest.approx(1.5)
    faster_at_normal = {name: seconds * 0.9 for name, seconds in alone.items()}
    assert speed.factors([copy(alone, faster_at_normal)], reference)[1] == 1.0  # competition never helps
    assert speed.clipped(4.0) == speed.LIMITS[1] and speed.clipped(0.1) == speed.LIMITS[0]


def write_samples(path: Path, rounds: list[tuple[float, float]]) -> None:
    """The sampler's file: a round at each `(at, times the reference)`, and a line being written."""
    lines = [json.dumps({"at": at, **{n: REFERENCE[n] * factor for n in speed.PARTS}}) for at, factor in rounds]
    path.write_text("\n".join(lines) + '\n{"at": 9')


def test_a_stretch_is_judged_at_the_host_speed_sampled_within_it_times_the_starts_load(tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    write_samples(samples, [(t, 1.0) for t in range(0, 30, 3)] + [(t, 1.6) for t in range(30, 60, 3)])
    started = speed.Speed(1.2, 1.0, 1.2, {}, 2, 1.0, "probe", str(samples))
    slow = started.between(30, 59)
    assert (slow.ratio, slow.samples) == (speed.clipped(1.6 * 1.2), 10)  # a slow stretch
    assert slow.parts == {name: 1.6 for name in speed.PARTS}
    assert (started.between(0, 29).ratio, started.between(0, 29).samples) == (1.2, 10)
    short = started.between(14, 15)  # a short test: the nearest rounds
    assert (short.ratio, short.samples) == (1.2, speed.NEAREST)
    never_sampled = speed.Speed(1.3, 1.3, 1.0, {}, 2, 1.0, "probe")
    assert never_sampled.between(0, 59) == speed.Stretch(1.3, 0)


def test_a_profile_total_and_a_shared_fixture_are_judged_at_the_runs_speed() -> None:
    profile = Profile("fast", "not slow", total=60, shared=30, started_from_env=False, contention=1)
    timings = Timings(profile, started=0.0, speed=speed.Speed(1.0, 1.0, 1.0, {}, 0, 0.0, speed.OVERRIDE))
    timings.fixtures = {"samples": 40.0}
    timings.tests = {"tests/x.py::test": 1.0}
    assert judged(timings, 80.0, speed.Stretch(1.5, 20)) == []  # 80 s of 90, 40 s of 45
    assert judged(timings, 80.0, speed.Stretch(1.0, 20)) == [
        "shared fixture 'samples' took 40.0 s to set up and tear down; the fast profile allows "
        "30.0 s (30.0 s at the reference speed x speed ratio 1.00 over the run, from 20 samples)",
        "the fast profile took 80 s; its budget is 60.0 s (60.0 s at the reference speed x speed ratio 1.00 over "
        "the run, from 20 samples)",
    ]


INNER = """
import time

import pytest

from tests.support.budgets import TIMINGS_KEY

BUDGET = 0.3


@pytest.mark.budget(BUDGET, "what the outer test sets")
def test_slower_than_its_budget(request):
    time.sleep({sleep})


@pytest.mark.budget(BUDGET, "what the outer test sets")
def test_within_its_budget_at_this_speed():
    time.sleep(0.45)
"""


def run_inner(folder: Path, sleep: str, **env: str) -> subprocess.CompletedProcess[str]:
    """A pytest of its own with the budget plugin, on two tests of a 0.3 s budget: one that sleeps `sleep`
    seconds (a Python expression), one that sleeps 0.45 s."""
    (folder / "test_inner.py").write_text(textwrap.dedent(INNER.format(sleep=sleep)))
    environment = {name: value for name, value in os.environ.items() if name != speed.OVERRIDE}
    environment.update(PYTHONPATH=str(PROJECT), **env)
    command = [sys.executable, "-m", "pytest", "-p", "tests.support.budgets", "--profile", "fast", "-p", "no:xdist"]
    return subprocess.run([*command, "test_inner.py"], cwd=folder, env=environment, capture_output=True, text=True)


@pytest.mark.budget(5, "an inner pytest session, its two tests sleeping 1.35 s")
def test_a_slower_hour_fails_nothing_and_a_slower_test_fails_naming_its_ratio(tmp_path: Path) -> None:
    """At a speed ratio of 1.8 (a slow hour), 0.45 s is within a 0.3 s budget and 0.9 s (twice as long on
    its own) is not."""
    done = run_inner(tmp_path, "0.9", **{speed.OVERRIDE: "1.8"})
    assert done.returncode == 1, done.stdout
    assert "speed ratio 1.80 (set by HAYGATE_SPEED_RATIO" in done.stdout
    assert "1 failed, 1 passed" in done.stdout and "test_slower_than_its_budget took 0.9 s of its own" in done.stdout
    allowed = "allows it 0.5 s (0.3 s at the reference speed x speed ratio 1.80 while it ran, as measured at the start)"
    assert allowed in done.stdout
    assert "time budget: fast profile" in done.stdout


@pytest.mark.slow
def test_a_test_made_slower_fails_its_budget_at_the_probes_ratio(tmp_path: Path) -> None:
    """The real probe, in a run of one test that sleeps twice its budget at the speed the probe measured."""
    done = run_inner(tmp_path, "BUDGET * 2 * request.config.stash[TIMINGS_KEY].speed.ratio")
    header = next(line for line in done.stdout.splitlines() if line.startswith("time budgets:"))
    assert "of the reference at the start (host " in header and "1 copy side by side" in header, header
    assert "the host sampled every 3 s after" in header, header
    assert done.returncode == 1, done.stdout
    assert "at the reference speed x speed ratio " in done.stdout and " while it ran, " in done.stdout


def test_the_sampler_samples_this_run(request: pytest.FixtureRequest) -> None:
    """The run's sampler appends a round every few seconds, each part timed, while the tests run."""
    measured = request.config.stash[TIMINGS_KEY].speed
    if not measured.samples:
        assert measured.source != "probe" or measured.describe().endswith(
            "(priorities cannot be raised here: no sampler)"
        )
        return
    waited = time.monotonic() + 2 * speed.SAMPLE_EVERY
    while len(rounds := speed.read_samples(Path(measured.samples))) < 2 and time.monotonic() < waited:
        time.sleep(0.2)
    assert len(rounds) >= 2, rounds
    assert all(sample[name] > 0 for sample in rounds for name in speed.PARTS)
    gaps = [later["at"] - earlier["at"] for earlier, later in itertools.pairwise(rounds)]
    assert min(gaps) >= speed.SAMPLE_EVERY * 0.9, gaps


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
    assert set(reference["taken"]) >= {"at", "cores", "machine", "packages", "load_average", "load_factor"}
    assert math.isfinite(reference["taken"]["load_factor"])
