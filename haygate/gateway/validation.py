"""`haygate validate`: every check a server makes on its configuration, made on the project's data without
swapping anything in, and the checks only it makes (a filter no record can match, the advice to take a
parameter out, with every line that goes with it).
"""

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from haygate.errors import (
    HaygateError,
    StoreInUseError,
)
from haygate.gateway import fixes
from haygate.gateway.catalog import load_catalog
from haygate.gateway.loader import LoadedPipeline, Loader
from haygate.gateway.runtime import Gateway, load_tools
from haygate.gateway.tool import REHEARSALS, collection_store

logger = logging.getLogger(__name__)

Removable = dict[tuple[str, str], list[fixes.Cut]]  # (tool, parameter) -> the lines that go with it


def filter_value_held(pipeline: LoadedPipeline, parameter: str, value: Any) -> tuple[bool, list[Any], str] | None:
    """Whether a record holds `value` of a filter parameter (as the pipeline's query builder turns it into a
    condition), with the values that field holds and its name; None when the parameter is no filter here."""
    from haygate.components.query_builder import QueryBuilder

    targets = pipeline.inputs.get(parameter) or []
    stores = [store for _, instance in pipeline.pipeline.walk() if (store := collection_store(instance)) is not None]
    for component, socket in targets:
        builder = pipeline.pipeline.get_component(component)
        if not isinstance(builder, QueryBuilder) or socket not in builder.filters or not stores:
            continue
        try:
            condition = builder.run(query="x", **{socket: value})["checks"].get(socket)
        except Exception:  # a value the builder refuses is the argument check's to report
            return None
        if condition is None:
            return None
        field_name = str(builder.filters[socket].get("field"))
        store = stores[0]
        held = store.count_documents(condition) > 0
        return held, [] if held else store.distinct_values(field_name), field_name
    return None


def unfilterable_parameters(gateway: Gateway, removable: Removable) -> list[str]:
    """Each filter parameter whose field its collection cannot filter on (no payload index): every call that
    sets it would be refused, so `validate` fails, saying how to fix it."""
    from haygate.components.query_builder import QueryBuilder

    names = {id(store): collection for collection, store in gateway.loader.stores().items()}
    problems = []
    for name, runtime in gateway.tools.items():
        pipeline = runtime.pipeline
        if pipeline is None:
            continue
        stores = [s for _, instance in pipeline.pipeline.walk() if (s := collection_store(instance)) is not None]
        if not stores:
            continue
        store = stores[0]
        for parameter in runtime.declaration.parameters:
            for component, socket in pipeline.inputs.get(parameter, []):
                builder = pipeline.pipeline.get_component(component)
                if not isinstance(builder, QueryBuilder) or socket not in builder.filters:
                    continue
                field_name = str(builder.filters[socket].get("field"))
                if field_name in store.filterable_fields:
                    continue
                collection = names.get(id(store), "?")
                indexed = ", ".join(sorted(f for f in store.filterable_fields if f.startswith("meta.")))
                problems.append(
                    f"tool '{name}': parameter '{parameter}' filters on {field_name}, which collection "
                    f"'{collection}' cannot filter on: add `{field_name}: keyword` under payload_indexes in "
                    f"configs/collections/{collection}.yaml (and give the records that field), filter "
                    f"'{parameter}' on one of {indexed} in {pipeline.path.name}, or "
                    f"{take_out(gateway, removable, name, parameter)}"
                )
    return problems


def take_out(gateway: Gateway, removable: Removable, tool: str, parameter: str) -> str:
    """The advice to take a parameter out, naming every line that goes with it (kept for `validate --fix`)."""
    runtime = gateway.tools[tool]
    assert runtime.pipeline is not None
    cuts = fixes.parameter_cuts(Path(runtime.declaration.source_file), runtime.pipeline.path, parameter)
    removable[(tool, parameter)] = cuts
    home = gateway.loader.settings.home
    return f"take the parameter out: {fixes.where(cuts, home)} (`haygate validate --fix` does it)"


def filter_hint_warnings(gateway: Gateway, removable: Removable) -> list[str]:
    """Each declared example of a filter parameter that names a value no record holds: an agent reading the
    tool's schema would be told to filter by it, and find nothing."""
    warnings = []
    for name, runtime in gateway.tools.items():
        if runtime.pipeline is None:
            continue
        for parameter, spec in runtime.declaration.parameters.items():
            if spec.enum is not None or spec.item_enum is not None:
                continue  # its values are the declaration's own (the tool may take other spellings of them)
            for value in spec.examples:
                held = filter_value_held(runtime.pipeline, parameter, value)
                if held is None or held[0]:
                    continue
                if not held[1]:
                    warnings.append(
                        f"tool '{name}': parameter '{parameter}' filters on {held[2]}, which no record has (its "
                        f"example {value!r} finds nothing): give the records that field (a Markdown file's front "
                        f"matter), or {take_out(gateway, removable, name, parameter)}"
                    )
                    break
                values = ", ".join(repr(v) for v in held[1][:5]) + (", ..." if len(held[1]) > 5 else "")
                warnings.append(
                    f"tool '{name}': example {value!r} of parameter '{parameter}' is a value no record holds "
                    f"({held[2]}: {values}); an agent told to filter by it finds nothing (`haygate examples` "
                    "draws examples from the data)"
                )
    return warnings


@dataclass
class Validation:
    """What `haygate validate` found: the tools that passed every check (by declaration file), those a check
    could not be made for (and why), the problems, and the warnings (examples that find nothing)."""

    tools: dict[str, str]
    unchecked: dict[str, str]  # tool -> the checks not made, and why
    hidden: dict[str, str]  # tool -> why this server would not serve it
    problems: list[str]
    warnings: list[str]
    # {tool, parameter, declaration, pipeline}: each parameter a check advises taking out, and its two files
    removable: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "tools": self.tools,
            "unchecked": self.unchecked,
            "hidden": self.hidden,
            "problems": self.problems,
            "warnings": self.warnings,
            "removable": self.removable,
        }


def validate(loader: Loader, files: list[Path] | None = None, empty: bool = False) -> Validation:
    """Every check a server makes on its configuration, on `loader`'s data: each collection's schema and
    indexing pipeline built, each declaration's pipeline built against it, its models loaded, its examples
    called and their results held to its output schema and the collection's fields; and the warnings
    (examples that find nothing, filter examples no record holds). `empty`: the data holds nothing (a scratch
    data dir), so what the examples find was not checked, and the tools say so instead of passing."""
    settings = loader.settings
    collection_problems = []
    for path in sorted(settings.collections_dir.glob("*.yaml")) if not files else []:
        try:
            loader.collection(path.stem)
        except StoreInUseError:
            raise
        except HaygateError as error:
            collection_problems.append(error.message)
    removable: Removable = {}
    runtimes, problems = load_tools(loader, files, include_hidden=True)
    gateway = Gateway(runtimes, loader, problems)
    try:
        gateway.warm_up(strict=False, optimize=False, examples=REHEARSALS)  # checks only: the data stays as it is
        warnings = [] if empty else [*gateway.warnings, *filter_hint_warnings(gateway, removable)]
    finally:
        gateway.writer.close()
    files_of = {name: str(runtime.declaration.source_file) for name, runtime in gateway.tools.items()}
    unchecked = (
        {
            name: "whether its examples find anything, and whether its result fields hold values: no collection "
            "holds data yet (`haygate ingest`, then validate again)"
            for name, runtime in gateway.tools.items()
            if runtime.pipeline is not None
        }
        if empty
        else {}
    )
    hidden = load_catalog(settings, files).hidden
    return Validation(
        {n: f for n, f in files_of.items() if n not in unchecked},
        unchecked,
        {n: reason for n, reason in hidden.items() if n in files_of},
        [*gateway.problems, *collection_problems, *unfilterable_parameters(gateway, removable)],
        warnings,
        [
            {
                "tool": tool,
                "parameter": parameter,
                "declaration": str(gateway.tools[tool].declaration.source_file),
                "pipeline": str(getattr(gateway.tools[tool].pipeline, "path", "")),
            }
            for tool, parameter in removable
        ],
    )
