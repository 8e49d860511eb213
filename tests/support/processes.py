"""`haygate` commands in processes of their own, forked from one that has already imported haygate.

A test that runs the CLI as a child process gets what a user gets (exit code, stdout, stderr) and survives
whatever the child does (a crash of the engine is an exit code, not the end of the test run). Starting
`python -m haygate.cli` costs about 3 s of imports on these machines, though, most of a short command. So the
children come from a forkserver that imported haygate once: each is a fresh process running `main(argv)`
with the environment it is given.
"""

import multiprocessing
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

PRELOAD = ["haygate.commands", "haygate.gateway.runtime", "haygate.serve.transports"]


def forkserver() -> Any:
    """The multiprocessing context whose children start with haygate imported (one server per test run)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(PRELOAD)
    return context


def _main_in_child(env: dict[str, str], argv: list[str], out: str, err: str) -> None:
    """In the child: the environment replaced, stdout and stderr sent to files, `haygate argv` run."""
    os.environ.clear()
    os.environ.update(env)
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        os.dup2(stdout.fileno(), 1)
        os.dup2(stderr.fileno(), 2)
    from haygate.cli import main

    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run_cli(env: dict[str, str], argv: Sequence[str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`haygate argv` in a forked child, as `subprocess.run(..., capture_output=True, text=True)` reports it;
    a child killed by a signal has the negative return code a subprocess would."""
    with tempfile.TemporaryDirectory(prefix="haygate-cli-") as folder:
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"
        child = forkserver().Process(target=_main_in_child, args=(env, list(argv), str(out), str(err)))
        child.start()
        child.join(timeout)
        if child.exitcode is None:
            child.kill()
            child.join(10)
            raise subprocess.TimeoutExpired(["haygate", *argv], timeout, out.read_text(), err.read_text())
        return subprocess.CompletedProcess(["haygate", *argv], child.exitcode, out.read_text(), err.read_text())
