"""The README is a contract: every fenced block in it runs in a test here, as written, at test scale.

- `make run` itself starts the server the README's commands talk to (on port 8000 when it is free, else on
  a free port, swapped into the commands), on a copy of the ingested samples (its own `ingest --samples`
  then finds every record unchanged).
- Shell blocks run line by line through bash from the project folder; the Python snippet runs as a file;
  the MCP client configurations are loaded by FastMCP's own client; the walk-through's files go into a copy
  of the project; the file map's paths must exist.
- The evaluation and study blocks run with `--limit` (a few queries, a sample of the corpus) and their reports
  go to a temp dir: the test checks their shape and that every figure is computed. `make eval` runs them at
  full scale against the figures quoted here (`tests/eval/`).
- `test_every_block_is_run_by_a_test` fails when a block is added that no test here runs.
"""

import json
import os
import re
import runpy
import shlex
import shutil
import socket
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from fastmcp import Client

from haygate.cli import main
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway, load_tools
from haygate.ingest.indexer import ingest_files
from tests.support.cache import copy_tree
from tests.support.docs import at_test_scale, block, blocks, commands, expanded, table
from tests.support.project import PROJECT, copy_project, make_settings
from tests.support.serving import WAIT, free_port, stop, wait_until_ready

pytestmark = pytest.mark.integration
ADD_A_TOOL = PROJECT / "docs" / "how-to" / "add-a-tool.md"
LIMIT = 1  # queries per evaluation at test scale


# Which test runs each block, by the block's first line. A block missing here fails the first test.
OWN_PIPELINE = "tests/integration/test_own_pipeline.py::test_a_pipeline_saved_by_haystack_is_served_as_it_is"
ON_RAY = "tests/integration/test_ray_cluster.py::"  # the how-to's blocks, on a two-node Ray cluster
JUDGED = "tests/integration/test_judged_commands.py::"  # `haygate judged`, run as processes of their own
RUN_BY = {
    "make run": "the make_run fixture runs `make run`; .ci/run runs `make test` (test_make_test_is_what_ci_runs)",
    "uv tool install .": "tests/integration/test_install.py::test_uv_tool_install",  # and its pipx and pip tests
    "curl -s localhost:8000/api/tools/search_docs": "test_try_it",
    '{\n  "mcpServers"': "test_the_stdio_configuration",
    "haygate init my-docs": "test_your_own_project_and_component",
    "# components/prefer_version.py": "test_your_own_project_and_component",
    "haygate init team-handbook": "test_your_docs_described_judged_and_evaluated",
    "haygate eval --judged evaluation/handbook": "test_your_docs_described_judged_and_evaluated",
    "haygate init handbook": "test_your_own_markdown",
    "# save_pipeline.py": OWN_PIPELINE,
    "# configs/tools/haystack_docs_search.yaml": OWN_PIPELINE,
    "# pipelines/tools/search_docs.yaml\ncomponents:": "test_your_own_project_and_component",
    '{"mcpServers": {"haygate": {"url"': "test_the_http_configuration",
    "import asyncio": "test_the_python_snippet",
    "curl -s -X PUT": "test_the_live_service_commands",
    "curl -s -i localhost:8000/api/tools/search_docs": "test_the_observability_commands",
    "configs/collections/docs.yaml": "test_the_file_map_names_real_files",
    ".venv/bin/haygate call search_docs --json": "test_the_tool_examples",
    ".venv/bin/haygate call search_by_skills": "test_the_tool_examples",
    ".venv/bin/haygate call search --json": "test_the_tool_examples",
    ".venv/bin/haygate call memory_search": "test_the_tool_examples",
    ".venv/bin/haygate call get_warnings": "test_the_tool_examples",
    "# configs/collections/release_notes.yaml": "test_the_walkthrough_tool_works",
    "# pipelines/indexing/release_notes.yaml": "test_the_walkthrough_tool_works",
    "# pipelines/tools/search_release_notes.yaml": "test_the_walkthrough_tool_works",
    "# configs/tools/search_release_notes.yaml": "test_the_walkthrough_tool_works",
    ".venv/bin/haygate validate": "test_the_walkthrough_tool_works",
    ".venv/bin/haygate eval --dataset ../shared/data/scifact-dev --split train \\": "test_the_evaluation_commands",
    'P="--pipeline': "test_the_evaluation_commands",
    ".venv/bin/haygate eval --judged evaluation/search_docs \\": "test_the_tool_evaluation_commands",
    ".venv/bin/haygate judged export trec": JUDGED + "test_the_judgments_that_travel_block",
    ".venv/bin/python -m scripts.studies.floor": "test_the_floor_study_commands",
    "export HAYGATE_QDRANT_URL": "test_pointing_at_a_qdrant_server",
    "export HAYGATE_STORE=memory": "test_the_memory_backend",
    ".venv/bin/haygate judged known-items docs docs-pooled": JUDGED + "test_the_pools_not_one_ranking_block",
    ".venv/bin/haygate judged known-items docs docs-known": (
        "tests/integration/test_judged_commands.py::test_the_before_anyone_judges_block"
    ),
    '[project.entry-points."haygate.document_stores"]': "test_a_backend_a_package_registers",
    ".venv/bin/haygate ingest docs samples/docs --ray local": ON_RAY + "test_a_ray_of_this_machine",
    "ray start --head": ON_RAY + "test_an_ingest_on_two_nodes_equals_a_local_one",
    ".venv/bin/haygate eval --judged evaluation/memory_search --ray": ON_RAY
    + "test_the_evaluation_indexes_on_the_cluster",
    "ray start --address=HEAD:6379 --num-gpus=1": ON_RAY + "test_a_gpu_actor_on_a_cpu_cluster_is_refused",
    "# the store is a Qdrant server": ON_RAY + "test_a_qdrant_server_as_the_store_and_a_driver_off_the_cluster",
    "haygate skill": "tests/integration/test_skills.py::test_the_skill_command_prints_and_writes_the_skill",
    "# appended to configs/collections/docs.yaml": "test_a_whole_site_is_read_as_its_yaml_says",
    "haygate ingest docs /path/to/site": "test_a_whole_site_is_read_as_its_yaml_says",
}


def test_every_block_is_run_by_a_test() -> None:
    names = set(globals())
    for found in blocks():
        key = next((k for k in RUN_BY if (found.text.strip()).startswith(k)), None)
        where = f"{found.page.relative_to(PROJECT)} line {found.line}"
        assert key is not None, f"{where}: no test runs this block: {found.first_line!r}"
        runner = RUN_BY[key]
        if "::" in runner:  # a test of another module: tests/...py::test_name
            module, _, name = runner.partition("::")
            assert f"def {name}(" in (PROJECT / module).read_text(), runner
            continue
        assert runner.split()[0] in names or runner.startswith("the make_run fixture"), runner


def test_make_test_is_what_ci_runs() -> None:
    assert "make test" in block("make run").text
    assert re.search(r"^make test$", (PROJECT / ".ci" / "run").read_text(), re.MULTILINE)


# -- the server `make run` starts -------------------------------------------------------------------


@dataclass(frozen=True)
class LiveServer:
    port: int
    env: dict[str, str]
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def as_written(self, command: str) -> str:
        """The command with the README's port swapped for the server's (the same when 8000 was free)."""
        for host in ("localhost", "127.0.0.1"):
            command = command.replace(f"{host}:8000", f"{host}:{self.port}")
        return command

    def run(self, command: str, timeout: float = WAIT) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            ["bash", "-c", self.as_written(command)],
            env=self.env,
            cwd=PROJECT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, (command, done.stdout, done.stderr[-3000:], self.log.read_text()[-3000:])
        return done


def port_is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture(scope="module")
def make_run(tmp_path_factory: pytest.TempPathFactory, ingested_samples: Path) -> Iterator[LiveServer]:
    """`make run` as the README says, on a temporary data dir holding a copy of the ingested samples."""
    root = tmp_path_factory.mktemp("make-run")
    copy_tree(ingested_samples, root / "data")
    port = 8000 if port_is_free(8000) else free_port()
    env = {
        **os.environ,
        "HAYGATE_DATA_DIR": str(root / "data"),
        "HAYGATE_PORT": str(port),
        "HAYGATE_HOME": str(PROJECT),
    }
    log = root / "make-run.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            ["make", "run"], cwd=PROJECT, env=env, stdout=sink, stderr=sink, start_new_session=True
        )
    live = LiveServer(port, env, log)
    try:
        wait_until_ready(live.url, server, log)
        yield live
    finally:
        stop(server)


@pytest.mark.slow
def test_try_it(make_run: LiveServer) -> None:
    curl, call = commands(block("curl -s localhost:8000/api/tools/search_docs").text)
    docs = json.loads(make_run.run(curl).stdout)
    assert docs["results"][0]["title"] == "Filters > Logical operators > NOT"
    assert {r["version"] for r in docs["results"]} == {"1.1"} and len(docs["results"]) == 3
    prose = json.loads(make_run.run(call).stdout)
    assert prose["results"] and {r["content_type"] for r in prose["results"]} == {"prose"}
    assert "token" in prose["results"][0]["text"].lower()


@pytest.mark.slow
async def test_the_http_configuration(make_run: LiveServer) -> None:
    config = json.loads(make_run.as_written(block('{"mcpServers": {"haygate": {"url"').text))
    async with Client(config) as client:
        tools = {tool.name for tool in await client.list_tools()}
    assert {"search_docs", "search", "memory_search", "get_decisions", "search_by_skills"} <= tools


@pytest.mark.slow
def test_the_python_snippet(make_run: LiveServer, tmp_path: Path) -> None:
    snippet = block("import asyncio").text
    script = tmp_path / "snippet.py"
    script.write_text(make_run.as_written(snippet))
    printed = make_run.run(f"{sys.executable} {script}").stdout.strip()
    expected = re.search(r"print\(.*\)\s+# (.+)", snippet)  # the snippet says what it prints
    assert expected is not None and printed == expected.group(1).strip()


TOOL_PAGES = sorted(page for page in (PROJECT / "docs" / "tools").glob("*.md") if page.name != "index.md")


def shown(value: Any) -> str:
    """A result field as a page's table shows it."""
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return "" if value is None else str(value)


@pytest.mark.slow
def test_the_tool_examples(make_run: LiveServer) -> None:
    """Each tool page's example calls, through the running server (`haygate call` goes through it); the table
    under them shows the first call's answer: each column named after a result field, row by row."""
    assert len(TOOL_PAGES) == 5, TOOL_PAGES
    for page in TOOL_PAGES:
        calls = [command for found in blocks(page) for command in commands(found.text) if "haygate call" in command]
        answers = []
        for command in calls:
            done = make_run.run(command)
            assert "going through it" in done.stderr
            answer = json.loads(done.stdout)
            assert answer.get("results", answer.get("candidates")), (command, answer["metadata"])
            answers.append(answer)
        first = answers[0].get("results", answers[0].get("candidates"))
        rows = table("| rank |", page)
        assert rows and len(rows) <= len(first), (page.name, rows)
        for row, item in zip(rows, first, strict=False):
            fields = {header.strip("`"): cell for header, cell in row.items() if header.startswith("`")}
            assert fields, page.name
            for field, cell in fields.items():
                value: Any = item
                for key in field.split("."):
                    value = value[key]
                assert shown(value) == cell, (page.name, row["rank"], field, value)
        if page.stem == "search_by_skills":
            assert all(r["experience_level"] == "senior" for r in first)
            assert all({"Python", "Machine Learning"} <= set(r["matched_required_skills"]) for r in first)


@pytest.mark.slow
def test_the_live_service_commands(make_run: LiveServer) -> None:
    put, search, delete, ingest, call, reload, health = (
        make_run.run(command) for command in commands(block("curl -s -X PUT").text)
    )
    assert json.loads(put.stdout)["added"] == 1
    assert json.loads(search.stdout)["results"][0]["key"] == "ops-redis-eviction"
    assert json.loads(delete.stdout)["deleted"] == 1
    assert "going through it" in ingest.stderr and "0 rejected" in ingest.stderr
    assert json.loads(call.stdout)["results"] and "going through it" in call.stderr
    assert json.loads(reload.stdout)["reloaded"] is True
    assert json.loads(health.stdout)["status"] == "ready"


def test_the_observability_commands(make_run: LiveServer) -> None:
    header, metrics, health, stats = (make_run.run(c) for c in commands(block("curl -s -i localhost:8000").text))
    assert header.stdout.strip().lower() == "x-request-id: readme-1"
    assert re.search(
        r'^haygate_tool_calls_total\{outcome="ok",tool="search_docs",transport="rest"\} \d', metrics.stdout, re.M
    )
    figures = json.loads(health.stdout)
    assert figures["collections"]["docs"]["documents"] > 0 and figures["calls"]["search_docs"]["calls"] >= 1
    assert "search_docs" in stats.stdout and "p95 ms" in stats.stdout and "docs" in stats.stdout


# -- blocks that need no running server ------------------------------------------------------------


async def test_the_stdio_configuration(tmp_path: Path, ingested_samples: Path) -> None:
    """The Claude Desktop / Cursor configuration, with its project path filled in (a copy of this project, its
    samples ingested) and `haygate` the installed command, started by FastMCP from a folder that is no project."""
    home = copy_project(tmp_path / "my-docs")
    copy_tree(ingested_samples, home / "data")
    config = json.loads(block('{\n  "mcpServers"').text.replace("/path/to/my-docs", str(home)))
    server = config["mcpServers"]["haygate"]
    server["command"] = str(Path(sys.executable).parent / server["command"])  # where the install put it
    server["cwd"] = str(tmp_path)
    # A stdio client passes only the environment it is given: the session's model export, so that this server
    # does not export the model again into its data dir (as a user's first start does, once).
    server["env"] = {"HAYGATE_MODEL_CACHE_DIR": os.environ["HAYGATE_MODEL_CACHE_DIR"]}
    async with Client(config) as client:
        tools = {tool.name for tool in await client.list_tools()}
        result = await client.call_tool("search_docs", {"query": "bearer token"})
    assert "search_docs" in tools and result.structured_content["results"]


@pytest.mark.slow
@pytest.mark.budget(60, "init, an ingest of the docs samples with the model, validate, calls before and after")
def test_your_own_project_and_component(tmp_path: Path) -> None:
    """The block as a user with `haygate` on their PATH runs it, in a folder of their own; then the component
    walk-through on that project: the component file as written, the pipeline changed as the README says."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("HAYGATE_") or k == "HAYGATE_MODEL_CACHE_DIR"},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["bash", "-ec", block("haygate init my-docs").text],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "ok  search_docs" in done.stdout and "docs: 10 records read, 10 new or changed" in done.stderr
    answer = json.loads(done.stdout[done.stdout.index("{") :])
    assert [r["version"] for r in answer["results"]] and len(answer["results"]) == 2

    home = tmp_path / "my-docs"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(["haygate", *args], cwd=home, env=env, capture_output=True, text=True, timeout=WAIT)
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
        return done

    arguments = '{"query": "how do NOT filters work", "max_results": 4}'
    before = [r["version"] for r in json.loads(run("call", "search_docs", "--json", arguments).stdout)["results"]]
    assert before[0] == "1.1" and "1.0" in before  # the newer docs rank first on their own
    (home / "components" / "prefer_version.py").write_text(block("# components/prefer_version.py").text)
    pipeline_file = home / "pipelines" / "tools" / "search_docs.yaml"
    pipeline = yaml.safe_load(pipeline_file.read_text())
    change = yaml.safe_load(block("# pipelines/tools/search_docs.yaml\ncomponents:").text)
    pipeline["components"].update(change["components"])
    replaced = {"sender": "fetcher.documents", "receiver": "highlighter.documents"}
    assert replaced in pipeline["connections"]
    pipeline["connections"] = [c for c in pipeline["connections"] if c != replaced] + change["connections"]
    pipeline_file.write_text(yaml.safe_dump(pipeline, sort_keys=False))
    assert "ok  search_docs" in run("validate").stdout
    after = [r["version"] for r in json.loads(run("call", "search_docs", "--json", arguments).stdout)["results"]]
    assert sorted(after) == sorted(before) and after == sorted(before, key=lambda v: v != "1.0")


NOTES = {
    "releases.md": "# Releases\n\nHow we ship.\n\n## Cadence\n\nWe release every Tuesday after the stand-up.\n\n"
    "## Friday releases\n\nA release on a Friday needs the approval of the on-call lead, who checks the "
    "rollback plan first.\n\n## Hotfixes\n\nA hotfix skips the cadence and ships when it is reviewed.\n",
    "onboarding.md": "# Onboarding\n\n## First day\n\nYour laptop and accounts are ready at nine.\n\n"
    "## First week\n\nPair with a teammate on a small bug each day.\n",
    "oncall.md": "# On call\n\n## Rotation\n\nEach engineer is on call one week in six.\n\n"
    "## Pages\n\nAcknowledge a page within five minutes and open an incident channel.\n",
}


@pytest.mark.slow
@pytest.mark.budget(60, "init, an ingest of three Markdown files with the model, and a call")
def test_your_own_markdown(tmp_path: Path) -> None:
    """The block on a folder of Markdown notes with several sections each: the section that answers comes
    first, and each section comes back once."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in NOTES.items():
        (notes / name).write_text(text)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("HAYGATE_") or k == "HAYGATE_MODEL_CACHE_DIR"},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    script = block("haygate init handbook").text.replace("/path/to/notes", str(notes))
    done = subprocess.run(["bash", "-ec", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "docs: 3 records read, 3 new or changed" in done.stderr, done.stderr[-2000:]
    results = json.loads(done.stdout[done.stdout.index("{") :])["results"]
    assert results[0]["section_path"] == "releases/friday-releases", results
    assert len({r["section_path"] for r in results}) == len(results) == 3


def test_a_whole_site_is_read_as_its_yaml_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The guide's `files` and `markdown` YAML and its ingest command, on a site with a blog, snippets, a draft,
    a changelog and an include in each syntax: what is read, what is included, what is counted."""
    home = copy_project(tmp_path / "home")
    collection = home / "configs" / "collections" / "docs.yaml"
    collection.write_text(collection.read_text() + block("# appended to configs/collections/docs.yaml").text)
    site = tmp_path / "site"
    pages = {
        "docs/guide.md": '# Guide\n\n{* src/app.py ln[1:2] hl[2] *}\n\n```python\n--8<-- "snippets/hello.py"\n```\n',
        "docs/snippets/hello.py": "print('hello')\n",
        "docs/snippets/note.md": "# A snippet page\n",
        "docs/myst.md": '# MyST\n\n```{literalinclude} ../src/app.py\n:lines: 3\n```\n\n--8<-- "gone.py"\n',
        "docs/CHANGELOG.md": "# Changelog\n\n## 1.0.0\n\n- First.\n",
        "src/app.py": "import os\nimport sys\nprint(sys.argv)\n",
        "blog/post.md": "# A post\n",
        "drafts/wip.md": "# Not yet\n",
    }
    for name, text in pages.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    [command] = commands(block("haygate ingest docs /path/to/site").text)
    arguments = [*shlex.split(command.replace("/path/to/site", str(site)))[1:], "--no-progress"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HAYGATE_HOME", str(home))
        patch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
        assert main(arguments) == 0
    printed = capsys.readouterr().err
    assert "docs: 3 records read, 3 new or changed" in printed, printed  # guide, myst, changelog
    assert "3 includes read, 1 not found (in 1 file(s)), 1 changelog(s)" in printed, printed
    assert f"include not found, left out: {site / 'docs' / 'myst.md'}:1: gone.py" in printed
    with Loader(make_settings(tmp_path / "data", home=home)) as loader:
        texts = {d.meta["path"]: d.content for d in loader.store("docs").filter_documents()}
    assert "```python\nimport os\nimport sys\n```" in texts["docs/guide.md"]  # the declared syntax, ln[1:2]
    assert "```python\nprint('hello')\n```" in texts["docs/guide.md"]  # a snippet in a fence, from `bases`
    assert "```python\nprint(sys.argv)\n```" in texts["docs/myst.md"]


@pytest.mark.slow
@pytest.mark.budget(150, "ingests a folder of Markdown, drafts examples, validates, serves, judges and evaluates")
def test_your_docs_described_judged_and_evaluated(tmp_path: Path) -> None:
    """The first-project guide on a folder of real Markdown (this repository's how-to guides, a corpus nobody
    tuned on): the examples come from it, `validate` passes, a judged set saved through the console's Judge
    route at the record (file) level is evaluated as the guide writes it, through the running server."""
    handbook = shutil.copytree(PROJECT / "docs" / "how-to", tmp_path / "handbook")
    files = sorted(p.name for p in handbook.glob("*.md"))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("HAYGATE_") or k == "HAYGATE_MODEL_CACHE_DIR"},
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    script = block("haygate init team-handbook").text.replace("/path/to/handbook", str(handbook))
    done = subprocess.run(["bash", "-ec", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=WAIT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert f"docs: {len(files)} records read, {len(files)} new or changed" in done.stderr, done.stderr[-2000:]
    home = tmp_path / "team-handbook"
    declaration = yaml.safe_load((home / "configs" / "tools" / "search_docs.yaml").read_text())
    assert declaration["parameters"]["source"]["examples"] == ["handbook"]  # the folder's name: its source
    queries = declaration["parameters"]["query"]["examples"]
    assert queries and "how do I filter results by version" not in queries, queries
    warned = [line for line in done.stdout.splitlines() if line.startswith("warn")]
    assert "ok  search_docs" in done.stdout and not [w for w in warned if "'source'" in w], done.stdout

    port = free_port()
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            ["haygate", "serve", "--http", "--port", str(port)],
            cwd=home,
            env=env,
            stdout=sink,
            stderr=sink,
            start_new_session=True,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_ready(url, server, log)
        grades, seen, listed = {}, {}, []
        for number, text in enumerate(queries[:2], start=1):
            answer = httpx.post(f"{url}/api/console/call", json={"tool": "search_docs", "arguments": {"query": text}})
            records = list(dict.fromkeys(row["record_id"] for row in answer.json()["provenance"]))
            assert len(records) >= 2, answer.text[:500]
            grades[f"q{number}"] = {records[0]: 3, records[1]: 0}  # the first file answers it, the second not
            seen[f"q{number}"] = records
            listed.append({"id": f"q{number}", "text": text})
        body = {"tool": "search_docs", "level": "record", "split": "test", "queries": listed, "grades": grades}
        saved = httpx.put(f"{url}/api/console/judged/handbook", json={**body, "seen": seen}, timeout=30)
        assert saved.status_code == 200, saved.text
        written = yaml.safe_load((home / "evaluation" / "handbook" / "eval.yaml").read_text())
        assert written["tool"] == "search_docs" and written["level"] == "record" and "corpus" not in written

        evaluate = block("haygate eval --judged evaluation/handbook").text
        ran = subprocess.run(["bash", "-ec", evaluate], cwd=home, env=env, capture_output=True, text=True, timeout=WAIT)
        assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-3000:]
        assert "the judged calls go through it" in ran.stderr, ran.stderr[-2000:]
        report = json.loads((home / "eval-out" / "handbook" / "report.json").read_text())
        [variant] = report["variants"]
        assert variant["metrics"]["ndcg@10"] == 1.0 and variant["judged_hits"] >= 2, variant  # each file first
    finally:
        stop(server)


def test_the_file_map_names_real_files() -> None:
    for line in block("configs/collections/docs.yaml").text.splitlines():
        path = line.split()[0] if line.strip() and not line.startswith(" ") else None
        if path:
            assert (PROJECT / path).exists(), path


def walkthrough_files() -> dict[str, str]:
    """The YAML blocks of the "Add a tool" guide, by the path their first line names."""
    return {
        found.first_line.removeprefix("# ").strip(): found.text
        for found in blocks(ADD_A_TOOL)
        if found.language == "yaml"
    }


def test_the_walkthrough_declares_four_files() -> None:
    assert sorted(walkthrough_files()) == [
        "configs/collections/release_notes.yaml",
        "configs/tools/search_release_notes.yaml",
        "pipelines/indexing/release_notes.yaml",
        "pipelines/tools/search_release_notes.yaml",
    ]


@pytest.mark.slow
def test_the_walkthrough_tool_works(tmp_path: Path) -> None:
    home = tmp_path / "home"
    copy_project(home)
    for relative, text in walkthrough_files().items():
        (home / relative).write_text(text)
    notes = [
        {"id": "n1", "title": "Faster ingest", "body": "Ingest runs twice as fast.", "product": "haygate"},
        {"id": "n2", "title": "New filters", "body": "Filter on dates.", "product": "other"},
    ]
    dated = [{**notes[0], "version": "1.2", "date": "2026-03-01"}, {**notes[1], "version": "0.9", "date": "2025-01-01"}]
    (tmp_path / "notes.jsonl").write_text("".join(json.dumps(note) + "\n" for note in dated))
    with Loader(make_settings(tmp_path / "data", home=home)) as loader:
        report = ingest_files(loader.collection("release_notes"), [tmp_path / "notes.jsonl"], progress=False)
        assert (report.written, report.errors) == (2, [])
        runtimes, problems = load_tools(loader)
        assert problems == [] and "search_release_notes" in runtimes
        recent = Gateway.load(loader).call(
            "search_release_notes", {"query": "faster ingest", "product": "haygate", "since": "2026-01-01"}
        )
    assert [r["id"] for r in recent["results"]] == ["n1"]
    assert recent["metadata"]["filters"] == {"product": "haygate", "since": "2026-01-01"}
    # Step 6 as written, on that home and data dir (the loader above has let go of the shard).
    env = {**os.environ, "HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(tmp_path / "data")}
    validate, call = (
        subprocess.run(["bash", "-c", c], env=env, cwd=PROJECT, capture_output=True, text=True, timeout=WAIT)
        for c in commands(block(".venv/bin/haygate validate").text)
    )
    assert validate.returncode == 0, validate.stdout + validate.stderr
    assert "ok  search_release_notes" in validate.stdout
    assert call.returncode == 0, call.stderr
    everything = json.loads(call.stdout)
    assert everything["results"][0]["id"] == "n1" and len(everything["results"]) == 2


EVAL_PROGRAMS = {".venv/bin/haygate": "haygate", ".venv/bin/python -m scripts.studies.floor": "scripts.studies.floor"}


@pytest.fixture(scope="module")
def eval_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One data dir for this module's evaluation blocks, as a user's checkout has one: a corpus's planned ids
    and its eval store, made by the first block that needs them, are found by the next (the floor study
    plans and indexes what the tool evaluations did)."""
    return tmp_path_factory.mktemp("eval-data")


@pytest.fixture
def at_test_scale_here(
    tmp_path: Path, eval_data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., list[str]]:
    """Runs an evaluation block with `--limit`, its reports under `tmp_path` and its eval stores in the
    module's data dir; returns what each command printed. Bash expands the block as written (variables,
    loops); each `haygate` command then runs through `haygate.cli.main`, the console script's own entry
    point, in this process (a process each would spend most of a quick run importing), and the study script
    as `__main__`. Commands naming one of `skipped` are left out (`make eval` runs the blocks whole, as
    processes, at full scale, each in a cold data dir)."""
    monkeypatch.chdir(PROJECT)
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(eval_data_dir))

    def run(text: str, skipped: tuple[str, ...] = ()) -> list[str]:
        printed = []
        for program, *arguments in expanded(at_test_scale(text, LIMIT, tmp_path), EVAL_PROGRAMS):
            if any(name in argument for name in skipped for argument in arguments):
                continue
            if program == "haygate":
                assert main(arguments) == 0, (arguments, capsys.readouterr().err[-3000:])
            else:
                monkeypatch.setattr(sys, "argv", [program, *arguments])
                runpy.run_module(program, run_name="__main__")
            printed.append(capsys.readouterr().out)
        return printed

    return run


def assert_computed(variant: dict[str, Any], metrics: set[str]) -> None:
    """Every metric of a report's variant is a figure in [0, 1], and its latencies are measured."""
    assert set(variant["metrics"]) >= metrics, variant["metrics"]
    assert all(0.0 <= value <= 1.0 for value in variant["metrics"].values()), variant["metrics"]
    assert variant["latency_ms"]["p50"] > 0, variant


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.budget(150, "indexes samples of SciFact, Cranfield and CISI, then evaluates and tunes on each")
def test_the_evaluation_commands(tmp_path: Path, at_test_scale_here: Callable[..., list[str]]) -> None:
    """Both evaluation blocks, as quick runs on their first dataset: every report written, with every figure
    computed. Cranfield and CISI run the same commands; `make eval` runs them, at full scale."""
    assert all(f"../shared/data/{name}" in block('P="--pipeline').text for name in QUICK_SKIPPED)
    for first in (".venv/bin/haygate eval --dataset ../shared/data/scifact-dev --split train \\", 'P="--pipeline'):
        at_test_scale_here(block(first).text, skipped=QUICK_SKIPPED)
    assert not (tmp_path / "cranfield").exists() and not (tmp_path / "tune-cisi").exists()
    for name in ("scifact",):
        report = json.loads((tmp_path / name / "report.json").read_text())
        assert [v["name"] for v in report["variants"]] == ["beir_lexical", "beir_dense", "beir_hybrid"]
        assert report["n_queries"] == LIMIT, report["n_queries"]
        for variant in report["variants"]:
            assert_computed(variant, {"ndcg@10", "recall@100", "mrr@10", "map@100"})
        assert {c["variant"] for c in report["comparisons"]} == {"beir_dense", "beir_hybrid"}
        tuned = json.loads((tmp_path / f"tune-{name}" / "tune.json").read_text())
        assert tuned["points"] and tuned["best"]["pipeline"], tuned
        assert (tmp_path / f"tune-{name}" / Path(tuned["best"]["pipeline"]).name).is_file()


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.budget(150, "indexes a sample of each judged set's corpus and calls every search tool")
def test_the_tool_evaluation_commands(tmp_path: Path, at_test_scale_here: Callable[..., list[str]]) -> None:
    """The tool evaluations as quick runs: each served tool first, its variant beside it, figures computed.
    `npm_docs` is `search_docs` again, on npm's docs, which the machine may not have: `make eval` runs it, at
    full scale; `pydantic_docs` and `redux_docs` are `search_docs` on the MkDocs and Docusaurus sites checked
    in beside them, run here."""
    text = block(".venv/bin/haygate eval --judged evaluation/search_docs \\").text
    assert "evaluation/npm_docs" in text
    sets = {folder: tool for folder, tool in TOOL_SETS.items() if folder != "npm_docs"}
    at_test_scale_here(text, skipped=("evaluation/npm_docs",))
    assert not (tmp_path / "npm_docs").exists()
    variants = {"search_docs": ["search_docs_dbsf"], "search_by_skills": ["search_by_skills_vocabulary_only"]}
    for folder, tool in sets.items():
        report = json.loads((tmp_path / folder / "report.json").read_text())
        assert [v["name"] for v in report["variants"]] == [tool, *variants.get(folder, [])]
        for variant in report["variants"]:
            assert_computed(variant, {"ndcg@10"})


TOOL_SETS = {  # judged set folder: the tool it calls
    "search_docs": "search_docs",
    "search_by_skills": "search_by_skills",
    "search": "search",
    "memory_search": "memory_search",
    "memory_fulltext_search": "memory_fulltext_search",
    "get_decisions": "get_decisions",
    "get_patterns": "get_patterns",
    "get_warnings": "get_warnings",
    "npm_docs": "search_docs",
    "pydantic_docs": "search_docs",
    "redux_docs": "search_docs",
}
QUICK_SKIPPED = ("cranfield", "cisi")  # the BEIR block's datasets after the first: `make eval` runs them


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_floor_study_commands(at_test_scale_here: Callable[..., list[str]]) -> None:
    """The floor studies as quick runs print, for every value, the figures the README's tables report."""
    studies = [
        json.loads(printed) for printed in at_test_scale_here(block(".venv/bin/python -m scripts.studies.floor").text)
    ]
    assert [len(study["values"]) for study in studies] == [3, 2]
    for study in studies:
        for figures in study["values"]:
            assert figures["judged_queries"] >= 1 and 0.0 <= figures["recall"] <= 1.0, figures
            assert figures["precision"] is None or 0.0 <= figures["precision"] <= 1.0, figures


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pointing_at_a_qdrant_server(tmp_path: Path) -> None:
    """The block with qdrant-client's local mode standing in for the server (no Qdrant server runs here), at
    test scale: a copy of the project whose samples are the docs alone (local mode is pure Python)."""
    export, serve = commands(block("export HAYGATE_QDRANT_URL").text)
    url = export.split("=", 1)[1].split()[0]
    home = tmp_path / "home"
    copy_project(home)
    shutil.copytree(PROJECT / "samples" / "docs", home / "samples" / "docs")
    port = free_port()
    env = {
        **os.environ,
        "HAYGATE_QDRANT_URL": f"local:{tmp_path / 'qdrant'}",
        "HAYGATE_DATA_DIR": str(tmp_path / "data"),
        "HAYGATE_HOME": str(home),
        "HAYGATE_PORT": str(port),
    }
    assert url.startswith("http://")
    log = tmp_path / "serve.log"
    with log.open("wb") as sink:
        server = subprocess.Popen(
            ["bash", "-c", serve], env=env, cwd=PROJECT, stdout=sink, stderr=sink, start_new_session=True
        )
    try:
        wait_until_ready(f"http://127.0.0.1:{port}", server, log)
        answer = httpx.post(
            f"http://127.0.0.1:{port}/api/tools/search_docs", json={"query": "bearer token"}, timeout=120
        ).json()
    finally:
        stop(server)
    assert answer["results"], answer


@pytest.mark.slow
def test_the_memory_backend(tmp_path: Path) -> None:
    """The block as written, in a copy of the project on a data dir of its own: the docs ingested into the memory
    backend's file, and a call that finds them there."""
    home = tmp_path / "home"
    copy_project(home)
    shutil.copytree(PROJECT / "samples" / "docs", home / "samples" / "docs")
    (home / ".venv").symlink_to(PROJECT / ".venv")  # the block's `.venv/bin/haygate`, from the project folder
    env = {**os.environ, "HAYGATE_DATA_DIR": str(tmp_path / "data"), "HAYGATE_HOME": str(home)}
    env.pop("HAYGATE_STORE", None)
    script = "\n".join(commands(block("export HAYGATE_STORE=memory").text))
    done = subprocess.run(["bash", "-ec", script], cwd=home, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert sorted(path.name for path in (tmp_path / "data" / "docs").iterdir()) == [".lock", "documents.json"]
    answer = json.loads(done.stdout[done.stdout.index("{") :])
    assert answer["results"] and "token" in json.dumps(answer["results"][0]).lower(), answer


def test_a_backend_a_package_registers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The entry point as the block declares it, in an installed distribution's metadata: `HAYGATE_STORE` then
    names the backend, and the loader opens its module's `open_store`."""
    from haygate.document_stores import backends

    declared = tomllib.loads(block('[project.entry-points."haygate.document_stores"]').text)
    [(group, points)] = declared["project"]["entry-points"].items()
    [(name, target)] = points.items()
    assert group == backends.ENTRY_POINTS
    module = target.partition(":")[0]
    package = tmp_path / module.split(".")[0]
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "store.py").write_text(
        "from haygate.document_stores.memory import open_store as memory\n\n"
        "def open_store(layout, place):\n    store = memory(layout, place)\n    store.opened_by = 'lance'\n"
        "    return store\n"
    )
    info = tmp_path / "haygate_lance-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: haygate-lance\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{name} = {target}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert name in backends.names()
    with Loader(make_settings(tmp_path / "data", store=name)) as loader:
        assert getattr(loader.store("docs"), "opened_by", None) == "lance"
