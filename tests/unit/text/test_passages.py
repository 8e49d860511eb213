import pytest

from haygate.text.passages import word_windows


@pytest.mark.parametrize(
    ("text", "windows"),
    [
        ("a b c d e f", ["a b c", "c d e", "e f"]),  # windows of 3 every 2: the last reaches the end
        ("a b c d e", ["a b c", "c d e"]),
        ("a  b\n", ["a b"]),  # a short text is one window, whitespace normalised
        ("   ", []),
    ],
)
def test_word_windows(text: str, windows: list[str]) -> None:
    assert word_windows(text, 3, 2) == windows


def test_every_word_is_in_some_window() -> None:
    words = [f"w{i}" for i in range(101)]
    covered = {w for window in word_windows(" ".join(words), 48, 24) for w in window.split()}
    assert covered == set(words)


@pytest.mark.parametrize(("words", "stride"), [(0, 1), (4, 0), (4, 5)])
def test_settings_that_make_no_windows_are_refused(words: int, stride: int) -> None:
    with pytest.raises(ValueError, match="passages need"):
        word_windows("a b", words, stride)
