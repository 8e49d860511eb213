"""Time budgets: each test profile promises a wall time, and the suite keeps the promise itself.

`pytest --profile fast|full|eval` (the Makefile's `test-fast`, `test` and `eval`) picks the tests a profile runs
and what each may take:

- a test's budget is its own time: setup, call and teardown, less the shared fixtures' (session-, package-,
  module- and class-scoped) set-up and teardown that happened to fall in them. It follows from what the test
  does (`slow`, `eval`); `@pytest.mark.budget(seconds, why)` raises it for one test, with the reason in the
  source. A test over its budget fails, with its name and time (a teardown that tips it over is an error
  at teardown);
- each shared fixture has a budget of its own for its set-up and its teardown together, checked at the end
  of the session, so no fixture's time escapes every budget;
- the profile has a total: `fast` counts pytest's own wall time (collection included); `full` counts from
  `HAYGATE_TEST_STARTED` (the moment `make test` began, so the install counts) or else from pytest's start.
  Over it, the session fails and says what took the time.

Every one of these limits is set for the reference speed and multiplied by the machine's speed ratio over the
time it covers (`tests/support/speed.py`): a test's over the test's own time, the fixtures' and the total over
the run's. The speed is measured at the start of the run (printed in its header) and sampled while it runs
(the summary prints the run's): a slow hour on a shared machine fails nothing, and a test that got slower on
its own still does. pytest-timeout's limits, set before anything runs, take the start's figure.

It works alike in one process and under pytest-xdist: the controller measures the speed, starts the sampler and
hands both to the workers, the workers time their tests and fixtures, and the controller adds them up.
pytest-timeout turns a hang into a readable failure well inside the profile.
"""

import os
import shutil
import tempfile
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests.support.cache import model_cache_dir
from tests.support.speed import LIMITS, Probe, Speed, Stretch, measure


@dataclass(frozen=True)
class Profile:
    name: str
    markers: str  # the marker expression of the tests it runs
    total: float  # seconds the whole profile may take
    shared: float  # seconds one shared fixture's set-up may take
    started_from_env: bool  # count from HAYGATE_TEST_STARTED (the install counts) when it is set
    contention: float  # how much slower a test runs here than alone: `full` runs two workers beside the
    # servers its tests start, on two cores


PROFILES = {
    "fast": Profile("fast", "not slow and not eval", total=60, shared=30, started_from_env=False, contention=1),
    "full": Profile("full", "not eval", total=600, shared=120, started_from_env=True, contention=2),
    "eval": Profile("eval", "eval", total=4 * 3600, shared=3600, started_from_env=False, contention=1),
}
# A test's own budget by what it does; `budget` marks raise it for one test.
FAST_TEST, SLOW_TEST, EVAL_TEST = 3.0, 60.0, 3600.0
HANG_MARGIN = 3.0  # pytest-timeout: a test that hangs fails at this multiple of its budget, plus the shared set-up
SHOWN = 15  # slowest tests and fixtures printed when a profile is over its total
OWN_SECONDS = "own_seconds"  # a test report's user property: the test's own time
ALLOWED_SECONDS = "allowed_seconds"  # and what it was allowed at the speed it ran at
WORKER_FIXTURES = "haygate_fixtures"  # what an xdist worker sends its controller: fixture set-up times
PROBE_HELP = "see tests/support/speed.py, or set HAYGATE_SPEED_RATIO to run at a ratio you choose"
KEEP_SAMPLES = "HAYGATE_SPEED_SAMPLES"  # a file to keep the sampler's rounds in, for a look after the run
WORKER_SPEED = "haygate_speed"  # what the controller sends each xdist worker: the run's speed


@dataclass
class Timings:
    profile: Profile
    started: float  # time.time() the profile's total counts from
    speed: Speed  # this run's, which every budget is multiplied by
    shared_now: float = 0.0  # shared set-up or teardown inside the running test's current phase
    own: float = 0.0  # the running test's own time so far (setup, then call)
    tests: dict[str, float] = field(default_factory=dict)  # nodeid -> its own seconds
    fixtures: dict[str, float] = field(default_factory=dict)  # shared fixture -> its longest set-up + teardown
    finalizing: dict[str, float] = field(default_factory=dict)  # shared fixture -> when its teardown began
    test_started: float = 0.0  # time.time() the running test's set-up began
    allowed: dict[str, float] = field(default_factory=dict)  # nodeid -> its budget at the speed it ran at
    problems: list[str] = field(default_factory=list)  # what went over, for the summary
    spent: float = 0.0  # the profile's time, as judged at the end
    run: Stretch | None = None  # the speed over the whole run, as judged at the end
    sampler: Probe | None = None  # the controller's, stopped at the end


TIMINGS_KEY = pytest.StashKey[Timings]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--profile",
        choices=sorted(PROFILES),
        default="full",
        help="which tests run and their time budgets: fast (make test-fast), full (make test), eval (make eval)",
    )


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """`tests/eval/` holds the eval profile's tests only: the other profiles do not import it (its study
    scripts load ranx and numba, seconds of every run's collection)."""
    if collection_path.name == "eval" and collection_path.parent.name == "tests":
        return config.getoption("--profile") != "eval" or None
    return None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "budget(seconds, why): this test may take longer than its profile allows")
    profile = PROFILES[config.getoption("--profile")]
    if not config.option.markexpr:
        config.option.markexpr = profile.markers
    started = time.time()
    if profile.started_from_env and os.environ.get("HAYGATE_TEST_STARTED"):
        started = float(os.environ["HAYGATE_TEST_STARTED"])
    speed, sampler = run_speed(config)
    config.stash[TIMINGS_KEY] = Timings(profile, started, speed, sampler=sampler)


def run_speed(config: pytest.Config) -> tuple[Speed, Probe | None]:
    """The controller measures (once, with a probe process per worker, before the workers start) and keeps the
    sampler going; a worker is handed the controller's figures and the sampler's file."""
    if hasattr(config, "workerinput"):
        return Speed.from_json(config.workerinput[WORKER_SPEED]), None
    if config.option.collectonly or config.option.help:
        return Speed(1.0, 1.0, 1.0, {}, 0, 0.0, "nothing runs"), None
    workers = int(config.getoption("numprocesses", None) or 0) if config.getoption("dist", "no") != "no" else 0
    cache = Path(os.environ.get("HAYGATE_MODEL_CACHE_DIR") or model_cache_dir())
    samples = Path(tempfile.mkdtemp(prefix="haygate-speed-")) / "samples.jsonl"
    try:
        return measure(max(workers, 1), cache, samples)
    except (OSError, RuntimeError, ValueError, KeyError) as error:
        msg = f"the speed probe could not measure this machine ({type(error).__name__}: {error}): {PROBE_HELP}"
        raise pytest.UsageError(msg) from error


def pytest_unconfigure(config: pytest.Config) -> None:
    timings = config.stash.get(TIMINGS_KEY, None)
    if timings is not None and timings.sampler is not None:
        timings.sampler.stop()
        if os.environ.get(KEEP_SAMPLES) and timings.speed.samples:
            shutil.copy(timings.speed.samples, os.environ[KEEP_SAMPLES])
        shutil.rmtree(Path(timings.speed.samples).parent, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist starts a worker: it runs with the controller's speed."""
    node.workerinput[WORKER_SPEED] = node.config.stash[TIMINGS_KEY].speed.to_json()


def pytest_report_header(config: pytest.Config) -> str:
    timings = config.stash[TIMINGS_KEY]
    profile = timings.profile
    return (
        f"time budgets: {profile.name} profile, {profile.total:.0f} s at the reference speed; "
        + timings.speed.describe()
    )


def budget_of(item: pytest.Item) -> float:
    """What the test may take at the reference speed: alone, times the contention (the profile's, and 2 where
    workers share the cores)."""
    marker = item.get_closest_marker("budget")
    if marker is not None:
        if len(marker.args) != 2 or not str(marker.args[1]).strip():
            raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.budget(seconds, why) needs its reason")
        alone = float(marker.args[0])
    elif item.get_closest_marker("eval"):
        alone = EVAL_TEST
    else:
        alone = SLOW_TEST if item.get_closest_marker("slow") else FAST_TEST
    workers = int(getattr(item.config, "workerinput", {}).get("workercount", 1))  # pytest-xdist's
    return alone * max(item.config.stash[TIMINGS_KEY].profile.contention, 2 if workers > 1 else 1)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A hang fails at `HANG_MARGIN` times the budget plus a shared fixture's, at the start's speed."""
    timings = config.stash[TIMINGS_KEY]
    for item in items:
        if item.get_closest_marker("timeout") is None:
            seconds = (budget_of(item) * HANG_MARGIN + timings.profile.shared) * timings.speed.ratio
            item.add_marker(pytest.mark.timeout(seconds))


@pytest.hookimpl(hookwrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> Generator[None]:
    started = time.perf_counter()
    yield
    if fixturedef.scope != "function":
        elapsed = time.perf_counter() - started
        timings = request.config.stash[TIMINGS_KEY]
        timings.shared_now += elapsed
        timings.fixtures[fixturedef.argname] = max(elapsed, timings.fixtures.get(fixturedef.argname, 0.0))
        # Finalizers run last-added first: this one marks the start of the fixture's own teardown.
        fixturedef.addfinalizer(lambda: timings.finalizing.__setitem__(fixturedef.argname, time.perf_counter()))


def pytest_fixture_post_finalizer(fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest) -> None:
    """A shared fixture's teardown counts toward its own budget, with its set-up, not toward a test's."""
    timings = request.config.stash[TIMINGS_KEY]
    began = timings.finalizing.pop(fixturedef.argname, None)
    if fixturedef.scope == "function" or began is None:
        return
    elapsed = time.perf_counter() - began
    timings.shared_now += elapsed
    timings.fixtures[fixturedef.argname] = timings.fixtures.get(fixturedef.argname, 0.0) + elapsed


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    item.config.stash[TIMINGS_KEY].shared_now = 0.0


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    item.config.stash[TIMINGS_KEY].shared_now = 0.0


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    item.config.stash[TIMINGS_KEY].shared_now = 0.0


def scaled(limit: float, speed: Stretch, during: str) -> str:
    """A limit as the failure messages give it: what it is at the speed it was judged at, and what it came from."""
    return f"{limit * speed.ratio:.1f} s ({limit:.1f} s at the reference speed x {speed.describe(during)})"


def over_budget(item: pytest.Item, own: float, budget: float, speed: Stretch) -> str:
    profile = item.config.stash[TIMINGS_KEY].profile
    return (
        f"{item.nodeid} took {own:.1f} s of its own (shared fixtures left out); the {profile.name} profile allows "
        f"it {scaled(budget, speed, 'while it ran')}. Make it faster, mark it `slow` if it starts processes or "
        "loads the samples, or give it @pytest.mark.budget(seconds, why)."
    )


def speed_while(timings: Timings, own: float, budget: float, stop: float) -> Stretch | None:
    """The speed while the running test ran, read only when it matters: a test within its budget at the
    lowest ratio there can be is within it at any."""
    return timings.speed.between(timings.test_started, stop) if own > budget * LIMITS[0] else None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    timings = item.config.stash[TIMINGS_KEY]
    own_part = max(0.0, report.duration - timings.shared_now)
    if call.when == "setup":
        timings.own, timings.test_started = own_part, report.start
        return
    budget = budget_of(item)
    before, timings.own = timings.own, timings.own + own_part
    speed = speed_while(timings, timings.own, budget, report.stop)
    over = speed is not None and timings.own > budget * speed.ratio
    if call.when == "call":
        if over and report.passed:
            assert speed is not None
            report.outcome = "failed"
            report.longrepr = over_budget(item, timings.own, budget, speed)
        return
    allowed = budget * (speed.ratio if speed is not None else timings.speed.ratio)
    report.user_properties += [(OWN_SECONDS, timings.own), (ALLOWED_SECONDS, allowed)]  # the test's whole
    if over and report.passed and before <= allowed:  # the call was within it: the teardown tipped it
        assert speed is not None
        report.outcome = "failed"
        report.longrepr = over_budget(item, timings.own, budget, speed) + " (its teardown tipped it over)"


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Where reports arrive: in this process, or from the workers on the xdist controller."""
    properties = dict(report.user_properties)
    if report.when == "teardown" and OWN_SECONDS in properties:
        _timings[0].tests[report.nodeid] = float(properties[OWN_SECONDS])
        _timings[0].allowed[report.nodeid] = float(properties[ALLOWED_SECONDS])


_timings: list[Timings] = []  # the session's, for the hooks that get no config


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    _timings[:] = [session.config.stash[TIMINGS_KEY]]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """An xdist worker is done: its shared fixtures' set-up times join the controller's."""
    fixtures = _timings[0].fixtures
    for name, seconds in getattr(node, "workeroutput", {}).get(WORKER_FIXTURES, {}).items():
        fixtures[name] = max(seconds, fixtures.get(name, 0.0))


@pytest.hookimpl(wrapper=True, trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> Generator[None]:
    """The whole run is judged once every other part of its end is done (xdist's workers have stopped and
    the shared fixtures are torn down), and before the summary says how it went: the summary's time is the
    time judged."""
    config = session.config
    timings = config.stash[TIMINGS_KEY]
    if hasattr(config, "workeroutput"):  # an xdist worker: the controller judges the whole
        config.workeroutput[WORKER_FIXTURES] = timings.fixtures
    yield
    if hasattr(config, "workeroutput"):
        return
    ended = time.time()
    timings.spent, timings.run = ended - timings.started, timings.speed.between(timings.started, ended)
    problems = judged(timings, timings.spent, timings.run)
    timings.problems = problems
    if problems and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def judged(timings: Timings, spent: float, speed: Stretch) -> list[str]:
    """What went over: each shared fixture against its budget, and the profile's `spent` seconds against its
    total, both at the run's `speed`."""
    profile = timings.profile
    problems = [
        f"shared fixture '{name}' took {seconds:.1f} s to set up and tear down; the {profile.name} profile "
        f"allows {scaled(profile.shared, speed, 'over the run')}"
        for name, seconds in timings.fixtures.items()
        if seconds > profile.shared * speed.ratio
    ]
    if timings.tests and spent > profile.total * speed.ratio:
        since = " since `make test` began" if profile.started_from_env and "HAYGATE_TEST_STARTED" in os.environ else ""
        budget = scaled(profile.total, speed, "over the run")
        problems.append(f"the {profile.name} profile took {spent:.0f} s{since}; its budget is {budget}")
    return problems


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    if hasattr(config, "workeroutput"):
        return
    timings = config.stash[TIMINGS_KEY]
    spent = timings.spent or time.time() - timings.started
    run = timings.run or timings.speed.between(timings.started, time.time())
    total = timings.profile.total
    terminalreporter.write_sep(
        "=",
        f"time budget: {timings.profile.name} profile, {spent:.0f} s of {scaled(total, run, 'over the run')}; "
        f"{spent / run.ratio:.0f} s at the reference speed",
    )
    if run.parts:
        terminalreporter.write_line(f"host over the run by part: {run.by_part()}; load {timings.speed.load:.2f}")
    terminalreporter.write_line(timings.speed.describe())
    if timings.problems or os.environ.get("HAYGATE_BUDGET_REPORT"):
        for nodeid, seconds in sorted(timings.tests.items(), key=lambda pair: -pair[1])[:SHOWN]:
            terminalreporter.write_line(f"{seconds:8.1f} s  {nodeid}")
        for name, seconds in sorted(timings.fixtures.items(), key=lambda pair: -pair[1])[:SHOWN]:
            terminalreporter.write_line(f"{seconds:8.1f} s  shared fixture {name}")
        tightest = sorted(timings.tests, key=lambda nodeid: -timings.tests[nodeid] / timings.allowed[nodeid])
        for nodeid in tightest[:SHOWN]:
            used = timings.tests[nodeid] / timings.allowed[nodeid]
            terminalreporter.write_line(f"{used:8.0%} of its budget  {nodeid}")
    for problem in timings.problems:
        terminalreporter.write_line(f"OVER BUDGET: {problem}", red=True, bold=True)
