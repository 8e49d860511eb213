"""Small pure text helpers shared by ingest and query building."""

import re
import unicodedata

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CODE_LINE = re.compile(
    r"^\s*(\$ |>>> |import |from \S+ import |def |class |return |#include|pip |haygate |curl "
    r"|[\w.\[\]\"']+\s*=\s*\S|[{}()\[\]<>;]+\s*$|\w+\(.*\)\s*$)"
)


def slugify(text: str) -> str:
    """'What's an AI Agent?' -> 'whats-an-ai-agent' (ASCII-folded, lowercase, hyphen-separated)."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return _NON_ALNUM.sub("-", folded.replace("'", "").replace("\u2019", "")).strip("-")


def slug_path(path: str | list[str]) -> str:
    """A heading path ('Agents > What's an AI Agent' or a list) -> 'agents/whats-an-ai-agent'."""
    parts = path if isinstance(path, list) else re.split(r"\s*(?:>|/)\s*", path)
    return "/".join(s for s in (slugify(p) for p in parts) if s)


def path_prefixes(path: str) -> list[str]:
    """'a/b/c' -> ['a', 'a/b', 'a/b/c']: stored so a prefix filter is an exact match on any element."""
    parts = [p for p in path.split("/") if p]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def content_type(text: str) -> str:
    """'code', 'prose' or 'mixed', by the share of visible characters that are code.

    Fenced blocks count as code; outside them, lines that look like statements, prompts or imports do too.
    Characters, not lines, so one long paragraph weighs more than a short code line.
    """
    total = _visible(text)
    if not total:
        return "prose"
    fenced = sum(_visible(m.group(0)) for m in _FENCE.finditer(text))
    loose = sum(_visible(line) for line in _FENCE.sub("", text).splitlines() if _CODE_LINE.match(line))
    share = (fenced + loose) / total
    if share >= 0.75:
        return "code"
    if share <= 0.25:
        return "prose"
    return "mixed"


def _visible(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())
