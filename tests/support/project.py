"""The project under test: its paths, a copy of it for a test's own home, and settings a test builds."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from haygate.settings import Settings
from tests.support import PROJECT

SHARED_DATA = PROJECT.parent / "shared" / "data"
EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2"  # what the bundled pipelines name
SAMPLES_PROJECT = "default"  # the tenant the sample knowledge tools serve (the samples hold two)
ENTITY = {"entity_type": "bug", "entity_id": "bug:1", "product_id": "product:1", "title": "Zebra tooltip"}

__all__ = [
    "EMBEDDING_MODEL",
    "ENTITY",
    "PROJECT",
    "SAMPLES_PROJECT",
    "SHARED_DATA",
    "copy_project",
    "docs_reference",
    "make_home",
    "make_settings",
    "tracked_files",
]


def copy_project(home: Path, tools: bool = True) -> Path:
    """A copy of this repository's project at `home`: configs (with or without the tool declarations),
    pipelines and the project's own components, which its pipelines name."""
    ignored = shutil.ignore_patterns("tools", "__pycache__") if not tools else shutil.ignore_patterns("__pycache__")
    shutil.copytree(PROJECT / "configs", home / "configs", ignore=ignored)
    for folder in ("pipelines", "components"):
        shutil.copytree(PROJECT / folder, home / folder, ignore=shutil.ignore_patterns("__pycache__"))
    return home


def make_settings(data_dir: Path, **values: Any) -> Settings:
    """Settings for a test: explicit values win over any HAYGATE_* variable of the developer's shell."""
    defaults: dict[str, Any] = {
        "home": PROJECT,
        "data_dir": data_dir,
        "store": None,
        "qdrant_url": None,
        "qdrant_api_key": None,
        "token": None,
        "tier": "public",
        "project_id": "default",
    }
    return Settings(**{**defaults, **values})


def make_home(root: Path) -> Path:
    """A home at `root` whose only tools are `search` (no model runs) and the admin tools."""
    home = root / "home"
    copy_project(home, tools=False)
    (home / "configs" / "tools").mkdir()
    for name in ("search.yaml", "admin.yaml"):
        shutil.copy(PROJECT / "configs" / "tools" / name, home / "configs" / "tools")
    return home


def tracked_files() -> list[str]:
    """The checkout's files as a build sees them: tracked, or new and not ignored."""
    command = ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
    listed = subprocess.run(command, cwd=PROJECT, capture_output=True, text=True, check=True).stdout
    return [line for line in listed.splitlines() if (PROJECT / line).is_file()]


def docs_reference() -> ModuleType:
    """docs/reference.py (the site's generated Reference pages, `PAGES`), loaded by path as docs/gen_reference.py
    loads it (docs/ is not a package)."""
    spec = importlib.util.spec_from_file_location("reference_under_test", PROJECT / "docs" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module
