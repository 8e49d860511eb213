"""Tool declarations (`configs/tools/*.yaml`): the typed interface of one pipeline.

A declaration names the pipeline and types every one of its inputs (the pipeline file's `inputs:` say which
component socket each feeds): a description, type, example, bounds, enum and the one default. From it we
build the pydantic model that validates arguments and the JSON schema MCP clients and OpenAPI see. Adding
a tool is writing one of these files and its pipeline.
"""

import math
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    WithJsonSchema,
    create_model,
    model_validator,
)

from haygate import yamlfile
from haygate.components.envelope import DOCUMENTS_ENVELOPE_SCHEMA
from haygate.errors import ConfigurationError

ParamType = Literal["string", "integer", "number", "boolean", "object", "array", "id"]

# Every argument is bounded. A declaration sets its own bounds; where it is silent, these apply, so no tool
# takes a 10 MB string, a million-item array or an integer past what JSON clients can represent.
DEFAULT_MAX_LENGTH = 1000  # characters of a string or id (and of each string item of an array)
# A string with a character that Python's str.strip() keeps. The characters strip() removes are spelled out,
# not written `\s`: `\s` means other sets in ECMA-262 (a client's JSON Schema), Rust (pydantic) and Python,
# and ECMA's lacks \x85, which strip() removes, so a client would send "\x85" as a valid query.
NOT_BLANK = r"[^\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
DEFAULT_MAX_ITEMS = 100  # items of an array
DEFAULT_MAX_PROPERTIES = 100  # keys of an object
SAFE_INTEGER = 2**53 - 1  # JSON's safe integer range (RFC 8259 section 6): the default bounds of a number


def _integer_as_text(value: Any) -> Any:
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _whole_number(value: Any) -> Any:
    """JSON Schema's integer is any number with no fraction: 248.0 is the integer 248 (JavaScript clients
    and LLMs send it so). Anything else goes on to the strict check, which refuses it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


_SCALARS: dict[str, Any] = {
    "string": StrictStr,
    "integer": Annotated[StrictInt, BeforeValidator(_whole_number)],
    "number": StrictFloat,  # strict, yet accepts integers
    "boolean": StrictBool,
    "object": dict[str, Any],
    # An identifier callers send as 598 or "598" or "product:598": passed on as a string.
    "id": Annotated[StrictStr, BeforeValidator(_integer_as_text), WithJsonSchema({"type": ["string", "integer"]})],
}
# What a tool can do other than run a pipeline: write through the collection's own ingest. Each action
# takes exactly these parameters.
ACTIONS: dict[str, tuple[str, ...]] = {
    "upsert_records": ("collection", "records"),
    "delete_records": ("collection", "ids"),
}
Action = Literal["upsert_records", "delete_records"]


class ParameterSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: ParamType = Field(
        description="The argument's JSON type; an `id` is taken as a string or an integer and passed on as a string."
    )
    description: str = Field(min_length=10, description="What the argument means, as the calling model reads it.")
    examples: list[Any] = Field(
        min_length=1,
        description="Example values, shown in the schema; a server's warm-up calls the tool with those of its "
        "required parameters.",
    )
    required: bool = Field(default=False, description="Callers must give it; otherwise they may leave it out.")
    default: Any = Field(default=None, description="The value the pipeline gets when a caller leaves it out.")
    enum: list[Any] | None = Field(
        default=None, description="The values it may take, matched without regard to case and through `aliases`."
    )
    minimum: float | None = Field(
        default=None, description="Smallest value of an integer or number (default: JSON's safe integer range)."
    )
    maximum: float | None = Field(
        default=None, description="Largest value of an integer or number (default: JSON's safe integer range)."
    )
    min_length: int | None = Field(
        default=None, description="Fewest characters of a string or id (of an array: fewest items, as min_items)."
    )
    max_length: int | None = Field(
        default=None,
        description=f"Most characters of a string or id (default {DEFAULT_MAX_LENGTH}); of an array, most items "
        f"(default {DEFAULT_MAX_ITEMS}); of an object, most keys (default {DEFAULT_MAX_PROPERTIES}).",
    )
    items: ParamType | None = Field(default=None, description="Item type of an array parameter.")
    min_items: int | None = Field(default=None, description="Fewest items of an array (min_length wins when set).")
    max_items: int | None = Field(
        default=None, description=f"Most items of an array (default {DEFAULT_MAX_ITEMS}; max_length wins when set)."
    )
    item_enum: list[Any] | None = Field(default=None, description="Allowed values of each array item.")
    aliases: dict[str, Any] = Field(
        default_factory=dict, description="Other spellings of enum values, e.g. {features: feature}."
    )
    item_min_length: int | None = Field(default=None, description="Shortest string array item.")
    item_max_length: int | None = Field(default=None, description="Longest string array item.")


class ToolDeclaration(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(
        pattern=r"^[a-z][a-z0-9_]{2,47}$",
        description="The tool's name, as MCP clients and `POST /api/tools/{name}` see it.",
    )
    title: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description="A short human-readable name a client shows for the tool (MCP's tool `title`), e.g. "
        '"Search the documentation"; default: none (clients show the name).',
    )
    description: str = Field(
        min_length=20, description="What the tool does and when to use it, as the calling model reads it."
    )
    pipeline: str | None = Field(
        default=None, description="Pipeline file, relative to pipelines/; default tools/<name>.yaml."
    )
    action: Action | None = Field(
        default=None, description="Instead of a pipeline: write records to a collection, or delete them by id."
    )
    tier: Literal["public", "internal", "admin"] = Field(
        default="public",
        description="Access tier: served only where HAYGATE_TIER is this tier or above (public, internal, admin).",
    )
    read_only: bool = Field(
        default=True, description="The tool changes nothing (MCP's read-only hint); a tool with an `action` says false."
    )
    parameters: dict[str, ParameterSpec] = Field(
        description="The tool's arguments by name; each feeds the pipeline input of that name."
    )
    output: str = Field(
        default="result",
        description="The pipeline output returned to callers: an `outputs:` name, or for a pipeline with no "
        "`outputs:` (as Haystack writes it) a leaf socket's name (`documents`) or `component.socket`.",
    )
    output_schema: dict[str, Any] | None = Field(
        default=None,
        description="JSON Schema of the result (an object). Optional when the output is a list of Documents: "
        "they are returned in the standard results envelope, with its schema.",
    )
    fixed_arguments: dict[str, Any] = Field(
        default_factory=dict, description="Arguments the pipeline always gets; not in the schema, not overridable."
    )
    tenant_field: str | None = Field(
        default=None,
        description="Payload path holding the tenant key; the gateway sends `field == HAYGATE_PROJECT_ID` to the "
        "pipeline input `server_filters` of every call.",
    )
    source_file: str = Field(default="", description="Set by haygate to the file the declaration was read from.")

    @model_validator(mode="after")
    def _fixed_arguments_are_not_parameters(self) -> "ToolDeclaration":
        clash = set(self.fixed_arguments) & set(self.parameters)
        if clash:
            raise ValueError(f"fixed_arguments {sorted(clash)} are also parameters; a caller could override them")
        return self

    @model_validator(mode="after")
    def _an_action_is_a_write_with_its_own_parameters(self) -> "ToolDeclaration":
        if self.action is None:
            return self
        if self.pipeline is not None:
            raise ValueError(f"a tool has a pipeline or an action ({self.action}), not both")
        if self.read_only:
            raise ValueError(f"action {self.action} writes: declare read_only: false")
        if tuple(self.parameters) != ACTIONS[self.action]:
            raise ValueError(f"action {self.action} takes the parameters {list(ACTIONS[self.action])}, in that order")
        return self

    @property
    def result_schema(self) -> dict[str, Any]:
        """The declared output_schema, or the standard envelope's when the output is a list of Documents."""
        return self.output_schema if self.output_schema is not None else DOCUMENTS_ENVELOPE_SCHEMA

    @property
    def pipeline_file(self) -> str:
        return self.pipeline or f"tools/{self.name}.yaml"

    def arguments_model(self) -> type[BaseModel]:
        """The pydantic model that validates this tool's arguments (unknown keys are refused)."""
        fields: dict[str, Any] = {}
        for name, spec in self.parameters.items():
            lowest, highest = _bounds(spec)
            constraints: dict[str, Any] = {
                "ge": lowest,
                "le": highest,
                "min_length": spec.min_length if spec.min_length is not None else spec.min_items,
                "max_length": _max_length(spec),
                # a string that must have a character must have one that is not a space: tools strip their text
                "pattern": NOT_BLANK if spec.type == "string" and (spec.min_length or 0) >= 1 else None,
            }
            # The bounds go on the type itself, so that an optional parameter's schema keeps them inside its
            # `anyOf` (on the Field they would come out as the non-schema keys `ge`/`le`).
            bounded = Field(**{k: v for k, v in constraints.items() if v is not None})
            if spec.type == "integer" and spec.enum is None:  # bounds on the int itself, then 248.0 -> 248
                annotation: Any = Annotated[StrictInt, bounded, BeforeValidator(_whole_number)]
            else:
                annotation = Annotated[_annotation(spec), bounded]
            field = Field(... if spec.required else spec.default, description=spec.description, examples=spec.examples)
            if not spec.required and spec.default is None:
                annotation = annotation | None
            fields[name] = (annotation, field)
        model_name = "".join(part.title() for part in self.name.split("_")) + "Arguments"
        return create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields)

    def example_calls(self, most: int) -> list[dict[str, Any]]:
        """Up to `most` calls made of the declared examples, the k-th of each required parameter in the k-th:
        what validate and a server's warm-up run, and what the console offers to try."""
        required = {name: spec.examples for name, spec in self.parameters.items() if spec.required}
        calls = min(most, max((len(examples) for examples in required.values()), default=1))
        return [
            {name: examples[min(k, len(examples) - 1)] for name, examples in required.items()} for k in range(calls)
        ]

    def input_schema(self) -> dict[str, Any]:
        schema = self.arguments_model().model_json_schema()
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
            # `X | None` renders as anyOf[X, null]; flatten it so clients see one plain type.
            if "anyOf" in prop:
                variants = [v for v in prop.pop("anyOf") if v.get("type") != "null"]
                if len(variants) == 1:
                    prop.update(variants[0])
                else:
                    prop["anyOf"] = variants
        return schema


def _bounds(spec: ParameterSpec) -> tuple[float | None, float | None]:
    """A number's bounds: the declared ones, else JSON's safe integer range; an integer's are integers (the
    schema then says `"minimum": 1`, not `1.0`)."""
    if spec.type not in ("integer", "number") or spec.enum is not None:
        return spec.minimum, spec.maximum
    lowest = spec.minimum if spec.minimum is not None else -SAFE_INTEGER
    highest = spec.maximum if spec.maximum is not None else SAFE_INTEGER
    if spec.type == "integer":
        return math.ceil(lowest), math.floor(highest)
    return lowest, highest


def _max_length(spec: ParameterSpec) -> int | None:
    """The declared bound, else the project-wide one for its type (an enum is bounded by its values)."""
    if spec.enum is not None:
        return None
    declared = spec.max_length if spec.max_length is not None else spec.max_items
    defaults = {"string": DEFAULT_MAX_LENGTH, "id": DEFAULT_MAX_LENGTH, "array": DEFAULT_MAX_ITEMS}
    return (
        declared
        if declared is not None
        else defaults.get(spec.type, DEFAULT_MAX_PROPERTIES if spec.type == "object" else None)
    )


def _annotation(spec: ParameterSpec) -> Any:
    if spec.enum is not None:
        return _enum(spec.enum, spec.aliases)
    if spec.type == "array":
        item_type = spec.items or "string"
        item: Any = _SCALARS[item_type]
        if spec.item_enum is not None:
            item = _enum(spec.item_enum, spec.aliases)
        elif item_type in ("string", "id"):
            longest = spec.item_max_length if spec.item_max_length is not None else DEFAULT_MAX_LENGTH
            item = Annotated[item, Field(min_length=spec.item_min_length, max_length=longest)]
        elif item_type == "object":
            item = Annotated[item, Field(max_length=DEFAULT_MAX_PROPERTIES)]
        return list[item]
    return _SCALARS[spec.type]


def _enum(values: list[Any], aliases: dict[str, Any]) -> Any:
    """One of `values`, matched without regard to case and through `aliases` ("CODE" is code, "features"
    is feature); the schema lists the canonical values, and the pipeline gets the canonical one."""
    canonical = {str(v).casefold(): v for v in values if isinstance(v, str)}
    canonical.update({str(alias).casefold(): value for alias, value in aliases.items()})

    def canonical_spelling(value: Any) -> Any:
        return canonical.get(value.casefold(), value) if isinstance(value, str) else value

    return Annotated[Literal[tuple(values)], BeforeValidator(canonical_spelling)]


def load_declarations(path: Path) -> list[ToolDeclaration]:
    """One tool per file, or several: `tools: [...]`, sharing parts through YAML anchors kept under `x-` keys."""
    text = path.read_text()
    try:
        raw = yamlfile.safe_load(text)
    except yaml.YAMLError as error:
        msg = f"{path}: invalid YAML: {error}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    if not isinstance(raw, dict):
        msg = f"{path}: a tool declaration must be a mapping"
        raise ConfigurationError(msg, {"file": str(path)})
    if "tools" not in raw:
        return [_declaration(raw, path, text)]
    unknown = [key for key in raw if key != "tools" and not str(key).startswith("x-")]
    if unknown or not isinstance(raw["tools"], list):
        msg = f"{path}: a multi-tool file holds `tools: [...]` and `x-` anchor keys only, found {unknown}"
        raise ConfigurationError(msg, {"file": str(path)})
    return [_declaration(entry, path, text, ("tools", n)) for n, entry in enumerate(raw["tools"])]


def load_declaration(path: Path) -> ToolDeclaration:
    [declaration] = load_declarations(path)
    return declaration


def _declaration(raw: Any, path: Path, text: str, offset: yamlfile.Location = ()) -> ToolDeclaration:
    if not isinstance(raw, dict):
        msg = f"{path}: a tool declaration must be a mapping"
        raise ConfigurationError(msg, {"file": str(path)})
    try:
        declaration = ToolDeclaration.model_validate({**raw, "source_file": str(path)})
    except ValidationError as error:
        problems = yamlfile.validation_problems(error, ToolDeclaration, text, offset)
        name = f" '{raw['name']}'" if isinstance(raw.get("name"), str) else ""
        msg = f"{path}: invalid tool declaration{name}: " + "; ".join(problems)
        raise ConfigurationError(msg, {"file": str(path), "problems": problems}) from error
    if declaration.output_schema is not None and declaration.output_schema.get("type") != "object":
        msg = f"{path}: output_schema must describe an object"
        raise ConfigurationError(msg, {"file": str(path)})
    try:
        declaration.arguments_model()
    except (TypeError, ValueError) as error:
        msg = f"{path}: parameters cannot form a schema: {error}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    return declaration
