"""`write_split`: one split of a judged set written (a save from the Judge tab, `haygate judged import`), the rest
of the set kept as it was."""

import json
import shutil
from pathlib import Path

import pytest

from haygate.errors import InvalidRequestError
from haygate.gateway.judged_sets import (
    JUDGING_FILE,
    JudgedQuery,
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
