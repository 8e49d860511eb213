"""What a project tells an agent before it calls anything: the MCP `initialize` instructions, and the name
and outline its skill shares with them.

Built from YAML alone (the declarations, each tool's pipeline file and the collections' files), with neither
Haystack nor a model, so a starting server has them for its first `initialize`. The instructions are short:
a client puts them in the model's context on every turn, and the skill (`skill://<name>/SKILL.md`) holds the
rest.
"""

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from haygate import yamlfile
from haygate.gateway.declarations import ToolDeclaration

SKILL_NAME_LENGTH = 64  # the Agent Skills limit on a skill's name
LINE_LENGTH = 160  # characters of one tool's or collection's line in the instructions
DEFAULT_NAME = "haygate"


def skill_name(folder: str, configured: str | None = None) -> str:
    """The project's skill name: the configured one, else the project folder's, as Agent Skills spell names
    (lower-case letters, digits and single hyphens, at most 64): "My Docs_2" is "my-docs-2"."""
    words = re.findall(r"[a-z0-9]+", (configured or folder).lower())
    name = "-".join(words)[:SKILL_NAME_LENGTH].strip("-")
    return name or DEFAULT_NAME


def first_sentence(text: str, limit: int = LINE_LENGTH) -> str:
    """The first sentence of a description, on one line, cut at a word near `limit` characters."""
    flat = " ".join(text.split())
    match = re.match(r"(.+?[.!?])(\s|$)", flat)
    sentence = match.group(1) if match else flat
    if len(sentence) <= limit:
        return sentence
    cut = sentence[: limit - 1]
    if sentence[limit - 1] != " ":  # not at a word's end: drop the part-word
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(",;: ") + "…"


def tool_collections(pipelines_dir: Path, declarations: Mapping[str, ToolDeclaration]) -> dict[str, list[str]]:
    """The collections each tool reads or writes, from its pipeline file's `collection` keys (a write action
    names none: it takes the collection as an argument). A file that does not parse names none."""
    found: dict[str, list[str]] = {}
    for name, declaration in declarations.items():
        if declaration.action is not None:
            found[name] = []
            continue
        try:
            pipeline = yamlfile.safe_load((pipelines_dir / declaration.pipeline_file).read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            pipeline = None
        found[name] = sorted(set(_collection_values(pipeline)))
    return found


def _collection_values(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "collection" and isinstance(value, str):
                yield value
            else:
                yield from _collection_values(value)
    elif isinstance(node, list):
        for item in node:
            yield from _collection_values(item)


def collection_descriptions(collections_dir: Path, names: list[str]) -> dict[str, str]:
    """Each named collection's `description`, from its file (empty when it has none)."""
    described = {}
    for name in names:
        try:
            config = yamlfile.safe_load((collections_dir / f"{name}.yaml").read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError):
            config = None
        description = config.get("description") if isinstance(config, dict) else None
        described[name] = str(description or "")
    return described


@dataclass(frozen=True)
class Outline:
    """What a project's YAML says of the tools it serves: the project's name, the collections each tool reads,
    and what each of those collections holds."""

    name: str
    collections: dict[str, list[str]]  # tool -> the collections it reads
    descriptions: dict[str, str]  # collection -> its description

    @property
    def read(self) -> list[str]:
        return sorted({c for names in self.collections.values() for c in names})


def outline(
    name: str, pipelines_dir: Path, collections_dir: Path, declarations: Mapping[str, ToolDeclaration]
) -> Outline:
    collections = tool_collections(pipelines_dir, declarations)
    read = sorted({c for names in collections.values() for c in names})
    return Outline(name, collections, collection_descriptions(collections_dir, read))


def instructions(project: Outline, declarations: Mapping[str, ToolDeclaration]) -> str:
    """The server's instructions: what it is for, each tool in one line (with the collections it reads), each
    collection in one line, and where the skill is."""
    name, collections, descriptions = project.name, project.collections, project.descriptions
    lines = [
        f"Retrieval tools over the '{name}' project's own collections (haygate). Before the first call, read "
        f"the skill skill://{name}/SKILL.md: which tool to use when, the filter values the data holds, calls "
        "that find something, paging, and how to read a result's scores.",
        "",
        "Tools:",
    ]
    for tool, declaration in sorted(declarations.items()):
        reads = collections.get(tool) or []
        where = f" [{', '.join(reads)}]" if reads else ""
        lines.append(f"- {tool}{where}: {first_sentence(declaration.description)}")
    if project.read:
        lines += ["", "Collections:"]
        lines += [f"- {c}: {first_sentence(descriptions.get(c) or '') or '(no description)'}" for c in project.read]
    return "\n".join(lines)
