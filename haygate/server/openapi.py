"""The OpenAPI document of the REST API, built from the served declarations, and the `/docs` page over it.

The tool schemas are MCP's, made exact for OpenAPI 3.1: an optional parameter that defaults to null says
it takes null. Each tool's example request is its declaration's own examples. Each collection's write routes
have their own path, with the record fields its YAML declares, and links from a write to the delete of what
it wrote (a contract tester follows them). What the routes answer is published from the models that
describe it (`replies`): a write's `IngestReport`, the error envelope, health, reload and delete. The page is
Swagger UI from the installed `swagger-ui-bundle-v2` package (no CDN); a bearer token typed into it is kept
for the tab only and sent with every request the page makes, the document's own fetch included.
"""

import copy
import json
from typing import Any

from pydantic import TypeAdapter

from haygate import __version__
from haygate.errors import HTTP_STATUS
from haygate.gateway.declarations import ToolDeclaration
from haygate.gateway.operations import OPERATIONS, ExplainRequest, PoolRequest
from haygate.ingest.fields import FieldSpec
from haygate.ingest.schema import CollectionSchema, load_schema
from haygate.server.replies import REF_TEMPLATE, ref, schemas

SWAGGER_UI = "/docs/static"
# Every request may meet the trust boundary (FORBIDDEN: a foreign Host or Origin) and the body limit.
CALL_ERRORS = (
    "VALIDATION_ERROR",
    "NOT_FOUND",
    "FORBIDDEN",
    "PAYLOAD_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "UNAVAILABLE",
    "INTERNAL_ERROR",
)
WRITE_ERRORS = (*CALL_ERRORS, "STORE_IN_USE", "STORAGE_FULL", "STORE_DAMAGED")
JSON_TYPES = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean", "object": "object"}


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema with every property whose default is null also typed null."""
    schema = copy.deepcopy(schema)
    for prop in schema.get("properties", {}).values():
        if "default" not in prop or prop["default"] is not None:
            continue
        if "anyOf" in prop:
            prop["anyOf"].append({"type": "null"})
        elif isinstance(prop.get("type"), str):
            prop["type"] = [prop["type"], "null"]
        if "enum" in prop and None not in prop["enum"]:
            prop["enum"] = [*prop["enum"], None]
    return schema


def example_request(declaration: ToolDeclaration) -> dict[str, Any]:
    """The required parameters, each with its first declared example: the smallest call that works."""
    return {name: spec.examples[0] for name, spec in declaration.parameters.items() if spec.required and spec.examples}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def _reply(description: str, name: str) -> dict[str, Any]:
    """A response whose schema is one of the replies' (`replies.schemas`)."""
    return {"description": description, **_json(ref(name))}


def _errors(codes: tuple[str, ...]) -> dict[str, Any]:
    return {str(HTTP_STATUS[code]): _reply(code, "Error") for code in codes}


def tool_operation(declaration: ToolDeclaration, secured: bool) -> dict[str, Any]:
    codes = CALL_ERRORS + (("UNAUTHORIZED",) if secured else ())
    return {
        "post": {
            "operationId": declaration.name,
            "tags": ["tools"],
            "summary": declaration.description.split(". ")[0],
            "description": declaration.description,
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": nullable(declaration.input_schema()),
                        "examples": {
                            "example": {"summary": "the declaration's examples", "value": example_request(declaration)}
                        },
                    }
                },
            },
            "responses": {"200": {"description": "Result", **_json(declaration.result_schema)}, **_errors(codes)},
        }
    }


def field_schema(spec: FieldSpec) -> dict[str, Any]:
    """A declared record field as JSON Schema (ingest coerces what is safe, so the schema names the type a
    caller should send; a value ingest cannot take is refused for that record alone)."""
    if spec.type == "list":
        assert spec.items is not None
        return {"type": "array", "items": field_schema(FieldSpec(type=spec.items))}
    if spec.type == "datetime":
        return {"type": "string", "format": "date-time"}
    return {"type": JSON_TYPES[spec.type]}


def record_schema(collection: CollectionSchema) -> dict[str, Any]:
    """A record of the collection: its id field(s) and declared fields typed; other fields are kept as meta
    or ignored, as the collection's YAML says."""
    mapping = collection.record
    ids = [] if mapping.id is None else [mapping.id] if isinstance(mapping.id, str) else list(mapping.id)
    properties = {name: field_schema(spec) for name, spec in mapping.fields.items()}
    for name in ids:
        properties.setdefault(name, {"type": ["string", "integer"]})
    return {"type": "object", "required": ids, "properties": properties, "additionalProperties": True}


def record_description(record: dict[str, Any]) -> str:
    """How a record is checked, in words: per record, so a bad one is refused (with why) and the rest land."""
    fields = ", ".join(
        f"{name} ({spec.get('type') if isinstance(spec.get('type'), str) else ' or '.join(spec['type'])}"
        f"{', required' if name in record['required'] else ''})"
        for name, spec in record["properties"].items()
    )
    return f"A record, checked on its own: a record that does not fit is refused with why, the rest land. {fields}."


def records_operations(collection: CollectionSchema, secured: bool) -> dict[str, Any]:
    """PUT (upsert) and DELETE of one collection's records, linked: a write, then the delete of what it wrote."""
    codes = WRITE_ERRORS + (("UNAUTHORIZED",) if secured else ())
    return {"put": upsert_operation(collection, codes), "delete": delete_operation(collection.name, codes)}


def upsert_operation(collection: CollectionSchema, codes: tuple[str, ...]) -> dict[str, Any]:
    """A JSON array of the collection's records, answered with the ingest's report."""
    name = collection.name
    record = record_schema(collection)
    id_field = record["required"][0] if len(record["required"]) == 1 else None
    delete_the_first = {"operationId": f"delete_{name}_records", "parameters": {"id": f"$request.body#/0/{id_field}"}}
    records = {"type": "array", "minItems": 1, "items": {"type": "object", "description": record_description(record)}}
    written = _reply("What became of each record: added, updated, unchanged or refused (with why)", "IngestReport")
    return {
        "operationId": f"upsert_{name}_records",
        "tags": ["collections"],
        "summary": f"Upsert records of '{name}' (a JSON array, or JSONL); durable when it answers",
        "description": collection.description or name,
        # JSONL (application/jsonl, one record per line) is taken too; a JSON array is the contract.
        "requestBody": {"required": True, **_json(records)},
        "responses": {
            "200": {**written, **({"links": {"DeleteTheFirstRecord": delete_the_first}} if id_field else {})},
            **_errors(codes),
        },
    }


def delete_operation(name: str, codes: tuple[str, ...]) -> dict[str, Any]:
    """Records deleted by id (`?id=...&id=...`), with all their chunks."""
    ids = {"type": "array", "minItems": 1, "items": {"type": "string", "minLength": 1}}
    return {
        "operationId": f"delete_{name}_records",
        "tags": ["collections"],
        "summary": f"Delete records of '{name}' by id, with all their chunks",
        "parameters": [
            {"name": "id", "in": "query", "required": True, "style": "form", "explode": True, "schema": ids}
        ],
        "responses": {
            "200": _reply("How many records and points went; ids that were not there", "Deleted"),
            **_errors(codes),
        },
    }


def operations(secured: bool, metrics_public: bool) -> dict[str, Any]:
    """The paths of reload, health and metrics."""
    return {
        "/api/admin/reload": {
            "post": {
                "operationId": "reload",
                "tags": ["operations"],
                "summary": "Reload configs/ and pipelines/; swapped in only if every check passes",
                "responses": {
                    "200": _reply("Swapped in", "Reloaded"),
                    "422": _reply("Not swapped in: the problems, and the old tools keep serving", "Reloaded"),
                    **_errors(("FORBIDDEN", "UNSUPPORTED_MEDIA_TYPE", *(("UNAUTHORIZED",) if secured else ()))),
                },
            }
        },
        "/health": {
            "get": {
                "tags": ["operations"],
                "summary": "Status; with verbose=true, collections (documents, disk, last write) and calls per tool",
                "security": [],
                "parameters": [{"name": "verbose", "in": "query", "required": False, "schema": {"type": "boolean"}}],
                "responses": {
                    "200": _reply("Status", "Health"),
                    **_errors(("VALIDATION_ERROR", "FORBIDDEN")),
                },
            }
        },
        "/metrics": {
            "get": {
                "tags": ["operations"],
                "summary": "Prometheus metrics (text format)",
                **({"security": []} if metrics_public else {}),
                "responses": {
                    "200": {"description": "Metrics", "content": {"text/plain": {"schema": {"type": "string"}}}},
                    **_errors(("FORBIDDEN", *(("UNAUTHORIZED",) if secured and not metrics_public else ()))),
                },
            }
        },
    }


def public_operations() -> list[Any]:
    """The gateway's operations any client may ask for (the owner's socket also serves `validate` and `examples`)."""
    return [op for op in OPERATIONS.values() if not op.owner_only]


def operation_schemas() -> dict[str, Any]:
    """The request and reply models of the public operations, as the document's components."""
    models = {m.__name__: m for op in public_operations() for m in (op.request, op.reply)}
    adapters = [(name, "validation", TypeAdapter(model)) for name, model in models.items()]
    _, defined = TypeAdapter.json_schemas(adapters, ref_template=REF_TEMPLATE)  # type: ignore[arg-type]
    return dict(defined.get("$defs", {}))


def call_request(listing: dict[str, ToolDeclaration], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The body of an operation that calls a tool (`call`, `explain`), typed per served tool: a tool's name with
    the arguments its input schema takes (the request model's `arguments` is any JSON; each tool's own schema is
    what checks it), and the operation's `extra` properties."""
    return {
        "oneOf": [
            {
                "type": "object",
                "properties": {
                    "tool": {"const": name},
                    "arguments": nullable(declaration.input_schema()),
                    **(extra or {}),
                },
                # arguments may be left out (`{}`) where the tool requires none
                "required": ["tool", *(["arguments"] if declaration.input_schema().get("required") else [])],
                "additionalProperties": False,
            }
            for name, declaration in sorted(listing.items())
        ]
    }


def request_schema(
    name: str, model: str, listing: dict[str, ToolDeclaration], collections: list[str]
) -> dict[str, Any]:
    """An operation's body: its request model, with the tool it names one of those served (`call`, `explain`:
    typed per tool; `save_judged_set`: the tool its queries are judged on) and the collection one configured."""
    if name == "call":
        return call_request(listing)
    if name == "explain":
        return call_request(listing, {"pipeline": ExplainRequest.model_json_schema()["properties"]["pipeline"]})
    if name == "pool":  # a search tool's rankings: a tool that writes has none
        pooling = PoolRequest.model_json_schema()["properties"]
        searches = {tool: declaration for tool, declaration in listing.items() if declaration.action is None}
        return call_request(searches, {key: pooling[key] for key in ("pipelines", "sources", "depth", "level")})
    reference = {"$ref": REF_TEMPLATE.format(model=model)}
    if name == "save_judged_set":
        return {"allOf": [reference, {"properties": {"tool": {"enum": sorted(listing)}}}]}
    if name in ("judged_ids", "record_ids"):
        return {"allOf": [reference, {"properties": {"collection": {"enum": collections}}}]}
    return reference


def gateway_operations(
    secured: bool, listing: dict[str, ToolDeclaration], collections: list[str] | None = None
) -> dict[str, Any]:
    """`POST /api/operations/<name>`: one path per operation of the table, its body the request model."""
    paths = {}
    for op in public_operations():
        codes = (*(WRITE_ERRORS if op.writes else CALL_ERRORS), *(("UNAUTHORIZED",) if secured else ()))
        schema_of = request_schema(op.name, op.request.__name__, listing, collections or [])
        paths[f"/api/operations/{op.name}"] = {
            "post": {
                "operationId": f"operation_{op.name}",
                "tags": ["operations"],
                "summary": f"{op.summary} (the gateway's `{op.name}` operation, as the `haygate` command runs it)",
                "requestBody": {
                    "required": any(f.is_required() for f in op.request.model_fields.values()),
                    **_json(schema_of),
                },
                "responses": {
                    "200": {"description": op.summary, **_json({"$ref": REF_TEMPLATE.format(model=op.reply.__name__)})},
                    **_errors(codes),
                },
            }
        }
    return paths


def openapi_document(service: Any, secured: bool = False) -> dict[str, Any]:
    """`service`: a GatewayService (what it serves now). `secured`: a bearer token guards the server."""
    paths: dict[str, Any] = {
        f"/api/tools/{name}": tool_operation(declaration, secured)
        for name, declaration in sorted(service.listing().items())
    }
    collections = []
    for path in sorted(service.settings.collections_dir.glob("*.yaml")):
        collection = load_schema(path)
        collections.append(collection.name)
        paths[f"/api/collections/{collection.name}/records"] = records_operations(collection, secured)
    paths.update(operations(secured, metrics_public=not secured or service.settings.metrics_public))
    paths.update(gateway_operations(secured, service.listing(), collections))
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "haygate",
            "version": __version__,
            "description": "Every MCP tool of this server as a REST endpoint: the same arguments, results and errors.",
        },
        "paths": paths,
        "components": {
            "schemas": {**schemas(), **operation_schemas()},
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    }
    if secured:
        document["security"] = [{"bearer": []}]
    return document


API_PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>haygate API</title>
  <link rel="stylesheet" href="{static}/swagger-ui.css">
  <style>
    #token-bar {{ font-family: sans-serif; padding: 8px 20px; background: #f5f5f5; }}
    #token-bar input {{ width: 24em; }}
  </style>
</head>
<body>
  <form id="token-bar">
    <label for="token">Bearer token (only if the server has one):</label>
    <input id="token" type="password" autocomplete="off">
    <button type="submit">Use</button>
  </form>
  <div id="swagger-ui"></div>
  <script src="{static}/swagger-ui-bundle.js"></script>
  <script>
    const KEY = "haygate-token";
    document.getElementById("token-bar").addEventListener("submit", (event) => {{
      event.preventDefault();
      sessionStorage.setItem(KEY, document.getElementById("token").value);
      location.reload();
    }});
    window.ui = SwaggerUIBundle({{
      url: {spec},
      dom_id: "#swagger-ui",
      deepLinking: true,
      displayRequestDuration: true,
      requestInterceptor: (request) => {{
        const token = sessionStorage.getItem(KEY);
        if (token) request.headers["Authorization"] = "Bearer " + token;
        return request;
      }},
    }});
  </script>
</body>
</html>
""".format(static=SWAGGER_UI, spec=json.dumps("/openapi.json"))
