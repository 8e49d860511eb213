"""Writes over real HTTP: upsert (JSON array or JSONL) and delete by id, bounded bodies, the token, the
refusal on an open bind, reloads and health. On a home whose only tools are `search` and the admin tools."""

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from haygate.serve.http import build_http_app
from haygate.server.service import GatewayService
from tests.support.project import ENTITY, make_home, make_settings
from tests.support.serving import serve

pytestmark = pytest.mark.integration
TOKEN = "write-token-42"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[GatewayService]:
    settings = make_settings(tmp_path / "data", home=make_home(tmp_path), max_body_bytes=20_000)
    started = GatewayService(settings)
    started.start()
    yield started
    started.close()


@pytest.fixture
def url(service: GatewayService) -> Iterator[str]:
    yield from serve(build_http_app(service))


def entity(n: int, title: str = "Zebra tooltip") -> dict[str, str]:
    return {**ENTITY, "entity_id": f"bug:{n}", "title": title}


def test_upsert_json_and_jsonl_then_delete(url: str) -> None:
    with httpx.Client(base_url=url, timeout=60) as http:
        added = http.put("/api/collections/entities/records", json=[entity(1), entity(2)])
        assert added.status_code == 200 and (added.json()["added"], added.json()["refused"]) == (2, [])
        lines = json.dumps(entity(1, "Quokka")) + "\n{broken\n"
        mixed = http.put(
            "/api/collections/entities/records", content=lines, headers={"content-type": "application/x-ndjson"}
        )
        body = mixed.json()
        assert (body["updated"], len(body["refused"])) == (1, 1)
        refusal = body["refused"][0]
        assert (refusal["index"], refusal["where"]) == (1, "request:2") and "invalid JSON" in refusal["reason"]
        found = http.post("/api/tools/search", json={"query": "quokka"}).json()
        assert [(r["entity_type"], r["entity_id"]) for r in found["results"]] == [("bug", 1)]
        by_query = http.delete("/api/collections/entities/records", params=[("id", "bug:1"), ("id", "bug:7")])
        assert by_query.json() == {"collection": "entities", "deleted": 1, "points": 1, "missing": ["bug:7"]}
        by_body = http.request("DELETE", "/api/collections/entities/records", json={"ids": ["bug:2"]})
        assert by_body.json()["deleted"] == 1
        assert http.post("/api/tools/search", json={"query": "zebra"}).json()["results"] == []


def test_bad_writes_get_the_envelope(url: str) -> None:
    with httpx.Client(base_url=url, timeout=60) as http:
        unknown = http.put("/api/collections/nope/records", json=[entity(1)])
        assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "NOT_FOUND"
        empty = http.put("/api/collections/entities/records", json=[])
        assert empty.status_code == 422
        not_a_list = http.request("DELETE", "/api/collections/entities/records", json={"ids": "bug:1"})
        assert not_a_list.status_code == 422 and not_a_list.json()["error"]["details"]["field"] == "ids"
        huge = http.put("/api/collections/entities/records", json=[entity(n, "x" * 500) for n in range(100)])
        assert huge.status_code == 413 and huge.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
        assert huge.json()["error"]["details"]["limit"] == 20_000
        streamed = http.put(
            "/api/collections/entities/records",
            content=iter([b"[" + b" " * 15_000, b" " * 15_000 + b"]"]),
            headers={"content-type": "application/json"},
        )
        assert streamed.status_code == 413  # no Content-Length: counted as it arrives
        half_a_pair = '[{"entity_type": "bug", "entity_id": "bug:9", "product_id": 1, "title": "a \\ud800 b"}]'
        lone = http.put(
            "/api/collections/entities/records", content=half_a_pair, headers={"content-type": "application/json"}
        )
        assert lone.status_code == 200 and lone.json()["added"] == 0  # refused alone, with why: not a 500
        assert "field 'title' holds a lone surrogate" in lone.json()["refused"][0]["reason"]


def test_writes_need_the_token_and_are_refused_on_an_open_bind(service: GatewayService) -> None:
    for address in serve(build_http_app(service, token=TOKEN)):
        with httpx.Client(base_url=address, timeout=60) as http:
            assert http.put("/api/collections/entities/records", json=[entity(1)]).status_code == 401
            allowed = http.put(
                "/api/collections/entities/records", json=[entity(1)], headers={"Authorization": f"Bearer {TOKEN}"}
            )
            assert allowed.status_code == 200
    for address in serve(build_http_app(service, host="0.0.0.0")):  # binds loopback here; says it is open
        with httpx.Client(base_url=address, timeout=60) as http:
            refused = http.put("/api/collections/entities/records", json=[entity(2)])
            assert refused.status_code == 403 and "HAYGATE_TOKEN" in refused.json()["error"]["message"]
            assert http.post("/api/tools/search", json={"query": "zebra"}).status_code == 200  # reads still work


def test_health_and_reload(url: str, service: GatewayService) -> None:
    service.wait_ready()
    with httpx.Client(base_url=url, timeout=60) as http:
        assert http.get("/health").json()["status"] == "ready"
        reloaded = http.post("/api/admin/reload")
        assert reloaded.status_code == 200 and reloaded.json()["reloaded"] is True
        (service.settings.tools_dir / "search.yaml").write_text("name: [broken\n")
        refused = http.post("/api/admin/reload")
        assert refused.status_code == 422 and refused.json()["reloaded"] is False
        assert "search" in refused.json()["tools"]
