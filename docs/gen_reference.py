"""mkdocs-gen-files script: writes the Reference pages, generated from the code, into the site being built.

The rendering lives in `docs/reference.py`, which the unit tests import too; this script only loads it (by
path: docs/ is not a package) and writes each of its `PAGES`. mkdocs runs it from the project folder, whose
packages (`haygate`, the project's `components`) it imports.
"""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import mkdocs_gen_files

DOCS = Path(__file__).resolve().parent
PROJECT = DOCS.parent


def load_reference() -> ModuleType:
    """docs/reference.py as a module, with the project importable as the built site documents it."""
    if str(PROJECT) not in sys.path:
        sys.path.insert(0, str(PROJECT))
    spec = importlib.util.spec_from_file_location("haygate_docs_reference", DOCS / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def main() -> None:
    reference = load_reference()
    for path, render in reference.PAGES.items():
        with mkdocs_gen_files.open(path, "w") as page:
            page.write(render())
        mkdocs_gen_files.set_edit_path(path, Path("..") / "docs" / "reference.py")


main()
