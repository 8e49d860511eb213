"""`write_split`: one split of a judged set written (a save from the Judge tab, `haygate judged import`), the rest
of the set kept as it was."""

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from haygate.errors import InvalidRequestError
from haygate.gateway.judged_sets import (
    JUDGING_FILE,
    JudgedQuery,
    add_judgments,
    read_all_grades,
    read_judging,
    read_set_queries,
    read_spec,
    write_split,
)

PROJECT = Path(__file__).resolve().parents[3]
SKILLS = PROJECT / "evaluation" / "search_by_skills"  # a hand-made set with a dev and a test split


def test_a_split_replaced_keeps_the_other_split_its_metadata_and_the_spec(tmp_path: Path) -> None:
    folder = tmp_path / "skills"
    shutil.copytree(SKILLS, folder)
    before = read_set_queries(folder)
    dev_grades = read_all_grades(folder, set(before))["dev"]
    judged = write_split(folder, "search_by_skills", "test", [JudgedQuery(id="new1", text="rust")], {"new1": {"c1": 2}})
    after = read_set_queries(folder)
    assert judged == 1
    assert {q: e for q, e in after.items() if e["split"] == "dev"} == {
        q: e for q, e in before.items() if e["split"] == "dev"
    }  # metadata (kind, terms...) included
    assert [q for q, e in after.items() if e["split"] == "test"] == ["new1"]
    assert read_all_grades(folder, set(after)) == {"dev": dev_grades, "test": {"new1": {"c1": 2}}}
    assert read_spec(folder) == read_spec(SKILLS)  # its corpus, arguments and metrics stay


def test_an_import_drops_the_rankings_the_judge_tab_saw_for_that_split(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    query = JudgedQuery(id="q1", text="bearer token")
    write_split(folder, "search_docs", "test", [query], {"q1": {"a": 1}}, "section", {"q1": ["a", "b"]})
    write_split(folder, "search_docs", "dev", [JudgedQuery(id="q2", text="x")], {"q2": {"b": 0}}, None, {"q2": ["b"]})
    assert set(read_judging(folder)) == {"test", "dev"}
    write_split(folder, "search_docs", "test", [query], {"q1": {"a": 3}})
    assert set(read_judging(folder)) == {"dev"} and read_spec(folder).level == "section"
    assert json.loads((folder / JUDGING_FILE).read_text())["dev"]["q2"]["ranking"] == ["b"]


def test_a_query_id_of_another_split_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    write_split(folder, "search_docs", "dev", [JudgedQuery(id="q1", text="x")], {"q1": {"a": 1}})
    with pytest.raises(InvalidRequestError, match=r"query ids \['q1'\] belong to another split of 'set'"):
        write_split(folder, "search_docs", "test", [JudgedQuery(id="q1", text="y")], {"q1": {"a": 1}})
    assert not (folder / JUDGING_FILE).exists()  # no tab ever saved here: an import writes no rankings


def test_a_save_keeps_pools_and_raters_per_query_and_what_it_did_not_send(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    queries = [JudgedQuery(id="q1", text="bearer token"), JudgedQuery(id="q2", text="filters")]

    def save(grades: dict[str, dict[str, int]], pooled: Any, raters: Any) -> dict[str, Any]:
        """A save from the Judge tab, q1's ranking seen; what judging.json then holds of the split."""
        write_split(folder, "search_docs", "test", queries, grades, "section", {"q1": ["a"]}, pooled, raters)
        return dict(read_judging(folder)["test"])

    pooled = {"q1": {"a": ["served", "dense only"], "b": ["BM25 only"]}}
    raters = {"q1": {"a": {"ann": 3}}, "q2": {"c": {"ann": 0}}}
    saved = save({"q1": {"a": 3}, "q2": {"c": 0}}, pooled, raters)
    assert saved["q1"]["pooled"] == pooled["q1"] and saved["q1"]["raters"] == raters["q1"]
    assert saved["q2"] == {"raters": raters["q2"]}  # no ranking seen, but who graded what is kept
    at = saved["q1"]["at"]

    # A later save sending the raters alone: q1's ranking (and its time) and pools stay, its raters are replaced.
    saved = save({"q1": {"a": 2}}, None, {"q1": {"a": {"ann": 3, "bob": 2}}})
    assert saved["q1"] == {"ranking": ["a"], "at": at, "pooled": pooled["q1"], "raters": {"a": {"ann": 3, "bob": 2}}}

    # The tab sends every query's whole state: q2's raters all cleared are cleared, and no empty entry is written.
    saved = save({"q1": {"a": 2}}, {"q1": pooled["q1"], "q2": {}}, {"q1": {"a": {"ann": 3}}, "q2": {}})
    assert set(saved) == {"q1"} and saved["q1"]["raters"] == {"a": {"ann": 3}}


def test_judgments_added_keep_the_rest_of_the_set(tmp_path: Path) -> None:
    folder = tmp_path / "set"
    queries = [JudgedQuery(id="q1", text="bearer token"), JudgedQuery(id="q2", text="filters")]
    write_split(folder, "search_docs", "test", queries, {"q1": {"a": 3}}, "section", {"q1": ["a", "b"]})
    write_split(folder, "search_docs", "dev", [JudgedQuery(id="d1", text="x")], {"d1": {"z": 1}})
    add_judgments(folder, "test", pooled={"q1": {"a": ["served"], "b": ["dense only"]}})
    add_judgments(folder, "test", pooled={"q1": {"a": ["BM25 only"]}})
    judged = add_judgments(folder, "test", {"q1": {"b": 0, "a": 2}, "q2": {"c": 1}}, rater="ann")
    assert judged == 3
    assert read_all_grades(folder, {"q1", "q2", "d1"}) == {
        "dev": {"d1": {"z": 1}},
        "test": {"q1": {"a": 2, "b": 0}, "q2": {"c": 1}},
    }
    kept = read_judging(folder)["test"]
    assert kept["q1"]["ranking"] == ["a", "b"]
    assert kept["q1"]["pooled"] == {"a": ["served", "BM25 only"], "b": ["dense only"]}
    assert kept["q1"]["raters"] == {"b": {"ann": 0}, "a": {"ann": 2}} and kept["q2"]["raters"] == {"c": {"ann": 1}}
