"""Advice that is whole: taking a tool's parameter out means its declaration, its pipeline input and the filter it
fed, in two files. Each is found by its line here, so a check names every line that must go (`where`), and
`haygate validate --fix` shows the same cut as a diff and makes it (`cut`)."""

from dataclasses import dataclass
from pathlib import Path

import yaml

from haygate import yamlfile
from haygate.yamlfile import Location, SafeLoader


@dataclass(frozen=True)
class Cut:
    """Lines `first` to `last` (1-based, inclusive) of `path`, and what they hold."""

    path: Path
    first: int
    last: int
    what: str

    def named(self, home: Path | None = None) -> str:
        shown = self.path.relative_to(home) if home is not None and self.path.is_relative_to(home) else self.path
        lines = f"{self.first}" if self.first == self.last else f"{self.first}-{self.last}"
        return f"{shown}:{lines} ({self.what})"


def span_of(text: str, location: Location) -> tuple[int, int] | None:
    """The first and last line (1-based) of the entry at `location` (a key and its whole value) in YAML `text`;
    None when it is not all there."""
    found = yamlfile.path_to(text, location)
    if not found or len(found) != len(location):
        return None
    key, node = found[-1]
    return key.start_mark.line + 1, max(key.start_mark.line + 1, last_line(node))


def last_line(node: yaml.Node) -> int:
    """The 1-based line a node's own text ends on: a block collection's last item's (its end mark is already
    the next key's start), a scalar's or a flow collection's closing."""
    if isinstance(node, yaml.CollectionNode) and not node.flow_style and node.value:
        last = node.value[-1]
        return last_line(last[1] if isinstance(last, tuple) else last)
    end = node.end_mark
    return end.line if end.column == 0 else end.line + 1


def parameter_cuts(declaration: Path, pipeline: Path, parameter: str) -> list[Cut]:
    """Every entry that goes with `parameter`: its declaration, its pipeline inputs and the filter each fed."""
    cuts = []
    declared = declaration.read_text(encoding="utf-8")
    if (span := span_of(declared, ("parameters", parameter))) is not None:
        cuts.append(Cut(declaration, *span, "the parameter"))
    text = pipeline.read_text(encoding="utf-8")
    if (span := span_of(text, ("inputs", parameter))) is not None:
        cuts.append(Cut(pipeline, *span, "its pipeline input"))
    try:
        inputs = (yaml.load(text, Loader=SafeLoader) or {}).get("inputs") or {}
    except (yaml.YAMLError, AttributeError):
        inputs = {}
    targets = inputs.get(parameter) or []
    for target in [targets] if isinstance(targets, str) else targets:
        component, _, socket = str(target).partition(".")
        where = ("components", component, "init_parameters", "filters", socket)
        if (span := span_of(text, where)) is not None:
            cuts.append(Cut(pipeline, *span, "the filter it fed"))
    return cuts


def where(cuts: list[Cut], home: Path | None = None) -> str:
    return ", ".join(cut.named(home) for cut in cuts)


def cut(cuts: list[Cut]) -> dict[Path, tuple[str, str]]:
    """Each file the cuts touch: its text before and after them."""
    changed = {}
    for path in dict.fromkeys(c.path for c in cuts):
        before = path.read_text(encoding="utf-8")
        lines = before.splitlines(keepends=True)
        gone = {n for c in cuts if c.path == path for n in range(c.first, c.last + 1)}
        changed[path] = (before, "".join(line for n, line in enumerate(lines, 1) if n not in gone))
    return changed
