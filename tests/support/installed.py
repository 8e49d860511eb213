"""Tools `make test` installs beside the venv (Debian's Chromium, the MCP conformance suite): a test that needs
one skips where it is missing, and says how to get it, except under CI, where every test must run, so a
missing tool fails the test instead."""

import os

import pytest


def require(present: bool, what: str, how: str) -> None:
    """Go on when `present`; else skip, or fail with `CI` set (a CI run that skips a check has not made it)."""
    if present:
        return
    message = f"{what} is missing: {how}"
    if os.environ.get("CI", "").lower() not in {"", "0", "false"}:
        pytest.fail(f"{message} (CI is set: a missing tool fails, it does not skip)")
    pytest.skip(message)
