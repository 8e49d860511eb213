"""Markdown files: YAML front matter and the body under it. Splitting at headings happens in the indexing
pipeline (Haystack's `MarkdownHeaderSplitter`), where it is visible and configurable."""

import re
from typing import Any

import yaml

from haygate import yamlfile

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


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


def first_heading(body: str) -> str | None:
    """The text of the first ATX heading (`# Title`) outside code fences."""
    in_fence = False
    for line in body.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := _HEADING.match(line)):
            return match.group(2).strip()
    return None
