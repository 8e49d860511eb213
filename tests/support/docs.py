"""The documentation as data: its fenced blocks (to run them) and its tables (to check the figures they quote).

`test_readme.py` runs every block of the README at test scale; `tests/eval/` runs the evaluation blocks at
full scale and holds their results to the figures the tables quote.
"""

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.support import PROJECT

README = PROJECT / "README.md"
SITE = PROJECT / "mkdocs.yml"


def nav_pages() -> list[Path]:
    """The site's pages in its nav's order, those written by hand (the reference pages are generated at build
    time, from the code, and hold no blocks of their own)."""
    config = yaml.load(SITE.read_text(), Loader=yaml.BaseLoader)  # BaseLoader: no tags, every value a string

    def walk(entry: object) -> Iterator[str]:
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, dict):
            for value in entry.values():
                yield from walk(value)
        elif isinstance(entry, list):
            for item in entry:
                yield from walk(item)

    pages = [PROJECT / "docs" / name for name in walk(config["nav"])]
    return [page for page in pages if page.is_file()]


# The documentation: the README, then the site's pages, read as one text.
PAGES = [README, *nav_pages()]


def documentation() -> str:
    """README.md and every page of the site, in its nav's order, as one text."""
    return "\n".join(page.read_text() for page in PAGES)


def read(path: Path | None) -> str:
    return path.read_text() if path is not None else documentation()


LIMITED = re.compile(r"(haygate (?:eval|tune)|scripts\.studies\.floor)\b")  # the commands that take --limit


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    text: str

    @property
    def first_line(self) -> str:
        return self.text.strip().splitlines()[0].strip()


def blocks(path: Path | None = None) -> list[Block]:
    """Every fenced block of `path` (default: every page of the documentation), indented ones too, dedented."""
    found = []
    for page in [path] if path is not None else PAGES:
        text = page.read_text()
        for match in re.finditer(r"^( *)```(\w*)\n(.*?)^\1```", text, re.DOTALL | re.MULTILINE):
            indent = len(match.group(1))
            body = "\n".join(line[indent:] for line in match.group(3).splitlines())
            found.append(Block(page, text[: match.start()].count("\n") + 1, match.group(2), body))
    return found


def block(first_line: str, path: Path | None = None) -> Block:
    """The one block that starts with `first_line` (a page may repeat another's block word for word: the
    README's taste of a guide; one run covers both)."""
    matches = [b for b in blocks(path) if b.text.strip().startswith(first_line)]
    assert matches and len({b.text for b in matches}) == 1, (first_line, matches)
    return matches[0]


def commands(text: str) -> list[str]:
    """A shell block's commands: continued lines joined, comments and blank lines left out. A `for` loop
    (or anything else spanning lines without a backslash) is one command: the block runs whole then."""
    joined = text.replace("\\\n", " ")
    if re.search(r"^\s*(for|while|if)\b", joined, re.MULTILINE):
        return [joined]
    return [line for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def at_test_scale(text: str, limit: int, out: Path) -> str:
    """An evaluation block as a quick run: `--limit N` on every command that takes it, and its reports
    written under `out` instead of the project's `eval-out/`."""
    return LIMITED.sub(rf"\1 --limit {limit}", text).replace("eval-out/", f"{out}/")


def expanded(text: str, programs: dict[str, str]) -> list[list[str]]:
    """The commands a shell block runs, in order, as bash expands them from the project folder (variables,
    loops): each program written as a key of `programs` is recorded, not run, as `[name, *arguments]`."""
    recorder = f"__record() {{ {sys.executable} -c 'import json,sys; print(json.dumps(sys.argv[1:]))' \"$@\"; }}\n"
    for written, name in programs.items():
        text = text.replace(written, f"__record {name}")
    done = subprocess.run(
        ["bash", "-ec", recorder + text], cwd=PROJECT, capture_output=True, text=True, check=True, env=os.environ
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def table(heading: str, path: Path | None = None) -> list[dict[str, str]]:
    """The first Markdown table after `heading`, as rows keyed by its header cells (bold marks dropped)."""
    text = read(path)
    lines = text[text.index(heading) :].splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[first:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().replace("**", "") for cell in line.strip().strip("|").split("|")])
    header, body = rows[0], rows[2:]  # rows[1] is the |---| line
    return [dict(zip(header, row, strict=True)) for row in body]
