"""Normalisation shared by ingest and query time: slugs, heading paths, folding and words."""

import re
import unicodedata

# A word: letters and digits, with inner apostrophes ("don't"); what the query parser and prefix terms use.
WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


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


def fold(text: str) -> str:
    """Lower case without accents: what the text index and the prefix terms store."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def terms_of(text: str) -> list[str]:
    """Distinct folded words of two characters or more, sorted: a keyword-prefix index holds these."""
    return sorted({fold(w) for w in WORD.findall(text) if len(w) > 1})
