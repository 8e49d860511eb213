"""The API page at /docs in a real headless Chromium (Debian's, driven by Playwright), and the OpenAPI
document under it: every tool listed, a "try it" call answered, nothing fetched from beyond the server."""

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from haygate.gateway.runtime import Gateway
from tests.support.browser import browser_page, screenshot
from tests.support.serving import http_for, serve

pytestmark = pytest.mark.integration


@pytest.fixture
def url(gateway: Gateway) -> Iterator[str]:
    yield from serve(http_for(gateway))


def test_the_openapi_document_is_exact(gateway: Gateway, url: str) -> None:
    spec = httpx.get(f"{url}/openapi.json").json()
    assert "security" not in spec  # no token here
    tools = {path.rsplit("/", 1)[1] for path in spec["paths"] if path.startswith("/api/tools/")}
    assert tools == set(gateway.tools)
    body = spec["paths"]["/api/tools/search_docs"]["post"]["requestBody"]["content"]["application/json"]
    properties = body["schema"]["properties"]
    assert properties["version"]["type"] == ["string", "null"] and properties["version"]["default"] is None
    assert properties["max_results"]["type"] == "integer"  # a default that is not null stays one type
    assert body["examples"]["example"]["value"] == {"query": "how do I serialize a pipeline to YAML"}
    answered = httpx.post(f"{url}/api/tools/search_docs", json=body["examples"]["example"]["value"], timeout=60)
    assert answered.status_code == 200 and answered.json()["results"]
    # Each tool's example call is valid for it (the declaration's own examples).
    for name in gateway.tools:
        operation = spec["paths"][f"/api/tools/{name}"]["post"]
        example = operation["requestBody"]["content"]["application/json"]["examples"]["example"]["value"]
        response = httpx.post(f"{url}/api/tools/{name}", json=example, timeout=60)
        assert response.status_code == 200, (name, example, response.text)


def test_a_secured_server_says_so(gateway: Gateway) -> None:
    for url in serve(http_for(gateway, token="page-token")):
        spec = httpx.get(f"{url}/openapi.json", headers={"Authorization": "Bearer page-token"}).json()
        assert spec["security"] == [{"bearer": []}]
        assert spec["paths"]["/health"]["get"]["security"] == []
        assert "UNAUTHORIZED" in {
            r["description"] for r in spec["paths"]["/api/tools/search_docs"]["post"]["responses"].values()
        }
        assert httpx.get(f"{url}/docs/static/swagger-ui.css").status_code == 200


def test_the_api_page_in_a_browser(gateway: Gateway, url: str, tmp_path: Path) -> None:
    with browser_page(url) as page:
        page.goto(f"{url}/docs")
        page.wait_for_selector(".opblock-tag-section", timeout=30_000)
        listed = set(page.locator(".opblock-summary-operation-id, .opblock-summary-path").all_inner_texts())
        for name in gateway.tools:
            assert any(name in text for text in listed), (name, listed)
        block = page.locator("#operations-tools-search_docs")
        block.locator(".opblock-summary").click()
        block.locator("button.try-out__btn").click()
        block.locator("button.execute").click()
        status = block.locator(".live-responses-table tbody .response-col_status").first
        status.wait_for(timeout=60_000)
        assert status.inner_text().strip().startswith("200")
        answer = block.locator(".live-responses-table tbody .response-col_description").first.inner_text()
        assert '"results"' in answer and '"score"' in answer
        page.screenshot(path=str(tmp_path / "docs.png"), full_page=False)
        assert (tmp_path / "docs.png").stat().st_size > 10_000
        screenshot(page, "api-page")
