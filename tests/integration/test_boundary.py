"""The HTTP trust boundary over real HTTP: foreign `Host` and `Origin` headers, bodies that are not JSON, the
settings that widen it, and CORS only where configured. Every route family is asked: MCP, tool calls, writes,
the admin reload, health, metrics, the OpenAPI document and the API page."""

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from haygate.serve.http import build_http_app
from haygate.server.boundary import normalised_origin, split_host
from haygate.server.service import GatewayService
from tests.support.project import ENTITY, make_home, make_settings
from tests.support.serving import free_port, serve

pytestmark = pytest.mark.integration
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}
# One request of each route family: (method, path, JSON body or None).
ROUTES: list[tuple[str, str, Any]] = [
    ("POST", "/mcp", INITIALIZE),
    ("POST", "/api/tools/search", {"query": "zebra"}),
    ("PUT", "/api/collections/entities/records", [{**ENTITY, "entity_id": "bug:666", "title": "Planted by a page"}]),
    ("DELETE", "/api/collections/entities/records?id=bug:404", None),
    ("POST", "/api/admin/reload", None),
    ("GET", "/health", None),
    ("GET", "/metrics", None),
    ("GET", "/openapi.json", None),
    ("GET", "/docs", None),
]


HTTP = httpx.Client(timeout=60)  # one client: each `httpx.get` builds its own TLS context, 35 ms


def service_for(tmp_path: Path, **settings: Any) -> GatewayService:
    service = GatewayService(make_settings(tmp_path / "data", home=make_home(tmp_path), tier="admin", **settings))
    service.start()
    return service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayService]:
    started = service_for(tmp_path_factory.mktemp("boundary"))
    yield started
    started.close()


@pytest.fixture(scope="module")
def url(service: GatewayService) -> Iterator[str]:
    yield from serve(build_http_app(service))


def calls(service: GatewayService) -> dict[str, Any]:
    return dict(service.health(True)["calls"])


def planted(url: str) -> list[Any]:
    """The record the refused PUT would have planted, if it is there (a search that counts as a call)."""
    found = ask(url, "POST", "/api/tools/search", {"query": "planted"}).json()["results"]
    return [r["entity_id"] for r in found]


def ask(url: str, method: str, path: str, body: Any, **headers: str) -> httpx.Response:
    extra = MCP_HEADERS if path == "/mcp" else {}
    return HTTP.request(method, f"{url}{path}", json=body, headers={**extra, **headers}, timeout=60)


def refused(response: httpx.Response, setting: str) -> bool:
    error = response.json()["error"]
    return response.status_code == 403 and error["code"] == "FORBIDDEN" and error["details"]["setting"] == setting


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=[f"{m} {p.split('?')[0]}" for m, p, _ in ROUTES])
def test_a_foreign_host_or_origin_is_refused_on_every_route_and_changes_nothing(
    url: str, service: GatewayService, method: str, path: str, body: Any
) -> None:
    before = calls(service)
    by_host = ask(url, method, path, body, host="evil.example")
    assert refused(by_host, "HAYGATE_ALLOWED_HOSTS"), by_host.text
    assert "evil.example" in by_host.json()["error"]["message"]
    by_origin = ask(url, method, path, body, origin="http://evil.example")
    assert refused(by_origin, "HAYGATE_ALLOWED_ORIGINS"), by_origin.text
    rebinding = ask(url, method, path, body, host="evil.example:8000", origin="http://evil.example:8000")
    assert rebinding.status_code == 403
    for origin in ("null", "file://", "http://localhost.evil.example"):
        assert ask(url, method, path, body, origin=origin).status_code == 403, origin
    assert calls(service) == before  # nothing got through: no call counted
    assert planted(url) == []  # and nothing written


@pytest.mark.parametrize(("method", "path", "body"), ROUTES, ids=[f"{m} {p.split('?')[0]}" for m, p, _ in ROUTES])
def test_loopback_names_and_origins_pass_on_every_route(url: str, method: str, path: str, body: Any) -> None:
    port = url.rsplit(":", 1)[1]
    for host, origin in (
        (f"localhost:{port}", f"http://localhost:{port}"),
        (f"127.0.0.1:{port}", "http://127.0.0.1:3000"),
        (f"[::1]:{port}", f"http://[::1]:{port}"),
        ("localhost", "https://localhost"),
    ):
        answer = ask(url, method, path, body, host=host, origin=origin)
        assert answer.status_code < 400, (host, origin, answer.text[:300])


@pytest.mark.parametrize(
    ("path", "content_type"),
    [
        ("/api/tools/search", "text/plain"),
        ("/api/tools/search", "application/x-www-form-urlencoded"),
        ("/api/tools/search", "multipart/form-data; boundary=x"),
        ("/api/collections/entities/records", "text/plain"),
        ("/mcp", "text/plain"),
        ("/api/admin/reload", "text/plain"),
    ],
)
def test_a_body_a_page_can_send_without_asking_is_refused(url: str, path: str, content_type: str) -> None:
    """A form or text/plain POST needs no CORS preflight: no state-changing route takes one."""
    method = "PUT" if "records" in path else "POST"
    body = b'[{"entity_id": "bug:1"}]' if "records" in path else b'{"query": "zebra"}'
    answer = HTTP.request(method, f"{url}{path}", content=body, headers={"content-type": content_type}, timeout=60)
    assert answer.status_code == 415 and answer.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE", answer.text
    assert "application/json" in answer.json()["error"]["message"]


def test_json_jsonl_and_no_body_at_all_are_taken(url: str) -> None:
    jsonl = HTTP.put(
        f"{url}/api/collections/entities/records",
        content=b'{"entity_type": "bug", "entity_id": "bug:5", "product_id": "product:1", "title": "Zebra"}\n',
        headers={"content-type": "application/x-ndjson"},
        timeout=60,
    )
    assert jsonl.status_code == 200 and jsonl.json()["added"] == 1
    charset = HTTP.post(
        f"{url}/api/tools/search",
        content=b'{"query": "zebra"}',
        headers={"content-type": "application/json; charset=utf-8"},
    )
    assert charset.status_code == 200 and charset.json()["results"]
    assert HTTP.post(f"{url}/api/admin/reload", timeout=60).status_code == 200  # curl -X POST sends no type


def test_cors_stays_closed_unless_an_origin_is_configured(url: str, tmp_path: Path) -> None:
    preflight = {"origin": "http://localhost:3000", "access-control-request-method": "POST"}
    assert "access-control-allow-origin" not in HTTP.options(f"{url}/api/tools/search", headers=preflight).headers
    service = service_for(tmp_path / "cors", allowed_origins=("https://console.example",))
    try:
        for other in serve(build_http_app(service)):
            asked = {**preflight, "origin": "https://console.example", "access-control-request-headers": "content-type"}
            answer = HTTP.options(f"{other}/api/tools/search", headers=asked)
            assert answer.status_code == 200
            assert answer.headers["access-control-allow-origin"] == "https://console.example"
            called = HTTP.post(
                f"{other}/api/tools/search", json={"query": "zebra"}, headers={"origin": "https://console.example"}
            )
            assert (
                called.status_code == 200 and called.headers["access-control-allow-origin"] == "https://console.example"
            )
            assert refused(
                HTTP.post(f"{other}/api/tools/search", json={"query": "x"}, headers={"origin": "https://evil.example"}),
                "HAYGATE_ALLOWED_ORIGINS",
            )
    finally:
        service.close()


def test_a_server_reached_by_name_answers_the_names_it_is_given(tmp_path: Path) -> None:
    """A non-loopback bind (0.0.0.0) behind a name: the name is configured, and every other name refused."""
    service = service_for(tmp_path, allowed_hosts=("search.internal", "*.corp.example:9443"))
    try:
        for url in serve(build_http_app(service, host="0.0.0.0")):
            port = url.rsplit(":", 1)[1]
            for host, status in (
                (f"search.internal:{port}", 200),
                ("search.internal", 200),
                ("api.corp.example:9443", 200),
                ("api.corp.example:9444", 403),
                ("evil.example", 403),
                (f"127.0.0.1:{port}", 200),
            ):
                answer = HTTP.get(f"{url}/health", headers={"host": host})
                assert answer.status_code == status, (host, answer.text)
    finally:
        service.close()


def test_star_turns_the_checks_off_only_when_written(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    service = service_for(tmp_path, allowed_hosts=("*",), allowed_origins=("*",))
    try:
        for url in serve(build_http_app(service)):
            answer = HTTP.get(f"{url}/health", headers={"host": "evil.example", "origin": "http://evil.example"})
            assert answer.status_code == 200
    finally:
        service.close()
    assert "trust boundary is open" in caplog.text


def test_a_server_bound_to_the_ipv6_loopback_answers_there(service: GatewayService) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(build_http_app(service, host="::1"), host="::1", port=port, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive():
            pytest.skip("cannot bind [::1] here")
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        assert HTTP.get(f"http://[::1]:{port}/health").status_code == 200
        assert HTTP.get(f"http://[::1]:{port}/health", headers={"host": "evil.example"}).status_code == 403
    finally:
        server.should_exit = True
        thread.join(10)


def test_host_and_origin_parsing() -> None:
    assert split_host("[::1]:8000") == ("::1", 8000) and split_host("LocalHost") == ("localhost", None)
    assert split_host("example.com:80") == ("example.com", 80) and split_host("") == ("", None)
    assert normalised_origin("HTTP://LocalHost") == "http://localhost:80"
    assert normalised_origin("https://[::1]:8443/") == "https://[::1]:8443"
    assert normalised_origin("null") is None and normalised_origin("ftp://x") is None
