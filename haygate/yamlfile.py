"""YAML read with libyaml's C parser where PyYAML has it (many times faster than the pure-Python one: a project's
declarations, pipelines and vocabularies are read on every start, reload and `haygate validate`), and what a
check of such a file says: the line of a key, and the closest valid name to a misspelt one."""

import difflib
import types
import typing
from collections.abc import Sequence
from typing import Any

import yaml

SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
Location = tuple[str | int, ...]


def safe_load(text: str) -> Any:
    """`yaml.safe_load`, parsed in C when it can be: the same types, the same `yaml.YAMLError`s."""
    return yaml.load(text, Loader=SafeLoader)


def path_to(text: str, location: Location) -> list[tuple[yaml.Node, yaml.Node]] | None:
    """The (key or item, value) nodes along `location` in the YAML `text`, as deep as it goes (a part that is not
    there ends it); None when the text does not parse. A list item's "key" is the item itself."""
    try:
        node = yaml.compose(text, Loader=SafeLoader)
    except yaml.YAMLError:
        return None
    found: list[tuple[yaml.Node, yaml.Node]] = []
    for part in location:
        if isinstance(node, yaml.MappingNode):
            pair = next(((k, v) for k, v in node.value if k.value == str(part)), None)
            if pair is None:
                break
            found.append(pair)
            node = pair[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
            found.append((node, node))
        else:
            break
    return found


def line_of(text: str, location: Location) -> int | None:
    """The 1-based line of the key (or list item) at `location` in the YAML `text`, or of the deepest part of it
    found; None when the text does not parse."""
    found = path_to(text, location)
    return found[-1][0].start_mark.line + 1 if found else None


def closest(name: str, allowed: Sequence[str], cutoff: float = 0.6) -> str | None:
    """The valid name a misspelt one most likely meant, if any is close."""
    found = difflib.get_close_matches(name, list(allowed), n=1, cutoff=cutoff)
    return found[0] if found else None


def at_line(text: str, location: Location) -> str:
    """`line N: ` for the key at `location`, or nothing when it cannot be found."""
    line = line_of(text, location)
    return f"line {line}: " if line else ""


def unknown_key(text: str, location: Location, allowed: Sequence[str], where: str = "") -> str:
    """`line N: unknown key 'x'<where>; did you mean 'y'?` (or the valid keys, when none is close)."""
    key = str(location[-1])
    guess = closest(key, allowed)
    advice = f"did you mean '{guess}'?" if guess else f"valid keys: {', '.join(sorted(allowed))}"
    return f"{at_line(text, location)}unknown key '{key}'{where}; {advice}"


def validation_problems(error: Any, model: type, text: str, offset: Location = ()) -> list[str]:
    """A pydantic `ValidationError` of `model`, read from the YAML `text` (at `offset` in it): one line per
    problem, each with its line in the file, and for an unknown key the closest valid name."""
    problems = []
    for problem in error.errors(include_url=False):
        location: Location = tuple(part for part in problem["loc"] if part != "__root__")
        if problem["type"] == "extra_forbidden":
            allowed = fields_at(model, location[:-1])
            problems.append(unknown_key(text, (*offset, *location), allowed))
            continue
        where = ".".join(map(str, location)) or "the file"
        problems.append(f"{at_line(text, (*offset, *location))}{where}: {problem['msg']}")
    return problems


def fields_at(model: Any, location: Location) -> list[str]:
    """The field names (with their aliases) of the pydantic model found at `location` inside `model`, walking
    nested models, `dict[str, M]`, `list[M]`, optional and `Annotated` types; empty when there is none."""
    current: Any = model
    for part in location:
        current = _model_in(current)
        if current is None:
            return []
        if isinstance(current, type) and hasattr(current, "model_fields"):
            field = current.model_fields.get(str(part)) or next(
                (f for f in current.model_fields.values() if f.alias == part), None
            )
            if field is None:
                return []
            current = field.annotation
        else:  # a dict's value or a list's item: the part is its key or index
            args = typing.get_args(current)
            current = args[-1] if args else None
    current = _model_in(current)
    if not (isinstance(current, type) and hasattr(current, "model_fields")):
        return []
    return [name for name, f in current.model_fields.items()] + [
        f.alias for f in current.model_fields.values() if f.alias
    ]


def _model_in(annotation: Any) -> Any:
    """`annotation` without `Annotated[...]` and `X | None`: the model, or the dict/list type, it is about."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            members = [a for a in typing.get_args(annotation) if a is not type(None)]
            models = [a for a in members if isinstance(a, type) and hasattr(a, "model_fields")]
            annotation = models[0] if models else (members[0] if len(members) == 1 else None)
        else:
            return annotation
