"""Code includes: the files a documentation page shows but does not hold, read in at ingest as the site's
build reads them in, so an agent sees the code the reader sees.

Three syntaxes: pymdownx.snippets (`--8<-- "path"`, `"path:3:8"`, `"path:name"` for a `[start:name]` section;
on its own line, as a block of lines, or inside a code fence), MyST's `{literalinclude}` and `{include}`
directives (`:lines:`, `:start-after:`, `:end-before:`, `:language:`), and a project's own, declared in its
collection's YAML as a regular expression with a `path` group and optionally a `lines` group (FastAPI's
`{* ../../docs_src/app.py ln[3:8] hl[5] *}`). A path is tried against the page's folder, then each declared
base, and is read only when it lies inside the folder being ingested; one that cannot be read is dropped and
counted, never guessed.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

SNIPPET = re.compile(r"^\s*(?<!;)--8<--\s*(?:\"([^\"]*)\"|'([^']*)'|(\S+))?\s*$")  # `--8<-- "path"` alone
_SECTION_MARK = re.compile(r"--8<--\s*\[(start|end):([\w-]+)\]")
_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "jsx",
    ".ts": "typescript",
    ".tsx": "tsx",
    ".sh": "bash",
    ".bash": "bash",
    ".yml": "yaml",
    ".yaml": "yaml",
    ".json": "json",
    ".toml": "toml",
    ".ini": "ini",
    ".cfg": "ini",
    ".html": "html",
    ".css": "css",
    ".sql": "sql",
    ".rs": "rust",
    ".go": "go",
    ".java": "java",
    ".c": "c",
    ".h": "c",
    ".cpp": "cpp",
    ".rb": "ruby",
    ".txt": "text",
}
MARKDOWN = (".md", ".markdown", ".mdx")


def language_of(path: str) -> str:
    """The fence language a site gives a file of this name: its suffix's ('app.py' -> 'python')."""
    suffix = Path(path).suffix.lower()
    return _LANGUAGES.get(suffix, suffix.lstrip("."))


def line_ranges(spec: str) -> list[tuple[int, int | None]]:
    """'3-8,10', '3:8', '5:' as 1-based inclusive ranges (None: to the end). Anything else: no ranges."""
    ranges: list[tuple[int, int | None]] = []
    for part in filter(None, (p.strip() for p in spec.split(","))):
        found = re.fullmatch(r"(\d*)\s*[-:]\s*(\d*)|(\d+)", part)
        if not found:
            return []
        if found.group(3):
            ranges.append((int(found.group(3)), int(found.group(3))))
        else:
            start, end = found.group(1), found.group(2)
            ranges.append((int(start) if start else 1, int(end) if end else None))
    return ranges


def select(text: str, ranges: Sequence[tuple[int, int | None]] = (), section: str | None = None) -> str | None:
    """The lines of `text` a range list or a snippet section names (all of it for neither); None: the section
    is not in the file. Snippet section marks (`# --8<-- [start:name]`) never show."""
    lines = text.splitlines()
    if section is not None:
        start = next(
            (i for i, line in enumerate(lines) if _SECTION_MARK.search(line) and f"start:{section}]" in line), None
        )
        if start is None:
            return None
        end = next((i for i in range(start + 1, len(lines)) if f"end:{section}]" in lines[i]), len(lines))
        lines = lines[start + 1 : end]
    if ranges:
        lines = [line for first, last in ranges for line in lines[first - 1 : last]]
    return "\n".join(line for line in lines if not _SECTION_MARK.search(line))


@dataclass
class Includes:
    """Reads one page's includes within `root` (the folder being ingested), tallying what it read and what it
    could not. No root (a page uploaded alone): nothing can be read, and every include counts as missing."""

    root: Path | None
    here: Path | None  # the page's own folder
    bases: tuple[Path, ...] = ()  # declared bases, already resolved against the root
    patterns: tuple[re.Pattern[str], ...] = ()  # the project's own include syntax
    resolved: list[str] = field(default_factory=list)  # paths inside the root, as read
    missing: list[str] = field(default_factory=list)  # includes as written, which could not be read
    depth: int = 0  # how deep in includes of includes this page is

    def file(self, target: str) -> Path | None:
        """The file `target` names, tried against the page's folder, then each base, then the root; only a
        file inside the root is ever returned."""
        if self.root is None or not target or target.startswith(("/", "~")):
            return None
        root = self.root.resolve()
        for folder in (self.here, *self.bases, self.root):
            if folder is None:
                continue
            candidate = (folder / target).resolve()
            if candidate.is_file() and candidate.is_relative_to(root):
                return candidate
        return None

    def read(
        self, target: str, ranges: Sequence[tuple[int, int | None]] = (), section: str | None = None
    ) -> str | None:
        """The text `target` names (its lines or section), recorded as resolved; None, recorded as missing."""
        path = self.file(target)
        text = None
        if path is not None and self.depth < 3:
            try:
                text = select(path.read_text(encoding="utf-8"), ranges, section)
            except (OSError, UnicodeDecodeError):
                text = None
        if text is None or path is None or self.root is None:
            self.missing.append(target)
            return None
        self.resolved.append(path.relative_to(self.root.resolve()).as_posix())
        return text

    def snippet(self, spec: str) -> tuple[str, str | None]:
        """A pymdownx.snippets target (`path`, `path:3:8`, `path:3`, `path:name`): (path, its text or None)."""
        path, _, rest = spec.strip().partition(":")
        if rest and re.fullmatch(r"[\d:,-]*", rest):
            ranges = []  # `3:8` lines 3 to 8, `3` from line 3 on, `:8` up to line 8; commas join ranges
            for start, _, end in (part.partition(":") for part in rest.split(",") if part):
                ranges.append((int(start) if start.isdigit() else 1, int(end) if end.isdigit() else None))
            return path, self.read(path, ranges)
        if rest:
            return path, self.read(path, section=rest)
        return path, self.read(path)

    def declared(self, line: str) -> tuple[str, str | None] | None:
        """A line in the project's own include syntax: (path, its text or None); None: the line is not one."""
        for pattern in self.patterns:
            found = pattern.fullmatch(line.strip())
            if found:
                groups = found.groupdict()
                ranges = line_ranges(groups.get("lines") or "")
                return groups["path"], self.read(groups["path"], ranges)
        return None

    def nested(self, target: str) -> "Includes":
        """The includes of a Markdown file this page includes: its own folder, one level deeper."""
        path = self.file(target)
        return Includes(
            self.root,
            path.parent if path else self.here,
            self.bases,
            self.patterns,
            self.resolved,
            self.missing,
            self.depth + 1,
        )
