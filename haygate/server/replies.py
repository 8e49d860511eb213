"""What the REST routes answer, as models: the OpenAPI document's response schemas are derived from these
(`schemas`), so a reply and its published schema have one owner. A tool's own result is its declaration's
`result_schema`; a write's report is the ingest's own `IngestReport`."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from haygate.errors import HTTP_STATUS
from haygate.gateway.operations import Deleted, Reloaded
from haygate.ingest.report import IngestReport
from haygate.server.service import State

REF_TEMPLATE = "#/components/schemas/{model}"


class ErrorBody(BaseModel):
    code: str = Field(json_schema_extra={"enum": list(HTTP_STATUS)}, description="What kind of failure.")
    message: str = Field(description="What went wrong, and what to change.")
    details: dict[str, Any] = Field(description="The field, value or limit the message is about.")


class Error(BaseModel):
    """Every failure, from every route (MCP's `isError` results carry the same object)."""

    error: ErrorBody = Field(description="The one error the request got.")


class RefusedReload(BaseModel):
    at: str = Field(description="When (UTC, ISO 8601).")
    problems: list[str] = Field(description="What the refused configuration got wrong.")


class Health(BaseModel):
    """The service's status; `collections` and `calls` with `verbose=true`."""

    model_config = ConfigDict(extra="allow")

    status: Literal[State, "degraded"] = Field(
        description="`degraded`: serving, with problems (a tool left out, a refused reload)."
    )
    version: str = Field(description="haygate's version.")
    tools: list[str] = Field(description="The tools served.")
    problems: list[str] = Field(description="Tools left out at start or by a refused reload, and why.")
    reload_refused: RefusedReload | None = Field(None, description="The last reload, when it was refused.")
    indexing: list[str] = Field(description="Collections whose indexes are being built aside.")
    uptime_s: float = Field(description="Seconds since the server started.")
    collections: dict[str, dict[str, Any]] | None = Field(
        None, description="Per collection: documents, disk use and last write."
    )
    calls: dict[str, dict[str, Any]] | None = Field(None, description="Per tool: calls and latency since start.")


REPLIES: dict[str, Any] = {
    "Error": Error,
    "IngestReport": IngestReport,
    "Deleted": Deleted,
    "Reloaded": Reloaded,
    "Health": Health,
}


def schemas() -> dict[str, Any]:
    """Every reply's JSON Schema, with the models they nest, named as the document's components."""
    adapters = [(name, "serialization", TypeAdapter(model)) for name, model in REPLIES.items()]
    _, defined = TypeAdapter.json_schemas(adapters, ref_template=REF_TEMPLATE)  # type: ignore[arg-type]
    return dict(defined["$defs"])


def ref(name: str) -> dict[str, str]:
    """A reference to one of `schemas()`."""
    assert name in REPLIES, name
    return {"$ref": REF_TEMPLATE.format(model=name)}


def listed(document: Any, chars: int | None) -> dict[str, Any]:
    """A stored Document as the browser shows it: content (cut at `chars`), metadata without vectors."""
    content = document.content or ""
    meta = {k: v for k, v in document.meta.items() if k != "embedding"}
    return {
        "id": document.id,
        "record_id": meta.get("record_id", document.id),
        "content": content if chars is None or len(content) <= chars else content[:chars] + "…",
        "content_chars": len(content),
        "meta": meta,
    }
