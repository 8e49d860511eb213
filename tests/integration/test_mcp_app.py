"""MCP Apps: the tools that return ranked records point an Apps host at their results view, against
`haygate serve --http` on the samples. Through the official `mcp` SDK client (the negotiation, the view
resource, the view's own tool), and in a real host in headless Chromium: ext-apps' own `AppBridge` and the MCP
TypeScript SDK's client, behind a sandbox proxy on another origin, as ext-apps' `examples/basic-host` is built.
"""

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import uvicorn
from fastmcp.apps.config import UI_EXTENSION_ID, UI_MIME_TYPE
from mcp.client import Client, advertise
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.server.apps import OPEN_RECORD, view_uri
from tests.support.browser import browser_page, screenshot
from tests.support.cache import copy_tree
from tests.support.installed import require
from tests.support.project import PROJECT, make_settings
from tests.support.serving import free_port, served_process

pytestmark = [pytest.mark.integration, pytest.mark.slow]
HOST_FILES = PROJECT / "tests" / "apps_host"
APPS_HOST = PROJECT / ".venv" / "apps-host" / "node_modules"
INSTALL_IT = "`make test` installs it with npm, from tests/apps_host/'s lock file"
RANKED = {"search_docs", "search", "search_by_skills", "memory_search", "memory_fulltext_search"}
APPS = advertise(UI_EXTENSION_ID, {"mimeTypes": [UI_MIME_TYPE]})
QUERY = {"query": "bearer token", "max_results": 4}
# A section with what a result's Markdown can hold, and a memory that tries to run something, added to the
# samples: the view renders the one and runs nothing of the other.
RENDERED = """---
source: rendering
---
# Quokka handbook

## Quokka burrows

Dig the **quokka** burrow with `quokka-dig`; the [field guide](https://example.org/quokkas) says more.

```bash
quokka-dig --depth 2
```
"""
HOSTILE = {
    "key": "quokka-trap",
    "summary": (
        "Quokka trap <script>window.__pwned = 'script'</script> <img src=x onerror=\"window.__pwned = 'img'\"> "
        "[a quokka link](javascript:window.__pwned='link')"
    ),
}


@pytest.fixture(scope="module")
def host_port() -> int:
    """The host page's port, known before haygate starts: its origin is one haygate must allow."""
    return free_port()


@pytest.fixture(scope="module")
def host_site(tmp_path_factory: pytest.TempPathFactory, host_port: int) -> Iterator[str]:
    """The host page (tests/apps_host/host.js bundled with esbuild now) and its sandbox proxy, served on one
    port: the page at 127.0.0.1, the proxy at localhost, so they are two origins, as the extension requires."""
    esbuild = APPS_HOST / ".bin" / "esbuild"
    require(esbuild.exists(), f"ext-apps, the MCP TypeScript SDK and esbuild at {APPS_HOST}", INSTALL_IT)
    built = tmp_path_factory.mktemp("apps-host") / "host.bundle.js"
    command = [str(esbuild), str(HOST_FILES / "host.js"), "--bundle", "--format=esm", "--platform=browser"]
    done = subprocess.run(
        [*command, f"--outfile={built}", "--log-level=warning"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "NODE_PATH": str(APPS_HOST)},
    )
    assert done.returncode == 0, done.stderr

    async def page(request: Request) -> Response:
        return FileResponse(HOST_FILES / "host.html")

    async def bundle(request: Request) -> Response:
        return FileResponse(built, media_type="text/javascript")

    async def sandbox(request: Request) -> Response:
        csp = json.loads(request.query_params.get("csp") or "{}")
        return FileResponse(HOST_FILES / "sandbox.html", headers={"Content-Security-Policy": sandbox_policy(csp)})

    async def sandbox_script(request: Request) -> Response:
        return FileResponse(HOST_FILES / "sandbox.js", media_type="text/javascript")

    routes = [
        Route("/", page),
        Route("/host.bundle.js", bundle),
        Route("/sandbox.html", sandbox),
        Route("/sandbox.js", sandbox_script),
    ]
    server = uvicorn.Server(
        uvicorn.Config(Starlette(routes=routes), host="127.0.0.1", port=host_port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the host page's server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{host_port}"
    server.should_exit = True
    thread.join(timeout=10)


def sandbox_policy(csp: dict[str, list[str]]) -> str:
    """The policy a host builds from a view's declared `_meta.ui.csp`, as the extension's specification
    constructs it: only what is declared, beyond the document's own origin."""
    resources = " ".join(csp.get("resourceDomains") or [])
    return "; ".join(
        [
            "default-src 'none'",
            f"script-src 'self' 'unsafe-inline' {resources}".strip(),
            f"style-src 'self' 'unsafe-inline' {resources}".strip(),
            f"connect-src 'self' {' '.join(csp.get('connectDomains') or [])}".strip(),
            f"img-src 'self' data: {resources}".strip(),
            f"font-src 'self' {resources}".strip(),
            f"media-src 'self' data: {resources}".strip(),
            f"frame-src {' '.join(csp.get('frameDomains') or []) or chr(39) + 'none' + chr(39)}",
            "object-src 'none'",
            f"base-uri {' '.join(csp.get('baseUriDomains') or []) or chr(39) + 'self' + chr(39)}",
        ]
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, ingested_samples: Path, host_port: int) -> Iterator[str]:
    """`haygate serve --http` on a copy of the samples. The host page's origin is allowed (its requests are
    cross-origin, with CORS), as a web host's must be."""
    root = tmp_path_factory.mktemp("mcp-app")
    origin = f"http://127.0.0.1:{host_port}"
    data = copy_tree(ingested_samples, root / "data")
    (root / "quokkas.md").write_text(RENDERED)
    (root / "traps.jsonl").write_text(json.dumps(HOSTILE) + "\n")
    with Loader(make_settings(data)) as loader:
        assert ingest_files(loader.collection("docs"), [root / "quokkas.md"], progress=False).added == 1
        assert ingest_files(loader.collection("memories"), [root / "traps.jsonl"], progress=False).added == 1
    with served_process(data, allowed_origins=origin) as url:
        yield url


def ui(tool: Any) -> dict[str, Any] | None:
    return (tool.meta or {}).get("ui")


async def test_an_apps_host_is_shown_a_view_on_each_ranked_tool_and_the_views_own_tool(served: str) -> None:
    async with Client(f"{served}/mcp", extensions=[APPS]) as client:
        capabilities = client.session.server_capabilities
        assert capabilities is not None and UI_EXTENSION_ID in (capabilities.extensions or {})
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        views = {resource.uri for resource in (await client.list_resources()).resources}
    with_view = {name for name, tool in tools.items() if ui(tool) and "resourceUri" in ui(tool)}  # type: ignore[operator]
    assert with_view == RANKED
    for name in RANKED:
        assert ui(tools[name]) == {"resourceUri": view_uri(name)}
    assert ui(tools[OPEN_RECORD]) == {"visibility": ["app"]}
    assert {view_uri(name) for name in RANKED} <= views


async def test_a_host_that_declares_nothing_is_shown_the_views_too_and_every_result_is_the_same(served: str) -> None:
    """As VS Code's client and ext-apps' basic-host connect: no `io.modelcontextprotocol/ui` in their capabilities,
    and they render views all the same."""
    async with Client(f"{served}/mcp", extensions=[APPS]) as apps, Client(f"{served}/mcp") as plain:
        listed = {tool.name: tool for tool in (await plain.list_tools()).tools}
        resources = {str(r.uri) for r in (await plain.list_resources()).resources}
        answers = [await client.call_tool("search_docs", QUERY) for client in (apps, plain)]
        found = answers[1].structured_content["results"][0]  # type: ignore[index]
        opened = await plain.call_tool(OPEN_RECORD, {"tool": "search_docs", "arguments": QUERY, "id": found["id"]})
    for name in RANKED:
        assert ui(listed[name]) == {"resourceUri": view_uri(name)}
    assert {view_uri(name) for name in RANKED} <= resources
    assert ui(listed[OPEN_RECORD]) is None  # a plain read-only tool: no `visibility: ["app"]` to a host that
    assert listed[OPEN_RECORD].annotations.read_only_hint is True  # type: ignore[union-attr]  # did not declare it
    assert opened.is_error is False and opened.structured_content["matched"] == found["id"]  # type: ignore[index]
    with_apps, without = answers
    assert with_apps.structured_content == without.structured_content
    assert [c.model_dump() for c in with_apps.content] == [c.model_dump() for c in without.content]


async def test_the_view_is_one_html_document_that_loads_nothing_from_anywhere(served: str) -> None:
    async with Client(f"{served}/mcp", extensions=[APPS]) as client:
        read = await client.read_resource(view_uri("search_docs"))
    [content] = read.contents
    assert content.mime_type == UI_MIME_TYPE
    assert content.meta is not None
    assert content.meta["ui"]["csp"] == {
        "connectDomains": [],
        "resourceDomains": [],
        "frameDomains": [],
        "baseUriDomains": [],
    }
    html = content.text  # type: ignore[union-attr]
    assert html.startswith("<!DOCTYPE html>")
    assert "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-" in html
    assert "connect-src 'none'" in html and " src=" not in html and " href=" not in html


async def test_open_record_returns_the_whole_record_behind_a_result(served: str) -> None:
    async with Client(f"{served}/mcp", extensions=[APPS]) as client:
        found = (await client.call_tool("search_docs", QUERY)).structured_content
        result = found["results"][0]  # type: ignore[index]
        opened = await client.call_tool(OPEN_RECORD, {"tool": "search_docs", "arguments": QUERY, "id": result["id"]})
        gone = await client.call_tool(OPEN_RECORD, {"tool": "search_docs", "arguments": QUERY, "id": "nowhere"})
        unranked = await client.call_tool(OPEN_RECORD, {"tool": "get_decisions", "arguments": {}, "id": "x"})
        malformed = await client.call_tool(OPEN_RECORD, {"tool": "search_docs", "arguments": "bearer", "id": "x"})
    record = opened.structured_content
    assert opened.is_error is False and record is not None
    assert record["collection"] == "docs" and record["matched"] == result["id"]
    documents = record["documents"]
    assert len(documents) > 1 and result["id"] in {d["id"] for d in documents}
    assert {d["record_id"] for d in documents} == {record["record_id"]}
    assert all("embedding" not in d["meta"] for d in documents)
    errors = [json.loads(answer.content[0].text)["error"] for answer in (gone, unranked, malformed)]  # type: ignore[union-attr]
    assert [error["code"] for error in errors] == ["NOT_FOUND", "NOT_FOUND", "VALIDATION_ERROR"]
    assert "search again" in errors[0]["message"] and "search_docs" in errors[1]["message"]


@contextmanager
def search_docs_in_the_host(host_site: str, served: str, declared: bool) -> Iterator[tuple[Any, Any]]:
    """The test host (declaring MCP Apps, or nothing as VS Code does) with `search_docs`' view of QUERY shown:
    the page and the view's frame, once its four results are drawn."""
    from playwright.sync_api import expect

    sandbox = host_site.replace("127.0.0.1", "localhost")
    address = f"{host_site}/?server={quote(served + '/mcp')}&sandbox={quote(sandbox + '/sandbox.html')}"
    with browser_page(host_site, sandbox, served) as page:
        page.goto(address if declared else f"{address}&declare=no")
        listed = {tool["name"]: tool["ui"] for tool in page.evaluate("haygateHost.ready")}
        assert listed["search_docs"] == {"resourceUri": view_uri("search_docs")}
        page.evaluate("([name, args]) => haygateHost.show(name, args)", ["search_docs", QUERY])
        view = page.frame_locator("#app").frame_locator("iframe")
        expect(view.locator(".result")).to_have_count(4)
        yield page, view


@pytest.mark.budget(25, "Chromium, a host bundle of ext-apps and the MCP SDK, two tool calls through it")
def test_a_host_that_declares_nothing_shows_the_view_and_opens_a_record(host_site: str, served: str) -> None:
    """VS Code's client and ext-apps' basic-host render views without declaring the extension."""
    from playwright.sync_api import expect

    with search_docs_in_the_host(host_site, served, declared=False) as (page, view):
        results = view.locator(".result")
        first = results.first.get_attribute("data-id")
        results.first.get_by_role("button", name="open").click()
        expect(view.locator(".record .document.matched")).to_have_attribute("data-id", first or "")
        screenshot(page, "mcp-app-undeclared-host")


@pytest.mark.budget(40, "Chromium, a host bundle of ext-apps and the MCP SDK, eight tool calls through it")
def test_a_real_host_shows_the_results_filters_them_and_opens_a_record(host_site: str, served: str) -> None:
    from playwright.sync_api import expect

    with search_docs_in_the_host(host_site, served, declared=True) as (page, view):
        results = view.locator(".result")
        expect(results.first.locator(".title")).to_contain_text("Bearer")
        expect(results.first.locator("mark").first).to_have_text(re.compile("bearer|token", re.IGNORECASE))
        expect(results.first.locator(".where .path")).not_to_be_empty()
        expect(results.first.locator(".provenance-line")).to_contain_text("dense #")
        expect(view.locator("select[name=content_type]")).to_be_visible()
        before = results.evaluate_all("rows => rows.map(row => row.dataset.id)")
        screenshot(page, "mcp-app-results")

        view.locator("select[name=content_type]").select_option("code")
        view.get_by_role("button", name="Search again").click()
        expect(results.first).not_to_have_attribute("data-id", before[0])
        after = results.evaluate_all("rows => rows.map(row => row.dataset.id)")
        assert after and after != before
        fields = [" ".join(text.split()) for text in results.locator(".fields").all_text_contents()]
        assert len(fields) == len(after) and all("content_type code" in f for f in fields), fields  # the filter held
        lines = results.locator(".provenance-line").all_text_contents()
        missing = view.locator(".bar.missing .bar-fill").evaluate_all(
            "fills => fills.map(fill => fill.getBoundingClientRect().width)"
        )
        assert len(missing) == sum(line.count("dense —") + line.count("BM25 —") for line in lines), lines
        assert all(width == 0 for width in missing), missing  # a retriever that did not find a row: no bar
        screenshot(page, "mcp-app-filtered")

        results.first.get_by_role("button", name="open").click()
        expect(view.locator(".record")).to_be_visible()
        expect(view.locator(".record .document.matched")).to_have_count(1)
        expect(view.locator(".record .document.matched")).to_have_attribute("data-id", after[0])
        screenshot(page, "mcp-app-record")

        sent = page.evaluate("viewMessages")

        # A result's Markdown: the snippet's code and link, the query's mark inside the text's bold; the record's
        # code block; a link opens through the host.
        rendering = {"query": "quokka burrow", "source": "rendering", "max_results": 4}
        page.evaluate("([name, args]) => haygateHost.show(name, args)", ["search_docs", rendering])
        view = page.frame_locator("#app").frame_locator("iframe")
        excerpt = view.locator(".result").first.locator(".excerpt")
        expect(excerpt.locator("strong > mark")).to_have_text("quokka")
        expect(excerpt.locator("code").first).to_have_text("quokka-dig")
        link = excerpt.locator('a[href="https://example.org/quokkas"]')
        expect(link).to_have_attribute("rel", "noopener noreferrer")
        link.click()  # not followed here (the page would fetch from beyond): the host is asked to open it
        page.wait_for_function("viewMessages.some(m => m.method === 'ui/open-link')")
        opened = [m["params"] for m in page.evaluate("viewMessages") if m.get("method") == "ui/open-link"]
        assert opened == [{"url": "https://example.org/quokkas"}]
        view.locator(".result").first.get_by_role("button", name="open").click()
        expect(view.locator(".record .document.matched .content pre > code")).to_have_text("quokka-dig --depth 2\n")
        screenshot(page, "mcp-app-markdown")

        # A text that tries to run something shows its tags as text; no element of it is made.
        page.evaluate("([name, args]) => haygateHost.show(name, args)", ["memory_search", {"query": "quokka trap"}])
        view = page.frame_locator("#app").frame_locator("iframe")
        trap = view.locator('.result[data-id="quokka-trap"] .excerpt')
        expect(trap).to_contain_text("Quokka trap <script>window.__pwned = 'script'</script> <img src=x onerror=")
        expect(trap).to_contain_text("[a quokka link](javascript:window.__pwned='link')")
        assert view.locator(".results script, .results img, .results [onerror], .results a[href]").count() == 0
        page.wait_for_timeout(300)  # an image's error would have fired by now
        assert view.locator("body").evaluate("body => window.__pwned") is None
    methods = [message.get("method") for message in sent]
    assert methods[:2] == ["ui/initialize", "ui/notifications/initialized"]
    assert "ui/notifications/size-changed" in methods
    calls = [m["params"] for m in sent if m.get("method") == "tools/call"]
    assert calls[0] == {"name": "search_docs", "arguments": {**QUERY, "content_type": "code"}}
    assert calls[1]["name"] == OPEN_RECORD and calls[1]["arguments"]["id"] == after[0]
