"""`haygate judged import` and `export`, run as a user runs them: the console script in a process of its own, on
the example project's judged sets and on a Quepid case judged here, then `haygate eval --judged` of what was
imported, on the sample docs collection as ingested."""

import csv
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from ranx import Qrels, Run

from evaluation.judged_sets import load
from haygate.cli import main
from haygate.errors import ExitCode
from haygate.evaluation.interchange import quepid_query_id, trec_qrels
from haygate.evaluation.sheets import SHEET_HEADER
from haygate.gateway.judged_sets import read_all_grades, read_set_queries
from tests.support.cache import copy_tree
from tests.support.docs import block, commands
from tests.support.project import PROJECT, copy_project

pytestmark = [pytest.mark.integration, pytest.mark.slow]
HAYGATE = PROJECT / ".venv" / "bin" / "haygate"
BLOCK = ".venv/bin/haygate judged export trec evaluation/search_docs"
SEARCH_DOCS = PROJECT / "evaluation" / "search_docs"
SKILLS = PROJECT / "evaluation" / "search_by_skills"
TOP_LEVEL_KEYS = "haygate-docs:configuring-tools.md#Configuring Tools/File layout/Top-level keys"
MAPPING = "haygate-docs:configuring-tools-1.0.md#Configuring Tools/File layout/Tools are a mapping"
MARKDOWN = "haygate-docs:ingestion.md#Ingestion/Input formats/Markdown"
# A case judged here, on the sample docs as ingested, exported as Quepid's Basic ratings export writes it: a
# query text beginning with '-' gets a space before it, and a query with no rating a row of its own.
QUEPID_CASE = (
    "query,docid,rating\n"
    f'top-level keys of a tool file,"{TOP_LEVEL_KEYS}",3\n'
    f'top-level keys of a tool file,"{MAPPING}",1\n'
    f'" -how do I read markdown files",{MARKDOWN},2\n'
    f'" -how do I read markdown files","haygate-docs:configuring-tools.md#Configuring Tools",0\n'
    "a query nobody rated yet,,\n"
)


@dataclass(frozen=True)
class BlockRun:
    root: Path  # where the block's files went
    printed: list[str]


def run(*arguments: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(HAYGATE), *map(str, arguments)], cwd=PROJECT, env=env, capture_output=True, text=True, timeout=120
    )


@pytest.fixture(scope="module")
def block_run(ingested_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> BlockRun:
    """The how-to's block as written, from the project folder, each line through bash: what it writes goes to a
    temp folder instead of evaluation/ and eval-out/, and its data dir is a copy of the ingested samples."""
    root = tmp_path_factory.mktemp("judged-block")
    (root / "quepid_ratings.csv").write_text(QUEPID_CASE)
    text = block(BLOCK).text
    for written in (
        "evaluation/search_docs_again",
        "evaluation/handbook_quepid",
        "search_docs.qrels",
        "quepid_ratings.csv",
    ):
        assert written in text, written
        text = text.replace(written, str(root / Path(written).name))
    text = text.replace("eval-out/", f"{root}/eval-out/")
    env = {
        **os.environ,
        "HAYGATE_DATA_DIR": str(copy_tree(ingested_samples, root / "data")),
        "HAYGATE_HOME": str(PROJECT),
    }
    printed = []
    for command in commands(text):
        done = subprocess.run(
            ["bash", "-c", command], cwd=PROJECT, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, (command, done.stdout, done.stderr[-3000:])
        printed.append(done.stdout + done.stderr)
    return BlockRun(root, printed)


def test_the_judgments_that_travel_block(block_run: BlockRun) -> None:
    root = block_run.root
    assert "267 judged ids with a space or '%': written percent-encoded" in block_run.printed[0]
    again = root / "search_docs_again"  # search_docs, out as TREC qrels and in again: the same grades and queries
    assert read_all_grades(again, set(read_set_queries(again))) == read_all_grades(
        SEARCH_DOCS, set(read_set_queries(SEARCH_DOCS))
    )
    original = read_set_queries(SEARCH_DOCS)
    for query_id, entry in read_set_queries(again).items():
        assert (entry["text"], entry["arguments"]) == (original[query_id]["text"], original[query_id]["arguments"])

    handbook = root / "handbook_quepid"
    keys, markdown = quepid_query_id("top-level keys of a tool file"), quepid_query_id("-how do I read markdown files")
    assert read_all_grades(handbook, {keys, markdown}) == {
        "test": {keys: {TOP_LEVEL_KEYS: 3, MAPPING: 1}, markdown: {MARKDOWN: 2, TOP_LEVEL_KEYS.split("/")[0]: 0}}
    }
    assert "ratings read on the 0-3 scale (the smallest that holds the highest rating, 3)" in block_run.printed[2]
    assert "left out 1 query with no rating, e.g. 'a query nobody rated yet'" in block_run.printed[2]
    for imported in (again, handbook):  # the project's own check of a judged set's layout finds nothing wrong
        assert load(imported).problems == [], imported

    report = json.loads((root / "eval-out" / "handbook_quepid" / "report.json").read_text())
    [served] = report["variants"]
    assert served["name"] == "search_docs" and report["n_queries"] == 2
    assert served["metrics"]["ndcg@10"] > 0.5, served["metrics"]  # both answers are easy to find


def test_ranx_reads_back_the_runs_the_evaluation_wrote(block_run: BlockRun) -> None:
    out = block_run.root / "eval-out" / "handbook_quepid"
    qrels = Qrels.from_file(str(out / "qrels.trec"), kind="trec")
    run_read = Run.from_file(str(out / "runs" / "search_docs.trec"), kind="trec")
    assert set(run_read.keys()) == set(qrels.keys())


def test_refusals_name_the_file_and_line_and_write_nothing(tmp_path: Path) -> None:
    env = {**os.environ, "HAYGATE_DATA_DIR": str(tmp_path / "data"), "HAYGATE_HOME": str(PROJECT)}
    queries = SEARCH_DOCS / "queries.jsonl"
    bad = tmp_path / "bad.qrels"
    bad.write_text("d1 0 a 1\nd1 0 3.0/x.mdx#Warming Up Components 2\n")
    cases = [
        (["import", "trec", bad, "--queries", queries], 1, f"error: {bad}:2: expected 4 fields"),
        (["import", "trec", bad], 2, "error: TREC qrels name each query by its id alone"),
        (["import", "trec", bad, "--queries", queries, "--tool", "search_doc"], 1, "error: unknown tool 'search_doc'"),
        (["import", "quepid", tmp_path / "ratings.csv"], 1, f"error: {tmp_path / 'ratings.csv'}:1: unknown columns"),
        (["import", "trec", bad, "--queries", queries, "--into", SKILLS], 2, f"error: {SKILLS} already holds"),
    ]
    (tmp_path / "ratings.csv").write_text("query,docid,rating,stars\nq,d,1,5\n")
    into = tmp_path / "set"
    for arguments, status, message in cases:
        defaults = [] if "--into" in arguments else ["--into", into]
        defaults += [] if "--tool" in arguments else ["--tool", "search_docs"]
        done = run("judged", *arguments, *defaults, env=env)
        assert (done.returncode, done.stdout) == (status, ""), (arguments, done.stderr)
        assert done.stderr.startswith(message) and "Traceback" not in done.stderr, (arguments, done.stderr)
    assert not into.exists()

    # A split exported to standard output and imported again with --force, into a copy of a set with another
    # split: that split, its queries' metadata and the rest of eval.yaml stay.
    copy = tmp_path / "skills"
    copy_tree(SKILLS, copy)
    exported = run("judged", "export", "trec", SKILLS, "--split", "dev", env=env)
    assert exported.returncode == 0 and exported.stdout == trec_qrels(SKILLS, "dev")[0], exported.stderr
    (tmp_path / "dev.qrels").write_text(exported.stdout)
    imported = ["judged", "import", "trec", tmp_path / "dev.qrels", "--queries", SKILLS / "queries.jsonl"]
    done = run(*imported, "--into", copy, "--tool", "search_by_skills", "--split", "dev", "--force", env=env)
    assert done.returncode == 0, done.stderr
    assert read_all_grades(copy, set(read_set_queries(copy))) == read_all_grades(SKILLS, set(read_set_queries(SKILLS)))
    before, after = read_set_queries(SKILLS), read_set_queries(copy)
    assert {q: e for q, e in after.items() if e["split"] == "test"} == {
        q: e for q, e in before.items() if e["split"] == "test"
    }
    for query_id in (q for q, e in after.items() if e["split"] == "dev"):
        assert (after[query_id]["text"], after[query_id]["arguments"]) == (
            before[query_id]["text"],
            before[query_id]["arguments"],
        )
    assert (copy / "eval.yaml").read_text() == (SKILLS / "eval.yaml").read_text()  # as written, comments and all
    assert load(copy).problems == []
    dev = read_all_grades(SKILLS, set(before))["dev"]
    left_out = [q for q in before if q not in dev]  # the test split's, and the dev queries that find nothing
    assert f"left out {len(left_out)} queries of {SKILLS / 'queries.jsonl'}" in done.stdout, done.stdout


def test_the_before_anyone_judges_block(ingested_samples: Path, tmp_path: Path) -> None:
    """The how-to's block as written, in a copy of the project over a copy of the ingested samples: a known-item
    set from the docs' headings, evaluated against a variant, and the two runs compared from the report alone."""
    home = copy_project(tmp_path / "home")
    (home / ".venv").symlink_to(PROJECT / ".venv")
    env = {
        **os.environ,
        "HAYGATE_DATA_DIR": str(copy_tree(ingested_samples, tmp_path / "data")),
        "HAYGATE_HOME": str(home),
    }
    printed = []
    for command in commands(block(".venv/bin/haygate judged known-items docs docs-known").text):
        done = subprocess.run(["bash", "-c", command], cwd=home, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr[-3000:])
        printed.append(done.stdout + done.stderr)
    made, evaluated, compared = printed
    assert "known-item queries into evaluation/docs-known" in made and "limits: known-item queries are headings" in made
    queries = read_set_queries(home / "evaluation" / "docs-known")
    assert len(queries) > 20 and all(entry["metadata"]["tags"] == ["known-item"] for entry in queries.values())
    report = json.loads((home / "eval-out" / "docs-known" / "report.json").read_text())
    assert report["by_tag"]["known-item"]["queries"] == len(queries)
    assert report["variants"][0]["metrics"]["recall@10"] > 0.8  # a heading finds its own section
    assert 0 < report["overlap_with_baseline"]["search_docs_dbsf"]["mean"] <= 1
    assert "judged@10" in evaluated
    first = compared.splitlines()[0]
    assert first.startswith("search_docs_dbsf against search_docs on ndcg@10:") and "rank-biased overlap" in compared
    refused = subprocess.run(
        [str(HAYGATE), "compare", str(home / "eval-out" / "docs-known"), "search_docs", "nowhere"],
        cwd=home,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "no run 'nowhere'; its runs: search_docs, search_docs_dbsf" in refused.stderr
    assert "Traceback" not in refused.stderr


def graded(sheet: Path, grade_of: Callable[[list[str]], str]) -> int:
    """A sheet's empty grade cells filled as a rater would, from each row; how many were filled."""
    with sheet.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == SHEET_HEADER
    for row in rows[1:]:
        assert row[3] == ""  # a sheet shows no grade: not the set's, not another rater's
        row[3] = grade_of(row)
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(rows)
    return len(rows) - 1


def test_the_pools_not_one_ranking_block(ingested_samples: Path, tmp_path: Path) -> None:
    """The how-to's block as written, in a copy of the project: a known-item set pooled over the tool, a variant and
    the one-source rankings into a sheet, graded here by two raters (a rule each: the known answer's page
    relevant; bob also the section's own page's parent), imported, and evaluated: every variant's top 10 judged."""
    home = copy_project(tmp_path / "home")
    (home / ".venv").symlink_to(PROJECT / ".venv")
    env = {
        **os.environ,
        "HAYGATE_DATA_DIR": str(copy_tree(ingested_samples, tmp_path / "data")),
        "HAYGATE_HOME": str(home),
    }
    folder = home / "evaluation" / "docs-pooled"
    printed = []
    for command in commands(block(".venv/bin/haygate judged known-items docs docs-pooled").text):
        done = subprocess.run(["bash", "-c", command], cwd=home, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr[-3000:])
        printed.append(done.stdout + done.stderr)
        if len(printed) == 1:  # the known-item set: each query's answer, the section whose heading it is
            answers = read_all_grades(folder, set(read_set_queries(folder)))["test"]
            page = {q: next(iter(docs)).split("#")[0] for q, docs in answers.items()}
        if command.endswith("--sheet docs-pooled.csv"):  # ann: another section of the answer's page, partly
            ann = graded(
                home / "docs-pooled.csv", lambda row, page=page: "1" if row[2].startswith(page[row[0]]) else "0"
            )
        if command.endswith("--sheet docs-pooled-bob.csv"):  # bob grades every pooled result: the answer 3
            bob = graded(home / "docs-pooled-bob.csv", lambda row, a=answers: "3" if row[2] in a[row[0]] else "0")
    _, pooled, imported, _, imported_bob, evaluated = printed
    assert "judged@10 before this pool" in pooled and "    served: " in pooled and "    BM25 only: " in pooled
    assert f"{ann} results to grade, of the " in pooled
    assert f"{ann} grades from docs-pooled.csv, recorded as ann's" in imported
    assert f"{bob} grades from docs-pooled-bob.csv, recorded as bob's" in imported_bob
    assert f"ann and bob: {ann} results graded by both" in imported_bob and "Cohen's kappa" in imported_bob

    judging = json.loads((folder / "judging.json").read_text())["test"]
    queries = read_set_queries(folder)
    assert set(judging) == set(queries) and all(entry["pooled"] for entry in judging.values())
    rankings = {name for entry in judging.values() for names in entry["pooled"].values() for name in names}
    assert rankings == {"served", "eval/search_docs_dbsf.yaml", "dense only", "BM25 only"}
    report = json.loads((home / "eval-out" / "docs-pooled" / "report.json").read_text())
    for variant in report["variants"]:  # every ranking's top 10 was pooled, so every result of it is judged
        assert variant["judged_at_k"]["mean"] == 1.0, variant["name"]
    assert "was judged (judged@10)" not in evaluated  # no warning: nothing unjudged
    assert set(report["pooled_from"]) == rankings and all(count >= 6 for count in report["pooled_from"].values())
    assert "Judged on pools: the results each ranking put in its query's pool, served (" in evaluated
    [pair] = report["agreement"]
    assert pair["raters"] == ["ann", "bob"] and pair["results"] == ann
    assert f"Raters ann and bob graded {ann} results alike" in evaluated


def test_a_sheet_that_cannot_be_read_back_is_refused_by_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In this process (the command, not its start-up, is what is tested): each refusal names the line, and writes
    nothing."""
    monkeypatch.setenv("HAYGATE_HOME", str(PROJECT))
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "set"
    shutil.copytree(SEARCH_DOCS, folder)
    query = next(iter(read_set_queries(folder)))
    sheet = tmp_path / "sheet.csv"
    cases = {
        "query-id,judged-id\n": "missing ['grade']",
        "query-id,judged-id,grade\nnowhere,a,1\n": "sheet.csv:2: query 'nowhere' is not a query of the set",
        f"query-id,judged-id,grade\n{query},a,4\n": "sheet.csv:2: grade 4 is outside haygate's scale",
        f"query-id,judged-id,grade\n{query},a,1\n{query},a,2\n": "sheet.csv:3: 'a' is graded twice",
    }
    before = (folder / "qrels" / "test.tsv").read_text()
    for text, said in cases.items():
        sheet.write_text(text)
        assert main(["judged", "import", "sheet", str(sheet), "--into", str(folder)]) != 0
        err = capsys.readouterr().err
        assert said in err and "Traceback" not in err, (text, err)
    assert (folder / "qrels" / "test.tsv").read_text() == before  # nothing written
    assert main(["judged", "import", "sheet", str(sheet), "--into", str(folder), "--rater", "two\nlines"]) != 0
    assert "--rater: a name or initials" in capsys.readouterr().err

    # A file that is not UTF-8 text (a spreadsheet's own encoding): its line named, in every format read.
    latin = tmp_path / "latin1.csv"
    latin.write_bytes(f"query-id,judged-id,grade\n{query},caf\xe9,1\n".encode("latin-1"))
    for command in (
        ["judged", "import", "sheet", str(latin), "--into", str(folder)],
        ["judged", "import", "quepid", str(latin), "--into", str(tmp_path / "q"), "--tool", "search_docs"],
        ["judged", "import", "trec", str(latin), "--queries", str(latin), "--into", str(tmp_path / "t"),
         "--tool", "search_docs"],
    ):  # fmt: skip
        assert main(command) != 0
        err = capsys.readouterr().err
        assert f"error: {latin}:2: not UTF-8 text (byte 0xe9); save the file as UTF-8" in err, (command, err)

    # A file to write where no folder is: said (the pool before any ranking runs), not a traceback.
    nowhere = tmp_path / "no-such-folder"
    assert main(["judged", "pool", str(folder), "--sheet", str(nowhere / "s.csv")]) == ExitCode.CONFIG
    assert f"--sheet {nowhere / 's.csv'}: no folder {nowhere} to write it in" in capsys.readouterr().err
    assert main(["judged", "export", "trec", str(folder), "--out", str(nowhere / "x.qrels")]) == ExitCode.STORAGE
    assert capsys.readouterr().err.startswith(f"error: {nowhere / 'x.qrels'}: No such file or directory")
