"""`haygate eval --judged`: a served tool scored on its own judged set, through real tool calls."""

import json
import shutil
from pathlib import Path

import pytest

from haygate.cli import main
from haygate.errors import DatasetError
from haygate.evaluation.differences import read_trec_run
from haygate.evaluation.tools import load_judged_set
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parents[2]
TINY = PROJECT / "tests" / "fixtures" / "tiny_judged_docs"
SNAPSHOTS = "2.0/breakpoints.md#Breakpoints/Snapshots#1"  # long enough to be cut into chunks


@pytest.fixture
def data_dir(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(settings.data_dir))
    return settings.data_dir


def trec(path: Path) -> dict[str, list[str]]:
    """A run file's ranked ids per query, decoded as the report wrote them, best first."""
    return {query: sorted(ranked, key=lambda doc: -ranked[doc]) for query, ranked in read_trec_run(path).items()}


@pytest.mark.integration
@pytest.mark.slow
def test_eval_scores_the_served_tool_and_a_variant_in_its_place(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    variant = tmp_path / "docs_again.yaml"
    shutil.copy(PROJECT / "pipelines" / "tools" / "search_docs.yaml", variant)
    out = tmp_path / "out"
    argv = ["eval", "--judged", str(TINY), "--out", str(out), "--no-progress", "--pipeline", str(variant)]
    assert main([*argv, "--metric", "precision@1"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["baseline"] == "search_docs" and report["n_queries"] == 6  # the unjudged query is left out
    baseline, again = report["variants"]
    assert set(baseline["metrics"]) == {"ndcg@10", "mrr@10", "precision@1"}
    assert baseline["metrics"]["ndcg@10"] > 0.7  # the fixture's answers are easy to find
    assert again["name"] == "docs_again" and again["metrics"] == baseline["metrics"]  # the same pipeline again
    # "sourdough starter hydration" is judged to match nothing; search_docs has no relevance floor unless a
    # call sets `min_score`, so its nearest sections still come back, and the report says so.
    assert baseline["unjudged"] == {"queries": 1, "answered": 1, "answered_ids": ["t7"]}
    assert "`search_docs`: 1 of 1 queries with no relevant document got results" in capsys.readouterr().out
    ranked = trec(out / "runs" / "search_docs.trec")
    assert ranked["t4"][0] == SNAPSHOTS  # its chunks count as the section, once
    assert len(ranked["t4"]) == len(set(ranked["t4"])) and not any("#chunk" in d for d in ranked["t4"])
    assert ranked["t3"] and all(d.startswith("1.0/") for d in ranked["t3"])  # the query's own `version` argument
    assert main(argv) == 0  # a second run reuses the index
    assert len(list((data_dir / "eval").iterdir())) == 1


@pytest.mark.integration
@pytest.mark.slow
def test_a_judged_id_the_corpus_lacks_stops_the_evaluation(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken"
    shutil.copytree(TINY, broken)
    with (broken / "qrels" / "test.tsv").open("a") as qrels:
        qrels.write("t1\t1.0/filters.md#Filters/XOR#9\t1\n")
    assert main(["eval", "--judged", str(broken), "--no-progress", "--out", str(tmp_path / "o")]) != 0
    message = capsys.readouterr().err.strip().splitlines()[-1]
    lines = len((broken / "qrels" / "test.tsv").read_text().splitlines())
    assert message.startswith(f"error: {broken / 'qrels' / 'test.tsv'}:{lines} (the corpus): ")  # its file and line
    assert "1 judged id(s) name no record or section of 'docs': '1.0/filters.md#Filters/XOR#9'" in message
    assert "closest: '1.0/filters.md#Filters/NOT#" in message, message
    assert not (data_dir / "eval").exists()  # refused before anything was indexed


def test_judged_set_specs_are_checked_before_anything_runs(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    shutil.copytree(TINY, folder)
    judged = load_judged_set(folder)
    assert judged.calls["t3"] == {"query": "save a pipeline as yaml text in 1.0", "max_results": 5, "version": "1.0"}
    assert judged.calls["t1"] == {"query": "exclude documents matching a set of conditions", "max_results": 5}
    assert judged.unjudged == ["t7"] and "t7" not in judged.dataset.queries  # called, not scored
    (folder / "sections.jsonl").unlink()
    with pytest.raises(DatasetError, match="no corpus records there \\(pass --corpus"):
        load_judged_set(folder)
    assert load_judged_set(folder, corpus=TINY / "sections.jsonl").corpus == [TINY / "sections.jsonl"]
    (folder / "eval.yaml").write_text("tool: search_docs\ncorpus: x.jsonl\nresult: results\n")
    with pytest.raises(DatasetError, match=r"eval\.yaml: line 3: unknown key 'result'; did you mean 'results'\?"):
        load_judged_set(folder)
    (folder / "eval.yaml").unlink()
    with pytest.raises(DatasetError, match=r"eval\.yaml: missing"):
        load_judged_set(folder)


@pytest.mark.integration
@pytest.mark.slow
def test_ids_an_earlier_version_wrote_are_graded_as_the_sections_ids_now(
    data_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A set judged when a heading's attribute list was part of its id (`Request Files { #request-files }`) is
    evaluated as judged: each old id counts as its section's id now, and a warning counts them."""
    judged = tmp_path / "uploads"
    (judged / "pages").mkdir(parents=True)
    (judged / "pages" / "files.md").write_text(
        "# Upload { #upload }\n\nUploading files.\n\n## Request Files { #request-files }\n\n"
        "Declare a parameter of type UploadFile to receive a multipart file upload.\n\n"
        "## Size limits\n\nA request body larger than the limit is refused with status 413.\n"
    )
    (judged / "eval.yaml").write_text("tool: search_docs\ncorpus: pages\narguments: {query: '{query}'}\n")
    (judged / "queries.jsonl").write_text(
        '{"_id": "q1", "text": "receive an uploaded file in a multipart request"}\n'
        '{"_id": "q2", "text": "what happens when the body is too large"}\n'
    )
    (judged / "qrels").mkdir()
    (judged / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n"
        "q1\tfile:files.md#Upload { #upload }/Request Files { #request-files }\t2\n"
        "q2\tfile:files.md#Upload { #upload }/Size limits\t2\n"
    )
    out = tmp_path / "out"
    assert main(["eval", "--judged", str(judged), "--out", str(out), "--no-progress"]) == 0
    assert "2 judged id(s) written by an earlier haygate" in caplog.text
    assert (
        "'file:files.md#Upload { #upload }/Request Files { #request-files }' -> 'file:files.md#request-files'"
        in caplog.text
    )
    [variant] = json.loads((out / "report.json").read_text())["variants"]
    assert variant["metrics"]["recall@10"] == 1.0, variant  # each old id found, as the section it names now
