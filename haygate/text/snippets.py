"""Snippets: a window of a text around its best matches, each matched word marked `<mark>word</mark>`.

A hit is marked as HTML marks it, not as Markdown's bold: the source's own emphasis (`**Default:**`) stays
what it is, so a reader, an agent or the console tells a match from the text's own bold.
"""

Span = tuple[int, int]
OPEN, CLOSE = "<mark>", "</mark>"
MARKERS = len(OPEN) + len(CLOSE)  # around one match


def snippet(text: str, spans: list[Span], max_chars: int) -> str:
    """At most `max_chars` characters, markers and ellipses included, around the window with most matches.

    `spans` are the (start, end) offsets of the matched words, in order.
    """
    start, end = _window(text, spans, max_chars - 2)
    while True:
        result = _render(text, spans, start, end)
        if len(result) <= max_chars or end <= start:
            return result
        end = _word_end(text, end - 1) if end - 1 > start else start


def _render(text: str, spans: list[Span], start: int, end: int) -> str:
    parts, cursor = [], start
    for s, e in spans:
        if s >= start and e <= end:
            parts += [text[cursor:s], f"{OPEN}{text[s:e]}{CLOSE}"]
            cursor = e
    parts.append(text[cursor:end])
    body = " ".join("".join(parts).split())
    return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")


def _window(text: str, spans: list[Span], budget: int) -> Span:
    """The window of `budget` characters (markers included) that holds the most matches."""
    if not spans:
        end = min(len(text), budget)
        return 0, _word_end(text, end) if end < len(text) else end
    best = (0, 0)
    for i, (s, _) in enumerate(spans):
        count = 0
        for _, e2 in spans[i:]:
            if e2 - s + MARKERS * (count + 1) > budget:
                break
            count += 1
        if count > best[0]:
            best = (count, i)
    first = spans[best[1]][0]
    used = MARKERS * best[0]
    lead = max(0, min(first, (budget - used - (spans[best[1]][1] - first)) // 3))
    start = _word_start(text, first - lead)
    end = min(len(text), start + budget - used)
    return start, _word_end(text, end) if end < len(text) else end


def _word_start(text: str, index: int) -> int:
    index = max(0, index)
    while 0 < index < len(text) and not text[index - 1].isspace():
        index += 1
    return min(index, len(text))


def _word_end(text: str, index: int) -> int:
    while index > 0 and index < len(text) and not text[index].isspace():
        index -= 1
    return index
