"""The console's page (`/console`) and the JSON API it reads (`/api/console/...`): tools and pipelines to try,
explained calls, a collection's documents and records, evaluation reports, and judged sets."""

import functools
import json
import re
import uuid
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse
from starlette.routing import Route

from haygate.console import judging
from haygate.console.pages import (
    CONSOLE,
    CONSOLE_FILES,
    evaluation_reports,
    report_folder,
    shown_path,
)
from haygate.errors import InvalidRequestError, NotFoundError
from haygate.server.replies import listed
from haygate.server.routes import served
from haygate.server.routes.envelope import answers
from haygate.server.routes.operations import run_served
from haygate.server.routes.reading import bounded_int, json_object

API = f"/api{CONSOLE}"
PAGE_SIZE, MAX_PAGE_SIZE = 20, 200
EXCERPT_CHARS = 2000  # a document's content as the browser lists it; the record view shows it whole
MAX_JUDGED_IDS = 10_000  # ids one judged-id or record-id lookup takes


@functools.cache
def page_html() -> str:
    return (CONSOLE_FILES / "index.html").read_text(encoding="utf-8")


async def page(request: Request) -> HTMLResponse:
    return HTMLResponse(page_html())


@answers
async def info(request: Request) -> dict[str, Any]:
    from haygate import __version__

    serving = served(request)
    settings = serving.service.settings
    return {
        "version": __version__,
        "tier": settings.tier,
        "token_required": bool(settings.token),
        "writes": serving.writes_allowed,
        "delete_allowed": serving.writes_allowed and settings.tier == "admin",
        "eval_dir": shown_path(settings.evaluations_dir, settings.home),
    }


@answers
async def tools(request: Request) -> dict[str, Any]:
    listing = served(request).service.listing()
    return {
        "tools": [
            {
                "name": name,
                "description": declaration.description,
                "tier": declaration.tier,
                "read_only": declaration.read_only,
                "input_schema": declaration.input_schema(),
                "output_schema": declaration.output_schema,
                "examples": declaration.example_calls(most=5),
            }
            for name, declaration in sorted(listing.items())
        ]
    }


@answers
async def pipelines(request: Request) -> dict[str, Any]:
    root = served(request).service.settings.pipelines_dir
    found = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml") if "indexing" not in p.parts)
    return {"pipelines": found}


@answers
async def call(request: Request) -> dict[str, Any]:
    """The gateway's `explain` operation: the tool as served, or with another pipeline file of the project in its
    place, each result row with its provenance."""
    return await run_served(request, "explain", await json_object(request))


@answers
async def documents(request: Request) -> dict[str, Any]:
    """A page of a collection's documents, after the `next` cursor of the previous page."""
    store = await served(request).service.served_store(request.path_params["collection"])
    limit = bounded_int(request, "limit", PAGE_SIZE, 1, MAX_PAGE_SIZE)
    after = request.query_params.get("after") or None
    if after is not None:
        try:
            after = str(uuid.UUID(after))
        except ValueError:
            msg = "'after' is the 'next' cursor of a previous page"
            raise InvalidRequestError(msg, {"field": "after"}) from None
    found, cursor = await anyio.to_thread.run_sync(store.page, limit, after)
    total = await anyio.to_thread.run_sync(store.count_documents)
    return {
        "collection": request.path_params["collection"],
        "total": total,
        "documents": [listed(document, EXCERPT_CHARS) for document in found],
        "next": cursor,
    }


@answers
async def record(request: Request) -> dict[str, Any]:
    """One record: every document stored for it, in chunk order, whole."""
    name, record_id = request.path_params["collection"], request.path_params["record_id"]
    store = await served(request).service.served_store(name)
    mine = {
        "operator": "OR",
        "conditions": [
            {"field": "id", "operator": "==", "value": record_id},
            {"field": "meta.record_id", "operator": "==", "value": record_id},
        ],
    }
    found = await anyio.to_thread.run_sync(store.meta_by_filter, mine)
    if not found:
        msg = f"collection '{name}' holds no record '{record_id}'"
        raise NotFoundError(msg, {"collection": name, "record_id": record_id})
    found.sort(key=lambda d: (d.meta.get("chunk_index", -1), d.id))
    return {"collection": name, "record_id": record_id, "documents": [listed(d, None) for d in found]}


@answers
async def evaluations(request: Request) -> dict[str, Any]:
    settings = served(request).service.settings
    reports = await anyio.to_thread.run_sync(evaluation_reports, settings.evaluations_dir)
    return {"eval_dir": shown_path(settings.evaluations_dir, settings.home), "reports": reports}


@answers
async def evaluation_report(request: Request) -> dict[str, Any]:
    root = served(request).service.settings.evaluations_dir
    folder = report_folder(root, request.query_params.get("name", ""))
    return json.loads((folder / "report.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@answers
async def evaluation_plot(request: Request) -> FileResponse:
    root = served(request).service.settings.evaluations_dir
    folder = report_folder(root, request.query_params.get("name", ""))
    if not (folder / "plot.png").is_file():
        raise NotFoundError(f"report '{request.query_params['name']}' has no plot", {"field": "name"})
    return FileResponse(folder / "plot.png", media_type="image/png")


@answers
async def judged_sets(request: Request) -> dict[str, Any]:
    settings = served(request).service.settings
    found = await anyio.to_thread.run_sync(judging.list_sets, settings.judged_sets_dir)
    return {"folder": shown_path(settings.judged_sets_dir, settings.home), "sets": found}


@answers
async def judged_set(request: Request) -> dict[str, Any]:
    split = request.query_params.get("split", "test")
    if not re.match(judging.SPLIT_NAME, split):
        raise InvalidRequestError(f"'split' is a split's name, such as test or dev, got {split!r}", {"field": "split"})
    root, name = served(request).service.settings.judged_sets_dir, request.path_params["name"]
    return await anyio.to_thread.run_sync(judging.read_set, root, name, split)


@answers
async def save_judged_set(request: Request) -> dict[str, Any]:
    """The gateway's `save_judged_set` operation, the set named by the path (a `name` in the body is not read)."""
    return await run_served(
        request, "save_judged_set", {**await json_object(request), "name": request.path_params["name"]}
    )


@answers
async def judged_ids(request: Request) -> dict[str, Any]:
    """The gateway's `judged_ids` operation on the collection the path names."""
    body = await json_object(request)
    return await run_served(request, "judged_ids", {**body, "collection": request.path_params["collection"]})


@answers
async def record_ids(request: Request) -> dict[str, Any]:
    """The gateway's `record_ids` operation on the collection the path names."""
    body = await json_object(request)
    return await run_served(request, "record_ids", {**body, "collection": request.path_params["collection"]})


def routes() -> list[Route]:
    """The page and its routes."""
    page_html()  # read once, at start-up
    return [
        Route(CONSOLE, page, methods=["GET"]),
        Route(f"{API}/info", info, methods=["GET"]),
        Route(f"{API}/tools", tools, methods=["GET"]),
        Route(f"{API}/pipelines", pipelines, methods=["GET"]),
        Route(f"{API}/call", call, methods=["POST"]),
        Route(f"{API}/collections/{{collection}}/documents", documents, methods=["GET"]),
        Route(f"{API}/collections/{{collection}}/records/{{record_id:path}}", record, methods=["GET"]),
        Route(f"{API}/evaluations", evaluations, methods=["GET"]),
        Route(f"{API}/evaluations/report", evaluation_report, methods=["GET"]),
        Route(f"{API}/evaluations/plot", evaluation_plot, methods=["GET"]),
        Route(f"{API}/judged", judged_sets, methods=["GET"]),
        Route(f"{API}/judged/{{name}}", judged_set, methods=["GET"]),
        Route(f"{API}/judged/{{name}}", save_judged_set, methods=["PUT"]),
        Route(f"{API}/collections/{{collection}}/judged-ids", judged_ids, methods=["POST"]),
        Route(f"{API}/collections/{{collection}}/record-ids", record_ids, methods=["POST"]),
    ]
