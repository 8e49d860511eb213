"""Skill vocabulary, experience extraction and short phrases of a CV."""

import datetime as dt
import json
import re
from pathlib import Path

import pytest

from haygate.errors import ConfigurationError
from haygate.text.cv_profile import (
    SkillVocabulary,
    cv_profile,
    experience_level,
    explicit_years,
    merged_years,
    phrases,
    work_periods,
)

PROJECT = Path(__file__).resolve().parents[3]
RESUMES = PROJECT.parent / "shared" / "data" / "resumes" / "resumes.jsonl"
AS_OF = dt.date(2026, 11, 1)


@pytest.fixture(scope="module")
def vocabulary() -> SkillVocabulary:
    return SkillVocabulary.load(PROJECT / "configs" / "skills.yaml")


def test_aliases_and_word_boundaries(vocabulary: SkillVocabulary) -> None:
    text = "Skills: K8s, Amazon Web Services, ML, JS and Node.js; JavaScript; C++; go-to-market; Machine-Learning"
    found = vocabulary.find(text)
    assert found["Kubernetes"] == {"k8s"}
    assert found["AWS"] == {"amazon web services"}
    assert found["Machine Learning"] == {"ml", "machine learning"}
    assert found["JavaScript"] == {"js", "javascript"}  # "JS" alone, not the "js" of "Node.js"
    assert "Java" not in found and "Go" not in found  # not inside "JavaScript", not the lowercase verb
    assert vocabulary.canonical("k8S") == "Kubernetes" and vocabulary.canonical("Rust") is None


def test_an_alias_under_two_skills_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="'ml' is listed under both"):
        SkillVocabulary.from_mapping({"Machine Learning": ["ml"], "Meta Language": ["ml"]})
    with pytest.raises(ConfigurationError, match="must map to a list of aliases"):
        SkillVocabulary.from_mapping({"Python": "py"})


def test_meaning_is_part_of_what_semantic_matching_embeds(vocabulary: SkillVocabulary) -> None:
    assert vocabulary.semantic_text("K8s") == "Kubernetes (container orchestration)"
    assert vocabulary.semantic_text("Rust") == "Rust"


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("Data engineer with 6.8 years of experience in ETL", 6.8),
        ("Total experience: 4 years", 4.0),
        ("over 22 years of rich national & international experience", 22.0),
        ("5 Years 11 Months of total experience", 5 + 11 / 12),
        ("6+ Exp in banking operations", 6.0),
        ("3 yrs of IT experience and 2 years of Java experience", 3.0),
        ("Java (Less than 1 year), Python (3 years)", None),  # skill durations are not total experience
    ],
)
def test_explicit_years(text: str, years: float | None) -> None:
    assert explicit_years(text) == (pytest.approx(years, abs=0.01) if years is not None else None)


def test_work_history_merges_overlaps_and_ignores_education() -> None:
    text = (
        "WORK EXPERIENCE\nEngineer, Acme\nMarch 2015 to June 2019\nFreelance\nJan 2018 - Dec 2019\n"
        "Lead, Beta\n2021 - Present\nEDUCATION\nB.Tech\n2010 - 2014\n"
    )
    periods = work_periods(text, AS_OF)
    assert len(periods) == 3  # the degree is not work
    # Mar 2015..Dec 2019 (58 months, overlap counted once) + Jan 2021..Nov 2026 (71 months)
    assert merged_years(periods) == pytest.approx((58 + 71) / 12, abs=0.01)


@pytest.mark.parametrize(
    ("years", "level"), [(None, "unknown"), (0.5, "junior"), (2.99, "junior"), (3, "mid"), (7, "mid"), (7.1, "senior")]
)
def test_levels(years: float | None, level: str) -> None:
    assert experience_level(years) == level


def test_a_stated_total_wins_and_unknown_is_never_guessed(vocabulary: SkillVocabulary) -> None:
    stated = cv_profile("8 years of experience.\nWORK EXPERIENCE\nJan 2024 - Present", vocabulary, AS_OF)
    assert (stated.years_of_experience, stated.experience_source, stated.experience_level) == (8.0, "stated", "senior")
    unknown = cv_profile("Student portfolio. Skills: Python, Docker", vocabulary, AS_OF)
    assert (unknown.years_of_experience, unknown.experience_level) == (None, "unknown")
    assert unknown.as_meta()["document_type"] == "CV" and unknown.skills == ["Docker", "Python"]


def test_phrases_are_short() -> None:
    found = phrases("Skills: K8s, Helm\nDesigned container orchestration for 40 microservices with Helm charts")
    assert "K8s" in found and "container orchestration" in " | ".join(found)
    assert max(len(p.split()) for p in found) <= 6


@pytest.mark.skipif(not RESUMES.exists(), reason="../shared/data/resumes is not on this machine")
def test_stated_experience_agrees_with_annotations_on_real_cvs() -> None:
    """Spot-check against the human-annotated `years_of_experience` spans where a CV has one."""

    def annotated(span: str) -> float | None:
        years = re.search(r"(\d+(?:\.\d+)?)\s*\+?\s*-?\s*(?:years?|yrs?|yr)", span, re.I)
        months = re.search(r"(\d+)\s*months?", span, re.I)
        if years:
            return float(years.group(1)) + (int(months.group(1)) / 12 if months else 0)
        return int(months.group(1)) / 12 if months else None

    checked = agreed = 0
    for line in RESUMES.read_text().splitlines():
        record = json.loads(line)
        values = [v for v in map(annotated, record["years_of_experience"]) if v is not None]
        if not values:
            continue
        checked += 1
        found = explicit_years(record["text"])
        agreed += found is not None and any(abs(found - v) <= 0.1 for v in values)
    assert checked >= 20
    assert agreed / checked >= 0.8, f"{agreed}/{checked}"
