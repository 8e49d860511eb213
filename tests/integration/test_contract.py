"""The published contract, checked by tools nobody here wrote, against a served process on the samples:
Schemathesis over `/openapi.json` (every check, and its stateful phase over the write routes' links) and the
official MCP conformance suite over `/mcp`. Short profiles here; `tests/eval/test_contract.py` runs them long."""

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cache import copy_tree
from tests.conftest import PROJECT, free_port
from tests.integration.test_readme import stop, wait_until_ready

pytestmark = [pytest.mark.integration, pytest.mark.slow]
CONTRACT = PROJECT / "tests" / "contract"
SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
CONFORMANCE = PROJECT / ".venv" / "mcp-conformance" / "node_modules" / ".bin"
SHORT_EXAMPLES = 6  # per operation; the eval profile runs 100


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, ingested_samples: Path) -> Iterator[str]:
    """`haygate serve --http` at admin tier (the write routes and tools too) on a copy of the samples, as
    `http://localhost:PORT`: the MCP suite's DNS-rebinding scenario needs a localhost URL."""
    root = tmp_path_factory.mktemp("contract")
    copy_tree(ingested_samples, root / "data")
    port = free_port()
    env = {
        **os.environ,
        "HAYGATE_HOME": str(PROJECT),
        "HAYGATE_DATA_DIR": str(root / "data"),
        "HAYGATE_TIER": "admin",
        "HAYGATE_WATCH": "false",
    }
    log = root / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)],
            env=env,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
        )
    try:
        wait_until_ready(f"http://127.0.0.1:{port}", server, log)
        yield f"http://localhost:{port}"
    finally:
        stop(server)


def schemathesis(url: str, examples: int, *extra: str, timeout: float = 110) -> subprocess.CompletedProcess[str]:
    """Every check, with the deliberate exceptions of tests/contract/schemathesis.toml (each says why)."""
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
        *extra,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=CONTRACT)


@pytest.mark.budget(100, "Schemathesis sends a few hundred generated requests, writes and reads included")
def test_schemathesis_finds_nothing_against_the_openapi_document(served: str) -> None:
    done = schemathesis(served, SHORT_EXAMPLES, "--seed", "20261125")
    assert done.returncode == 0, done.stdout[-6000:]
    assert "Stateful" in done.stdout and "No issues found" in done.stdout, done.stdout[-3000:]


def conformance(url: str, timeout: float = 110) -> subprocess.CompletedProcess[str]:
    if not (CONFORMANCE / "conformance").exists():
        pytest.skip(f"no MCP conformance suite at {CONFORMANCE}: `make test` installs it with npm (needs the registry)")
    env = {**os.environ, "PATH": f"{CONFORMANCE}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1"}
    command = [
        str(CONFORMANCE / "conformance"),
        "server",
        "--url",
        f"{url}/mcp",
        "--expected-failures",
        str(CONTRACT / "mcp-expected-failures.yml"),
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, cwd=CONTRACT)


@pytest.mark.budget(90, "the official suite runs its 32 server scenarios, each a session of its own")
def test_the_official_mcp_conformance_suite_passes_every_scenario_that_applies(served: str) -> None:
    """Scenarios that need the suite's own test tools (images, sampling, prompts ...) are listed, each with
    why, in tests/contract/mcp-expected-failures.yml; the suite fails on any other failure and on a listed
    scenario that passes (a stale entry)."""
    done = conformance(served)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    for scenario in ("server-initialize", "tools-list", "tools-call-error", "dns-rebinding-protection"):
        assert f"✓ {scenario}:" in done.stdout, scenario
