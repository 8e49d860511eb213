"""The console: a page at `/console` (HTML, script modules, one stylesheet: no CDN, no build step) and
the routes it reads beyond the public ones (`console.routes`). It tries every tool from a form made from its
schema and shows why each result ranks where it does, runs one query through the tool and another pipeline
side by side, browses and loads collections through the write route, reads evaluation reports, and follows
the calls. Here: its files, and what it reads from the project and the stores.

The page is public, as `/docs` is; every route is behind the bearer token when one is set, and the trust
boundary (Host, Origin, JSON bodies) guards them as it guards the rest.
"""

import json
import mimetypes
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from haygate.errors import NotFoundError
from haygate.gateway.paths import inside

CONSOLE = "/console"
CONSOLE_FILES = Path(__file__).parent  # index.html and static/, beside this module
CONSOLE_STATIC = f"{CONSOLE}/static"


def static_mount() -> Mount:
    """The page's script modules and stylesheet, from the installed package. A browser runs a module only when
    it comes as JavaScript, and Python's guess of a type can come from the system (the Windows registry)."""
    mimetypes.add_type("text/javascript", ".js")
    return Mount(CONSOLE_STATIC, app=StaticFiles(directory=str(CONSOLE_FILES / "static")))


def report_folder(root: Path, relative: str) -> Path:
    folder = inside(root, relative, "name")
    if not (folder / "report.json").is_file():
        raise NotFoundError(f"no evaluation report '{relative}' under {root.name}/", {"field": "name"})
    return folder


def evaluation_reports(root: Path) -> list[dict[str, Any]]:
    """Every `report.json` under `root`, newest first, with what the list shows of it."""
    reports = []
    for path in root.rglob("report.json") if root.is_dir() else []:
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a report being written, or not one of ours
        if not isinstance(report, dict) or "variants" not in report:
            continue
        modified = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
        reports.append(
            {
                "name": path.parent.relative_to(root).as_posix(),
                "dataset": report.get("dataset"),
                "split": report.get("split"),
                "n_queries": report.get("n_queries"),
                "variants": [v.get("name") for v in report["variants"] if isinstance(v, dict)],
                "modified": modified.isoformat(timespec="seconds"),
                "has_plot": (path.parent / "plot.png").is_file(),
            }
        )
    return sorted(reports, key=lambda r: r["modified"], reverse=True)


def shown_path(path: Path, home: Path) -> str:
    """A folder as the page shows it: relative to the project when inside it (no machine paths to a browser)."""
    try:
        return path.resolve().relative_to(home.resolve()).as_posix()
    except ValueError:
        return path.name
