"""The Reference pages of the documentation site, rendered from the code so that they cannot drift from it.

`docs/gen_reference.py` writes each page of `PAGES` when the site builds (mkdocs-gen-files), and
`tests/project/test_reference_pages.py` renders them without building it. Every table is read off the code: the
argparse parser, `Settings`, the pydantic models of the YAML files, the error classes and the component
classes, so a new option, setting, key, error or component appears here with no prose to edit. The hand-kept
tables are the few things the code holds as behaviour rather than data (a pipeline file's keys, which Haystack
and the loader read from a plain dict; what each exit code means); the tests hold them to the code.
"""

import haygate._env  # noqa: F401  (offline defaults before anything imports Haystack)

# isort: split
import argparse
import ast
import builtins
import importlib
import inspect
import json
import pkgutil
import re
import types
import typing
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

if TYPE_CHECKING:
    from haygate.errors import HaygateError

PROJECT = Path(__file__).resolve().parent.parent

# -- Markdown ----------------------------------------------------------------------------------------------

_CODE_SPAN = re.compile(r"(`[^`\n]+`)")
_ESCAPES = str.maketrans(
    {"\\": "\\\\", "*": r"\*", "_": r"\_", "[": r"\[", "]": r"\]", "|": r"\|", "&": "&amp;", "<": "&lt;", ">": "&gt;"}
)


def text(value: str | None) -> str:
    """Prose from a docstring or help text, safe in a table cell: on one line, its code spans kept as written and
    everything else escaped (help texts hold `<split>`, `*.yaml` and `[...]`, which Markdown would eat)."""
    parts = _CODE_SPAN.split(" ".join((value or "").split()))
    return "".join(part if index % 2 else part.translate(_ESCAPES) for index, part in enumerate(parts))


def code(value: str) -> str:
    """A code span that holds any text (a backtick in it widens the fence)."""
    fence = "``" if "`" in value else "`"
    return f"{fence}{value}{fence}" if fence == "`" else f"{fence} {value} {fence}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table; an empty cell reads as a dash."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell or "—" for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def paragraphs(doc: str | None) -> list[str]:
    """A docstring's paragraphs, each on one line."""
    return [" ".join(block.split()) for block in inspect.cleandoc(doc or "").split("\n\n") if block.strip()]


def first_sentence(doc: str | None) -> str:
    """The first sentence of a docstring's first paragraph: a summary line for an index."""
    first = next(iter(paragraphs(doc)), "")
    return re.split(r"(?<=[.!?])\s", first, maxsplit=1)[0]


# -- types and values --------------------------------------------------------------------------------------

_SIMPLE: dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    Path: "path",
    Any: "any",
    type(None): "null",
    dict: "mapping",
    list: "list",
}


def type_name(annotation: Any) -> str:
    """A Python annotation as a YAML or environment reader thinks of it: `list[string]`, `string | null`."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation in _SIMPLE:
        return _SIMPLE[annotation]
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(arg) for arg in args)
    if origin is typing.Literal:
        return " | ".join(json.dumps(arg) for arg in args)
    if origin in (list, tuple, set, frozenset):
        return f"list[{type_name(args[0]) if args else 'any'}]"
    if origin is dict:
        return f"mapping[{type_name(args[0])}, {type_name(args[1])}]" if args else "mapping"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "mapping"
    return getattr(annotation, "__name__", str(annotation))


def value_text(value: Any) -> str:
    """A default as YAML or JSON spells it (`null`, `true`, `"public"`), never a path of the machine that
    renders it."""
    if isinstance(value, Path) and value.is_absolute():
        return "see description"
    return code(json.dumps(value, default=str))


def field_default(field: FieldInfo) -> str:
    """What a field is when a file or the environment leaves it out: required, its value, or what its
    description says (a factory that looks at the machine, such as `Path.cwd`, is only a placeholder)."""
    if field.is_required():
        return "required"
    factory = field.default_factory
    if factory is None:
        return value_text(field.default)
    if factory in (list, dict, tuple, set, frozenset):
        return value_text(factory())  # type: ignore[call-arg]
    if isinstance(factory, type) and issubclass(factory, BaseModel):
        return "all defaults"
    return "see description"


_CONSTRAINTS = {
    "min_length": "at least {} {}",
    "max_length": "at most {} {}",
    "ge": "at least {}",
    "gt": "more than {}",
    "le": "at most {}",
    "lt": "less than {}",
}


def constraints(field: FieldInfo) -> str:
    """A field's declared bounds and pattern, as a sentence to follow its description."""
    unit = "characters" if field.annotation is str else "items"
    said = []
    for item in field.metadata:
        for attribute, words in _CONSTRAINTS.items():
            if getattr(item, attribute, None) is not None:
                bound = getattr(item, attribute)
                said.append(words.format(bound, unit.removesuffix("s") if bound == 1 else unit))
        if getattr(item, "pattern", None):
            said.append(f"matches {code(item.pattern)}")
    if not said:
        return ""
    sentence = "; ".join(said)
    return f" {sentence[:1].upper()}{sentence[1:]}."


def models_in(annotation: Any) -> Iterator[tuple[type[BaseModel], str]]:
    """The pydantic models inside an annotation, each with the YAML path suffix that reaches it from the field
    (`.<name>` through a mapping's values, `[]` through a list's items)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation, ""
    elif origin is dict and args:
        yield from ((model, ".<name>" + rest) for model, rest in models_in(args[1]))
    elif origin in (list, tuple, set, frozenset) and args:
        yield from ((model, "[]" + rest) for model, rest in models_in(args[0]))
    else:
        for arg in args:
            yield from models_in(arg)


# -- YAML --------------------------------------------------------------------------------------------------


def slug(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", value.lower()).strip("-")


def model_sections(model: type[BaseModel], path: str, anchor: str, title: str, level: int = 3) -> list[str]:
    """A model's keys as a table, then a section per model nested in it (found through the annotations, so
    a new nested model gets its section with no edit here)."""
    nested: list[tuple[type[BaseModel], str]] = []
    rows = []
    for name, field in model.model_fields.items():
        key = field.alias or name
        description = text(field.description) + constraints(field)
        for inner, suffix in models_in(field.annotation):
            inner_path = f"{path}.{key}{suffix}" if path else f"{key}{suffix}"
            nested.append((inner, inner_path))
            description += f" Keys: [{code(inner_path)}](#{slug(anchor + '-' + inner_path)})."
        rows.append((code(key), code(type_name(field.annotation)), field_default(field), description.strip()))
    own_doc = model.__dict__.get("__doc__")
    lines = [f"{'#' * level} {title} {{#{slug(anchor + '-' + path) if path else anchor}}}", ""]
    if own_doc:
        lines += [text(" ".join(paragraphs(own_doc))), ""]
    lines += [table(("Key", "Type", "Default", "Description"), rows), ""]
    for inner, inner_path in nested:
        lines += model_sections(inner, inner_path, anchor, code(inner_path), level)
    return lines


@dataclass(frozen=True)
class Key:
    """One key of a YAML mapping that no pydantic model describes (its description is Markdown, on one line)."""

    name: str
    type: str
    default: str
    description: str


# A pipeline file is Haystack's own serialisation (`Pipeline.to_dict()`), read as a plain dict by the loader,
# which takes `inputs:` and `outputs:` (`INTERFACE_KEYS`) off it first. Defaults of Haystack's keys are read
# from an empty `Pipeline().to_dict()` when the page renders; the unit tests hold this table to both.
PIPELINE_KEYS: tuple[Key, ...] = (
    Key(
        "components",
        "mapping[string, mapping]",
        "required",
        "The pipeline's components by name, each a `type:` and its `init_parameters:` ([below](#pipeline-components)).",
    ),
    Key(
        "connections",
        "list[mapping]",
        "[]",
        "The edges, each `{sender: component.socket, receiver: component.socket}`.",
    ),
    Key(
        "inputs",
        "mapping[string, string | list[string]]",
        "derived",
        "haygate's named inputs, each feeding one `component.socket` or a list of them; a tool's parameters "
        "and `fixed_arguments` bind to these names. With neither `inputs:` nor `outputs:` (as `Pipeline.dumps()` "
        "writes a pipeline), every open socket is an input named by its socket, and sockets with defaults are "
        "optional.",
    ),
    Key(
        "outputs",
        "mapping[string, string]",
        "derived",
        "haygate's named outputs, each one `component.socket`; a tool's `output` names one. Derived: each leaf "
        "socket, named by the socket (or `component.socket` where two components leave one name open).",
    ),
    Key("metadata", "mapping", "", "Free-form metadata Haystack keeps on the pipeline."),
    Key(
        "max_runs_per_component",
        "integer",
        "",
        "How many times one component may run in one pipeline run (a loop stops there).",
    ),
    Key(
        "connection_type_validation",
        "boolean",
        "",
        "Check at load time that each connection joins sockets of compatible types.",
    ),
)
COMPONENT_KEYS: tuple[Key, ...] = (
    Key(
        "type",
        "string",
        "required",
        "The component class's dotted path; only `haystack`, `haystack_integrations`, `haygate` and the project's "
        "own `components` package are allowed (see [Components](components.md)).",
    ),
    Key("init_parameters", "mapping", "{}", "The arguments of the class's `__init__`."),
)


def pipeline_defaults() -> dict[str, Any]:
    """What Haystack writes for a pipeline that sets nothing."""
    from haystack import Pipeline

    return Pipeline().to_dict()


def resolved_parameters() -> list[tuple[str, str]]:
    """The init parameters the loader turns into something else before Haystack builds the component."""
    from haygate.gateway import loader

    return [
        (
            code(f"{loader.STORE_PARAMETER}: {{collection: NAME}}"),
            "The collection's document store, one per collection and loader (embedded Qdrant Edge, or the Qdrant "
            "server of `HAYGATE_QDRANT_URL`). A serialised `QdrantDocumentStore` whose `index` is NAME works too.",
        ),
        (
            "any parameter typed `Path`",
            "A relative path is resolved against the project home; the file's text joins the pipeline's fingerprint.",
        ),
        (
            code("model") + " of a Haystack component",
            "A model name resolved offline: the packaged MiniLM, a local path, or the Hugging Face cache.",
        ),
        (
            code(loader.MODEL_CACHE_PARAMETER),
            "Left unset, the deployment's model folder (`HAYGATE_MODEL_CACHE_DIR`, default <data_dir>/.models).",
        ),
    ]


def key_rows(keys: tuple[Key, ...], defaults: dict[str, Any] | None = None) -> list[tuple[str, str, str, str]]:
    defaults = defaults or {}
    rows = []
    for key in keys:
        default = value_text(defaults[key.name]) if key.name in defaults and not key.default else key.default
        if default and default not in ("required", "derived") and not default.startswith("`"):
            default = code(default)
        rows.append((code(key.name), code(key.type), default, key.description))  # Markdown, written here
    return rows


def yaml_page() -> str:
    """Every key of a tool declaration, a collection schema, a pipeline file and a judged set's eval.yaml."""
    from haygate.gateway import declarations, judged_sets, loader
    from haygate.ingest import schema

    header = ("Key", "Type", "Default", "Description")
    lines = [
        "# YAML",
        "",
        "Every key haygate reads from a project's YAML files: tool declarations (`configs/tools/`), collection "
        "schemas (`configs/collections/`), pipelines (`pipelines/`) and judged sets (`evaluation/<set>/eval.yaml`). "
        "This page is generated from the models that validate them; an unknown key is refused, naming the file.",
        "",
        "## Tool declarations {#tool-declarations}",
        "",
        text(paragraphs(declarations.__doc__)[0]),
        "",
        text(first_sentence(declarations.load_declarations.__doc__))
        + " haygate refuses a declaration at load time, naming its file and the failing key, when it breaks any "
        "rule below.",
        "",
    ]
    lines += model_sections(declarations.ToolDeclaration, "", "tool", "Tool keys")
    lines += ["## Collections {#collections}", "", text(paragraphs(schema.__doc__)[0]), ""]
    lines += model_sections(schema.CollectionSchema, "", "collection", "Collection keys")
    lines += [
        "## Pipelines {#pipelines}",
        "",
        "A pipeline file is Haystack's own YAML (what `Pipeline.dumps()` writes), plus haygate's "
        f"{' and '.join(code(key + ':') for key in loader.INTERFACE_KEYS)}, which name the interface a tool binds "
        "to.",
        "",
        "### Pipeline keys {#pipeline-keys}",
        "",
        table(header, key_rows(PIPELINE_KEYS, pipeline_defaults())),
        "",
        "### `components.<name>` {#pipeline-components}",
        "",
        table(header, key_rows(COMPONENT_KEYS)),
        "",
        "### Init parameters the loader resolves {#pipeline-resolved-parameters}",
        "",
        table(("Parameter", "What the component gets"), [(name, text(what)) for name, what in resolved_parameters()]),
        "",
        "## Judged sets {#judged-sets}",
        "",
        *[text(paragraph) + "\n" for paragraph in paragraphs(judged_sets.__doc__)],
    ]
    lines += model_sections(judged_sets.JudgedSetSpec, "", "judged-set", "`eval.yaml` keys")
    return "\n".join(lines)


# -- settings ----------------------------------------------------------------------------------------------


def environment_name(name: str, field: FieldInfo) -> str:
    """The variable pydantic-settings reads for a field (it matches names without regard to case)."""
    from haygate.settings import Settings

    return (field.alias or str(Settings.model_config.get("env_prefix", "")) + name).upper()


def cli_options() -> dict[str, list[str]]:
    """Settings field name -> the command-line options that set it (an option whose dest is the field's name)."""
    options: dict[str, list[str]] = {}
    for command, (parser, _) in command_leaves(cli_parser()).items():
        for action in parser._actions:
            if action.option_strings:
                options.setdefault(action.dest, []).append(f"haygate {command} {action.option_strings[-1]}")
    return options


def settings_page() -> str:
    """Every `HAYGATE_*` variable: its type, default and meaning."""
    from pydantic_settings import NoDecode

    from haygate import settings

    options = cli_options()
    commands = list(command_leaves(cli_parser()))
    rows = []
    for name, field in settings.Settings.model_fields.items():
        kind = type_name(field.annotation)
        if NoDecode in field.metadata:
            kind += ", comma-separated"
        description = text(field.description) + constraints(field)
        given = options.get(name, [])
        if given:
            flag = given[0].split()[-1]
            taking = [command for command in commands if f"haygate {command} {flag}" in given]
            others = [command for command in commands if command not in taking]
            which = (
                f"every command but {', '.join(code('haygate ' + c) for c in others)}"
                if len(others) < len(taking)
                else ", ".join(code("haygate " + c) for c in taking)
            )
            description += f" The {code(flag)} option of {which} wins."
        rows.append((code(environment_name(name, field)), code(kind), field_default(field), description))
    lines = [
        "# Settings",
        "",
        text(" ".join(paragraphs(settings.__doc__)[:1])) + " " + text(first_sentence(settings.Settings.__doc__)),
        "",
        "Each setting is an environment variable, matched without regard to case; a boolean is `true` or `false` "
        "(`1`, `0`, `yes`, `no` too), a list is comma-separated. A variable that is not set keeps the default. "
        "A `HAYGATE_` variable close to a setting's name but not one (`HAYGATE_TOKN`) is refused with the name "
        "it most likely meant, rather than leaving that setting at its default. "
        "This table is generated from `haygate.settings.Settings`.",
        "",
        table(("Variable", "Type", "Default", "Description"), rows),
        "",
    ]
    return "\n".join(lines)


# -- command line ------------------------------------------------------------------------------------------


def cli_parser() -> argparse.ArgumentParser:
    from haygate.cli import build_parser

    return build_parser()


def cli_commands(parser: argparse.ArgumentParser | None = None) -> dict[str, tuple[argparse.ArgumentParser, str]]:
    """Each command's parser and one-line help, in the parser's order."""
    parser = parser or cli_parser()
    [subparsers] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {choice.dest: choice.help or "" for choice in subparsers._choices_actions}
    return {name: (sub, helps.get(name, "")) for name, sub in subparsers.choices.items()}


def has_commands(parser: argparse.ArgumentParser) -> bool:
    """A command group (`haygate judged`): its commands come after its name."""
    return any(isinstance(action, argparse._SubParsersAction) for action in parser._actions)


def command_leaves(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, tuple[argparse.ArgumentParser, str]]:
    """Every command that runs, by its whole name (`judged import trec`), in the parser's order."""
    found: dict[str, tuple[argparse.ArgumentParser, str]] = {}
    for name, (sub, help_) in cli_commands(parser).items():
        if has_commands(sub):
            found.update(command_leaves(sub, f"{prefix}{name} "))
        else:
            found[prefix + name] = (sub, help_)
    return found


_ARGPARSE_TYPES: dict[Any, str] = {None: "string", str: "string", int: "integer", float: "number", Path: "path"}


def _value(action: argparse.Action) -> str:
    """What an argument takes: a flag, a choice, or a typed value, and how many."""
    if action.nargs == 0:
        return "flag"
    if action.choices is not None:
        kind = "one of " + ", ".join(code(str(choice)) for choice in action.choices)
    elif action.type in _ARGPARSE_TYPES:
        kind = _ARGPARSE_TYPES[action.type]
    else:  # a function of haygate.cli: its docstring says what it takes ("An argparse type: a whole number ...")
        kind = text(first_sentence(action.type.__doc__).split(":", 1)[-1].strip().rstrip("."))  # type: ignore[union-attr]
    counts = {"?": "optional", "*": "any number", "+": "one or more"}
    if isinstance(action, argparse._AppendAction):
        return f"{kind}, repeatable"
    return f"{kind}, {counts[str(action.nargs)]}" if action.nargs in counts else kind


def _default(action: argparse.Action) -> str:
    """Required, or the value an argument left out takes (argparse marks a `*` positional required, though it
    may be left out)."""
    if (action.option_strings and action.required) or (not action.option_strings and action.nargs in (None, "+")):
        return "required"
    if isinstance(action, argparse._SubParsersAction):  # a command group's command
        return "required"
    if action.nargs == 0 or action.default in (None, [], argparse.SUPPRESS):
        return ""
    return code(str(action.default))


def _invocation(action: argparse.Action) -> str:
    """How an argument is written: a positional by its name (argparse would show a choice set), an option by its
    flags and the value it takes."""
    if not action.option_strings:
        return str(action.metavar or action.dest)
    flags = ", ".join(action.option_strings)
    return flags if action.nargs == 0 else f"{flags} {action.metavar or action.dest.upper()}"


def arguments_table(parser: argparse.ArgumentParser, commands: bool = True) -> str:
    """A parser's arguments; with `commands`, a command group's command too (the top parser's has its own table)."""
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction) or (
            isinstance(action, argparse._SubParsersAction) and not commands
        ):
            continue
        help_text = formatter._expand_help(action) if action.help else ""
        rows.append((code(_invocation(action)), _value(action), _default(action), text(help_text)))
    return table(("Argument", "Value", "Default", "Description"), rows)


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage line `--help` prints, at a fixed width (argparse otherwise follows the terminal's)."""
    formatter = parser.formatter_class(prog=parser.prog, width=100)  # type: ignore[call-arg]
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def cli_page() -> str:
    """Every `haygate` command with its arguments, options, defaults and choices, from the real parser."""
    parser = cli_parser()
    commands = cli_commands(parser)
    lines = [
        "# Command line",
        "",
        "Every `haygate` command, read from the parser that `haygate --help` prints. Each command also takes "
        "`-h`/`--help`; `-v` goes before the command. What each exit status means is under "
        "[Errors](errors.md#exit-codes).",
        "",
        "```text",
        usage(parser),
        "```",
        "",
        arguments_table(parser, commands=False),
        "",
        table(
            ("Command", "What it does"),
            [
                (f"[{code('haygate ' + name)}](#haygate-{slug(name)})", text(help_))
                for name, (_, help_) in commands.items()
            ],
        ),
        "",
    ]
    for name, (sub, help_) in commands.items():
        lines += command_section("## ", name, sub, help_)
        if has_commands(sub):
            for leaf, (command, leaf_help) in command_leaves(sub, f"{name} ").items():
                lines += command_section("### ", leaf, command, leaf_help)
    return "\n".join([*lines, *ingest_report_sections()])


def command_section(level: str, name: str, parser: argparse.ArgumentParser, help_: str) -> list[str]:
    """A command's heading, what it does, its usage line and its arguments."""
    lines = [f"{level}haygate {name} {{#haygate-{slug(name)}}}", "", text(help_), "", "```text", usage(parser), "```"]
    lines += ["", arguments_table(parser), ""]
    for group in parser._mutually_exclusive_groups:
        names = ", ".join(code(action.option_strings[-1]) for action in group._group_actions)
        lines += [f"Give {'exactly' if group.required else 'at most'} one of {names}.", ""]
    return lines


def ingest_report_sections() -> list[str]:
    """The ingest report's fields, from the one model the writer fills, the CLI prints and a server's write
    answers (`haygate.ingest.report`)."""
    from pydantic import TypeAdapter

    from haygate.ingest.report import IngestReport

    schema = TypeAdapter(IngestReport).json_schema(mode="serialization")
    lines = [
        "## The ingest report {#ingest-report}",
        "",
        text(first_sentence(IngestReport.__doc__)) + " A write to a running server answers it as JSON "
        "(`PUT /api/collections/{collection}/records`); `haygate ingest` prints its summary.",
        "",
    ]
    for title, properties in (
        ("Report", schema["properties"]),
        ("Each refused record", schema["$defs"]["Refusal"]["properties"]),
    ):
        rows = [
            (code(name), code(prop.get("type", "array")), text(prop.get("description", "")))
            for name, prop in properties.items()
        ]
        lines += [f"**{title}**", "", table(("Field", "Type", "What it is"), rows), ""]
    return lines


# -- errors ------------------------------------------------------------------------------------------------

# What each exit status of `haygate` means; the tests hold the names to `haygate.errors.ExitCode`.
EXIT_MEANINGS: dict[str, str] = {
    "OK": "Done.",
    "FAILED": "The command ran, and some of its work failed: records refused at ingest, ids not found at "
    "delete, a judged set that names what is not there (its file and line), a tool call's error (its envelope "
    "printed to stderr as JSON).",
    "CONFIG": "Nothing was done: no project, a declaration, pipeline or setting that is wrong (what "
    "`haygate validate` reports), or arguments the command cannot take (argparse's own usage errors exit 2 too).",
    "IN_USE": "Another process holds a collection's embedded store; stop it, or let the command go through "
    "the server that holds it.",
    "STORAGE": "The data dir is full, unwritable or damaged; the message says what to do (free space, fix "
    "permissions, `haygate repair`).",
}


def exit_codes() -> dict[str, int]:
    """haygate's exit statuses (`haygate.errors.ExitCode`), by the names the page gives them."""
    from haygate.errors import ExitCode

    return {member.name: member.value for member in ExitCode}


def cli_error_exits() -> list[tuple[type, str, bool]]:
    """How `haygate` ends on an error: `(error class, ExitCode name, prints the JSON envelope)` per `except` of
    `haygate.cli.main`, in order (the first that matches wins), read from its source."""
    from haygate import cli, errors

    found = []
    for node in ast.walk(ast.parse(inspect.getsource(cli.main))):
        for handler in node.handlers if isinstance(node, ast.Try) else []:
            if not isinstance(handler.type, ast.Name):
                continue
            returned = [
                n.value.attr
                for n in ast.walk(handler)
                if isinstance(n, ast.Return) and isinstance(n.value, ast.Attribute)
            ]
            enveloped = any(isinstance(n, ast.Name) and n.id == "envelope" for n in ast.walk(handler))
            if returned:
                caught = getattr(errors, handler.type.id, None) or getattr(builtins, handler.type.id)  # OSError
                found.append((caught, returned[0], enveloped))
    return found


def exit_code_of(error: type) -> int | None:
    for cls, name, _ in cli_error_exits():
        if issubclass(error, cls):
            return exit_codes()[name]
    return None


def error_classes() -> list["type[HaygateError]"]:
    """Every error class of haygate.errors (FilterError is built on first use), base first."""
    from haygate import errors

    errors.FilterError  # noqa: B018  (builds it)
    seen: list[type[HaygateError]] = []
    pending: list[type[HaygateError]] = [errors.HaygateError]
    while pending:
        cls = pending.pop(0)
        if cls not in seen and cls.__module__ == errors.__name__:
            seen.append(cls)
            pending += cls.__subclasses__()
    return seen


def errors_page() -> str:
    """Every error code with its HTTP status and CLI exit code, the envelope, and the exit codes."""
    from haygate import errors

    example = errors.NotFoundError("unknown tool 'serch'; tools: search, search_docs", {"tool": "serch"})
    status, body = errors.envelope(example)
    classes = error_classes()
    rows = []
    for code_, cls in errors.BY_CODE.items():
        raised_as = [c.__name__ for c in classes if c.code == code_ and issubclass(c, cls)]
        exit_code = exit_code_of(cls)
        meaning = text(" ".join(paragraphs(cls.__doc__)))
        rows.append(
            (
                code(code_),
                str(errors.HTTP_STATUS[code_]),
                "" if exit_code is None else str(exit_code),
                ", ".join(code(name) for name in raised_as),
                meaning,
            )
        )
    internal = [c for c in classes if c.code not in errors.BY_CODE]
    exits = exit_codes()
    by_exit: dict[str, list[str]] = {}
    for cls, name, enveloped in cli_error_exits():
        by_exit.setdefault(name, []).append(code(cls.__name__) + (" (its envelope as JSON)" if enveloped else ""))
    lines = [
        "# Errors",
        "",
        text(paragraphs(errors.__doc__)[0]),
        "",
        "## The error envelope {#envelope}",
        "",
        "A client sees every error as one JSON object: over MCP as the tool result's text, with `isError: true`; "
        "over REST as the response body, with the HTTP status below; from `haygate call` on stderr:",
        "",
        "```json",
        json.dumps(body, indent=2),
        "```",
        "",
        table(
            ("Key", "What it holds"),
            [
                (code("error.code"), "One of the codes below: stable, for a program to branch on."),
                (code("error.message"), "What went wrong and how to fix it, for a person (or a model) to read."),
                (
                    code("error.details"),
                    "Structured facts about it: the failing argument, the allowed values, `retry_after` seconds.",
                ),
            ],
        ),
        "",
        f"This example is a {code(type(example).__name__)}, sent with HTTP status {status}. An error that is not "
        f"one of these codes reaches the client as {code(errors.InternalError.code)} with the message "
        f"{code(errors.INTERNAL_MESSAGE)}; its text goes to the server's log only. The operator's errors (the "
        "store is held, full, unwritable or damaged) tell the client what it can know without naming a server "
        "path; their full message goes to the log and, from the command line, to stderr.",
        "",
        "## Codes {#codes}",
        "",
        table(("Code", "HTTP status", "CLI exit code", "Raised as", "What it means"), rows),
        "",
    ]
    if internal:
        lines += [
            "Raised inside haygate and never sent as themselves (a client sees "
            f"{code(errors.InternalError.code)}); the command line names them:",
            "",
            table(
                ("Class", "CLI exit code", "What it means"),
                [
                    (
                        code(cls.__name__),
                        "" if exit_code_of(cls) is None else str(exit_code_of(cls)),
                        text(" ".join(paragraphs(cls.__doc__))),
                    )
                    for cls in internal
                ],
            ),
            "",
        ]
    lines += [
        "## Exit codes {#exit-codes}",
        "",
        "What `haygate` returns to the shell. An error ends the command with the code of the first matching "
        "error class below; the message goes to stderr.",
        "",
        table(
            ("Exit code", "Name", "What it means", "Errors that end with it"),
            [
                (
                    str(value),
                    code(f"ExitCode.{name}"),
                    text(EXIT_MEANINGS.get(name, "")),
                    ", ".join(by_exit.get(name, [])),
                )
                for name, value in sorted(exits.items(), key=lambda item: item[1])
            ],
        ),
        "",
    ]
    return "\n".join(lines)


# -- components --------------------------------------------------------------------------------------------

# The sections of the Components page, by module; a haygate module that none names lands in "Other components"
# (the unit tests say so), and every class of the project's own `components` package in "Project components".
GROUPS: dict[str, tuple[str, ...]] = {
    "Query and embedding": (
        "query_builder",
        "full_text_query",
        "dense_text_embedder",
        "bm25_sparse_text_embedder",
    ),
    "Retrieval and ranking": ("hybrid_retriever", "ranker", "document_fetcher"),
    "Formatting": ("response_formatter", "highlighter", "result_facets", "filter_check"),
    "Indexing": (
        "heading_sections",
        "section_metadata",
        "section_chunks",
        "chunk_ids",
        "prefix_terms",
        "dense_document_embedder",
        "bm25_sparse_document_embedder",
        "shared_document_writer",
    ),
}
OTHER, PROJECT_GROUP = "Other components", "Project components"


def component_classes(package: str) -> list[type]:
    """The Haystack component classes defined in a package's modules: those `@component` registered."""
    from haystack.core.component import component

    module = importlib.import_module(package)
    found = []
    for info in pkgutil.iter_modules(module.__path__):
        submodule = importlib.import_module(f"{package}.{info.name}")
        for value in vars(submodule).values():
            path = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
            if (
                isinstance(value, type)
                and value.__module__ == submodule.__name__
                and component.registry.get(path) is value
            ):
                found.append(value)
    return found


def project_component_classes() -> list[type]:
    """The components of this repository's own project (its `components/` folder), imported as the loader
    imports a project's."""
    from haygate.gateway.loader import PROJECT_COMPONENTS, use_project_components

    use_project_components(PROJECT)
    return component_classes(PROJECT_COMPONENTS)


def component_groups() -> dict[str, list[type]]:
    """Section title -> its component classes, in the order of GROUPS."""
    groups: dict[str, list[type]] = {title: [] for title in GROUPS}
    order = {module: index for modules in GROUPS.values() for index, module in enumerate(modules)}
    for cls in component_classes("haygate.components"):
        module = cls.__module__.rpartition(".")[2]
        title = next((title for title, modules in GROUPS.items() if module in modules), OTHER)
        groups.setdefault(title, []).append(cls)
    for classes in groups.values():
        classes.sort(key=lambda cls: (order.get(cls.__module__.rpartition(".")[2], len(order)), cls.__name__))
    groups[PROJECT_GROUP] = sorted(project_component_classes(), key=lambda cls: cls.__module__)
    return {title: classes for title, classes in groups.items() if classes}


def summary(cls: type) -> str:
    """A component in one sentence: its module's, which opens with "`Name`: what it does" (one component per
    module), else its class docstring's."""
    module = first_sentence(importlib.import_module(cls.__module__).__doc__)
    prefix = f"`{cls.__name__}`:"
    line = module.removeprefix(prefix).strip() if module.startswith(prefix) else ""
    line = line or first_sentence(cls.__dict__.get("__doc__")) or module
    return line[:1].upper() + line[1:]


def components_page() -> str:
    """mkdocstrings entries for every component class, grouped by what they do in a pipeline."""
    lines = [
        "# Components",
        "",
        "The Haystack components haygate ships and this project adds. A pipeline names one by the heading's dotted "
        "path as its `type:` and sets the parameters listed under it in `init_parameters:`; the parameters of its "
        "`run` are its input sockets, and the keys of what `run` returns its outputs, which `connections:`, "
        "`inputs:` and `outputs:` name as `component.socket`. Each entry is generated from the class and its "
        "docstrings.",
        "",
    ]
    for title, classes in component_groups().items():
        lines += [f"## {title}", ""]
        rows = []
        for cls in classes:
            path = f"{cls.__module__}.{cls.__qualname__}"
            rows.append((f"[{code(cls.__name__)}](#{path})", text(summary(cls))))
        lines += [table(("Component", "What it does"), rows), ""]
        for cls in classes:
            lines += [
                f"::: {cls.__module__}.{cls.__qualname__}",
                "    options:",
                "      heading_level: 3",
                "      members: [run]",
                "",
            ]
    return "\n".join(lines)


PAGES: dict[str, Callable[[], str]] = {
    "reference/cli.md": cli_page,
    "reference/settings.md": settings_page,
    "reference/yaml.md": yaml_page,
    "reference/errors.md": errors_page,
    "reference/components.md": components_page,
}
