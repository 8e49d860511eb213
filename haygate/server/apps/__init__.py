"""MCP Apps: a results view for every tool that returns ranked records.

A tool whose result holds a list of records with an identifier and a score (`results` of `id` and `score`,
`candidates` of `candidate_id` and `match_score` ...) points its host at a view: `_meta.ui.resourceUri` names
a `ui://haygate/results/<tool>.html` resource, one HTML document with everything inlined (its own content
security policy admits nothing from anywhere), which draws the results as the console does, offers the tool's
filters again, and opens a result's whole record through `open-record`, a tool for the view only
(`visibility: ["app"]`).

Every client is shown the views, declared or not: hosts that render them (VS Code, ext-apps' basic-host) do
not all declare the extension (`io.modelcontextprotocol/ui`), and the extension lets a server attach
`_meta.ui` always ("if the host does not support MCP Apps, the tool behaves as a standard tool"). `open-record`
is for the view alone (`visibility: ["app"]`) where the host declared the extension; to any other client it
is a plain read-only tool, so a host that renders views without declaring them can still open a record from
one. Every tool result is the same for every client. The view is per tool because it must know which tool to
call again, and hosts need not say which tool a view was opened for.
"""

import base64
import functools
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from fastmcp import FastMCP
from fastmcp.apps.config import UI_EXTENSION_ID, UI_MIME_TYPE, AppConfig, ResourceCSP, app_config_to_meta_dict
from fastmcp.resources import Resource, TextResource
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.server.providers import Provider
from fastmcp.tools import Tool, ToolResult
from mcp_types import ToolAnnotations
from pydantic import AnyUrl

from haygate import __version__
from haygate.errors import InvalidRequestError, NotFoundError, envelope
from haygate.gateway.declarations import ToolDeclaration
from haygate.server.service import GatewayService

VIEW_FILES = Path(__file__).parent  # results.html, .css and .js, beside this module
CONSOLE_STATIC = Path(__file__).parents[2] / "console" / "static"  # the console's format.js and markdown.js, inlined
# The console's modules the view inlines before its own script: one reading of values and one rendering of a
# result's Markdown for both pages; and before them, the library that rendering uses, as it is vendored.
SHARED_MODULES = [CONSOLE_STATIC / name for name in ("format.js", "markdown.js")]
VENDORED_SCRIPTS = [CONSOLE_STATIC / "vendor" / "markdown-it.umd.min.js"]
SOURCE_MAP = re.compile(r"^//# sourceMappingURL=\S*\s*\Z", re.MULTILINE)
VIEW_PREFIX = "ui://haygate/results/"
OPEN_RECORD = "open-record"  # a hyphen, which no declared tool name may hold: it never shadows a project's tool
# Nothing from beyond the document itself: no fetches, no frames, no outside scripts, styles or images.
NO_ORIGINS = ResourceCSP(connect_domains=[], resource_domains=[], frame_domains=[], base_uri_domains=[])
VIEW_META = {"ui": app_config_to_meta_dict(AppConfig(csp=NO_ORIGINS, prefers_border=True))}
SCORE_FIELDS = ("score",)  # else the first field named *_score
ID_FIELDS = ("id", "key")  # else the first field named *_id


@dataclass(frozen=True)
class RankedList:
    """Where a tool's result keeps its ranked records, and which of their fields say what each one is."""

    key: str  # the result's list: `results`, `candidates`
    id_field: str
    score_field: str


def ranked_list(declaration: ToolDeclaration) -> RankedList | None:
    """The first list of objects in the tool's result schema whose items have an identifier and a score; None
    for a tool that returns no ranked records (writes, lookups by topic)."""
    for key, prop in declaration.result_schema.get("properties", {}).items():
        items = prop.get("items") if isinstance(prop, dict) and prop.get("type") == "array" else None
        fields = items.get("properties") if isinstance(items, dict) and items.get("type") == "object" else None
        if not isinstance(fields, dict):
            continue
        identifier = _first(fields, ID_FIELDS, "_id")
        score = _first(fields, SCORE_FIELDS, "_score")
        if identifier and score:
            return RankedList(key, identifier, score)
    return None


def _first(fields: dict[str, Any], names: Sequence[str], suffix: str) -> str | None:
    return next((n for n in names if n in fields), None) or next((f for f in fields if f.endswith(suffix)), None)


def view_uri(tool: str) -> str:
    return f"{VIEW_PREFIX}{tool}.html"


def filters(declaration: ToolDeclaration) -> list[dict[str, Any]]:
    """The tool's string parameters as the view's controls: a choice for an enum, boxes for an array of enum
    values, a text field for the rest (the query among them, so it can be changed too)."""
    controls = []
    for name, prop in declaration.input_schema().get("properties", {}).items():
        common = {
            "name": name,
            "description": prop.get("description", ""),
            "required": declaration.parameters[name].required,
        }
        items = prop.get("items") or {}
        if prop.get("type") == "string" and "enum" in prop:
            controls.append({**common, "kind": "choice", "values": prop["enum"]})
        elif prop.get("type") == "array" and "enum" in items:
            controls.append({**common, "kind": "choices", "values": items["enum"]})
        elif prop.get("type") == "string":
            controls.append({**common, "kind": "text"})
    return controls


def _inline(text: str, closing: str) -> str:
    if closing in text.lower():
        raise ValueError(f"an inlined file holds {closing}, which would end its element early or keep it from ending")
    return text


def _as_script(module: Path) -> str:
    """A module of the console's as a part of the view's one inline script: the page loads nothing, so the module
    imports nothing, and its `export`s become plain declarations."""
    text = module.read_text(encoding="utf-8")
    if re.search(r"^\s*import\b", text, re.MULTILINE):
        msg = f"{module.name} imports another module: the view inlines it, so it can import nothing"
        raise ValueError(msg)
    declarations = re.sub(r"^export (?=(async )?function |const |class )", "", text, flags=re.MULTILINE)
    if re.search(r"^\s*export\b", declarations, re.MULTILINE):
        msg = f"{module.name} exports something other than a declaration, which the view's script cannot hold"
        raise ValueError(msg)
    return declarations


def _vendored(script: Path) -> str:
    """A vendored library as it is (it sets a global of its own), less the source map it names: the view
    fetches nothing, and the map is not vendored."""
    return SOURCE_MAP.sub("", script.read_text(encoding="utf-8")).rstrip() + ";"


@functools.cache  # package files: assembled once per process, not on every read of a view
def _view_script() -> str:
    """The vendored library, the console's shared modules, then the view's own script, all in strict mode as
    modules are. markdown-it holds `<!--` (in its patterns), after which `<script` would keep a `</script>` from
    ending the element, so neither `</script` nor `<script` may appear."""
    parts = [
        '"use strict";',
        *map(_vendored, VENDORED_SCRIPTS),
        *map(_as_script, SHARED_MODULES),
        (VIEW_FILES / "results.js").read_text(encoding="utf-8"),
    ]
    return _inline(_inline("\n".join(parts), "</script"), "<script")


@functools.cache
def _view_style() -> str:
    return _inline((VIEW_FILES / "results.css").read_text(encoding="utf-8"), "</style")


@functools.cache
def _view_template() -> str:
    return (VIEW_FILES / "results.html").read_text(encoding="utf-8")


def _digest(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def view_html(declaration: ToolDeclaration, ranked: RankedList) -> str:
    """The view for one tool: the page, its script and stylesheet inlined, and what it needs to know of the
    tool as JSON. Its policy runs only that script and that stylesheet (by their hashes)."""
    script = _view_script()
    style = _view_style()
    config = {
        "tool": declaration.name,
        "open_tool": OPEN_RECORD,
        "list_key": ranked.key,
        "id_field": ranked.id_field,
        "score_field": ranked.score_field,
        "filters": filters(declaration),
        "version": __version__,
    }
    policy = (
        f"default-src 'none'; script-src {_digest(script)}; style-src {_digest(style)}; img-src data:; "
        "connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'"
    )
    page = {
        "csp": policy,
        "title": f"{declaration.name} results",
        "style": style,
        "script": script,
        "config": json.dumps(config).replace("</", "<\\/"),  # a data block: never ended by a value
    }
    return re.sub(r"\{(csp|title|style|script|config)\}", lambda m: page[m.group(1)], _view_template())


OPEN_RECORD_INPUT = {
    "type": "object",
    "properties": {
        "tool": {"type": "string", "description": "The tool whose result this is, e.g. search_docs."},
        "arguments": {"type": "object", "description": "The arguments of the call that returned the result."},
        "id": {"type": ["string", "integer"], "description": "The result's identifier, as the tool returned it."},
    },
    "required": ["tool", "arguments", "id"],
    "additionalProperties": False,
}
OPEN_RECORD_OUTPUT = {
    "type": "object",
    "required": ["tool", "collection", "record_id", "matched", "documents"],
    "properties": {
        "tool": {"type": "string"},
        "collection": {"type": "string", "description": "The collection the record is stored in."},
        "record_id": {"type": "string"},
        "matched": {"type": "string", "description": "The stored document the result was made from."},
        "documents": {
            "type": "array",
            "description": "Every document of the record (its chunks, in order), without vectors.",
            "items": {"type": "object", "required": ["id", "content", "meta"]},
        },
    },
}


class OpenRecord(Tool):
    """The whole record behind one result, for the view's "open". The tool is called again with the same
    arguments and the result's row traced to the stored document it was made from (as the console explains a
    call), so it works for any pipeline, whatever its formatter makes of the stored ids."""

    service: Any

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            found = await self._open(arguments)
        except Exception as error:
            _, body = envelope(error)
            return ToolResult(content=json.dumps(body), is_error=True)
        return ToolResult(content=json.dumps(found, default=str), structured_content=found)

    async def _open(self, arguments: dict[str, Any]) -> dict[str, Any]:
        name, call, wanted = arguments.get("tool"), arguments.get("arguments"), arguments.get("id")
        if not isinstance(name, str) or not isinstance(call, dict) or not isinstance(wanted, str | int):
            msg = 'send {"tool": "search_docs", "arguments": {...the call...}, "id": "<the result\'s id>"}'
            raise InvalidRequestError(msg, {"field": "arguments"})
        declaration = self.service.listing().get(name)
        ranked = ranked_list(declaration) if declaration is not None else None
        if ranked is None:
            msg = f"tool '{name}' returns no ranked records to open; tools with a results view: " + ", ".join(
                sorted(n for n, d in self.service.listing().items() if ranked_list(d))
            )
            raise NotFoundError(msg, {"tool": name})
        generation = await self.service.ready_generation()
        generation.enter()
        try:
            return await anyio.to_thread.run_sync(_whole_record, generation.gateway, name, call, ranked, str(wanted))
        finally:
            generation.leave()


def _whole_record(gateway: Any, name: str, call: dict[str, Any], ranked: RankedList, wanted: str) -> dict[str, Any]:
    from haygate.gateway.tool import collection_store
    from haygate.server.replies import listed

    runtime = gateway.get(name)
    result, provenance = runtime.explain(call)
    rows = result.get(ranked.key) or []
    traced = next(
        (p for row, p in zip(rows, provenance, strict=False) if str(row.get(ranked.id_field)) == wanted), None
    )
    if traced is None:
        msg = f"'{wanted}' is not among the results of this call of '{name}' (any more): search again"
        raise NotFoundError(msg, {"tool": name, "id": wanted})
    record_id = traced["record_id"] or traced["id"]
    mine = {
        "operator": "AND",
        "conditions": [
            {
                "operator": "OR",
                "conditions": [
                    {"field": "id", "operator": "==", "value": record_id},
                    {"field": "meta.record_id", "operator": "==", "value": record_id},
                ],
            },
            *runtime.server_filters(),  # the tenant's records only, as the tool itself reads them
        ],
    }
    stores = gateway.loader.stores()
    assert runtime.pipeline is not None  # a tool with a ranked list runs a pipeline
    read = {id(store) for _, part in runtime.pipeline.pipeline.walk() if (store := collection_store(part)) is not None}
    for collection, store in sorted(stores.items()):
        if id(store) not in read:
            continue
        documents = store.meta_by_filter(mine)
        if documents:
            documents.sort(key=lambda d: (d.meta.get("chunk_index", -1), d.id))
            return {
                "tool": name,
                "collection": collection,
                "record_id": str(record_id),
                "matched": str(traced["id"]),
                "documents": [listed(document, None) for document in documents],
            }
    msg = f"the record '{record_id}' behind this result is no longer stored"
    raise NotFoundError(msg, {"tool": name, "id": wanted})


class ResultViews(Provider):
    """One view resource per tool that returns ranked records, and the view's own tool (both as the served
    tools are now: they change on reload)."""

    def __init__(self, service: GatewayService) -> None:
        super().__init__()
        self.service = service
        self.open_record = OpenRecord(
            name=OPEN_RECORD,
            description="The whole stored record behind one result of a search tool, for its results view.",
            parameters=OPEN_RECORD_INPUT,
            output_schema=OPEN_RECORD_OUTPUT,
            annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False),
            meta={"ui": app_config_to_meta_dict(AppConfig(visibility=["app"]))},
            service=service,
        )
        self._built: dict[str, tuple[ToolDeclaration, TextResource]] = {}  # a page is made once per declaration

    def ranked(self) -> dict[str, RankedList]:
        """The served tools that get a view, by name."""
        return {name: found for name, d in self.service.listing().items() if (found := ranked_list(d)) is not None}

    def _view(self, declaration: ToolDeclaration, ranked: RankedList) -> TextResource:
        cached = self._built.get(declaration.name)
        if cached is None or cached[0] is not declaration:
            resource = TextResource(
                uri=AnyUrl(view_uri(declaration.name)),
                name=f"{declaration.name} results",
                description=f"The results of {declaration.name}, their provenance and filters, as a view.",
                mime_type=UI_MIME_TYPE,
                text=view_html(declaration, ranked),
                meta=VIEW_META,
            )
            cached = self._built[declaration.name] = (declaration, resource)
        return cached[1]

    async def _list_resources(self) -> Sequence[Resource]:
        listing = self.service.listing()
        return [self._view(listing[name], ranked) for name, ranked in sorted(self.ranked().items())]

    async def _get_resource(self, uri: str, version: Any = None) -> Resource | None:
        if not uri.startswith(VIEW_PREFIX) or not uri.endswith(".html"):
            return None
        declaration = self.service.listing().get(uri[len(VIEW_PREFIX) : -len(".html")])
        ranked = ranked_list(declaration) if declaration is not None else None
        return self._view(declaration, ranked) if declaration is not None and ranked is not None else None

    async def _list_tools(self) -> Sequence[Tool]:
        return [self.open_record] if self.ranked() else []  # nothing to open without a ranked tool

    async def _get_tool(self, name: str, version: Any = None) -> Tool | None:
        return self.open_record if name == OPEN_RECORD else None


def _has_apps(context: MiddlewareContext) -> bool:
    fastmcp_context = context.fastmcp_context
    return fastmcp_context is not None and fastmcp_context.client_supports_extension(UI_EXTENSION_ID)


class ViewsForEveryHost(Middleware):
    """Each ranked tool names its view (`_meta.ui.resourceUri`) for every client; `open-record` is app-only
    where the host declared MCP Apps, and a plain read-only tool elsewhere (a host that renders views without
    declaring the extension calls it from the view like any tool)."""

    def __init__(self, views: ResultViews) -> None:
        self.views = views

    async def on_list_tools(self, context: MiddlewareContext, call_next: CallNext) -> Sequence[Tool]:
        tools: Sequence[Tool] = await call_next(context)
        ranked, declared = self.views.ranked(), _has_apps(context)
        return [
            tool.model_copy(update={"meta": {**(tool.meta or {}), "ui": {"resourceUri": view_uri(tool.name)}}})
            if tool.name in ranked
            else tool.model_copy(update={"meta": {k: v for k, v in (tool.meta or {}).items() if k != "ui"} or None})
            if tool.name == OPEN_RECORD and not declared
            else tool
            for tool in tools
        ]


def install_result_views(mcp: FastMCP, service: GatewayService) -> None:
    """The views and their tool, for every host. (The server advertises the extension: FastMCP puts
    `io.modelcontextprotocol/ui` in every server's capabilities, which the MCP SDK leaves out of a pre-2026
    handshake's answer; every host is shown the views either way.)"""
    views = ResultViews(service)
    mcp.add_provider(views)
    mcp.add_middleware(ViewsForEveryHost(views))


__all__ = ["OPEN_RECORD", "RankedList", "install_result_views", "ranked_list", "view_html", "view_uri"]
