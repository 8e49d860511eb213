"""The console: a page at `/console` (HTML, one script, one stylesheet: no CDN, no JavaScript toolchain) and
the routes it reads beyond the public ones. It tries every tool from a form made from its schema and shows
why each result ranks where it does, runs one query through the tool and another pipeline side by side,
browses and loads collections through the write route, reads evaluation reports, and follows the calls.

The page is public, as `/docs` is; every route here is behind the bearer token when one is set, and the
trust boundary (Host, Origin, JSON bodies) guards them as it guards the rest.
"""

import json
import re
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from haygate.errors import ForbiddenError, InvalidRequestError, NotFoundError
from haygate.ingest.judged import CorpusIds
from haygate.ingest.judged import record_ids as record_ids_of
from haygate.server import judging
from haygate.server.replies import WRITE_OPEN_REFUSAL, error_response, json_body
from haygate.server.service import GatewayService

CONSOLE = "/console"
CONSOLE_FILES = Path(__file__).with_name("console")
CONSOLE_STATIC = f"{CONSOLE}/static"
PAGE_SIZE, MAX_PAGE_SIZE = 20, 200
EXCERPT_CHARS = 2000  # a document's content as the browser lists it; the record view shows it whole
MAX_JUDGED_IDS = 10_000  # ids one judged-id or record-id lookup takes


def console_routes(service: GatewayService, writes_allowed: bool) -> list[Route]:
    """The page and its routes."""

    def answering(handler: Callable[[Request], Awaitable[Any]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                answer = await handler(request)
            except Exception as error:
                return error_response(error)
            return answer if isinstance(answer, Response) else JSONResponse(answer)

        return endpoint

    page_html = (CONSOLE_FILES / "index.html").read_text(encoding="utf-8")  # read once, at start-up

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(page_html)

    async def info(request: Request) -> dict[str, Any]:
        from haygate import __version__

        settings = service.settings
        return {
            "version": __version__,
            "tier": settings.tier,
            "token_required": bool(settings.token),
            "writes": writes_allowed,
            "delete_allowed": writes_allowed and settings.tier == "admin",
            "eval_dir": shown_path(settings.evaluations_dir, settings.home),
        }

    async def tools(request: Request) -> dict[str, Any]:
        listed = service.listing()
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
                for name, declaration in sorted(listed.items())
            ]
        }

    async def pipelines(request: Request) -> dict[str, Any]:
        root = service.settings.pipelines_dir
        found = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml") if "indexing" not in p.parts)
        return {"pipelines": found}

    async def call(request: Request) -> dict[str, Any]:
        body = await json_object(request)
        tool, arguments, pipeline = body.get("tool"), body.get("arguments", {}), body.get("pipeline")
        if not isinstance(tool, str):
            msg = 'name the tool: {"tool": "search_docs", "arguments": {...}}'
            raise InvalidRequestError(msg, {"field": "tool"})
        if pipeline is not None and not isinstance(pipeline, str):
            msg = "'pipeline' is a path under pipelines/, e.g. eval/search_docs_dbsf.yaml"
            raise InvalidRequestError(msg, {"field": "pipeline"})
        path = None if not pipeline else project_pipeline(service.settings.pipelines_dir, pipeline)
        answer = await service.explain(tool, arguments, path)
        answer["pipeline"] = pipeline or None
        return answer

    async def documents(request: Request) -> dict[str, Any]:
        store = await collection_store(service, request.path_params["collection"])
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

    async def record(request: Request) -> dict[str, Any]:
        name, record_id = request.path_params["collection"], request.path_params["record_id"]
        store = await collection_store(service, name)
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

    async def evaluations(request: Request) -> dict[str, Any]:
        root = service.settings.evaluations_dir
        reports = await anyio.to_thread.run_sync(evaluation_reports, root)
        return {"eval_dir": shown_path(root, service.settings.home), "reports": reports}

    async def evaluation_report(request: Request) -> dict[str, Any]:
        folder = report_folder(service.settings.evaluations_dir, request.query_params.get("name", ""))
        return json.loads((folder / "report.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]

    async def evaluation_plot(request: Request) -> FileResponse:
        folder = report_folder(service.settings.evaluations_dir, request.query_params.get("name", ""))
        if not (folder / "plot.png").is_file():
            raise NotFoundError(f"report '{request.query_params['name']}' has no plot", {"field": "name"})
        return FileResponse(folder / "plot.png", media_type="image/png")

    async def judged_sets(request: Request) -> dict[str, Any]:
        root = service.settings.judged_sets_dir
        found = await anyio.to_thread.run_sync(judging.list_sets, root)
        return {"folder": shown_path(root, service.settings.home), "sets": found}

    async def judged_set(request: Request) -> dict[str, Any]:
        split = request.query_params.get("split", "test")
        if not re.match(judging.SPLIT_NAME, split):
            raise InvalidRequestError(
                f"'split' is a split's name, such as test or dev, got {split!r}", {"field": "split"}
            )
        root, name = service.settings.judged_sets_dir, request.path_params["name"]
        return await anyio.to_thread.run_sync(judging.read_set, root, name, split)

    async def save_judged_set(request: Request) -> dict[str, Any]:
        if not writes_allowed:
            raise ForbiddenError(WRITE_OPEN_REFUSAL)
        body = await json_object(request)
        root, name, served = service.settings.judged_sets_dir, request.path_params["name"], set(service.listing())
        return await anyio.to_thread.run_sync(judging.save_set, root, name, body, served)

    async def judged_ids(request: Request) -> dict[str, Any]:
        store = await collection_store(service, request.path_params["collection"])
        body = await json_object(request)
        ids = body.get("ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or len(ids) > MAX_JUDGED_IDS:
            msg = f'send {{"ids": [...]}}: up to {MAX_JUDGED_IDS} judged ids (strings)'
            raise InvalidRequestError(msg, {"field": "ids"})
        corpus = await anyio.to_thread.run_sync(CorpusIds.of_store, store)
        return judging.judged_ids(corpus, ids)

    async def record_ids(request: Request) -> dict[str, Any]:
        store = await collection_store(service, request.path_params["collection"])
        body = await json_object(request)
        ids = body.get("ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or len(ids) > MAX_JUDGED_IDS:
            msg = f'send {{"ids": [...]}}: up to {MAX_JUDGED_IDS} document ids (strings)'
            raise InvalidRequestError(msg, {"field": "ids"})
        return {"records": await anyio.to_thread.run_sync(record_ids_of, store, ids)}

    api = f"/api{CONSOLE}"
    return [
        Route(CONSOLE, page, methods=["GET"]),
        Route(f"{api}/info", answering(info), methods=["GET"]),
        Route(f"{api}/tools", answering(tools), methods=["GET"]),
        Route(f"{api}/pipelines", answering(pipelines), methods=["GET"]),
        Route(f"{api}/call", answering(call), methods=["POST"]),
        Route(f"{api}/collections/{{collection}}/documents", answering(documents), methods=["GET"]),
        Route(f"{api}/collections/{{collection}}/records/{{record_id:path}}", answering(record), methods=["GET"]),
        Route(f"{api}/evaluations", answering(evaluations), methods=["GET"]),
        Route(f"{api}/evaluations/report", answering(evaluation_report), methods=["GET"]),
        Route(f"{api}/evaluations/plot", answering(evaluation_plot), methods=["GET"]),
        Route(f"{api}/judged", answering(judged_sets), methods=["GET"]),
        Route(f"{api}/judged/{{name}}", answering(judged_set), methods=["GET"]),
        Route(f"{api}/judged/{{name}}", answering(save_judged_set), methods=["PUT"]),
        Route(f"{api}/collections/{{collection}}/judged-ids", answering(judged_ids), methods=["POST"]),
        Route(f"{api}/collections/{{collection}}/record-ids", answering(record_ids), methods=["POST"]),
    ]


def static_mount() -> Mount:
    """The page's script and stylesheet, from the installed package."""
    return Mount(CONSOLE_STATIC, app=StaticFiles(directory=str(CONSOLE_FILES / "static")))


async def json_object(request: Request) -> dict[str, Any]:
    body = await json_body(request)
    if not isinstance(body, dict):
        raise InvalidRequestError("request body must be a JSON object")
    return body


def bounded_int(request: Request, name: str, default: int, lowest: int, highest: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not lowest <= int(raw) <= highest:
        msg = f"'{name}' is a whole number from {lowest} to {highest}, got {raw!r}"
        raise InvalidRequestError(msg, {"field": name})
    return int(raw)


def inside(root: Path, relative: str, what: str) -> Path:
    """`relative` resolved under `root`, and refused when it leaves it (`..`, an absolute path, a link out)."""
    if not relative or Path(relative).is_absolute():
        raise InvalidRequestError(f"name a {what} relative to {root.name}/", {"field": what})
    resolved = (root / relative).resolve()
    if not resolved.is_relative_to(root.resolve()):
        raise InvalidRequestError(f"'{relative}' is not inside {root.name}/", {"field": what})
    return resolved


def project_pipeline(root: Path, relative: str) -> Path:
    path = inside(root, relative, "pipeline")
    if path.suffix != ".yaml" or not path.is_file():
        raise NotFoundError(f"no pipeline file pipelines/{relative}", {"field": "pipeline"})
    return path


def report_folder(root: Path, relative: str) -> Path:
    folder = inside(root, relative, "name")
    if not (folder / "report.json").is_file():
        raise NotFoundError(f"no evaluation report '{relative}' under {root.name}/", {"field": "name"})
    return folder


async def collection_store(service: GatewayService, name: str) -> Any:
    """A collection the serving tools read or write (what /health's `collections` lists)."""
    generation = await service.ready_generation()
    stores = generation.gateway.loader.stores()
    if name not in stores:
        msg = f"no collection '{name}' is served here; served: {', '.join(sorted(stores))}"
        raise NotFoundError(msg, {"collection": name, "available": sorted(stores)})
    return stores[name]


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


def evaluation_reports(root: Path) -> list[dict[str, Any]]:
    """Every `report.json` under `root`, newest first, with what the list shows of it."""
    reports = []
    for path in root.rglob("report.json") if root.is_dir() else []:
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a report being written, or not one of ours
        if not isinstance(report, dict) or "variants" not in report:
            continue
        modified = datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
        reports.append(
            {
                "name": path.parent.relative_to(root).as_posix(),
                "dataset": report.get("dataset"),
                "split": report.get("split"),
                "n_queries": report.get("n_queries"),
                "variants": [v.get("name") for v in report["variants"] if isinstance(v, dict)],
                "modified": modified.isoformat(timespec="seconds"),
                "has_plot": (path.parent / "plot.png").is_file(),
            }
        )
    return sorted(reports, key=lambda r: r["modified"], reverse=True)


def shown_path(path: Path, home: Path) -> str:
    """A folder as the page shows it: relative to the project when inside it (no machine paths to a browser)."""
    try:
        return path.resolve().relative_to(home.resolve()).as_posix()
    except ValueError:
        return path.name
