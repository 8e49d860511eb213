"""The Judge tab's files: a set saved (`haygate.gateway.judged_sets.save_set`, the `save_judged_set` operation's
work), read back (`haygate.console.judging`), and refused where it would not read back as it was saved."""

from pathlib import Path

import pytest

from haygate.console import judging
from haygate.errors import InvalidRequestError
from haygate.gateway.judged_sets import save_set

SERVED = {"search_docs"}


def body(split: str = "test", **changes: object) -> dict:  # type: ignore[type-arg]
    base = {
        "tool": "search_docs",
        "level": "record",
        "split": split,
        "queries": [
            {"id": "q1", "text": "install it"},
            {"id": "q2", "text": "bearer token", "arguments": {"version": "1.1"}},
        ],
        "grades": {"q1": {"file:install.md": 3, "file:faq.md": 0}},
        "seen": {"q1": ["file:install.md", "file:faq.md"]},
    }
    return {**base, **changes}


def test_a_saved_split_reads_back_with_its_zero_grades_and_rankings(tmp_path: Path) -> None:
    saved = save_set(tmp_path, "handbook", body(), SERVED)
    assert saved == {
        "name": "handbook",
        "folder": f"{tmp_path.name}/handbook",
        "split": "test",
        "queries": 2,
        "judged": 2,
        "agreement": [],
    }
    read = judging.read_set(tmp_path, "handbook", "test")
    assert read["grades"] == {"q1": {"file:install.md": 3, "file:faq.md": 0}} and read["level"] == "record"
    assert read["queries"][1] == {"id": "q2", "text": "bearer token", "arguments": {"version": "1.1"}}
    assert read["seen"] == {"q1": ["file:install.md", "file:faq.md"]}
    assert read["pooled"] == read["raters"] == {} and read["agreement"] == []
    assert "corpus" not in (tmp_path / "handbook" / "eval.yaml").read_text()  # judged on the collection as served
    [listed] = judging.list_sets(tmp_path)
    assert listed["name"] == "handbook" and listed["splits"] == ["test"]


def test_another_split_keeps_the_first_and_may_not_reuse_its_query_ids(tmp_path: Path) -> None:
    save_set(tmp_path, "handbook", body(), SERVED)
    dev = body("dev", queries=[{"id": "d1", "text": "uninstall"}], grades={"d1": {"file:remove.md": 2}}, seen={})
    save_set(tmp_path, "handbook", dev, SERVED)
    assert judging.read_set(tmp_path, "handbook", "test")["grades"]["q1"]["file:install.md"] == 3
    assert judging.read_set(tmp_path, "handbook", "dev")["grades"] == {"d1": {"file:remove.md": 2}}
    with pytest.raises(InvalidRequestError, match=r"query ids \['q1', 'q2'\] belong to another split"):
        save_set(tmp_path, "handbook", body("dev", grades={}, seen={}), SERVED)


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"grades": {"q1": {"a\tb": 1}}}, "no tab, line break"),
        ({"grades": {"q1": {" padded": 1}}}, "surrounding space"),
        ({"grades": {"q1": {"file:x.md": 4}}}, "a grade is 0, 1, 2 or 3"),
        ({"grades": {"q9": {"file:x.md": 1}}}, "grades for 'q9', which is no query"),
        ({"seen": {"q9": []}}, r"'seen' names \['q9'\]"),
        ({"pooled": {"q9": {"a": ["served"]}}}, r"'pooled' names \['q9'\]"),
        ({"pooled": {"q1": {" a": ["served"]}}}, "pooled ids"),
        ({"raters": {"q1": {"a": {"ann": 4}}}}, "a rater's grade is 0, 1, 2 or 3"),
        ({"raters": {"q1": {"a": {"two\nlines": 1}}}}, "raters"),
        ({"tool": "nowhere"}, "tool 'nowhere' is not served here"),
        ({"queries": [{"id": "q1", "text": "a"}, {"id": "q1", "text": "b"}]}, "two queries have one id"),
        ({"level": "chunk"}, "level"),
    ],
)
def test_what_would_not_read_back_is_refused(tmp_path: Path, changes: dict, problem: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidRequestError, match=problem):
        save_set(tmp_path, "handbook", body(**changes), SERVED)
    assert not (tmp_path / "handbook" / "qrels").exists()


def test_a_set_name_stays_inside_the_folder(tmp_path: Path) -> None:
    for name in ("../out", "Upper", "a/b", ""):
        with pytest.raises(InvalidRequestError, match="a judged set's name"):
            save_set(tmp_path, name, body(), SERVED)
