"""Synthetic CVs recombined from the real anonymised ones, to grow the recruiter-search collection for benchmarks.

The 220 real CVs (`../shared/data/resumes/resumes.jsonl`, Indeed-style text) are too few to measure the search at
scale. This script parses each into its parts (header, objective, dated work entries, education, skills, additional
information) and assembles new CVs from them: the header, objective and education of one "base" CV, 1 to 4 work
entries from 1 to 3 other CVs re-dated into one plausible career, a SKILLS section drawn from the skills of the CVs
the entries came from, and the base's other sections. The result looks like the real CVs to the ingest (skills
found in the text, years of experience from the work-history date ranges, length in words) and to the search.
CV number n depends only on `--seed` and n, so any prefix of a larger run is the same collection.

    .venv/bin/python -m scripts.workload.cv_generator --count 10000 --out /tmp/cvs.jsonl [--seed 7] [--source PATH]

It writes JSONL records shaped as the real ones (`id` gen-<n>, `name` "Candidate G<n>", `text`) and prints a JSON
summary: count, seconds, word-count p10/p50/p90 of real and generated CVs, mean work entries of both.
"""

import argparse
import calendar
import json
import random
import re
import statistics
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from scripts import PROJECT

DEFAULT_SOURCE = PROJECT.parent / "shared" / "data" / "resumes" / "resumes.jsonl"
DEFAULT_SEED = 7

# Indeed's top-level headings in the order it writes them. Only a heading's first occurrence opens a section: a
# repeat (a "SKILLS" line inside ADDITIONAL INFORMATION) is text of the section it sits in.
WORK, EDUCATION, SKILLS, ADDITIONAL = "WORK EXPERIENCE", "EDUCATION", "SKILLS", "ADDITIONAL INFORMATION"
EXTRA_HEADINGS = ("LINKS", "AWARDS", "CERTIFICATIONS/LICENSES", "PUBLICATIONS", "GROUPS", "PATENTS", "MILITARY SERVICE")
HEADINGS = frozenset((WORK, EDUCATION, SKILLS, ADDITIONAL, *EXTRA_HEADINGS))
ARTIFACT = "[profile link removed]"  # the anonymiser's trace of a link, often at a page break
EMAIL_LINE = "Email me on Indeed"
PROFILE_ID = re.compile(r"^(?P<prefix>.*/)?[0-9a-f]{16}$")
REAL_NAME = re.compile(r"Candidate #\d+")

MONTHS = tuple(calendar.month_name[1:])  # "January" .. "December", as Indeed writes them
_MONTH_NAMES = "|".join(MONTHS)
# An entry's date line as Indeed writes it: "June 2015 to March 2017", "November 2017 to Present", "2013 to 2015".
ENTRY_DATES = re.compile(
    rf"^(?:(?P<sm>{_MONTH_NAMES}) )?(?P<sy>(?:19|20)\d\d) to "
    rf"(?:(?P<present>Present)|(?:(?P<em>{_MONTH_NAMES}) )?(?P<ey>(?:19|20)\d\d))$"
)
# A date range inside a description ("Duration: Mar 2015 to Jun 2016"), as loosely as the ingest reads one.
_MONTH_WORD = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"  # noqa: E501
_DATE = rf"(?:(?:{_MONTH_WORD})\s+|\d{{1,2}}/)?(?:19|20)\d\d"
_DATE_PARTS = re.compile(rf"^(?:(?P<m>{_MONTH_WORD})(?P<space>\s+)|(?P<n>\d{{1,2}})/)?(?P<y>(?:19|20)\d\d)$", re.I)
DESCRIPTION_RANGE = re.compile(
    rf"(?P<s>{_DATE})(?P<sep>\s*(?:to|-|\u2013|\u2014|until|till)\s*)"
    rf"(?:(?P<open>present|current(?:ly)?|now|today|till\s+date|to\s+date|date|ongoing)\b|(?P<e>{_DATE}))",
    re.I,
)
_MONTH_BY_PREFIX = {name[:3].lower(): number for number, name in enumerate(MONTHS)}

FIRST_YEAR, LAST_YEAR = 2000, 2025  # generated careers lie within these years
FIRST_MONTH, LAST_MONTH = FIRST_YEAR * 12, LAST_YEAR * 12 + 11
MAX_ENTRIES = 4
MAX_SOURCES = 3
WRAP = 95  # Indeed's text wraps lines at about this many characters
RUN_CANDIDATES = 6  # runs of entries drawn per source (more for long ones); the one whose length fits best is kept
LONG_ENTRY = 300  # words: a base with more work words per entry than this gets more (shorter) entries, up to 4


@dataclass(frozen=True)
class Span:
    """An entry's dates as month indexes (year * 12 + month - 1): a bare start year reads as January, a bare end
    year as December, as the ingest reads them; `end` None is "Present"."""

    start: int
    end: int | None
    start_exact: bool  # the start names its month
    end_exact: bool  # the end names its month (or is "Present")

    @property
    def months(self) -> int | None:
        """The entry's length, None when it runs to "Present" (its length depends on when the CV was written)."""
        return None if self.end is None else self.end - self.start


@dataclass(frozen=True)
class WorkEntry:
    """One job (or project) of WORK EXPERIENCE: its title, company line, date line and description lines."""

    title: str
    company: str
    dates: str  # "" when the entry states none
    description: tuple[str, ...]
    span: Span | None
    # Read once at parse time, as generating needs them for every CV: per description line, whether it mentions
    # a date range and how many words it has.
    ranged: tuple[bool, ...] = ()
    line_words: tuple[int, ...] = ()
    words: int = 0  # all its words as parsed (title, company, dates, description), to steer a CV's length


@dataclass
class ParsedCv:
    """A real CV cut into the parts a generated CV reuses; a part the CV lacks is empty (or None for a section)."""

    id: str
    designation: str  # the headline under the name ("Application Development Associate - Accenture"), maybe ""
    location: str  # "Bengaluru, Karnataka - Email me on Indeed: [profile link removed]", maybe ""
    profile_id: str  # an Indeed profile id line ("[name removed]/738779ab71971a96"), maybe ""
    objective: str  # the summary between the header and WORK EXPERIENCE
    work: list[WorkEntry] = field(default_factory=list)
    education: str | None = None
    skills: str | None = None  # the SKILLS section's text as written
    skill_items: list[str] = field(default_factory=list)  # its comma-separated items ("Java (Less than 1 year)")
    additional: str | None = None
    extra_sections: list[tuple[str, str]] = field(default_factory=list)  # LINKS, AWARDS, ...: (heading, text)
    other_text: list[str] = field(default_factory=list)  # header or work text that did not parse (not emitted)
    words: int = 0
    work_words: int = 0  # of its work section: what the entries of a CV built on it are to fill
    education_end: int | None = None  # the month its education ends, roughly (June of its latest year)

    @property
    def latest_month(self) -> int | None:
        """The latest month its work history states: where this CV's "now" was, roughly."""
        months = [m for e in self.work if e.span for m in (e.span.start, e.span.end) if m is not None]
        return max(months, default=None)


def _words(lines: tuple[str, ...] | list[str]) -> int:
    """Word count of some lines, the ingest's way (whitespace-separated tokens)."""
    return sum(len(line.split()) for line in lines)


def _strip_blank(lines: list[str]) -> list[str]:
    """Lines without leading and trailing blank ones, so parts can be rejoined with one blank line between."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _is_content(line: str) -> bool:
    """A line that carries text: not blank and not the anonymiser's link trace."""
    stripped = line.strip()
    return bool(stripped) and stripped != ARTIFACT


# -- parsing ----------------------------------------------------------------------------------------------------


def split_sections(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """Header lines, and each top-level section's lines by heading (in their order of appearance)."""
    header: list[str] = []
    sections: dict[str, list[str]] = {}
    current = header
    for line in text.split("\n"):
        heading = line.strip()
        if heading in HEADINGS and heading not in sections:
            current = sections[heading] = []
        else:
            current.append(line)
    return header, sections


def parse_header(lines: list[str]) -> tuple[str, str, str, str, list[str]]:
    """Designation, location, profile id and objective of the lines above the first section; the name line goes.

    The location line is the one with Indeed's e-mail link; whatever stands between the name and it is the
    designation. A header without that line is returned whole as unparsed text.
    """
    body = lines[1:]
    located = next((i for i, line in enumerate(body) if EMAIL_LINE in line), None)
    if located is None:
        unparsed = "\n".join(_strip_blank(body))
        return "", "", "", "", [unparsed] if unparsed else []
    designation = "\n".join(line.strip() for line in body[:located] if line.strip())
    location = body[located].strip()
    rest = body[located + 1 :]
    profile_id = ""
    if rest and PROFILE_ID.match(rest[0].strip()):
        profile_id, rest = rest[0].strip(), rest[1:]
    return designation, location, profile_id, "\n".join(_strip_blank(rest)), []


def parse_span(dates: str) -> Span | None:
    """The month indexes of an entry's date line, None when it is not one or runs backwards."""
    match = ENTRY_DATES.match(dates.strip())
    if not match:
        return None
    start_month = MONTHS.index(match["sm"]) if match["sm"] else 0
    start = int(match["sy"]) * 12 + start_month
    if match["present"]:
        return Span(start, None, bool(match["sm"]), True)
    end = int(match["ey"]) * 12 + (MONTHS.index(match["em"]) if match["em"] else 11)
    if end < start:
        return None
    return Span(start, end, bool(match["sm"]), bool(match["em"]))


def work_entry(title: str, company: str, dates: str, description: tuple[str, ...]) -> WorkEntry:
    """An entry with what generating needs read once: its span and which description lines mention a date range."""
    ranged = tuple(bool(DESCRIPTION_RANGE.search(line)) for line in description)
    line_words = tuple(len(line.split()) for line in description)
    words = len(f"{title} {company} {dates}".split()) + sum(line_words)
    return WorkEntry(title, company, dates, description, parse_span(dates), ranged, line_words, words)


def _previous_content(lines: list[str], index: int, floor: int) -> int | None:
    """The nearest line above `index` (and below `floor`) that carries text: an entry's company or title."""
    for i in range(index - 1, floor - 1, -1):
        if _is_content(lines[i]):
            return i
    return None


def parse_work(lines: list[str]) -> tuple[list[WorkEntry], list[str]]:
    """Entries of a WORK EXPERIENCE section, and the text that belongs to none.

    Each date line anchors an entry: the line above it is the company, the one above that the title when it
    stands alone (a line with text right above it ends the previous description instead). Text above the first
    date line (or a section without one) is read as one undated entry (title, company, description) when it
    starts that way, and is kept as unparsed text otherwise.
    """
    anchors: list[tuple[int, int | None, int | None]] = []  # (date line, company line, title line)
    floor = 0
    for i, line in enumerate(lines):
        if not ENTRY_DATES.match(line.strip()):
            continue
        company = _previous_content(lines, i, floor)
        title = _previous_content(lines, company, floor) if company is not None else None
        if title is not None and title > 0 and _is_content(lines[title - 1]):
            title = None
        anchors.append((i, company, title))
        floor = i + 1
    if not anchors:
        return _undated_entry(lines)
    first = min(i for i in anchors[0] if i is not None)
    entries, other = _undated_entry(lines[:first])  # an entry without dates above the dated ones, if any
    for k, (date_line, company, title) in enumerate(anchors):
        end = min(i for i in anchors[k + 1] if i is not None) if k + 1 < len(anchors) else len(lines)
        dates = lines[date_line].strip()
        entry = work_entry(
            lines[title].strip() if title is not None else "",
            lines[company].strip() if company is not None else "",
            dates,
            tuple(_strip_blank(lines[date_line + 1 : end])),
        )
        previous = entries[-1] if entries else None
        if previous and (previous.company, previous.dates) == (entry.company, entry.dates):
            # The same job told twice (the job, then its project): one entry, both descriptions.
            merged = (*previous.description, "", *entry.description) if entry.description else previous.description
            entries[-1] = work_entry(previous.title, previous.company, previous.dates, merged)
        else:
            entries.append(entry)
    return entries, other


def _undated_entry(lines: list[str]) -> tuple[list[WorkEntry], list[str]]:
    """Work text with no date line: one entry when it opens with a title line and a company line."""
    body = _strip_blank(lines)
    content = [i for i, line in enumerate(body) if _is_content(line)]
    if len(content) >= 2:
        title, company = content[0], content[1]
        alone = all(not _is_content(body[i]) for i in (title + 1, company + 1) if i < len(body))
        if alone and title + 1 < company and len(body[company].strip()) <= 80:
            description = tuple(_strip_blank(body[company + 1 :]))
            return [work_entry(body[title].strip(), body[company].strip(), "", description)], []
    return [], ["\n".join(body)] if body else []


def skill_items(skills: str) -> list[str]:
    """The comma-separated items of a SKILLS section's first paragraph ("SQL (3 years)"), whitespace collapsed.

    Items that read as prose or bullets rather than a skill are left out.
    """
    paragraph: list[str] = []
    for line in _strip_blank([line for line in skills.split("\n") if line.strip() != ARTIFACT]):
        if not line.strip():
            break
        paragraph.append(line.strip())
    items = []
    for piece in " ".join(paragraph).split(","):
        item = " ".join(piece.split())
        if item and len(item) <= 60 and len(item.split()) <= 8 and not re.search(r"[•●▪◦❖➢✓■*]", item):
            items.append(item)
    return items


def parse_cv(record: dict[str, str]) -> ParsedCv:
    """One real CV's parts; a CV missing a section still parses, with that part empty."""
    text = record["text"]
    header, sections = split_sections(text)
    designation, location, profile_id, objective, other = parse_header(header)
    cv = ParsedCv(record["id"], designation, location, profile_id, objective, other_text=other)
    cv.words = len(record["text"].split())
    if WORK in sections:
        cv.work, unparsed = parse_work(sections[WORK])
        cv.other_text.extend(unparsed)
        cv.work_words = _words(sections[WORK])
    section_text = {heading: "\n".join(_strip_blank(lines)) for heading, lines in sections.items()}
    cv.education = section_text.get(EDUCATION)
    years = [int(year) for year in re.findall(r"\b(?:19|20)\d\d\b", cv.education or "") if int(year) <= LAST_YEAR]
    cv.education_end = max(years) * 12 + 5 if years else None
    cv.skills = section_text.get(SKILLS)
    cv.skill_items = skill_items(cv.skills) if cv.skills else []
    cv.additional = section_text.get(ADDITIONAL)
    cv.extra_sections = [(heading, section_text[heading]) for heading in EXTRA_HEADINGS if heading in section_text]
    return cv


def load_cvs(path: Path) -> list[ParsedCv]:
    """The real CVs of a JSONL file, parsed, in file order."""
    with path.open(encoding="utf-8") as lines:
        return [parse_cv(json.loads(line)) for line in lines if line.strip()]


# -- generating -------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pools:
    """What the real CVs say about careers, sampled so the generated ones follow them."""

    entry_counts: list[int]  # work entries per CV, 1..MAX_ENTRIES
    durations: list[int]  # months of the entries that end
    recent: list[int]  # each CV's latest work month: when a career ends, for a base that states none
    present_share: float  # of CVs whose latest entry runs "to Present"
    skill_counts: list[int]  # items per SKILLS list
    with_at_least: dict[int, list[int]]  # k -> indexes of the CVs with at least k work entries, k = 1..MAX_ENTRIES


def pools(cvs: list[ParsedCv]) -> Pools:
    """The real distributions the generator samples from."""
    dated = [cv.work[0].span for cv in cvs if cv.work and cv.work[0].span]
    return Pools(
        entry_counts=[min(max(len(cv.work), 1), MAX_ENTRIES) for cv in cvs],
        durations=[e.span.months for cv in cvs for e in cv.work if e.span and e.span.months is not None] or [24],
        recent=[month for cv in cvs if (month := cv.latest_month) is not None and month <= LAST_MONTH] or [2017 * 12],
        present_share=sum(1 for span in dated if span.end is None) / len(dated) if dated else 0.5,
        skill_counts=[len(cv.skill_items) for cv in cvs if cv.skill_items] or [5],
        with_at_least={k: [i for i, cv in enumerate(cvs) if len(cv.work) >= k] for k in range(1, MAX_ENTRIES + 1)},
    )


def month_text(month: int, exact: bool) -> str:
    """ "March 2017", or "2017" for a date that names no month."""
    return f"{MONTHS[month % 12]} {month // 12}" if exact else str(month // 12)


def redate(entries: list[WorkEntry], rng: random.Random, pool: Pools, anchor: int) -> list[tuple[WorkEntry, int]]:
    """The entries (newest first) with new date lines forming one career that ends at `anchor`, and each one's
    shift in months (to move the dates its description mentions along with it).

    Each entry keeps its length when it has one (else draws a real one), starts a few months after the older one
    ends, and the newest runs "to Present" as often as real CVs' do. Entries that would start before FIRST_YEAR
    are dropped; the newest is cut to fit instead.
    """
    redated: list[tuple[WorkEntry, int]] = []
    upper = anchor + 1  # an entry must end before this month
    for k, entry in enumerate(entries):
        span = entry.span
        months = span.months if span and span.months is not None else rng.choice(pool.durations)
        start_exact = span.start_exact if span else True
        end_exact = span.end_exact if span else True
        present = k == 0 and rng.random() < pool.present_share
        if present:
            end: int | None = None
            last = anchor
            end_exact = True
        elif k == 0 or end_exact:
            end = last = anchor if k == 0 else upper - rng.randint(1, 3)
            end_exact = True  # the newest entry ends at a month-year (or "Present")
        else:
            year = (upper - 12) // 12  # a bare year ends in December, which must come before `upper`
            end = last = year * 12 + 11
        start = last - months
        if not start_exact:
            start = start // 12 * 12  # a bare year starts in January
        if start < FIRST_MONTH:
            if k:
                break
            start = FIRST_MONTH
        dates = f"{month_text(start, start_exact)} to {'Present' if end is None else month_text(end, end_exact)}"
        new_span = Span(start, end, start_exact, end_exact)
        shift = start - span.start if span else 0
        redated.append((replace(entry, dates=dates, span=new_span), shift))
        upper = start
    return redated


def _shift_date(token: str, shift: int, is_end: bool) -> tuple[str, int] | None:
    """A date of a description range moved by `shift` months, written the way it was, and its month index."""
    match = _DATE_PARTS.match(token)
    if not match:
        return None
    year = int(match["y"])
    if match["m"]:
        word = match["m"]
        number = _MONTH_BY_PREFIX[word.lower()[:3]]
        month = year * 12 + number + shift
        name = MONTHS[month % 12]
        if word.rstrip(".").lower() != MONTHS[number].lower():  # abbreviated: "Mar", "Sept."
            name = name[:3] + ("." if word.endswith(".") else "")
        name = name.upper() if word.isupper() else name.lower() if word.islower() else name
        return f"{name}{match['space']}{month // 12}", month
    if match["n"]:
        number = int(match["n"])
        if not 1 <= number <= 12:
            return None
        month = year * 12 + number - 1 + shift
        return f"{month % 12 + 1:0{len(match['n'])}d}/{month // 12}", month
    month = year * 12 + (11 if is_end else 0) + shift
    return str(month // 12), month


def shift_description(entry: WorkEntry, shift: int, latest: int) -> list[tuple[str, int]]:
    """The entry's description lines with the date ranges they mention moved along with the entry.

    A line whose moved range would leave FIRST_YEAR..`latest` is dropped, as is a line that is nothing but a date
    range: both would read as another job to the ingest and to a reader. Each line comes with its word count.
    """
    kept = []
    for line, ranged, words in zip(entry.description, entry.ranged, entry.line_words, strict=True):
        if not ranged:
            kept.append((line, words))
            continue
        if ENTRY_DATES.match(line.strip()):
            continue
        fits = True

        def moved(match: re.Match[str]) -> str:
            nonlocal fits
            start = _shift_date(match["s"], shift, is_end=False)
            end = _shift_date(match["e"], shift, is_end=True) if match["e"] else None
            if start is None or (match["e"] and end is None):
                return match[0]
            fits = fits and all(FIRST_MONTH <= month <= latest for month in (start[1], end[1] if end else start[1]))
            return f"{start[0]}{match['sep']}{end[0] if end else match['open']}"

        line = DESCRIPTION_RANGE.sub(moved, line)
        if fits and not ENTRY_DATES.match(line.strip()):
            kept.append((line, len(line.split())))
    return kept


def pick_entries(
    cvs: list[ParsedCv], base: int, count: int, words: int, rng: random.Random, pool: Pools
) -> tuple[list[WorkEntry], list[ParsedCv]]:
    """`count` entries of about `words` words in all from 1..MAX_SOURCES CVs other than the base (a run of
    consecutive entries from each, the sources in random order, read as one career newest first), and those CVs.

    Each run is the best fit of a few random ones to its share of the words, a shortfall counting more than an
    overshoot (trimming cuts an overshoot; nothing fills a shortfall), so long CVs get long entries.
    """
    parts = min(rng.randint(1, MAX_SOURCES), count)
    cuts = sorted(rng.sample(range(1, count), parts - 1))
    quotas = [b - a for a, b in zip([0, *cuts], [*cuts, count], strict=True)]
    entries: list[WorkEntry] = []
    sources: list[int] = []
    for quota in quotas:
        target = words * quota / count
        best: tuple[float, int, int] | None = None
        for _ in range(RUN_CANDIDATES + min(int(target) // 50, 30)):
            index = rng.choice(pool.with_at_least[quota])
            if index == base or index in sources:
                continue
            first = rng.randint(0, len(cvs[index].work) - quota)
            size = sum(entry.words for entry in cvs[index].work[first : first + quota])
            cost = target - size if size < target else (size - target) / 4
            if best is None or cost < best[0]:
                best = (cost, index, first)
        if best is not None:
            _, index, first = best
            sources.append(index)
            entries.extend(cvs[index].work[first : first + quota])
    if not entries:  # every draw hit the base: a career needs one entry
        index = next(i for i in pool.with_at_least[1] if i != base)
        sources, entries = [index], cvs[index].work[:1]
    return entries, [cvs[i] for i in sources]


def wrap(text: str, width: int = WRAP) -> str:
    """Text broken at spaces into lines of at most `width` characters, as Indeed lays out a skills list."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return "\n".join(lines)


def skills_section(sources: list[ParsedCv], base: ParsedCv, rng: random.Random, pool: Pools) -> str | None:
    """A SKILLS list drawn from the sources' lists (the base's when they have none), in their own wording.

    A skill named twice (with different years) appears once. None when the base has no SKILLS section (so the
    share of CVs without one follows the real CVs) or no list to draw from.
    """
    if base.skills is None:
        return None
    items: list[str] = []
    seen: set[str] = set()
    for cv in [*sources, base] if not any(cv.skill_items for cv in sources) else sources:
        for item in cv.skill_items:
            name = item.split(" (")[0].lower()
            if name not in seen:
                seen.add(name)
                items.append(item)
    if not items:
        return None
    wanted = min(len(items), len(base.skill_items) if base.skill_items else rng.choice(pool.skill_counts))
    chosen = sorted(rng.sample(range(len(items)), wanted))
    return wrap(", ".join(items[i] for i in chosen))


def designation_for(base: ParsedCv, newest: WorkEntry) -> str:
    """The headline: when the base's reads "title - company" (its own latest job), the generated latest job's."""
    if " - " not in base.designation or not newest.title or not newest.company:
        return base.designation
    company = newest.company.split(" - ")[0].rstrip(" -").strip()
    return f"{newest.title} - {company}" if company else base.designation


def trim(descriptions: list[list[tuple[str, int]]], budget: int) -> list[list[str]]:
    """Descriptions (lines with their word counts) cut to about `budget` words in all, each keeping its first
    lines in proportion to its length: the recombined CV is as long as its base, so lengths follow the real ones."""
    sizes = [sum(words for _, words in lines) for lines in descriptions]
    total = sum(sizes)
    if total <= max(budget, 0):
        return [[line for line, _ in lines] for lines in descriptions]
    trimmed = []
    for lines, size in zip(descriptions, sizes, strict=True):
        share = size * max(budget, 0) / total
        kept: list[str] = []
        used = 0
        for line, words in lines:
            if used + words > share:
                break
            kept.append(line)
            used += words
        trimmed.append(_strip_blank(kept))
    return trimmed


def _profile_id(base: ParsedCv, rng: random.Random) -> str:
    """A fresh profile id in the base's form, so no two generated CVs share one."""
    if not base.profile_id:
        return ""
    match = PROFILE_ID.match(base.profile_id)
    prefix = match["prefix"] or "" if match else ""
    return f"{prefix}{rng.getrandbits(64):016x}"


def generate_one(cvs: list[ParsedCv], n: int, seed: int, pool: Pools) -> tuple[dict[str, str], int]:
    """CV number `n` (a function of `seed` and `n` alone) and its count of work entries."""
    rng = random.Random(f"{seed}:{n}")
    base_index = rng.randrange(len(cvs))
    base = cvs[base_index]
    # The CV's "now": the base's own (its latest work date, which its education and objective agree with), else a
    # real CV's, but not before the base's education ends.
    now = base.latest_month
    if now is None:
        now = max(rng.choice(pool.recent), base.education_end or 0)
    anchor = min(max(now + rng.randint(0, 6), FIRST_MONTH + 12), LAST_MONTH)
    # The CV is to be as long as its base: its entries are to fill what the base's work section took.
    count = max(pool.entry_counts[base_index], min(MAX_ENTRIES, -(-base.work_words // LONG_ENTRY)))
    entries, sources = pick_entries(cvs, base_index, count, base.work_words, rng, pool)
    redated = redate(entries, rng, pool, anchor)
    newest = redated[0][0]
    name = f"Candidate G{n}"
    designation = designation_for(base, newest)
    header = name + (f"\n{designation}\n" if designation else "")
    if base.location:
        header += f"\n{base.location}" + (f"\n{_profile_id(base, rng)}" if base.profile_id else "")
    top = [header, base.objective] if base.objective else [header]

    additional = base.additional
    if additional is not None and rng.random() < 0.5:  # a source's, the one nearest the base's in length
        size = len(additional.split())
        others = [cv.additional for cv in sources if cv.additional]
        additional = min(others, key=lambda text: abs(len(text.split()) - size)) if others else additional
    sections = [(EDUCATION, base.education), (SKILLS, skills_section(sources, base, rng, pool))]
    sections += [*base.extra_sections, (ADDITIONAL, additional)]
    tail = [heading + (f"\n\n{body}" if body else "") for heading, body in sections if body is not None]

    heads = ["\n\n".join(part for part in (e.title, e.company, e.dates) if part) for e, _ in redated]
    moved = [shift_description(e, shift, anchor) for e, shift in redated]
    descriptions = trim(moved, base.words - _words(top) - _words(tail) - _words(heads) - 2)
    bodies = ["\n".join(lines) for lines in descriptions]
    work = [f"{head}\n\n{body}" if body else head for head, body in zip(heads, bodies, strict=True)]
    text = REAL_NAME.sub(name, "\n\n".join([*top, WORK, *work, *tail]))
    return {"id": f"gen-{n}", "name": name, "text": text}, len(redated)


def generate(cvs: list[ParsedCv], count: int, seed: int = DEFAULT_SEED) -> list[dict[str, str]]:
    """`count` synthetic CVs recombined from the parsed real ones; the same seed gives the same CVs."""
    pool = pools(cvs)
    return [generate_one(cvs, n, seed, pool)[0] for n in range(count)]


def deciles(values: list[int]) -> dict[str, float]:
    """p10, p50 and p90 of word counts, to compare the generated lengths with the real ones."""
    cuts = statistics.quantiles(values, n=10)
    return {"p10": round(cuts[0], 1), "p50": round(statistics.median(values), 1), "p90": round(cuts[-1], 1)}


def main(argv: list[str] | None = None) -> int:
    """Generate, write JSONL, print the summary; exit 2 when the real CVs are missing."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--count", type=int, required=True, help="how many CVs to generate")
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"default {DEFAULT_SEED}")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help=f"the real CVs (default {DEFAULT_SOURCE})")
    args = parser.parse_args(argv)
    if not args.source.is_file():
        print(f"cv_generator: no real CVs at {args.source}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    cvs = load_cvs(args.source)
    pool = pools(cvs)
    made = [generate_one(cvs, n, args.seed, pool) for n in range(args.count)]
    with args.out.open("w", encoding="utf-8") as out:
        out.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record, _ in made)
    seconds = time.perf_counter() - started
    summary = {
        "count": len(made),
        "seconds": round(seconds, 2),
        "words": {
            "real": deciles([cv.words for cv in cvs]),
            "generated": deciles([len(record["text"].split()) for record, _ in made]) if len(made) > 1 else None,
        },
        "work_entries_mean": {
            "real": round(statistics.mean(len(cv.work) for cv in cvs), 2),
            "generated": round(statistics.mean(entries for _, entries in made), 2) if made else None,
        },
    }
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
