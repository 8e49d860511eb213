"""Whether a Markdown page is a changelog: release notes are a large share of many projects' documentation
(48 % of the words of one site we tried), and their one-line entries match almost any question while answering
none. A page is one when its name says so (`CHANGELOG.md`, `release-notes.md`, `history.md`, `news.md`; not
`releases.md`, as often a page on how a team releases), or when most of its top-level headings are versions or
dates (`## 2.3.0`, `## v1.2 (2024-05-01)`, `## [Unreleased]`, `## March 2025`)."""

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

NAMES = re.compile(r"^(change[-_ ]?log|changes|history|release[-_ ]?notes|news|whats[-_ ]?new)$", re.I)
_VERSION = re.compile(r"^\W*(v(ersion)?\s*)?\d+(\.\d+)+([-.+]?\w+)*\b")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4})\b")
_MONTH_YEAR = re.compile(
    r"^\W*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2},?\s+)?\d{4}\b", re.IGNORECASE
)
_UNRELEASED = re.compile(r"^\W*(unreleased|upcoming|next release)\b", re.IGNORECASE)
SHARE = 0.5  # of the top-level headings that are releases
LEAST = 3  # releases a page must list to be a changelog by its headings


def is_release(heading: str) -> bool:
    """A heading that names a release: a version, a date, or 'Unreleased'."""
    text = heading.strip().strip("#").strip()
    return bool(_VERSION.match(text) or _DATE.search(text) or _MONTH_YEAR.match(text) or _UNRELEASED.match(text))


def is_changelog(path: str, headings: Sequence[tuple[int, str]]) -> bool:
    """`path`: the file's path; `headings`: its (level, text) in order."""
    if NAMES.match(PurePosixPath(path).stem):
        return True
    levels = [level for level, _ in headings if level > 1] or [1]
    top = [text for level, text in headings if level == min(levels)]
    releases = sum(map(is_release, top))
    return releases >= LEAST and releases >= SHARE * len(top)
