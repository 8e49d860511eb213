"""The build step pyproject.toml cannot say alone: a wheel carries the project templates of `haygate init`,
copied at build time from this repository's own top-level project (haygate/templates.py lists the paths),
so there is one source and no hand-kept copy."""

import importlib.util
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def templates_module():  # type: ignore[no-untyped-def]
    """haygate/templates.py, read without importing haygate (whose dependencies a build may not have)."""
    spec = importlib.util.spec_from_file_location("haygate_templates", ROOT / "haygate" / "templates.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildWithTemplates(build_py):
    """The usual build, then each template's paths into haygate/project_templates/<name>/ of the package."""

    def run(self) -> None:
        super().run()
        templates = templates_module()
        target = Path(self.build_lib) / "haygate" / "project_templates"
        shutil.rmtree(target, ignore_errors=True)
        for name, template in templates.TEMPLATES.items():
            templates.copy_template(template, ROOT, target / name)


setup(cmdclass={"build_py": BuildWithTemplates})
