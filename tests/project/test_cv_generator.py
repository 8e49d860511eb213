"""`scripts/workload/cv_generator.py` recombines the real CVs into synthetic ones that read like them to the ingest: one
dated career per CV, skills in the real lists' wording, real lengths, no real candidate's name, and fast enough to
grow the collection to 10,000 CVs."""

import calendar
import importlib.util
import itertools
import json
import re
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.project import PROJECT, SHARED_DATA

RESUMES = SHARED_DATA / "resumes" / "resumes.jsonl"
pytestmark = pytest.mark.shared_data  # the real CVs, RESUMES
GENERATED = 2000
SEED = 7

# Read independently of the script: Indeed's top-level headings (a heading's first occurrence opens its section)
# and its date line, a bare start year reading as January and a bare end year as December, as the ingest does.
HEADINGS = {
    "WORK EXPERIENCE",
    "EDUCATION",
    "SKILLS",
    "LINKS",
    "AWARDS",
    "CERTIFICATIONS/LICENSES",
    "PUBLICATIONS",
    "GROUPS",
    "PATENTS",
    "MILITARY SERVICE",
    "ADDITIONAL INFORMATION",
}
MONTHS = tuple(calendar.month_name[1:])  # "January" .. "December", as Indeed writes them
DATE_LINE = re.compile(
    rf"^(?:(?P<sm>{'|'.join(MONTHS)}) )?(?P<sy>\d{{4}}) to "
    rf"(?:(?P<present>Present)|(?:(?P<em>{'|'.join(MONTHS)}) )?(?P<ey>\d{{4}}))$"
)


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cv_generator", PROJECT / "scripts" / "workload" / "cv_generator.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


cv_generator = _load_script()


def sections(text: str) -> list[tuple[str, list[str]]]:
    """(heading, lines) of each top-level section, in order."""
    found: list[tuple[str, list[str]]] = [("", [])]
    for line in text.split("\n"):
        if line.strip() in HEADINGS and line.strip() not in {heading for heading, _ in found}:
            found.append((line.strip(), []))
        else:
            found[-1][1].append(line)
    return found


def list_items(lines: list[str]) -> list[str]:
    """The comma-separated items of a SKILLS section, paragraph by paragraph, whitespace collapsed."""
    paragraphs = "\n".join(line for line in lines if line.strip() != "[profile link removed]").split("\n\n")
    return [" ".join(piece.split()) for paragraph in paragraphs for piece in paragraph.split(",") if piece.strip()]


def months(match: re.Match[str]) -> tuple[int, float]:
    """A date line's first and last month (the last is infinite for "Present")."""
    start = int(match["sy"]) * 12 + (MONTHS.index(match["sm"]) if match["sm"] else 0)
    if match["present"]:
        return start, float("inf")
    return start, int(match["ey"]) * 12 + (MONTHS.index(match["em"]) if match["em"] else 11)


@pytest.fixture(scope="module")
def real() -> list[dict[str, str]]:
    return [json.loads(line) for line in RESUMES.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def parsed() -> list:
    return cv_generator.load_cvs(RESUMES)


@pytest.fixture(scope="module")
def generated(parsed: list) -> tuple[list[dict[str, str]], float]:
    """The generated CVs and the seconds they took."""
    started = time.perf_counter()
    cvs = cv_generator.generate(parsed, GENERATED, SEED)
    return cvs, time.perf_counter() - started


def test_the_seed_and_the_number_alone_decide_a_cv(parsed: list, generated: tuple) -> None:
    cvs, _ = generated
    assert cv_generator.generate(parsed, 100, SEED) == cvs[:100]  # also: a smaller run is a prefix of a larger one
    other = cv_generator.generate(parsed, 100, SEED + 1)
    assert sum(a["text"] != b["text"] for a, b in zip(other, cvs, strict=False)) >= 95


def test_ids_and_names_are_the_generated_ones_and_unique(generated: tuple) -> None:
    cvs, _ = generated
    assert [cv["id"] for cv in cvs] == [f"gen-{n}" for n in range(GENERATED)]
    assert [cv["name"] for cv in cvs] == [f"Candidate G{n}" for n in range(GENERATED)]
    assert all(set(cv) == {"id", "name", "text"} and cv["text"].split("\n")[0] == cv["name"] for cv in cvs)
    assert len({cv["text"] for cv in cvs}) == GENERATED


def test_no_real_candidate_name_appears(generated: tuple) -> None:
    cvs, _ = generated
    assert [cv["id"] for cv in cvs if "Candidate #" in cv["text"]] == []


def test_each_cv_has_one_dated_career_running_forward(generated: tuple) -> None:
    cvs, _ = generated
    for cv in cvs:
        work = dict(sections(cv["text"])).get("WORK EXPERIENCE")
        assert work is not None, cv["id"]
        dates = [match for line in work if (match := DATE_LINE.match(line.strip()))]
        assert dates, cv["id"]
        newest = dates[0]
        assert newest["present"] or newest["em"], (cv["id"], newest[0])  # ends at "Present" or a month-year
        spans = [months(match) for match in dates]  # newest first, as Indeed lists them
        assert all(start <= end for start, end in spans), (cv["id"], [m[0] for m in dates])
        assert all(older[1] < newer[0] for newer, older in itertools.pairwise(spans)), cv["id"]
        assert all(2000 <= int(year) <= 2025 for m in dates for year in (m["sy"], m["ey"]) if year), cv["id"]


def test_skills_are_items_of_real_skills_lists(real: list[dict[str, str]], generated: tuple) -> None:
    real_skills = [lines for cv in real for heading, lines in sections(cv["text"]) if heading == "SKILLS"]
    real_items = {item for lines in real_skills for item in list_items(lines)}
    cvs, _ = generated
    with_skills = 0
    for cv in cvs:
        found = sections(cv["text"])
        order = [heading for heading, _ in found] + ["ADDITIONAL INFORMATION"]
        if "SKILLS" not in order or order.index("SKILLS") > order.index("ADDITIONAL INFORMATION"):
            continue  # no SKILLS section (a "SKILLS" line within ADDITIONAL INFORMATION is the candidate's text)
        items = list_items(dict(found)["SKILLS"])
        assert items and set(items) <= real_items, (cv["id"], set(items) - real_items)
        with_skills += 1
    assert with_skills > GENERATED / 2


def test_lengths_follow_the_real_ones(real: list[dict[str, str]], generated: tuple) -> None:
    cvs, _ = generated
    real_median = statistics.median(len(cv["text"].split()) for cv in real)
    median = statistics.median(len(cv["text"].split()) for cv in cvs)
    assert abs(median - real_median) <= 0.25 * real_median, (median, real_median)


def test_generating_is_fast(generated: tuple) -> None:
    _, seconds = generated
    assert seconds < 3.0, f"{GENERATED} CVs took {seconds:.2f} s"


def test_a_cv_missing_sections_still_parses() -> None:
    header = "Candidate #1\nDeveloper - Acme\n\nPune, Maharashtra - Email me on Indeed: [profile link removed]\n\n"
    dated = cv_generator.parse_cv(
        {"id": "cv-x", "text": header + "WORK EXPERIENCE\n\nDeveloper\n\nAcme -\n\nJune 2015 to March 2017\n\nBuilt."}
    )
    assert [(e.title, e.company, e.dates, e.description) for e in dated.work] == [
        ("Developer", "Acme -", "June 2015 to March 2017", ("Built.",))
    ]
    assert dated.location.startswith("Pune") and dated.designation == "Developer - Acme"
    assert dated.education is None and dated.skills is None and dated.additional is None
    bare = cv_generator.parse_cv({"id": "cv-y", "text": header + "Looking for work."})
    assert bare.work == [] and bare.objective == "Looking for work."


def test_a_missing_source_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "none.jsonl"
    assert cv_generator.main(["--count", "1", "--out", str(tmp_path / "out.jsonl"), "--source", str(missing)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
