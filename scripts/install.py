"""Installs haygate and its development tools into the virtual environment that runs this script (`make install`).

uv installs the packages many times faster than pip on the same cores, so `make run` and `make test` spend
their time on haygate, not on unpacking wheels. uv comes from the same index as everything
else and uses pip's own settings (indexes, find-links, constraints: `pip config list`, the PIP_* variables), so
it resolves what pip would. Where uv cannot be had or fails, pip installs as before.

Run: `.venv/bin/python scripts/install.py` (the standard library only: nothing else is installed yet).
"""

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

UV = "uv==0.13.9"
TARGET = ["-e", ".[dev]"]
# pip's settings that decide what gets installed, and uv's flag for each (several values: one flag per value).
FLAGS = {
    "index-url": "--index-url",
    "extra-index-url": "--extra-index-url",
    "find-links": "--find-links",
    "constraint": "--constraint",
}
SCOPES = (":env:", "install", "global")  # pip's precedence: environment first, then the install section


def pip_settings(listed: str) -> dict[str, list[str]]:
    """`pip config list` as setting -> values, each setting from the scope pip itself would read it from."""
    found: dict[tuple[str, str], list[str]] = {}
    for line in listed.splitlines():
        name, _, value = line.partition("=")
        scope, _, setting = name.rpartition(".")
        if setting in FLAGS and scope in SCOPES:
            found[(scope, setting)] = shlex.split(value.strip().strip("'\""))
    return {
        setting: next(found[(scope, setting)] for scope in SCOPES if (scope, setting) in found)
        for setting in FLAGS
        if any((scope, setting) in found for scope in SCOPES)
    }


def uv_arguments(settings: dict[str, list[str]]) -> list[str]:
    """uv's flags for pip's settings. pip takes the best version from any index; uv does too when told."""
    arguments = ["--index-strategy", "unsafe-best-match"]
    for setting, values in settings.items():
        for value in values:
            arguments += [FLAGS[setting], value]
    return arguments


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help, and nothing else
    python = sys.executable
    listed = subprocess.run([python, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    uv = Path(python).with_name("uv")
    have_uv = subprocess.run([python, "-m", "pip", "install", "-q", UV]).returncode == 0 and uv.is_file()
    if have_uv:
        command = [str(uv), "pip", "install", "--python", python, *uv_arguments(pip_settings(listed)), *TARGET]
        if subprocess.run(command).returncode == 0:
            return 0
        print("uv could not install haygate; pip will", file=sys.stderr)
    # --no-compile: Python compiles what it imports on first use; byte-compiling all of torch costs ~30 s.
    return subprocess.run([python, "-m", "pip", "install", "--no-compile", *TARGET]).returncode


if __name__ == "__main__":
    sys.exit(main())
