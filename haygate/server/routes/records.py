"""`PUT` and `DELETE /api/collections/{collection}/records`: records written through the collection's own
ingest (the gateway's `upsert` operation's work, on a JSON array, JSONL, CSV or a Markdown file), answered with
its report, or deleted by id."""

import io
import json
from pathlib import PurePosixPath
from typing import Any

import anyio
from starlette.requests import Request
from starlette.routing import Route

from haygate.errors import InvalidRequestError
from haygate.gateway.operations import write_records
from haygate.ingest.readers import (
    MARKDOWN_SUFFIXES,
    SourceRecord,
    as_source_record,
    parse_csv,
    parse_jsonl,
    parse_markdown,
)
from haygate.server.boundary import JSONL_TYPES
from haygate.server.routes import served
from haygate.server.routes.envelope import answers
from haygate.server.routes.operations import run_served
from haygate.server.routes.reading import json_body, no_json_constant
from haygate.server.workspace import ServedWorkspace

RECORDS = "/api/collections/{collection}/records"


async def records_body(request: Request) -> list[SourceRecord]:
    """A JSON array of records (objects: anything else makes the request malformed, a 422); JSONL with a
    JSONL content type (one record per line; a line that is not JSON is refused alone); or a record file as
    `haygate ingest` reads it: CSV (`text/csv`, a record per row) or Markdown (`text/markdown`, one record,
    `?filename=` naming the file). Each record is then checked on its own."""
    try:
        return await read_records(request)
    except (ValueError, RecursionError) as error:  # JSON's own, and what JSON has no room for (NaN)
        raise InvalidRequestError(f"request body must be JSON: {error}") from None


async def read_records(request: Request) -> list[SourceRecord]:
    raw = (await request.body()).decode("utf-8", errors="replace")
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    filename = request.query_params.get("filename") or "request"
    if media_type == "text/csv":
        return list(parse_csv(io.StringIO(raw, newline=""), filename))
    if media_type == "text/markdown":
        name = PurePosixPath(filename.replace("\\", "/")).name
        if not name.lower().endswith(MARKDOWN_SUFFIXES):
            msg = "a Markdown upload names its file: ?filename=notes.md (the record's id and path come from it)"
            raise InvalidRequestError(msg, {"field": "filename"})
        return list(parse_markdown(raw, name, name))
    if media_type in JSONL_TYPES:
        return list(parse_jsonl(raw.splitlines(), "request"))
    records = json.loads(raw, parse_constant=no_json_constant)
    if not isinstance(records, list):
        msg = "the body must be a JSON array of records (or JSONL, sent as application/jsonl)"
        raise InvalidRequestError(msg, {"field": "records"})
    strays = [number for number, record in enumerate(records) if not isinstance(record, dict)]
    if strays:
        msg = f"a JSON array of records holds objects only; item {strays[0]} is a {type(records[strays[0]]).__name__}"
        raise InvalidRequestError(msg, {"field": "records", "index": strays[0]})
    return [as_source_record("request", number, record) for number, record in enumerate(records, start=1)]


@answers
async def put_records(request: Request) -> dict[str, Any]:
    """The collection's `IngestReport` (`replies.schemas` publishes its schema): the work of the gateway's
    `upsert` operation (`operations.write_records`), on records read from any of the bodies it takes."""
    serving = served(request)
    serving.check_writes()
    collection = request.path_params["collection"]
    records = await records_body(request)
    if not records:
        raise InvalidRequestError("no records in the body", {"field": "records"})
    workspace = ServedWorkspace(serving.service, serving.transport)
    written = await anyio.to_thread.run_sync(write_records, workspace, collection, records)
    answer: dict[str, Any] = written.model_dump(mode="json")
    return answer


@answers
async def delete_records(request: Request) -> dict[str, Any]:
    """Ids as `?id=...&id=...`, or a body `{"ids": [...]}` (or a bare array); answered as `replies.Deleted`."""
    serving = served(request)
    serving.check_writes()
    collection = request.path_params["collection"]
    ids: Any = request.query_params.getlist("id")
    if not ids:
        body = await json_body(request)
        ids = body.get("ids") if isinstance(body, dict) else body
    if not isinstance(ids, list):
        raise InvalidRequestError('send {"ids": [...]} or ?id=...&id=...', {"field": "ids"})
    return await run_served(request, "delete", {"collection": collection, "ids": ids})


def routes() -> list[Route]:
    return [
        Route(RECORDS, put_records, methods=["PUT"]),
        Route(RECORDS, delete_records, methods=["DELETE"]),
    ]
