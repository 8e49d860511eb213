"""The catalog: which declared tools this server serves, read from YAML alone.

It imports neither Haystack nor a model, so a starting server can answer `initialize` and `tools/list` at
once, while the pipelines load in the background. With the loader it is the only reader of `Settings`:
the loader builds what the catalog lists.
"""

import logging
from dataclasses import dataclass, field
from pathlib import Path

from haygate.errors import ConfigurationError
from haygate.gateway.declarations import ToolDeclaration, load_declarations
from haygate.settings import Settings

logger = logging.getLogger(__name__)


@dataclass
class Catalog:
    """Every valid declaration by name, the ones this server hides (and why), and every problem found."""

    declarations: dict[str, ToolDeclaration] = field(default_factory=dict)
    hidden: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def served(self) -> dict[str, ToolDeclaration]:
        return {name: d for name, d in self.declarations.items() if name not in self.hidden}


def hidden_because(declaration: ToolDeclaration, settings: Settings) -> str | None:
    """Why this server does not serve a tool, or None when it does. One rule for every caller."""
    if not settings.exposes(declaration.tier):
        return f"tier '{declaration.tier}' is above this server's HAYGATE_TIER '{settings.tier}'"
    if declaration.tenant_field and not settings.project_id:
        return f"it is tenant-scoped ({declaration.tenant_field}); set HAYGATE_PROJECT_ID"
    return None


def load_catalog(settings: Settings, files: list[Path] | None = None) -> Catalog:
    """Every declaration in `configs/tools/` (or `files`), checked; a bad file is a problem, not a stop."""
    catalog = Catalog()
    for path in files if files is not None else sorted(settings.tools_dir.glob("*.yaml")):
        try:
            declarations = load_declarations(path)
        except ConfigurationError as error:
            catalog.problems.append(error.message)
            continue
        for declaration in declarations:
            if declaration.name in catalog.declarations:
                catalog.problems.append(f"{path}: tool name '{declaration.name}' is declared twice")
                continue
            catalog.declarations[declaration.name] = declaration
            reason = hidden_because(declaration, settings)
            if reason is not None:
                catalog.hidden[declaration.name] = reason
    return catalog
