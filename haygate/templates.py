"""`haygate init DIR`: a new project, from one of this repository's own projects.

A template is a list of paths of the repository's top-level project (configs, pipelines, components and
samples): `minimal` is its documentation search alone, `full` the whole example. In a checkout (an editable
install) they are read from the repository itself; a built wheel carries a copy made at build time
(`setup.py` copies these very paths), so there is one source and no hand-kept copy. Nothing here imports
Haystack: `init` answers at command-line speed.
"""

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

PACKAGE = Path(__file__).resolve().parent
BUILT = PACKAGE / "project_templates"  # the wheel's copy, made by setup.py: one folder per template
CHECKOUT = PACKAGE.parent  # an editable install: the repository's own project
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".mypy_cache", ".ruff_cache")


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    paths: tuple[str, ...]  # of the repository's project, copied as they are
    own_components: bool  # the project gets the repository's components/ (else an empty package of its own)
    # declaration file -> its words for a project of one's own: the repository's tools describe the example's
    # corpora, which a new project's agents must not be told about. Types, bounds and schemas stay as copied.
    words: tuple[tuple[str, dict[str, Any]], ...] = ()


# The documentation search of a new project: nothing of the example's corpus (its sources, versions, queries).
# The examples fit the bundled samples, so `validate` finds them after `ingest --samples`; `haygate examples`
# draws new ones from a project's own files once they are ingested.
DOCS_TOOL_WORDS: dict[str, Any] = {
    "description": (
        "Hybrid (semantic and keyword) search over this project's documentation: Markdown files split at their "
        "headings, and records of sections. Returns the best matching sections, each with its title, text, "
        "source, section path, version and content type. Narrow it with source, section_path (a heading-path "
        "prefix), version and content_type."
    ),
    "parameters": {
        "query": {
            "description": "What to look for, in natural language or keywords.",
            "examples": ["how do I filter results by version", "install"],
        },
        "source": {
            "description": (
                "Only sections from this source: a Markdown file's front-matter `source`, else the name of the "
                "folder it was ingested from."
            ),
            "examples": ["haygate-docs"],
        },
        "section_path": {
            "description": (
                "Only sections under this heading path, matched as a prefix of the slugified path: "
                '"Getting Started" or "getting-started" matches "getting-started/install".'
            ),
            "examples": ["filters"],
        },
        "version": {
            "description": "Only sections of this documentation version (a Markdown file's front-matter `version`).",
            "examples": ["1.1"],
        },
    },
}


TEMPLATES = {
    "minimal": Template(
        "minimal",
        "one collection of Markdown (or JSONL) documentation and one hybrid search tool with filters",
        (
            "configs/collections/docs.yaml",
            "configs/tools/search_docs.yaml",
            "pipelines/indexing/docs.yaml",
            "pipelines/tools/search_docs.yaml",
            "pipelines/eval/search_docs_dbsf.yaml",
            "samples/docs",
        ),
        own_components=False,
        words=(("configs/tools/search_docs.yaml", DOCS_TOOL_WORDS),),
    ),
    "full": Template(
        "full",
        "the example project: the five spec tools (skills, extractions, full-text entities, docs, memories)",
        ("configs", "pipelines", "components", "samples"),
        own_components=True,
    ),
}

COMPONENTS_INIT = '''"""This project's own components: a pipeline names one as `components.<module>.<Class>`.

haygate's loader imports this package from the project folder for the project's pipelines, through the same
allow-list as haygate's and Haystack's own components (nothing else can be named in YAML). Of haygate, a
component imports `haygate.api` alone: the surface kept stable for project components.
"""
'''

GITIGNORE = """# haygate: what a project makes as it runs
data/
eval-out/
__pycache__/
"""

README = """# {name}

A haygate project ({description}), made by `haygate init`.

```
configs/collections/   what each collection holds: record fields, payload indexes, text indexes
configs/tools/         one declaration per tool: its typed parameters and result schema
pipelines/indexing/    how records of a collection are split, embedded and written
pipelines/tools/       each tool's query pipeline (named after the tool)
pipelines/eval/        variants to compare with `haygate eval`
components/            this project's own Haystack components, named in YAML as components.<module>.<Class>
samples/               sample records: `haygate ingest --samples` indexes them
```

Run it from this folder (or pass `--home {folder}` from anywhere):

    haygate ingest --samples          # index the sample data into data/
    haygate validate                  # every check the server makes, on every tool
    haygate serve --http              # MCP at http://127.0.0.1:8000/mcp, REST at /api/tools/<name>, /docs

Your own data: `haygate ingest COLLECTION FILE...` (JSONL, CSV or Markdown). A new tool is a pipeline under
pipelines/tools/ and a declaration under configs/tools/: no Python.
"""


def source_root(template: Template) -> Path:
    """Where a template's paths are read: the wheel's copy, or the repository of an editable install."""
    return BUILT / template.name if BUILT.is_dir() else CHECKOUT


def copy_template(template: Template, source: Path, target: Path) -> None:
    """Copy a template's paths from `source` (the repository, or the wheel's copy) to `target`."""
    for relative in template.paths:
        origin, destination = source / relative, target / relative
        if origin.is_dir():
            shutil.copytree(origin, destination, ignore=IGNORED)
        else:
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, destination)


def reworded(path: Path, words: dict[str, Any]) -> None:
    """Rewrite a copied declaration's description and its parameters' descriptions and examples."""
    declaration = yaml.safe_load(path.read_text(encoding="utf-8"))
    declaration["description"] = words.get("description", declaration["description"])
    for name, changes in words.get("parameters", {}).items():
        declaration["parameters"][name].update(changes)
    header = "# A documentation search tool: its typed parameters and result schema (haygate validate checks it).\n"
    path.write_text(header + yaml.safe_dump(declaration, sort_keys=False, allow_unicode=True, width=110))


class TemplateError(Exception):
    """What `init` cannot do, said so that the user can act on it."""


def init_project(target: Path, template_name: str) -> list[str]:
    """Write a new project at `target` (an empty or new folder); the top-level entries it wrote."""
    template = TEMPLATES.get(template_name)
    if template is None:
        msg = f"unknown template '{template_name}'; choose one of {', '.join(TEMPLATES)}"
        raise TemplateError(msg)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        msg = f"{target} already exists and is not empty: `haygate init` writes a new project into an empty folder"
        raise TemplateError(msg)
    source = source_root(template)
    missing = [p for p in template.paths if not (source / p).exists()]
    if missing:
        msg = f"this haygate has no template files at {source} ({', '.join(missing)}); reinstall it"
        raise TemplateError(msg)
    target.mkdir(parents=True, exist_ok=True)
    copy_template(template, source, target)
    for relative, words in template.words:
        reworded(target / relative, words)
    if not template.own_components:
        (target / "components").mkdir(exist_ok=True)
        (target / "components" / "__init__.py").write_text(COMPONENTS_INIT)
    (target / "configs" / "tools").mkdir(parents=True, exist_ok=True)
    (target / ".gitignore").write_text(GITIGNORE)
    (target / "README.md").write_text(README.format(name=target.name, description=template.description, folder=target))
    return sorted(p.name + ("/" if p.is_dir() else "") for p in target.iterdir())
