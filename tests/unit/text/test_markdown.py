"""Front matter of a Markdown file, and a section's text as blocks and windows."""

import pytest

from haygate.text.markdown import FrontMatterError, split_front_matter


def test_front_matter_and_body() -> None:
    front, body, line = split_front_matter("---\ntitle: Guide\nversion: '2.0'\n---\n# Guide\nIntro.\n")
    assert front == {"title": "Guide", "version": "2.0"} and body == "# Guide\nIntro." and line == 5
    assert split_front_matter("# No front matter") == ({}, "# No front matter", 1)


def test_broken_front_matter_is_named() -> None:
    with pytest.raises(FrontMatterError, match="never ends"):
        split_front_matter("---\ntitle: x\n")
    with pytest.raises(FrontMatterError, match="invalid front matter"):
        split_front_matter("---\n: [\n---\nbody")


# -- sections a reader can use ------------------------------------------------------------------------------

SECTION = """<!-- YAML
added: v18.11.0
-->

Computes a digest. See [`crypto.createHash()`][] and [the guide][hash guide]. <!-- inline -->

| Algorithm   |  Supported  | Notes        |
| ----------- | :---------: | ------------ |
| 'SHA-256'   |     ✔       |              |
|             |             |              |
| 'MD5'       |             | legacy       |

```js
// <!-- kept: this is code -->
const hash = crypto.createHash('sha256');
```

[`crypto.createHash()`]: #cryptocreatehashalgorithm-options
[hash guide]: https://example.com/guide
"""


def words(text: str) -> int:
    return len(text.split())


def test_clean_drops_comments_and_reference_syntax_outside_code_and_table_padding() -> None:
    from haygate.text.markdown import clean

    cleaned = clean(SECTION)
    assert "YAML" not in cleaned and "inline" not in cleaned and "<!--" not in cleaned.split("```js")[0]
    assert "See `crypto.createHash()` and the guide." in cleaned
    assert "[hash guide]:" not in cleaned and "https://example.com/guide" not in cleaned
    assert "| Algorithm | Supported | Notes |\n|---|---|---|\n| 'SHA-256' | ✔ |  |\n| 'MD5' |  | legacy |" in cleaned
    assert "// <!-- kept: this is code -->" in cleaned  # code is left as written


def test_blocks_keep_code_whole_and_tables_with_their_header() -> None:
    from haygate.text.markdown import blocks

    kinds = [(b.kind, b.text.splitlines()[0]) for b in blocks(SECTION)]
    assert kinds == [
        ("text", "Computes a digest. See [`crypto.createHash()`][] and [the guide][hash guide]. <!-- inline -->"),
        ("table", "| Algorithm   |  Supported  | Notes        |"),
        ("code", "```js"),
        ("text", "[`crypto.createHash()`]: #cryptocreatehashalgorithm-options"),
    ]
    assert blocks(SECTION)[1].header.splitlines()[1].startswith("| -----")


def test_a_long_table_is_cut_by_rows_each_piece_with_its_header() -> None:
    from haygate.text.markdown import pieces

    table = "| name | value |\n|---|---|\n" + "\n".join(f"| row{n} | {n} apples and pears |" for n in range(40))
    cut = pieces(table, 40, words)
    assert len(cut) > 1 and all(words(piece) <= 40 for piece in cut)
    assert all(piece.startswith("| name | value |\n|---|---|\n| row") for piece in cut)
    rows = [line for piece in cut for line in piece.splitlines()[2:]]
    assert rows == [f"| row{n} | {n} apples and pears |" for n in range(40)]  # every row once, in order


def test_long_code_is_cut_by_lines_and_fenced_again() -> None:
    from haygate.text.markdown import pieces

    code = "```python\n" + "\n".join(f"value_{n} = compute({n}, 'x')" for n in range(60)) + "\n```"
    cut = pieces(code, 50, words)
    assert len(cut) > 1 and all(p.startswith("```python\n") and p.endswith("\n```") for p in cut)
    assert all(words(p) <= 50 for p in cut)
    spaced = "```python\n" + "\n\n".join(f"def f_{n}():\n    return {n}" for n in range(40)) + "\n```"
    inner = [p.removeprefix("```python\n").removesuffix("\n```") for p in pieces(spaced, 50, words)]
    assert len(inner) > 1 and all("\n\ndef f_" in p for p in inner)  # the blank lines between them stay


def test_prose_is_cut_between_sentences_and_nothing_is_repeated_or_lost() -> None:
    from haygate.text.markdown import pieces

    text = " ".join(f"Sentence number {n} says something about caching." for n in range(30))
    code = "```sh\nnpm cache clean --force\n```"
    cut = pieces(f"{text}\n\n{code}", 60, words)
    assert all(words(p) <= 60 for p in cut)
    assert all(p.rstrip().endswith((".", "```")) for p in cut)  # every window ends where a sentence does
    joined = " ".join(" ".join(cut).split())
    assert joined == " ".join(f"{text} {code}".split())  # every word once, in order
    assert code in cut[-1]  # code is never glued into a paragraph's sentence


def test_no_window_is_a_sentence_left_over() -> None:
    """Filled in turn, 9 sentences of 6 words in windows of 30 words are cut 4, 4 and a last one alone; the
    last two windows share their five sentences instead, 2 and 3; the first window stays whole."""
    from haygate.text.markdown import pieces

    text = " ".join(f"Sentence number {n} is here now." for n in range(9))
    cut = pieces(text, 30, words)
    assert [p.count("Sentence") for p in cut] == [4, 2, 3], cut
    assert " ".join(cut) == text


def test_a_table_whose_header_is_empty_keeps_its_rows_alone() -> None:
    from haygate.text.markdown import clean

    key_value = "|  |  |\n| --- | --- |\n| **Inputs** | `query` |\n| **Outputs** | `documents` |"
    assert clean(key_value) == "| **Inputs** | `query` |\n| **Outputs** | `documents` |"
