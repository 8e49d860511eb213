"""Snippets around the matches."""

from haygate.text.snippets import snippet


def spans_of(text: str, word: str) -> list[tuple[int, int]]:
    spans, start = [], text.find(word)
    while start >= 0:
        spans.append((start, start + len(word)))
        start = text.find(word, start + 1)
    return spans


def test_the_window_with_most_matches_is_kept_and_marked() -> None:
    text = "lead words here. " * 10 + "index and index again. " + "tail words. " * 10
    result = snippet(text, spans_of(text, "index"), max_chars=60)
    assert len(result) <= 60 and result.count("<mark>index</mark>") == 2
    assert result.startswith("…") and result.endswith("…")


def test_no_match_shows_the_start() -> None:
    assert snippet("short text", [], max_chars=300) == "short text"
    long = "word " * 100
    assert snippet(long, [], max_chars=20).endswith("…") and len(snippet(long, [], max_chars=20)) <= 20
