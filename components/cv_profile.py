"""Skill vocabulary and CV profiles: normalised skills, years of experience and experience level.

The vocabulary (`configs/skills.yaml`) maps canonical skills to aliases. A CV profile is derived once at
ingest, deterministically, so a search filters and explains on stored facts instead of re-reading text.
"""

import datetime as dt
import functools
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from haygate.api import ConfigurationError, load_yaml

ExperienceLevel = Literal["junior", "mid", "senior", "unknown"]
MatchMethod = Literal["exact", "alias", "semantic"]
CV = "CV"  # the document_type of a CV's chunks
PHRASE = "phrase"  # the document_type of a CV's short phrases, each embedded (written beside its chunks)
PROFILE = "profile"  # the document_type of a CV's profile alone: its meta without its text, one point a CV
# What a CV's years rest on: its own stated total; work-history ranges that all have an end ("cv_dates"); ranges
# "to Present" measured to the record's `as_of`; or, without `as_of`, measured only as far as the CV's latest
# date, so the years are a lower bound ("open_ended").
HistoryBasis = Literal["cv_dates", "as_of", "open_ended"]
ExperienceBasis = Literal["stated", HistoryBasis, "none"]

# A CV phrase is a short run of words between separators: list items, clauses, sentence parts.
_PHRASE_BREAK = re.compile(r"[\n\r•●▪◦·|;,:.()\[\]]+|\s+-\s+|\s(?:and|with|using|for|in|on|via|including)\s", re.I)
PHRASE_WORDS = 6

# Characters that continue a skill token: "C" must not match inside "C++", nor "Java" inside "JavaScript".
_TOKEN = r"[\w+#]"


@dataclass(frozen=True)
class SkillVocabulary:
    """Canonical skills and their aliases; every surface form maps to exactly one canonical skill."""

    canonical_by_form: dict[str, str]
    meaning: dict[str, str]
    fingerprint: str
    _pattern: re.Pattern[str] = field(repr=False, compare=False)
    _short_pattern: re.Pattern[str] | None = field(repr=False, compare=False)

    @classmethod
    def from_mapping(cls, mapping: dict[str, Any], source: str = "skills") -> "SkillVocabulary":
        """`Skill: [aliases]`, or `Skill: {aliases: [...], means: "what it is"}` to help semantic matching."""
        canonical_by_form: dict[str, str] = {}
        meaning: dict[str, str] = {}
        written: list[str] = []
        for canonical, entry in mapping.items():
            aliases, means = _entry(canonical, entry, source)
            if means:
                meaning[canonical] = means
            for form in [canonical, *aliases]:
                written.append(form)
                key = normalise(form)
                if key in canonical_by_form and canonical_by_form[key] != canonical:
                    msg = f"{source}: '{form}' is listed under both '{canonical_by_form[key]}' and '{canonical}'"
                    raise ConfigurationError(msg)
                canonical_by_form[key] = canonical
        # Longest forms first, so "machine learning" wins over "learning". Forms of one or two characters
        # ("R", "Go", "ML") match only as written or in capitals, else every "go" in a CV is the language.
        long_forms = sorted((f for f in canonical_by_form if len(f) > 2), key=len, reverse=True)
        short_forms = sorted({v for f in written if len(f) <= 2 for v in (f, f.upper())}, key=len, reverse=True)
        digest = hashlib.sha256(json.dumps([canonical_by_form, meaning], sort_keys=True).encode()).hexdigest()
        return cls(
            canonical_by_form=canonical_by_form,
            meaning=meaning,
            fingerprint=digest[:12],
            _pattern=_alternation(long_forms, re.IGNORECASE),
            _short_pattern=_alternation(short_forms, 0) if short_forms else None,
        )

    @classmethod
    def load(cls, path: Path) -> "SkillVocabulary":
        """The vocabulary in `path`, read once per version of the file: a hot reload sees an edit."""
        resolved = path.resolve()
        try:
            version = resolved.stat().st_mtime_ns
        except OSError:
            version = 0  # reading it fails next, with the error a user reads
        return _load_vocabulary(resolved, version)

    @property
    def skills(self) -> list[str]:
        """The canonical skills, sorted."""
        return sorted(set(self.canonical_by_form.values()))

    def canonical(self, name: str) -> str | None:
        """The canonical skill a name or alias stands for, or None."""
        return self.canonical_by_form.get(normalise(name))

    def semantic_text(self, skill: str) -> str:
        """What gets embedded for a skill: its name, plus what it means when the vocabulary says so."""
        canonical = self.canonical(skill) or skill
        means = self.meaning.get(canonical)
        return f"{canonical} ({means})" if means else canonical

    def find(self, text: str) -> dict[str, set[str]]:
        """Canonical skill -> the surface forms (normalised) that mention it in `text`."""
        found: dict[str, set[str]] = {}
        patterns = [self._pattern, *([self._short_pattern] if self._short_pattern else [])]
        for pattern in patterns:
            for match in pattern.finditer(text):
                form = normalise(match.group(0))
                canonical = self.canonical_by_form.get(form)
                if canonical:
                    found.setdefault(canonical, set()).add(form)
        return found


def _entry(canonical: Any, entry: Any, source: str) -> tuple[list[str], str | None]:
    if isinstance(entry, dict) and set(entry) <= {"aliases", "means"}:
        aliases, means = entry.get("aliases") or [], entry.get("means")
    elif isinstance(entry, list | type(None)):
        aliases, means = entry or [], None
    else:
        aliases, means = None, None
    if not isinstance(canonical, str) or not isinstance(aliases, list) or not isinstance(means, str | type(None)):
        msg = f"{source}: '{canonical}' must map to a list of aliases or to {{aliases: [...], means: text}}"
        raise ConfigurationError(msg)
    return [str(a) for a in aliases], means


def normalise(text: str) -> str:
    """Lower case, single spaces, hyphens and underscores as spaces: "Machine-Learning" == "machine learning"."""
    return re.sub(r"[\s_\-]+", " ", text.strip().lower())


def _alternation(forms: Iterable[str], flags: int) -> re.Pattern[str]:
    parts = [r"[\s_\-]+".join(re.escape(word) for word in form.split(" ")) for form in forms]
    # Nor after a dot: the "js" of "Node.js" is not JavaScript.
    return re.compile(rf"(?<![\w+#.])(?:{'|'.join(parts)})(?!{_TOKEN})", flags)


@functools.lru_cache(maxsize=8)
def _load_vocabulary(path: Path, version: int) -> SkillVocabulary:
    try:
        raw = load_yaml(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ConfigurationError(f"{path}: cannot read the skill vocabulary: {error}") from error
    if not isinstance(raw, dict):
        raise ConfigurationError(f"{path}: expected a mapping of canonical skill -> list of aliases")
    return SkillVocabulary.from_mapping(raw, source=str(path))


# -- experience ------------------------------------------------------------------------------------

_MONTHS = {
    name: number
    for number, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"  # noqa: E501
_OPEN_END = r"present|current(?:ly)?|now|today|till\s+date|to\s+date|date|ongoing"


def _date(prefix: str) -> str:
    """The pattern of a date as a CV writes it ("March 2015", "Mar. 2015", "03/2015" or "2015").

    Its groups are named under `prefix`, so a range's two dates can share one pattern.
    """
    return rf"(?:(?P<{prefix}m>{_MONTH})\s+|(?P<{prefix}n>\d{{1,2}})/)?(?P<{prefix}y>(?:19|20)\d\d)"


_RANGE = re.compile(
    _date("s") + rf"\s*(?:to|-|\u2013|\u2014|until|till)\s*(?:(?P<open>{_OPEN_END})\b|{_date('e')})",
    re.IGNORECASE,
)
_UNIT_YEARS = r"(?:years?|yrs?|yr)\.?"
_UNIT_MONTHS = r"(?:months?|mos?|mnths?)\.?"
_AMOUNT = (
    rf"(?P<years>\d{{1,2}}(?:\.\d{{1,2}})?)\s*\+?\s*(?:-\s*)?{_UNIT_YEARS}(?:\s*(?:and\s*)?(?P<months>\d{{1,2}})\s*{_UNIT_MONTHS})?"
    rf"|(?P<bare_years>\d{{1,2}})\+(?=\s*(?:exp|experience)\b)"  # "6+ Exp in banking"
    rf"|(?P<only_months>\d{{1,2}})\s*\+?\s*{_UNIT_MONTHS}"
)
_EXPLICIT = [
    # "6.8 years of experience", "3 yrs of IT experience", "5 Years 11 Months of total experience"
    re.compile(rf"(?:{_AMOUNT})\s+(?:of\s+)?(?:[a-z/&.\-]+\s+){{0,4}}(?:experience|exp)\b", re.IGNORECASE),
    # "Total experience: 4 years", "experience of 7+ years", "Experience - 2.5 yrs"
    re.compile(
        rf"\b(?:experience|exp)\b\s*(?:of|:|-|\u2013)?\s*(?:around\s+|about\s+|over\s+)?(?:{_AMOUNT})", re.IGNORECASE
    ),
]
_EDUCATION_HEADING = re.compile(r"^\s*(education|academic|qualification|certification|training)", re.IGNORECASE)
_ANY_HEADING = re.compile(r"^\s*[A-Z][A-Z &/]{3,40}\s*:?\s*$")


def explicit_years(text: str) -> float | None:
    """The largest stated total ("7+ years of experience"), or None when the CV states none."""
    values = []
    for pattern in _EXPLICIT:
        for match in pattern.finditer(text):
            if match.group("bare_years"):
                values.append(float(match.group("bare_years")))
            elif match.group("only_months"):
                values.append(int(match.group("only_months")) / 12)
            else:
                years = float(match.group("years"))
                values.append(years + (int(match.group("months") or 0) / 12))
    plausible = [v for v in values if 0 < v <= 60]
    return round(max(plausible), 2) if plausible else None


@dataclass(frozen=True)
class WorkHistory:
    """Work periods as (start, end) month indexes, and what their "to Present" ranges were measured to."""

    periods: list[tuple[int, int]]
    basis: HistoryBasis


def work_history(text: str, as_of: dt.date | None) -> WorkHistory:
    """Date ranges outside education sections; an open range ("to Present") ends at `as_of` when known.

    Without `as_of`, nothing in a CV reliably says when it was written: CVs rarely date themselves, and the
    latest date elsewhere in the text can lie ahead of it (a degree's expected end, a visa's or passport's
    expiry, a certificate's validity). So an open range ends at the latest date the work history itself
    states, often its own start: the years are a lower bound and the basis is `open_ended`. Today is never
    the end of a range (a CV is read years after it was written); it only rejects ranges that end later.
    """
    ranges = list(work_ranges(text))
    latest_possible = _month_of(as_of or dt.date.today()) + 1  # a month's slack, for a CV dated at a month's end
    if as_of is not None:
        open_end: int | None = _month_of(as_of)
    else:
        stated = [month for start, end in ranges for month in (start, end) if month is not None]
        open_end = max((month for month in stated if month <= latest_possible), default=None)
    periods, measured_open = [], False
    for start, end in ranges:
        measured_end = open_end if end is None else end
        if measured_end is not None and start <= measured_end <= latest_possible:
            periods.append((start, measured_end))
            measured_open = measured_open or end is None
    basis: HistoryBasis = "cv_dates" if not measured_open else "as_of" if as_of is not None else "open_ended"
    return WorkHistory(periods, basis)


def work_ranges(text: str) -> Iterator[tuple[int, int | None]]:
    """(start, end) month indexes of the date ranges outside education sections; end None when open."""
    in_education = False
    for line in text.splitlines():
        if _ANY_HEADING.match(line):
            in_education = bool(_EDUCATION_HEADING.match(line))
        if in_education:
            continue
        for match in _RANGE.finditer(line):
            start = _month_index(match, "s", first=True)
            end = None if match.group("open") else _month_index(match, "e", first=False)
            if start is not None:
                yield start, end


def _month_of(day: dt.date) -> int:
    return day.year * 12 + day.month - 1


def _month_index(match: re.Match[str], prefix: str, first: bool) -> int | None:
    year = match.group(f"{prefix}y")
    if year is None:
        return None
    month_name, month_number = match.group(f"{prefix}m"), match.group(f"{prefix}n")
    if month_name:
        month = _MONTHS[month_name.lower().rstrip(".")[:3] if month_name.lower()[:4] != "sept" else "sep"]
    elif month_number and 1 <= int(month_number) <= 12:
        month = int(month_number)
    else:
        month = 1 if first else 12  # a bare year covers the whole year
    return int(year) * 12 + month - 1


def merged_years(periods: list[tuple[int, int]]) -> float | None:
    """Total years covered by the periods, overlapping ones counted once."""
    if not periods:
        return None
    total, current_start, current_end = 0, *sorted(periods)[0]
    for start, end in sorted(periods)[1:]:
        if start <= current_end + 1:
            current_end = max(current_end, end)
        else:
            total += current_end - current_start + 1
            current_start, current_end = start, end
    total += current_end - current_start + 1
    return round(total / 12, 2)


def experience_level(years: float | None) -> ExperienceLevel:
    """The level for a number of years: junior under 3, senior over 7, unknown without years."""
    if years is None:
        return "unknown"
    if years < 3:
        return "junior"
    return "mid" if years <= 7 else "senior"


@dataclass(frozen=True)
class CvProfile:
    """What a CV says about its writer: skills, years of experience and what they rest on."""

    vocabulary: str
    skills: list[str]
    skill_forms: list[str]
    years_of_experience: float | None
    experience_source: Literal["stated", "work_history", "none"]
    experience_basis: ExperienceBasis
    experience_level: ExperienceLevel

    @property
    def experience_open_ended(self) -> bool:
        """The years are a lower bound: a "to Present" range was measured without knowing the CV's date."""
        return self.experience_basis == "open_ended"

    def as_meta(self) -> dict[str, Any]:
        """The profile as the meta a CV's documents carry."""
        return {
            "document_type": CV,
            "skill_vocabulary": self.vocabulary,
            "skills": self.skills,
            "skill_forms": self.skill_forms,
            "years_of_experience": self.years_of_experience,
            "experience_source": self.experience_source,
            "experience_basis": self.experience_basis,
            "experience_open_ended": self.experience_open_ended,
            "experience_level": self.experience_level,
        }


def cv_profile(text: str, vocabulary: SkillVocabulary, as_of: dt.date | None) -> CvProfile:
    """A stated total wins over work history (it is the candidate's own figure); unknown is never guessed.

    :param as_of: when the CV was written, the end of its "to Present" ranges; None when the record does not
        say. Then those ranges end at the latest date the work history states, and the level comes from that
        lower bound, so an open range never makes a candidate look more senior than the CV shows.
    """
    mentions = vocabulary.find(text)
    stated = explicit_years(text)
    history = work_history(text, as_of)
    from_history = merged_years(history.periods)
    years: float | None
    source: Literal["stated", "work_history", "none"]
    basis: ExperienceBasis
    if stated is not None:
        years, source, basis = stated, "stated", "stated"
    elif from_history:
        years, source, basis = from_history, "work_history", history.basis
    else:
        years, source, basis = None, "none", "none"
    return CvProfile(
        vocabulary=vocabulary.fingerprint,
        skills=sorted(mentions),
        skill_forms=sorted({form for forms in mentions.values() for form in forms}),
        years_of_experience=years,
        experience_source=source,
        experience_basis=basis,
        experience_level=experience_level(years),
    )


def phrases(text: str, max_words: int = PHRASE_WORDS) -> list[str]:
    """Short phrases of a CV; longer stretches become overlapping windows of `max_words` words."""
    found: dict[str, None] = {}
    for part in _PHRASE_BREAK.split(text):
        words = part.split()
        if not words or not any(c.isalpha() for c in part):
            continue
        step = max(max_words // 2, 1)
        starts = range(0, max(len(words) - max_words, 0) + 1, step) if len(words) > max_words else [0]
        for start in starts:
            found[" ".join(words[start : start + max_words])] = None
    return list(found)
