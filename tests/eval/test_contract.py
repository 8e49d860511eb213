"""`make eval`: the contract checks of tests/integration/test_contract.py at length: Schemathesis with 100
examples per operation and a fresh seed each run (its stateful phase included), and the fuzz suite's long
profile over MCP and REST."""

import os
import subprocess
import sys

import pytest

from tests.conftest import PROJECT
from tests.integration.test_contract import schemathesis, served

pytestmark = pytest.mark.eval
__all__ = ["served"]  # the served process, shared with the short profile's module


@pytest.mark.budget(3600, "a hundred generated requests per operation, writes and the reads of them included")
def test_schemathesis_at_length(served: str) -> None:
    done = schemathesis(served, 100, timeout=3600)
    assert done.returncode == 0, done.stdout[-8000:]
    assert "No issues found" in done.stdout, done.stdout[-3000:]


@pytest.mark.budget(3600, "2,000 fuzzed calls per tool and transport")
def test_the_long_fuzz_profile() -> None:
    env = {**os.environ, "HAYGATE_FUZZ_EXAMPLES": os.environ.get("HAYGATE_FUZZ_EXAMPLES", "2000")}
    command = [sys.executable, "-m", "pytest", "-m", "fuzz_long", "-q", "tests/integration/test_fuzz.py"]
    done = subprocess.run(command, cwd=PROJECT, env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stdout[-6000:]
