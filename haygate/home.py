"""Where the project and its data are, found the same way by `Settings` and by the command line's fast path.

A project's home is `--home`, else `HAYGATE_HOME`, else the current folder or the nearest one above it that
holds `configs/tools/` (as git finds its repository); its data lives in `HAYGATE_DATA_DIR`, else
`<home>/data`. A command that a running server takes over needs only these and the token, so the command
line reads them here, without pydantic, and builds the full `Settings` only for work it does itself.
"""

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_MARKER = Path("configs") / "tools"  # what makes a folder a haygate project home
PREFIX = "HAYGATE_"


def environment(name: str) -> str | None:
    """`HAYGATE_<name>` as `Settings` reads it (pydantic-settings matches names without regard to case)."""
    wanted = (PREFIX + name).lower()
    return next((value for key, value in os.environ.items() if key.lower() == wanted), None)


def find_home(start: Path) -> Path | None:
    """The folder at or above `start` that holds configs/tools/, or None."""
    for folder in (start, *start.parents):
        if (folder / PROJECT_MARKER).is_dir():
            return folder
    return None


def default_home() -> Path:
    """No home given: the nearest project at or above the current folder, else the current folder itself
    (which then holds no project, and the command says so)."""
    here = Path.cwd()
    return find_home(here) or here


@dataclass(frozen=True)
class Place:
    """What a command that goes through a server needs to know."""

    home: Path
    data_dir: Path
    token: str | None


def locate(home: Path | None = None) -> Place:
    """`home` (from --home), else the environment's, else `default_home()`; the data dir and token likewise."""
    given = home or (Path(value) if (value := environment("HOME")) else None)
    found = given.resolve() if given else default_home()
    data = environment("DATA_DIR")
    return Place(found, Path(data) if data else found / "data", environment("TOKEN") or None)
