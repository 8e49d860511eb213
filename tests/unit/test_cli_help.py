"""`haygate --help` and each command's --help are written for users: what the command does, in the docs' terms;
how the code is layered stays in its docstrings."""

import argparse
import subprocess
import sys

import pytest

from haygate import cli

CODE_WORDS = ("Settings", "layer", "imports", "haygate.remote", "Haystack is loaded", "docstring")


def help_of(*command: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "haygate.cli", *command, "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout


def test_the_top_help_says_what_haygate_is_for_and_where_to_start() -> None:
    text = " ".join(help_of().split())
    assert "MCP tools" in text and "REST" in text and "haygate init" in text
    assert not [word for word in CODE_WORDS if word in text]


[COMMANDS] = [action for action in cli.build_parser()._actions if isinstance(action, argparse._SubParsersAction)]


@pytest.mark.parametrize("command", list(COMMANDS.choices))
def test_each_command_opens_with_what_it_does(command: str) -> None:
    text = help_of(command)
    usage, description = text.split("\n\n")[:2]
    assert usage.startswith(f"usage: haygate {command}")
    assert description[0].isupper() and description.rstrip().endswith("."), description
    assert not [word for word in CODE_WORDS if word in text]
