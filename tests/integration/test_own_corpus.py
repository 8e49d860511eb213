"""The ML engineer's loop on a corpus of one's own, as a new user runs it: a project from `haygate init`, a
folder of real Markdown nobody tuned on (this repository's how-to guides), judged sets written by hand at the
file and the section level, evaluated with `haygate eval`, through the command line (`haygate.cli.main`, in
this process: the output a user reads, the exit code they get)."""

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from haygate.cli import main
from haygate.evaluation.differences import read_trec_run
from haygate.templates import init_project
from tests.support.project import PROJECT

pytestmark = [pytest.mark.integration, pytest.mark.slow]
CORPUS = PROJECT / "docs" / "how-to"
ADD_A_TOOL, CONSOLE = "file:add-a-tool.md", "file:console.md"  # a file's id: its path inside the folder
TOOLS_SECTION = f"{CONSOLE}#Use the console/Tools"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A new project whose docs corpus is a copy of the how-to guides, under `how-to/` in the project."""
    root = tmp_path_factory.mktemp("own-corpus")
    project = root / "project"
    init_project(project, "minimal")
    shutil.copytree(CORPUS, project / "how-to")
    old = {name: os.environ.get(name) for name in ("HAYGATE_HOME", "HAYGATE_DATA_DIR")}
    os.environ["HAYGATE_HOME"], os.environ["HAYGATE_DATA_DIR"] = str(project), str(project / "data")
    try:
        yield project
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def judged_set(home: Path, name: str, qrels: list[tuple[str, str, int]], **spec: Any) -> Path:
    """A judged set written as a user writes one: two queries over the guides, the corpus beside it."""
    folder = home / "evaluation" / name
    (folder / "qrels").mkdir(parents=True)
    queries = [
        {"_id": "q1", "text": "declare a new tool in YAML with its parameters"},
        {"_id": "q2", "text": "try a tool from a form in the browser"},
    ]
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    lines = ["query-id\tcorpus-id\tscore", *(f"{q}\t{doc}\t{grade}" for q, doc, grade in qrels)]
    (folder / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    (folder / "eval.yaml").write_text(yaml.safe_dump({"tool": "search_docs", "corpus": "../../how-to", **spec}))
    return folder


def evaluate(folder: Path, out: Path, *extra: str) -> int:
    return main(["eval", "--judged", str(folder), "--out", str(out), "--no-progress", *extra])


def report_of(out: Path) -> dict[str, Any]:
    return json.loads((out / "report.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.budget(150, "indexes 11 guides once (the second set reuses them) and evaluates three judged sets")
def test_files_and_sections_are_judged_at_their_level_and_share_one_index(home: Path, tmp_path: Path) -> None:
    files = judged_set(home, "files", [("q1", ADD_A_TOOL, 2), ("q2", CONSOLE, 2)])
    assert evaluate(files, tmp_path / "files") == 0
    [by_file] = report_of(tmp_path / "files")["variants"]
    assert by_file["metrics"]["ndcg@10"] > 0.5 and by_file["judged_hits"] >= 2, by_file  # was 0.0: sections
    stores = sorted((home / "data" / "eval").iterdir())
    assert [s.name.split("-")[0] for s in stores] == ["docs"]  # keyed by the collection and corpus, not the set
    [planned] = (home / "data" / "eval-ids").iterdir()  # the corpus's ids, kept under the same key
    assert planned.name == f"{stores[0].name}.json"
    planned_at = planned.stat().st_mtime_ns

    sections = judged_set(home, "sections", [("q2", TOOLS_SECTION, 3)])
    assert evaluate(sections, tmp_path / "sections") == 0
    assert sorted((home / "data" / "eval").iterdir()) == stores  # no second index
    assert planned.stat().st_mtime_ns == planned_at  # nor a second planning: the kept ids were read
    [by_section] = report_of(tmp_path / "sections")["variants"]
    run = read_trec_run(tmp_path / "sections" / "runs" / "search_docs.trec")  # ids decoded as written
    assert TOOLS_SECTION in run["q2"] and by_section["judged_hits"] >= 1

    # a variant whose formatter shows no id at all is still traced to its documents
    variant = home / "pipelines" / "eval" / "no_ids.yaml"
    pipeline = yaml.safe_load((home / "pipelines" / "tools" / "search_docs.yaml").read_text())
    del pipeline["components"]["formatter"]["init_parameters"]["fields"]["id"]
    variant.write_text(yaml.safe_dump(pipeline, sort_keys=False))
    declaration = home / "configs" / "tools" / "search_docs.yaml"
    original = declaration.read_text()
    loosened = yaml.safe_load(original)
    loosened["output_schema"]["properties"]["results"]["items"]["required"].remove("id")
    declaration.write_text(yaml.safe_dump(loosened, sort_keys=False))
    try:
        assert evaluate(files, tmp_path / "variant", "--pipeline", str(variant)) == 0
        baseline, no_ids = report_of(tmp_path / "variant")["variants"]
        assert no_ids["metrics"] == baseline["metrics"], (baseline, no_ids)
    finally:
        declaration.write_text(original)


def test_an_unknown_judged_id_is_refused_before_anything_is_indexed(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = judged_set(home, "typo", [("q1", "file:add-a-toll.md", 2)])
    (broken / "eval.yaml").write_text(yaml.safe_dump({"tool": "search_docs", "corpus": "../../more-guides"}))
    more = shutil.copytree(CORPUS, home / "more-guides")  # another corpus: it would get an index of its own
    (more / "extra.md").write_text("# Extra\n\nA page the other corpus does not have.\n")
    before = sorted((home / "data" / "eval").iterdir()) if (home / "data" / "eval").is_dir() else []
    assert evaluate(broken, tmp_path / "typo") == 1
    message = capsys.readouterr().err.strip().splitlines()[-1]
    assert message.startswith(f"error: {broken / 'qrels' / 'test.tsv'}:2 (the corpus): 1 judged id(s)"), message
    assert "'file:add-a-toll.md' (closest: 'file:add-a-tool.md'" in message, message
    after = sorted((home / "data" / "eval").iterdir()) if (home / "data" / "eval").is_dir() else []
    assert after == before  # refused before any indexing


def test_the_refusal_of_a_judged_id_loads_no_model_and_no_scorer(home: Path, tmp_path: Path) -> None:
    """The refusal needs the corpus's ids alone: no model (ONNX Runtime) and no ranx (3 s of imports)."""
    import subprocess
    import sys

    broken = judged_set(home, "typo-alone", [("q1", "file:add-a-toll.md", 2)])
    program = (
        "import sys; from haygate.cli import main; "
        f"code = main(['eval', '--judged', {str(broken)!r}, '--out', {str(tmp_path / 'out')!r}, '--no-progress']); "
        "print([m for m in ('onnxruntime', 'ranx') if m in sys.modules]); sys.exit(code)"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "'file:add-a-toll.md' (closest: 'file:add-a-tool.md'" in done.stderr, done.stderr
    assert done.stdout.strip() == "[]", done.stdout


def test_the_collection_as_ingested_is_evaluated_without_indexing(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ingest", "docs", str(home / "how-to"), "--no-progress"]) == 0
    files = judged_set(home, "ingested", [("q1", ADD_A_TOOL, 2), ("q2", CONSOLE, 2)])
    assert evaluate(files, tmp_path / "ingested", "--collection", "docs") == 0
    [variant] = report_of(tmp_path / "ingested")["variants"]
    assert variant["metrics"]["ndcg@10"] > 0.5, variant
    assert "indexed" not in capsys.readouterr().err  # no eval store built


def test_a_tool_whose_rows_cannot_be_traced_names_the_field_it_needs(home: Path, tmp_path: Path) -> None:
    from haygate.errors import ConfigurationError
    from haygate.evaluation.tools import _record_id, load_judged_set

    spec = load_judged_set(judged_set(home, "untraced", [("q1", ADD_A_TOOL, 2)])).spec
    with pytest.raises(ConfigurationError) as caught:
        _record_id({"title": "a row", "score": 0.5}, spec)
    assert "no field 'id'" in caught.value.message and caught.value.details == {"field": "id"}


@pytest.mark.budget(120, "ingests the guides (or finds them unchanged), serves them, validates through the server")
def test_validate_while_a_server_holds_the_data_makes_every_check(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The usual state while a client is connected: `validate` used to rehearse on an empty scratch store and
    print `ok` for a formatter field no record has and for a result outside its schema. The server checks now."""
    import subprocess
    import sys

    from tests.support.serving import free_port, stop, wait_until_ready

    assert main(["ingest", "docs", str(home / "how-to"), "--no-progress"]) == 0
    tools, pipelines = home / "configs" / "tools", home / "pipelines" / "tools"
    typo = yaml.safe_load((pipelines / "search_docs.yaml").read_text())
    typo["components"]["formatter"]["init_parameters"]["fields"]["source"] = "meta.sorce"
    (pipelines / "search_typo.yaml").write_text(yaml.safe_dump(typo, sort_keys=False))
    declaration = yaml.safe_load((tools / "search_docs.yaml").read_text())
    (tools / "search_typo.yaml").write_text(yaml.safe_dump({**declaration, "name": "search_typo"}))
    strict = {**declaration, "name": "search_strict", "pipeline": "tools/search_docs.yaml"}
    strict["output_schema"]["properties"]["results"]["items"]["properties"]["score"]["maximum"] = 0.001
    (tools / "search_strict.yaml").write_text(yaml.safe_dump(strict))
    port, log = free_port(), tmp_path / "serve.log"
    with log.open("wb") as sink:
        env = {**os.environ, "HAYGATE_WATCH": "false"}
        command = [sys.executable, "-m", "haygate.cli", "serve", "--http", "--port", str(port)]
        server = subprocess.Popen(command, cwd=home, env=env, stdout=sink, stderr=sink, start_new_session=True)
    try:
        wait_until_ready(f"http://127.0.0.1:{port}", server, log)
        capsys.readouterr()
        from haygate.server.client import ServerClient

        forwarded: list[str] = []
        real = ServerClient.operate
        monkeypatch.setattr(ServerClient, "operate", lambda self, *a: forwarded.append(a[0]) or real(self, *a))
        assert main(["validate"]) == 2
        out = capsys.readouterr().out
    finally:
        stop(server)
        for made in (tools / "search_typo.yaml", tools / "search_strict.yaml", pipelines / "search_typo.yaml"):
            made.unlink()
    assert "ERR tool 'search_typo': formatter field 'source' reads meta.sorce" in out, out
    assert "ERR tool 'search_strict': its example call" in out and "outside its output_schema" in out, out
    assert "ok  search_docs" in out and "part " not in out  # checked on the served data, not a scratch store
    assert forwarded == ["validate"]  # the server that holds the data made the checks
