"""The published contract, checked by tools nobody here wrote, against a served process on the samples:
Schemathesis over `/openapi.json` (every check, and its stateful phase over the write routes' links, read from
its event stream) and the official MCP conformance suite over `/mcp` (each scenario's own report read, so a
failure counts as expected only for its stated reason). Short profiles here; `tests/eval/test_contract.py`
runs them long."""

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import yaml
from fastmcp import Client

from tests.support.cache import copy_tree
from tests.support.installed import require
from tests.support.project import PROJECT, copy_project
from tests.support.serving import served_process

pytestmark = [pytest.mark.integration, pytest.mark.slow]
CONTRACT = PROJECT / "tests" / "contract"
SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
CONFORMANCE = PROJECT / ".venv" / "mcp-conformance" / "node_modules" / ".bin"
INSTALL_IT = "`make test` installs it (and the Node.js 22 it needs) with npm, from tests/contract/'s lock file"
SCENARIOS = CONTRACT / "mcp-scenarios.yml"
SHORT_EXAMPLES = 6  # per operation; the eval profile runs 100


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, ingested_samples: Path) -> Iterator[str]:
    """`haygate serve --http` at admin tier (the write routes and tools too) on a copy of the samples, as
    `http://localhost:PORT`: the MCP suite's DNS-rebinding scenario needs a localhost URL."""
    root = tmp_path_factory.mktemp("contract")
    home = copy_project(root / PROJECT.name)  # what it writes into the project (a judged set) goes into a copy
    with served_process(
        copy_tree(ingested_samples, root / "data"), host="localhost", tier="admin", home=str(home)
    ) as url:
        yield url


def schemathesis(
    url: str, examples: int, report_dir: Path, *extra: str, timeout: float = 110
) -> subprocess.CompletedProcess[str]:
    """Every check, with the deliberate exception of tests/contract/schemathesis.toml (it says why), and its
    events written to `report_dir` as NDJSON (what `phases` reads)."""
    command = [
        str(SCHEMATHESIS),
        "--config-file",
        str(CONTRACT / "schemathesis.toml"),
        "run",
        f"{url}/openapi.json",
        "--checks",
        "all",
        "--max-examples",
        str(examples),
        "--no-color",
        "--report",
        "ndjson",
        "--report-dir",
        str(report_dir),
        *extra,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=CONTRACT)


@dataclass
class Phase:
    """One Schemathesis phase as its event stream tells it (not as the terminal prints it: a skipped phase
    is printed too)."""

    enabled: bool = False
    status: str = "not run"  # its PhaseFinished status: success, failure, skip ...
    started: dict[str, Any] = field(default_factory=dict)  # the PhaseStarted payload (the stateful one's links)
    scenarios: int = 0  # scenarios that ran to the end


def phases(report_dir: Path) -> dict[str, Phase]:
    [events] = report_dir.glob("*.ndjson")
    found: dict[str, Phase] = {}
    for line in events.read_text().splitlines():
        [(kind, event)] = json.loads(line).items()
        if kind == "PhaseStarted":
            found[event["phase"]["name"]] = Phase(event["phase"]["is_enabled"], "running", event.get("payload") or {})
        elif kind == "PhaseFinished":
            found[event["phase"]["name"]].status = event["status"]
        elif kind == "ScenarioFinished" and event["phase"] in found and event["status"] != "skip":
            found[event["phase"]].scenarios += 1
    return found


def declared_links(url: str) -> int:
    """The OpenAPI links the served document declares (a write to the delete of what it wrote)."""
    document = httpx.get(f"{url}/openapi.json", timeout=30).json()
    return sum(
        len(response.get("links", {}))
        for path in document["paths"].values()
        for operation in path.values()
        for response in operation.get("responses", {}).values()
    )


def assert_the_stateful_phase_ran(report_dir: Path, url: str) -> None:
    """It ran scenarios over the declared links, not merely printed its name (Schemathesis prints
    "Stateful" for a skipped phase too)."""
    stateful = phases(report_dir).get("stateful")
    assert stateful is not None and stateful.enabled, "Schemathesis did not start its stateful phase"
    assert stateful.status == "success" and stateful.scenarios > 0, stateful
    links = declared_links(url)
    explicit = stateful.started["transitions_total"] - stateful.started.get("inferred_transitions", 0)
    assert links > 0 and explicit == links, (links, stateful.started)


@pytest.mark.budget(100, "Schemathesis sends a few hundred generated requests, writes and reads included")
def test_schemathesis_finds_nothing_against_the_openapi_document(served: str, tmp_path: Path) -> None:
    done = schemathesis(served, SHORT_EXAMPLES, tmp_path, "--seed", "20261125")
    assert done.returncode == 0, done.stdout[-6000:]
    assert "No issues found" in done.stdout, done.stdout[-3000:]
    assert_the_stateful_phase_ran(tmp_path, served)


def conformance(url: str, baseline: Path, results: Path, timeout: float = 110) -> subprocess.CompletedProcess[str]:
    require((CONFORMANCE / "conformance").exists(), f"the MCP conformance suite at {CONFORMANCE}", INSTALL_IT)
    env = {**os.environ, "PATH": f"{CONFORMANCE}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    command = [
        str(CONFORMANCE / "conformance"),
        "server",
        "--url",
        f"{url}/mcp",
        "--expected-failures",
        str(baseline),
        "--output-dir",
        str(results),
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=CONTRACT)


def scenario_checks(results: Path) -> dict[str, list[dict[str, Any]]]:
    """Each scenario's checks from the suite's own report (`server-<scenario>-<time>/checks.json`), without
    the INFO entries that only log traffic."""
    found = {}
    for folder in results.iterdir():
        scenario = re.fullmatch(r"server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z", folder.name)
        assert scenario is not None, folder.name
        checks = json.loads((folder / "checks.json").read_text())
        found[scenario.group(1)] = [check for check in checks if check.get("status") != "INFO"]
    return found


def unknown_tool_answer(check: dict[str, Any], tool: str) -> bool:
    """Whether the result a check recorded is haygate's answer to an unknown tool of that name."""
    result = (check.get("details") or {}).get("result") or {}
    if not result.get("isError"):
        return False
    error = json.loads(result["content"][0]["text"])["error"]
    return error["code"] == "NOT_FOUND" and error["message"] == f"unknown tool '{tool}'"


async def answers_to(url: str, tools: list[str]) -> dict[str, dict[str, Any]]:
    """haygate's own answer to each tool name, through FastMCP's client."""
    answers = {}
    async with Client(f"{url}/mcp") as client:
        for tool in tools:
            result = await client.call_tool(tool, {}, raise_on_error=False)
            answers[tool] = {"is_error": result.is_error, **json.loads(result.content[0].text)}  # type: ignore[union-attr]
    return answers


@pytest.mark.budget(90, "the official suite runs its 32 server scenarios, each a session of its own")
def test_the_official_mcp_conformance_suite_fails_only_where_it_says_why(served: str, tmp_path: Path) -> None:
    """tests/contract/mcp-scenarios.yml says what each scenario proves: those that apply pass; the vacuous
    ones pass only because an unknown tool is an error result, and count for nothing; every expected failure
    fails for its stated reason (the suite's own message, and haygate's "unknown tool" answer to a fixture
    tool). A scenario the suite runs that the file does not list fails the test."""
    scenarios = yaml.safe_load(SCENARIOS.read_text())
    applies, vacuous, expected = scenarios["applies"], scenarios["vacuous"], scenarios["expected_failures"]
    baseline = tmp_path / "expected-failures.yml"
    baseline.write_text(yaml.safe_dump({"server": sorted(expected)}))
    done = conformance(served, baseline, tmp_path / "results")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    checks = scenario_checks(tmp_path / "results")
    assert sorted(checks) == sorted([*applies, *vacuous, *expected]), "scenarios ran != scenarios listed"
    for scenario in applies:
        assert checks[scenario] and all(c["status"] == "SUCCESS" for c in checks[scenario]), checks[scenario]
    for scenario, why in vacuous.items():
        [check] = checks[scenario]
        assert check["status"] == "SUCCESS" and unknown_tool_answer(check, why["tool"]), check
    for scenario, why in expected.items():
        [check] = checks[scenario]
        assert check["status"] == "FAILURE" and check.get("errorMessage") == why["message"], (scenario, check)
        if (check.get("details") or {}).get("result") is not None:
            assert unknown_tool_answer(check, why["tool"]), (scenario, check)
    fixture_tools = [why["tool"] for why in [*vacuous.values(), *expected.values()] if "tool" in why]
    for tool, answer in anyio.run(answers_to, served, fixture_tools).items():
        assert answer["is_error"] and answer["error"]["code"] == "NOT_FOUND", (tool, answer)
        assert answer["error"]["message"] == f"unknown tool '{tool}'", (tool, answer)
