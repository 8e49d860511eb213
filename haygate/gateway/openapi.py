"""The OpenAPI document of the REST API, built from the served declarations, and the `/docs` page over it.

The tool schemas are MCP's, made exact for OpenAPI 3.1: an optional parameter that defaults to null says
it takes null. Each tool's example request is its declaration's own examples. The page is Swagger UI from
the installed `swagger-ui-bundle-v2` package (no CDN); a bearer token typed into it is kept for the tab
only and sent with every request the page makes, the document's own fetch included.
"""

import copy
import json
from typing import Any

from haygate import __version__
from haygate.errors import HTTP_STATUS
from haygate.gateway.declarations import ToolDeclaration

SWAGGER_UI = "/docs/static"
CALL_ERRORS = ("VALIDATION_ERROR", "NOT_FOUND", "UNAVAILABLE", "INTERNAL_ERROR")
ERROR_REF = {"$ref": "#/components/schemas/Error"}


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


def _errors(codes: tuple[str, ...]) -> dict[str, Any]:
    return {
        str(HTTP_STATUS[code]): {"description": code, "content": {"application/json": {"schema": ERROR_REF}}}
        for code in codes
    }


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
            "responses": {
                "200": {
                    "description": "Result",
                    "content": {"application/json": {"schema": declaration.output_schema}},
                },
                **_errors(codes),
            },
        }
    }


def openapi_document(service: Any, secured: bool = False) -> dict[str, Any]:
    """`service`: a GatewayService (what it serves now). `secured`: a bearer token guards the server."""
    paths: dict[str, Any] = {
        f"/api/tools/{name}": tool_operation(declaration, secured)
        for name, declaration in sorted(service.listing().items())
    }
    paths["/health"] = {
        "get": {
            "tags": ["operations"],
            "summary": "Status; with verbose=1, collections (documents, disk, last write) and calls per tool",
            "security": [],
            "parameters": [{"name": "verbose", "in": "query", "required": False, "schema": {"type": "boolean"}}],
            "responses": {
                "200": {"description": "Status", "content": {"application/json": {"schema": {"type": "object"}}}}
            },
        }
    }
    metrics_public = not secured or service.settings.metrics_public
    paths["/metrics"] = {
        "get": {
            "tags": ["operations"],
            "summary": "Prometheus metrics (text format)",
            **({"security": []} if metrics_public else {}),
            "responses": {"200": {"description": "Metrics", "content": {"text/plain": {"schema": {"type": "string"}}}}},
        }
    }
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "haygate",
            "version": __version__,
            "description": "Every MCP tool of this server as a REST endpoint: the same arguments, results and errors.",
        },
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {
                    "type": "object",
                    "required": ["error"],
                    "properties": {
                        "error": {
                            "type": "object",
                            "required": ["code", "message", "details"],
                            "properties": {
                                "code": {"type": "string", "enum": list(HTTP_STATUS)},
                                "message": {"type": "string"},
                                "details": {"type": "object"},
                            },
                        }
                    },
                }
            },
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
