"""`make eval`: the contract checks of tests/integration/test_contract.py at length: Schemathesis with 100
examples per operation and a fresh seed each run (its stateful phase included), and the fuzz suite's long
profile over MCP and REST, in this process and under this profile's budgets."""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from haygate.gateway.runtime import Gateway
from tests.integration.test_contract import assert_the_stateful_phase_ran, schemathesis, served
from tests.integration.test_fuzz import TOOLS, fuzz
from tests.support.serving import http_for, serve

pytestmark = pytest.mark.eval
__all__ = ["served"]  # the served process, shared with the short profile's module
LONG_EXAMPLES = int(os.environ.get("HAYGATE_FUZZ_EXAMPLES", "2000"))  # per tool and transport


@pytest.mark.budget(3600, "a hundred generated requests per operation, writes and the reads of them included")
def test_schemathesis_at_length(served: str, tmp_path: Path) -> None:
    done = schemathesis(served, 100, tmp_path, timeout=3600)
    assert done.returncode == 0, done.stdout[-8000:]
    assert "No issues found" in done.stdout, done.stdout[-3000:]
    assert_the_stateful_phase_ran(tmp_path, served)


@pytest.fixture(scope="module")
def rest_url(gateway: Gateway) -> Iterator[str]:
    yield from serve(http_for(gateway))


@pytest.mark.budget(900, "2,000 fuzzed calls over MCP and as many over REST (HAYGATE_FUZZ_EXAMPLES)")
@pytest.mark.parametrize("tool", TOOLS)
def test_the_long_fuzz_profile(gateway: Gateway, rest_url: str, tool: str) -> None:
    fuzz(gateway, rest_url, tool, LONG_EXAMPLES)
