"""`haygate._env`: offline and quiet defaults, set before anything reads the environment."""

import subprocess
import sys


def test_offline_defaults_are_set_but_never_override_the_user() -> None:
    probe = "import os, haygate._env; print(os.environ['HF_HUB_OFFLINE'], os.environ['TRANSFORMERS_OFFLINE'])"
    env = {"PATH": "/usr/bin:/bin", "TRANSFORMERS_OFFLINE": "0"}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env).stdout
    assert out.split() == ["1", "0"]


def test_the_cli_loads_no_haystack_to_print_its_help_or_go_through_a_server() -> None:
    """`haygate --help` imports nothing heavy, and neither does the code that sends a command to a server:
    no Haystack, no server, no model, not even pydantic or an HTTP stack (the standard library's client)."""
    probe = (
        "import sys, contextlib, io\n"
        "from haygate.cli import main\n"
        "import haygate.remote, haygate.home, haygate.logs\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--help'])\n"
        "heavy = ('haystack', 'fastmcp', 'torch', 'qdrant_edge', 'pydantic', 'httpx', 'tqdm')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
