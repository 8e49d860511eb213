"""Is a documentation section code, prose or a mix of both?"""

import re

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_CODE_LINE = re.compile(
    r"^\s*(\$ |>>> |import |from \S+ import |def |class |return |#include|pip |haygate |curl "
    r"|[\w.\[\]\"']+\s*=\s*\S|[{}()\[\]<>;]+\s*$|\w+\(.*\)\s*$)"
)


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
    """The characters that are not whitespace (`str.split` splits at exactly `str.isspace`'s), counted in C."""
    return len("".join(text.split()))
