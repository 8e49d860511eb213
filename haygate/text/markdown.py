"""Markdown files: YAML front matter and the body under it; a section's text as the blocks a reader reads
(paragraphs, fenced code, tables) and as windows of them that fit a model. Splitting at headings happens in
the indexing pipeline (Haystack's `MarkdownHeaderSplitter`), where it is visible and configurable."""

import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import yaml

from haygate import yamlfile

_FENCE = re.compile(r"^\s*(```|~~~)")
LEFT_OVER = 4  # a last window smaller than budget / LEFT_OVER is a left-over: it shares the one before it


class FrontMatterError(ValueError):
    """Front matter that opens and never closes, or is not YAML."""


def split_front_matter(text: str) -> tuple[dict[str, Any], str, int]:
    """(front matter, body, 1-based line where the body starts). No front matter gives ({}, text, 1)."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text, 1
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise FrontMatterError("front matter starts with '---' but never ends")
    try:
        front = yamlfile.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as error:
        raise FrontMatterError(f"invalid front matter: {error}") from error
    if not isinstance(front, dict):
        raise FrontMatterError("front matter must be a mapping")
    return front, "\n".join(lines[end + 1 :]), end + 2


# -- a section's text as blocks a reader (and an embedder) can use --------------------------------------------

_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]\n]+\]:\s*\S.*$", re.MULTILINE)
_REFERENCE_LINK = re.compile(r"\[((?:[^\[\]\n]|\[[^\[\]\n]*\])+)\]\[[^\]\n]*\]")
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?:;])\s+(?=[\"'(`*\[A-Z0-9])")


@dataclass(frozen=True)
class Block:
    """A piece of a section that is read whole: a paragraph (or list), a fenced code block, or a table
    (`header` holds a table's header and separator rows, which each piece of a long table repeats)."""

    kind: Literal["text", "code", "table"]
    text: str
    header: str = ""


def clean(text: str) -> str:
    """What a section means without what only its source format needs: HTML comments dropped, reference
    links as their text (``[`fs.ReadStream`][]`` -> `` `fs.ReadStream` ``) and their definitions dropped,
    outside code. Tables keep their rows, without the padding of their cells."""
    parts = []
    for block in blocks(text):
        parts.append(block.text if block.kind == "code" else _tidy(block))
    return "\n\n".join(p for p in parts if p.strip())


def _tidy(block: Block) -> str:
    text = _COMMENT.sub("", block.text)
    text = _REFERENCE_DEFINITION.sub("", text)
    text = _REFERENCE_LINK.sub(r"\1", text)
    if block.kind == "table":
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) >= 2 and not _table_row(lines[0]):  # a header of empty cells: its rows stand alone
            lines = lines[2:]
        rows = [_table_row(line) for line in lines]
        return "\n".join(row for row in rows if row)
    return "\n".join(line.rstrip() for line in text.strip().splitlines() if line.strip())


def _table_row(line: str) -> str:
    """A table row with its cells trimmed; a separator row as `|---|---|`; a row of empty cells dropped."""
    if _TABLE_SEPARATOR.match(line):
        return "|" + "---|" * max(1, line.strip().strip("|").count("|") + 1)
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    return "| " + " | ".join(cells) + " |" if any(cells) else ""


def blocks(text: str) -> list[Block]:
    """A section's text as blocks: fenced code whole, tables whole (header apart), paragraphs and lists as
    the blank lines separate them. HTML comments spanning lines are dropped before anything is split."""
    lines = text.splitlines()
    found: list[Block] = []
    paragraph: list[str] = []
    i = 0

    def flush() -> None:
        if paragraph and "".join(paragraph).strip():
            found.append(Block("text", "\n".join(paragraph)))
        paragraph.clear()

    while i < len(lines):
        line = lines[i]
        fence = _FENCE.match(line)
        if fence:
            flush()
            marker, start = fence.group(1), i
            i += 1
            while i < len(lines) and not lines[i].lstrip().startswith(marker):
                i += 1
            found.append(Block("code", "\n".join(lines[start : i + 1])))
            i += 1
            continue
        if line.lstrip().startswith("|") and i + 1 < len(lines) and _TABLE_SEPARATOR.match(lines[i + 1]):
            flush()
            header, i = "\n".join(lines[i : i + 2]), i + 2
            rows = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(lines[i])
                i += 1
            found.append(Block("table", "\n".join([header, *rows]), header))
            continue
        if not line.strip():
            flush()
        elif line.lstrip().startswith("<!--") and "-->" not in line:  # a comment over several lines
            while i < len(lines) and "-->" not in lines[i]:
                i += 1
        else:
            paragraph.append(line)
        i += 1
    flush()
    return found


def pieces(text: str, budget: int, count: Callable[[str], int]) -> list[str]:
    """The cleaned section as windows of at most `budget` tokens (by `count`), each made of whole blocks
    where they fit: a long paragraph is cut between sentences, a long table between rows (each piece with the
    table's header), long code between lines (each piece fenced). Nothing is repeated between windows: a
    sentence of context carried over measured no better on a judged set (benchmarks page)."""
    units: list[str] = []
    for block in blocks(text):
        body = block.text if block.kind == "code" else _tidy(block)
        if not body.strip():
            continue
        if count(body) <= budget:
            units.append(body)
        elif block.kind == "table":
            header = _tidy(Block("table", block.header))
            rows = body.splitlines()[2:] if header else body.splitlines()
            units += _packed([_table_row(r) for r in rows], budget - count(header) - 1, count, header)
        elif block.kind == "code":
            lines = body.splitlines()
            opening, closing = lines[0], lines[-1] if len(lines) > 1 and _FENCE.match(lines[-1]) else ""
            inner = lines[1:-1] if closing else lines[1:]
            room = budget - count(opening) - count(closing) - 2
            pieces_of_code = _packed(inner, room, count, keep_empty=True)  # a blank line of code is code
            units += [f"{opening}\n{piece}\n{closing}".rstrip() for piece in pieces_of_code]
        else:
            units += _packed(_sentences(body, budget, count), budget, count, joiner=" ")
    return _packed(units, budget, count, joiner="\n\n")


def _sentences(text: str, budget: int, count: Callable[[str], int]) -> list[str]:
    """A paragraph's sentences; one longer than the budget is cut between words."""
    out = []
    for sentence in _SENTENCE_END.split(" ".join(text.split())):
        if count(sentence) <= budget:
            out.append(sentence)
            continue
        words = sentence.split()
        out += _packed(words, budget, count, joiner=" ")
    return out


def _packed(
    items: list[str],
    budget: int,
    count: Callable[[str], int],
    header: str = "",
    joiner: str = "\n",
    keep_empty: bool = False,
) -> list[str]:
    """Consecutive items joined into windows of at most `budget` tokens (`header` starting each window), each
    filled in turn; a last window of less than a quarter of the budget shares the items of the one before it
    evenly with it, so no window is a sentence left over (evening every window out measured worse on both
    judged docs sets: the first windows, where answers mostly are, lost words)."""
    kept = [item for item in items if item or keep_empty]
    if not kept:
        return []
    sizes = [count(item) + 1 for item in kept]
    starts = _cuts(sizes, budget)
    if len(starts) > 1 and sum(sizes[starts[-1] :]) < budget / LEFT_OVER:
        tail = _even(sizes[starts[-2] :], 2, budget)
        if tail is not None:
            starts[-1] = starts[-2] + tail[1]
    ends = [*starts[1:], len(kept)]
    lead = [header] if header else []
    return [joiner.join([*lead, *kept[start:end]]) for start, end in zip(starts, ends, strict=True)]


def _even(sizes: list[int], windows: int, budget: int) -> list[int] | None:
    """Where `windows` windows start when each is cut at the boundary nearest its share of the whole; None when
    one of them would then exceed `budget` (and hold more than one item)."""
    bounds = list(itertools.accumulate(sizes, initial=0))  # bounds[i]: the size of items[:i]
    starts = [0]
    for window in range(1, windows):
        share = bounds[-1] * window / windows
        first, last = starts[-1] + 1, len(sizes) - (windows - window)
        if first > last:
            return None
        starts.append(min(range(first, last + 1), key=lambda b: abs(bounds[b] - share)))
    ends = [*starts[1:], len(sizes)]
    if any(bounds[end] - bounds[start] > budget and end - start > 1 for start, end in zip(starts, ends, strict=True)):
        return None
    return starts


def _cuts(sizes: list[int], limit: int) -> list[int]:
    """Where each window starts when consecutive items fill windows of at most `limit` (an item larger than
    `limit` stands alone)."""
    starts: list[int] = []
    used = 0
    for index, size in enumerate(sizes):
        if not starts or used + size > limit:
            starts.append(index)
            used = 0
        used += size
    return starts
