"""The judged sets under evaluation/ are data; each set's check.py says whether that data still holds.

Every committed set passes its check, run in-process as a function. The two sets whose corpus is shared data
(../shared/data) are checked twice: without it, as on a machine that lacks it (the check says what it skipped),
and with it, whole (`shared_data`: skipped, with the reason, where the data is absent), which recomputes their
rule-made qrels (difflib over 9,144 doc sections; `names_skill` over 220 CVs and 62 skills): seconds, so
`slow`. A broken copy of a set is reported, naming what is wrong.
"""

import importlib
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from evaluation import judged_sets
from evaluation.judged_sets import EVALUATION, PROJECT


def check_module(name: str) -> ModuleType:
    """A set's check, imported as the package module it is (`evaluation.<name>.check`)."""
    return importlib.import_module(f"evaluation.{name}.check")


def corpus_of(folder: str) -> Path:
    """The corpus a set's eval.yaml names: inside the project, or shared data beside it."""
    return (EVALUATION / folder / str(judged_sets.load(EVALUATION / folder).spec["corpus"])).resolve()


CHECKS = sorted(path.parent.name for path in EVALUATION.glob("*/check.py"))
CASES = [(name, folder) for name in CHECKS for folder in check_module(name).SETS]
SHARED = [folder for _, folder in CASES if not corpus_of(folder).is_relative_to(PROJECT)]
ON_SHARED_DATA = [pytest.mark.slow, pytest.mark.shared_data]


def test_every_judged_set_has_one_check() -> None:
    """A set without a check would go unchecked here; one with two would be checked against two rules."""
    folders = sorted(path.parent.name for path in EVALUATION.glob("*/eval.yaml"))
    assert sorted(folder for _, folder in CASES) == folders


@pytest.mark.parametrize(
    ("name", "folder"),
    [pytest.param(*case, id=case[1], marks=ON_SHARED_DATA if case[1] in SHARED else ()) for case in CASES],
)
def test_committed_set_passes_its_check(name: str, folder: str) -> None:
    """The committed data is consistent, and all of it is checked: a set on shared data runs only where that
    data is (its marker skips it elsewhere, with the reason), so nothing of its check is skipped."""
    report = check_module(name).check(EVALUATION / folder)
    assert report.problems == []
    assert report.skipped == []


@pytest.mark.parametrize(("name", "folder"), [case for case in CASES if case[1] in SHARED], ids=SHARED)
def test_set_on_shared_data_is_checked_without_it(name: str, folder: str, tmp_path: Path) -> None:
    """Where ../shared/data is absent, the rest of the check still runs, passes, and says what it skipped."""
    absent = tmp_path / "shared" / "data" / "corpus.jsonl"
    report = check_module(name).check(EVALUATION / folder, absent)
    assert report.problems == []
    assert len(report.skipped) == 1 and str(absent) in report.skipped[0]


def test_unknown_judged_id_is_reported(tmp_path: Path) -> None:
    """A qrels line for a record the corpus lacks is named, so a typo in hand-edited data cannot pass."""
    copy = shutil.copytree(EVALUATION / "search", tmp_path / "search")
    with (copy / "qrels" / "test.tsv").open("a") as qrels:
        qrels.write("s1\tbug:9999\t1\n")
    report = check_module("search").check(copy, PROJECT / "samples" / "entities" / "entities.jsonl")
    assert "s1: judged bug:9999 is not in the corpus" in report.problems
