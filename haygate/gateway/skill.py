"""The project's skill: "how to query this corpus", written for an agent, from the project and its data.

`SKILL.md` says which tool to use when, and for each tool its filters with the values the collections hold,
calls that find something, how to page and how to read a result's scores; `tools/<name>.md` has one tool in
full. What the data says is drawn as `haygate examples` draws it: a filter's values are those the most records
hold (within the server's own conditions, such as the tenant), and an example call is kept only when the tool,
run here, finds something for it. Without built tools (a server still starting) the skill says what the
declarations say, and marks what it could not check.
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from haygate.components.query_builder import QueryBuilder
from haygate.errors import HaygateError
from haygate.gateway.declarations import ParameterSpec, ToolDeclaration
from haygate.gateway.examples import TITLE_SEPARATOR, as_query
from haygate.gateway.instructions import Outline, first_sentence
from haygate.gateway.tool import ToolRuntime, collection_store, ranked_rows
from haygate.text.folder import write_folder

VALUES_SHOWN = 10  # of a filter: the values most records hold
VALUES_COUNTED = 200  # distinct values of a field counted to find the most common
EXAMPLES_KEPT = 4  # verified example calls per tool
LABEL_KEYS = ("title", "name", "key", "summary", "question", "candidate_id", "id")  # what names a result row
PAGE_SIZE = ("limit", "max_results", "top_k", "page_size", "k")  # parameter names that size a page
PAGE_START = ("offset", "cursor", "page", "after")  # parameter names that start a page further on
FILTERABLE = ("==", "in")  # the operators a value the data holds can be given for as it is

PROVENANCE = {
    "dense_rank": "rank (1 = first) of this result in the semantic (embedding) search; null: that search did not "
    "return it",
    "sparse_rank": "rank in the keyword (BM25) search; null: none of the query's words matched",
    "dense_score": "cosine similarity of the query and the result (semantic search)",
    "fused_score": "the fused score of the two rankings (reciprocal rank fusion, or DBSF) before `score` "
    "normalises it to 0-1: only comparable within one query",
    "rerank_score": "the cross-encoder's score, present when the results were reranked (metadata.reranked)",
    "terms_share": "share of the query's keywords the result holds (1.0: every word)",
    "passage_score": "cosine similarity of the query and the result's best passage",
}


@dataclass(frozen=True)
class Skill:
    """A generated skill: its name and description (the SKILL.md front matter) and its files by path."""

    name: str
    description: str
    files: dict[str, str]

    @property
    def main(self) -> str:
        return self.files["SKILL.md"]

    def write(self, folder: Path) -> None:
        """Write the files into `folder`, each replaced whole, and remove the files it no longer has."""
        write_folder(folder, self.files)


@dataclass
class Filter:
    parameter: str
    path: str  # the payload field it is compared with
    operator: str
    choices: list[Any] | None = None  # the declaration's enum: the values it takes
    ignored: list[Any] = field(default_factory=list)  # values that mean "no filter" (`mixed`)
    values: list[tuple[Any, int]] = field(default_factory=list)  # value as a caller gives it, and its chunks
    distinct: int = 0  # distinct values the field holds (of those counted)


@dataclass
class Example:
    arguments: dict[str, Any]
    found: int | None  # rows the call returned; None: not run
    first: str | None = None  # what names its first result


@dataclass
class ToolFacts:
    """What the skill says of one tool."""

    declaration: ToolDeclaration
    collections: list[str]
    filters: list[Filter]
    examples: list[Example]
    checked: bool  # the examples ran and the filter values come from the data

    @property
    def name(self) -> str:
        return self.declaration.name


def build_skill(
    project: Outline, declarations: Mapping[str, ToolDeclaration], runtimes: Mapping[str, ToolRuntime] | None
) -> Skill:
    """The skill of the tools `declarations` name: from their built `runtimes` and the data they read, or (no
    runtimes: a server still starting) from the declarations alone."""
    name, collections, descriptions = project.name, project.collections, project.descriptions
    facts = [
        tool_facts(declaration, (runtimes or {}).get(tool), collections.get(tool) or [])
        for tool, declaration in sorted(declarations.items())
    ]
    read = ", ".join(sorted({c for f in facts for c in f.collections})) or "none"
    description = (
        f"How to search the collections of the {name} project ({read}) with its MCP tools "
        f"({', '.join(f.name for f in facts)}): which tool to use when, the filter values the data holds, calls "
        "that find something, paging, and how to read the scores of a result."
    )
    if len(description) > 1024:
        description = description[:1020].rsplit(" ", 1)[0] + " ..."
    files = {"SKILL.md": main_file(name, description, facts, descriptions)}
    for tool in facts:
        files[f"tools/{tool.name}.md"] = tool_file(tool)
    return Skill(name, description, files)


# -- what the data says ----------------------------------------------------------------------------------


def tool_facts(declaration: ToolDeclaration, runtime: ToolRuntime | None, collections: list[str]) -> ToolFacts:
    if runtime is None or runtime.pipeline is None:
        examples = [Example(call, None) for call in declaration.example_calls(2)]
        return ToolFacts(declaration, collections, [], examples, checked=False)
    filters = data_filters(runtime)
    return ToolFacts(declaration, collections, filters, verified_examples(runtime, filters), checked=True)


def data_filters(runtime: ToolRuntime) -> list[Filter]:
    """Each parameter that feeds a query builder's filter, with the values its field holds most, within the
    builder's fixed conditions and the server's own (a tenant sees its own values only)."""
    pipeline = runtime.pipeline
    assert pipeline is not None
    store = next((s for _, c in pipeline.pipeline.walk() if (s := collection_store(c)) is not None), None)
    filters = []
    for parameter, spec in runtime.declaration.parameters.items():
        for component, socket in pipeline.inputs.get(parameter, []):
            builder = pipeline.pipeline.get_component(component)
            if not isinstance(builder, QueryBuilder) or socket not in builder.filters:
                continue
            rule = builder.filters[socket]
            found = Filter(parameter, str(rule["field"]), str(rule.get("operator", "==")))
            found.choices = spec.enum if spec.enum is not None else spec.item_enum
            found.ignored = list(rule.get("ignore") or [])
            if store is not None and found.operator in FILTERABLE and found.choices is None:
                scope = tool_scope(runtime, component, builder)
                found.values, found.distinct = common_values(store, found.path, scope, spec, rule.get("prefix"))
            filters.append(found)
            break
    return filters


def tool_scope(runtime: ToolRuntime, component: str, builder: QueryBuilder) -> list[dict[str, Any]]:
    """The conditions every call of the tool has, as its query builder makes them: its fixed filters, the
    tool's fixed arguments that feed a filter (`get_decisions` is `extraction_type == decision`) and the
    server's own (the tenant)."""
    assert runtime.pipeline is not None
    fixed = {
        socket: value
        for name, value in runtime.declaration.fixed_arguments.items()
        for target, socket in runtime.pipeline.inputs.get(name, [])
        if target == component and socket in builder.filters
    }
    built = builder.run(query="x", server_filters=runtime.server_filters(), **fixed)["filters"]
    return list(built["conditions"]) if built else []


def common_values(
    store: Any, field_name: str, scope: list[dict[str, Any]], spec: ParameterSpec, prefix: str | None
) -> tuple[list[tuple[Any, int]], int]:
    """The values of `field_name` the most chunks hold within `scope`, most first, as a caller gives them (an
    id without the collection's prefix), and how many distinct values were counted."""
    within = {"operator": "AND", "conditions": scope} if scope else None
    values = [v for v in store.distinct_values(field_name, within) if v is not None][:VALUES_COUNTED]
    counted = []
    for value in values:
        condition = {"field": field_name, "operator": "==", "value": value}
        count = store.count_documents({"operator": "AND", "conditions": [condition, *scope]})
        counted.append((as_given(value, prefix, spec), count))
    ranked = sorted(counted, key=lambda pair: (-pair[1], str(pair[0])))
    return [(v, n) for v, n in ranked if v is not None][:VALUES_SHOWN], len(values)


def as_given(value: Any, prefix: str | None, spec: ParameterSpec) -> Any:
    """A stored value as a caller sends it: "product:598" of an integer id parameter is 598; None when the
    parameter cannot take it."""
    if prefix and isinstance(value, str) and value.startswith(prefix):
        value = value[len(prefix) :]
    kind = spec.items if spec.type == "array" else spec.type
    if kind == "integer":
        try:
            return int(value)
        except (TypeError, ValueError):
            return None
    if kind in ("string", "id", None):
        return str(value)
    return value


def verified_examples(runtime: ToolRuntime, filters: list[Filter]) -> list[Example]:
    """Calls made of the declaration's examples and of the filter values the data holds, each run here and
    kept only when it finds something."""
    declaration = runtime.declaration
    base = declaration.example_calls(2)
    optional_query = next(
        (n for n, s in declaration.parameters.items() if n in ("query", "text", "question") and not s.required), None
    )
    if optional_query and base == [{}]:
        base.append({optional_query: declaration.parameters[optional_query].examples[0]})
    # Groups of calls, each standing for one thing to show: the first that finds something is kept of each.
    groups: list[list[dict[str, Any]]] = [[base[0]]]
    for found in sorted(filters, key=lambda f: -len(f.values)):  # a filter that tells records apart first
        spec = declaration.parameters[found.parameter]
        held = [value for value, _ in found.values[:3]]
        tried = held or [c for c in found.choices or [] if c not in found.ignored]  # an enum: each of its values
        groups.append([{**base[0], found.parameter: [v] if spec.type == "array" else v} for v in tried])
    groups += [[call] for call in base[1:]]
    groups.append(next_page(declaration, base[0]))
    query = next((n for n in ("query", "text", "question") if isinstance(base[0].get(n), str)), None)
    filtered = {found.parameter for found in filters}
    kept: list[Example] = []
    seen: set[str] = set()
    for group in groups:
        for arguments in group:
            key = json.dumps(arguments, sort_keys=True, default=str)
            if key in seen or len(kept) == EXAMPLES_KEPT:
                continue
            seen.add(key)
            answered = _answered(runtime, arguments)
            if answered is not None and query is not None and filtered & set(arguments):
                # A filter value with the declaration's query finds the value's records, not an answer to the
                # query: the query becomes the heading of the first of them, which the pair does answer.
                heading = _heading_of(answered[0])
                if heading is not None:  # a result without a heading (a memory) keeps the call as it is
                    arguments = {**arguments, query: heading}
                    answered = _answered(runtime, arguments)
            if answered is not None:
                kept.append(Example(arguments, len(answered), row_label(answered[0])))
                break
    return kept


def _answered(runtime: ToolRuntime, arguments: dict[str, Any]) -> list[Any] | None:
    """The rows a call finds; None when it finds none or the tool refuses it (no example either way)."""
    try:
        rows = ranked_rows(runtime.run(arguments)) or []
    except HaygateError:
        return None
    return rows or None


def _heading_of(row: Any) -> str | None:
    """A result's own heading as a query a person would type (`haygate.gateway.examples.as_query`): its deepest
    heading that reads as one ("Declaring a tool" of "Configuring Tools > Declaring a tool > Arguments")."""
    title = row.get("title") if isinstance(row, dict) else None
    parts = str(title).split(TITLE_SEPARATOR) if title else []
    return next((query for part in reversed(parts) if (query := as_query(part)) is not None), None)


def next_page(declaration: ToolDeclaration, call: dict[str, Any]) -> list[dict[str, Any]]:
    """The call's second page, for a tool that pages with a start (`offset`) and a size (`limit`)."""
    size = next((n for n in PAGE_SIZE if n in declaration.parameters), None)
    start = next((n for n in PAGE_START if n in declaration.parameters), None)
    if size is None or start is None or declaration.parameters[start].type != "integer":
        return []
    per_page = declaration.parameters[size].default or 10
    return [{**call, size: per_page, start: per_page}]


def row_label(row: Any) -> str | None:
    if not isinstance(row, dict):
        return None
    value = next((row[k] for k in LABEL_KEYS if row.get(k) not in (None, "")), None)
    return None if value is None else first_sentence(str(value), 100)


# -- the files -------------------------------------------------------------------------------------------


def main_file(name: str, description: str, facts: list[ToolFacts], descriptions: Mapping[str, str]) -> str:
    front = yaml.safe_dump({"name": name, "description": description}, sort_keys=False, allow_unicode=True, width=10**6)
    lines = [
        f"---\n{front}---",
        "",
        f"# Querying {name}",
        "",
        f"This MCP server serves {len(facts)} tool(s) over the collections below. Each tool takes a JSON object "
        "of arguments, checked against its schema: an unknown or misspelt parameter is refused with the allowed "
        "names, and an empty result's `metadata.message` says why it is empty (a filter value no record holds "
        "is named). Each tool's file (`tools/<name>.md`, beside this one) has all its parameters.",
        "",
        "## Which tool",
        "",
        "| Tool | Use it for | Reads | Details |",
        "| --- | --- | --- | --- |",
    ]
    for tool in facts:
        title = f" ({tool.declaration.title})" if tool.declaration.title else ""
        reads = ", ".join(tool.collections) or "(writes)"
        use = first_sentence(tool.declaration.description, 200).replace("|", "\\|")
        lines.append(f"| `{tool.name}`{title} | {use} | {reads} | [tools/{tool.name}.md](tools/{tool.name}.md) |")
    shared = _sharing(facts)
    if shared:
        lines += ["", "Tools that read the same collection differ in how they rank or what they return:"]
        for collection, tools in shared.items():
            lines.append(f"- {collection}: " + "; ".join(f"`{t.name}`: {_how(t)}" for t in tools))
    described = sorted({c for f in facts for c in f.collections})
    if described:
        lines += ["", "## Collections", ""]
        lines += [f"- `{c}`: {first_sentence(descriptions.get(c) or '') or '(no description)'}" for c in described]
    lines += ["", "## Filters and the values the data holds", ""]
    filtered = [t for t in facts if t.filters or _enums(t)]
    if not any(t.checked for t in facts):
        lines.append("The server is still loading its tools: the values the data holds are listed once it is ready.")
    for tool in filtered:
        lines.append(f"- `{tool.name}`: " + "; ".join(_filter_line(tool, f) for f in tool.filters))
        if not tool.filters:
            lines[-1] = f"- `{tool.name}`: " + "; ".join(_enums(tool))
        elif _enums(tool):
            lines[-1] += "; " + "; ".join(_enums(tool))
    if not filtered:
        lines.append("No tool takes a filter.")
    lines += ["", "## Calls that find something", ""]
    for tool in facts:
        for example in tool.examples[:2]:  # the declared example, and one with a filter when there is one
            lines += _example_lines(tool.name, example)
    lines += ["", "## Paging", ""]
    lines += [f"- `{t.name}`: {paging(t.declaration)}" for t in facts if t.declaration.action is None]
    lines += ["", "## Reading a result", ""]
    lines += reading_lines(facts)
    return "\n".join(lines) + "\n"


def tool_file(tool: ToolFacts) -> str:
    declaration = tool.declaration
    lines = [f"# {declaration.title or declaration.name}", ""]
    if declaration.title:
        lines += [f"Tool name: `{declaration.name}`.", ""]
    lines += [" ".join(declaration.description.split()), ""]
    if tool.collections:
        lines += [f"Reads the collection(s): {', '.join(f'`{c}`' for c in tool.collections)}.", ""]
    if not declaration.read_only:
        lines += ["It writes: call it only when asked to change the data.", ""]
    lines += ["## Parameters", "", "| Parameter | Type | Required | Default | What it means |"]
    lines += ["| --- | --- | --- | --- | --- |"]
    for parameter, spec in declaration.parameters.items():
        kind = f"array of {spec.items or 'string'}" if spec.type == "array" else spec.type
        said = " ".join(spec.description.split())
        bounds = _bounds(spec)
        default = "" if spec.default is None else f"`{json.dumps(spec.default)}`"
        meaning = (said + ("" if bounds.strip(" ()") in said else bounds)).replace("|", "\\|")
        lines.append(f"| `{parameter}` | {kind} | {'yes' if spec.required else 'no'} | {default} | {meaning} |")
    lines += ["", "## Filters", ""]
    if not tool.filters and not _enums(tool):
        lines.append("It takes no filter." if tool.checked else "Its filters are listed once the server is ready.")
    for found in tool.filters:
        lines.append(f"- {_filter_line(tool, found)}")
    lines += [f"- {line}" for line in _enums(tool)]
    lines += ["", "## Example calls", ""]
    if not tool.examples:
        lines.append("None of its examples found anything in the data this server holds.")
    for example in tool.examples:
        lines += _example_lines(tool.name, example)
    if declaration.action is None:
        lines += ["", "## Paging", "", paging(declaration)]
    lines += ["", "## Result", ""]
    lines += result_lines(declaration)
    return "\n".join(lines) + "\n"


def _sharing(facts: list[ToolFacts]) -> dict[str, list[ToolFacts]]:
    by_collection: dict[str, list[ToolFacts]] = {}
    for tool in facts:
        for collection in tool.collections:
            by_collection.setdefault(collection, []).append(tool)
    return {c: tools for c, tools in sorted(by_collection.items()) if len(tools) > 1}


def _how(tool: ToolFacts) -> str:
    fixed = ", ".join(f"{k}={json.dumps(v)}" for k, v in tool.declaration.fixed_arguments.items())
    sentence = first_sentence(tool.declaration.description, 120)
    return f"{sentence} (always {fixed})" if fixed else sentence


def _filter_line(tool: ToolFacts, found: Filter) -> str:
    how = f"`{found.parameter}` (`{found.path}` {found.operator} value)"
    if found.choices is not None:
        return f"{how}: one of {', '.join(f'`{json.dumps(v)}`' for v in found.choices)}"
    if not found.values:
        if found.operator not in FILTERABLE or not tool.checked:
            return how
        return f"{how}: no record holds this field"
    shown = ", ".join(f"`{json.dumps(v, ensure_ascii=False)}` ({n})" for v, n in found.values)
    more = f", of {found.distinct}" if found.distinct > len(found.values) else ""
    return f"{how}: {shown} (chunks holding it{more})"


def _enums(tool: ToolFacts) -> list[str]:
    """The parameters with a fixed set of values that are no filter (`match_mode`, `operator`)."""
    listed = []
    filters = {f.parameter for f in tool.filters}
    for parameter, spec in tool.declaration.parameters.items():
        values = spec.enum if spec.enum is not None else spec.item_enum
        if values is not None and parameter not in filters:
            listed.append(f"`{parameter}` one of {', '.join(f'`{json.dumps(v)}`' for v in values)}")
    return listed


def _bounds(spec: ParameterSpec) -> str:
    parts = []
    if spec.minimum is not None and spec.maximum is not None:
        parts.append(f"{spec.minimum:g} to {spec.maximum:g}")
    elif spec.minimum is not None:
        parts.append(f"at least {spec.minimum:g}")
    elif spec.maximum is not None:
        parts.append(f"at most {spec.maximum:g}")
    return f" ({', '.join(parts)})" if parts else ""


def _example_lines(tool: str, example: Example) -> list[str]:
    call = json.dumps({"tool": tool, "arguments": example.arguments}, ensure_ascii=False, default=str)
    if example.found is None:
        said = "a declared example, not run yet (the server is starting)"
    else:
        said = f"finds {example.found}" + (f"; first: {example.first}" if example.first else "")
    return [f"- {said}", "", "  ```json", f"  {call}", "  ```", ""]


def paging(declaration: ToolDeclaration) -> str:
    """How a caller gets more results: by the declaration's parameters (a page size, a start) and its result's
    `metadata.total`."""
    size = next((n for n in PAGE_SIZE if n in declaration.parameters), None)
    start = next((n for n in PAGE_START if n in declaration.parameters), None)
    total = "total" in _metadata_properties(declaration)
    if size is None:
        return "It returns its results in one answer; there is no page size to set."
    spec = declaration.parameters[size]
    default = f" (default {spec.default})" if spec.default is not None else ""
    most = f", at most {spec.maximum:g}" if spec.maximum is not None else ""
    if start is not None:
        counted = " `metadata.total` says how many there are in all." if total else ""
        return (
            f"`{size}` results per call{default}{most}; the next page is the same call with `{start}` raised by "
            f"`{size}`. Pages of one query neither overlap nor leave gaps; past the end the results are empty."
            f"{counted}"
        )
    return (
        f"`{size}` sets how many results come back{default}{most}; there is no offset: ask for more with a larger "
        f"`{size}`, or narrow the query (a filter) for what lies past the most it returns."
    )


def _metadata_properties(declaration: ToolDeclaration) -> dict[str, Any]:
    metadata = declaration.result_schema.get("properties", {}).get("metadata", {})
    return dict(metadata.get("properties", {})) if isinstance(metadata, dict) else {}


def _rows_schema(declaration: ToolDeclaration) -> tuple[str, dict[str, Any]] | None:
    for key, prop in declaration.result_schema.get("properties", {}).items():
        items = prop.get("items") if isinstance(prop, dict) and prop.get("type") == "array" else None
        if isinstance(items, dict) and items.get("properties"):
            return key, dict(items["properties"])
    return None


def result_lines(declaration: ToolDeclaration) -> list[str]:
    rows = _rows_schema(declaration)
    lines = []
    if rows is not None:
        key, properties = rows
        lines.append(f"Each item of `{key}` holds:")
        lines.append("")
        for prop, schema in properties.items():
            said = " ".join(str(schema.get("description", "")).split()) if isinstance(schema, dict) else ""
            lines.append(f"- `{prop}`" + (f": {said}" if said else ""))
        scores = properties.get("scores")
        if isinstance(scores, dict):
            lines += ["", "`scores` is the result's provenance, why it ranks where it does:", ""]
            named = scores.get("properties") or {}
            lines += [f"- `scores.{k}`: {PROVENANCE[k]}" for k in PROVENANCE if k in named or not named]
    metadata = _metadata_properties(declaration)
    if metadata:
        lines += ["", f"`metadata` holds {', '.join(f'`{k}`' for k in metadata)}."]
    return lines or ["A JSON object, as its output schema (in `tools/list`) describes."]


def reading_lines(facts: list[ToolFacts]) -> list[str]:
    scored, named = [], set()
    for tool in facts:
        rows = _rows_schema(tool.declaration)
        scores = rows[1].get("scores") if rows is not None else None
        if isinstance(scores, dict):
            scored.append(tool.name)
            named |= set(scores.get("properties") or PROVENANCE)
    lines = [
        "Each tool's result is structured content matching its output schema: a list of rows (`results`, or "
        "`candidates`) and a `metadata` object with the query as run, the filters applied and a message.",
    ]
    if scored:
        lines += [
            "",
            f"Rows of {', '.join(f'`{n}`' for n in scored)} carry `score` (0-1: the fused score normalised, or "
            "the reranker's when `metadata.reranked` is true) and `scores`, its provenance:",
            "",
            *(f"- `{key}`: {said}" for key, said in PROVENANCE.items() if key in named),
            "",
            "A result found by both searches (two ranks) is a safer answer than one found by one alone; a "
            "`sparse_rank` of null means the words you used are not in it, so try the collection's own words.",
        ]
    return lines
