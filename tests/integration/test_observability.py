"""Watching it run: a log line per call, /metrics, OpenTelemetry spans, /health?verbose=1 and `haygate stats`,
over the sample gateway, real HTTP and the real FastMCP client."""

import io
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastmcp import Client
from haystack import component
from haystack.core.serialization import generate_qualified_class_name
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from components.linked_page import LinkedPage
from haygate.cli import main
from haygate.components.query_builder import QueryBuilder
from haygate.components.response_formatter import ResponseFormatter
from haygate.gateway.runtime import Gateway
from haygate.logs import log_handler
from haygate.serve.http import build_http_app
from haygate.server.mcp import build_mcp
from haygate.server.service import GatewayService
from haygate.server.telemetry import Telemetry, stage_of
from haygate.settings import Settings
from tests.support.serving import serve

pytestmark = pytest.mark.integration

TOKEN = "observability-token"
QUERY = {"query": "how do NOT filters work", "max_results": 3}


@component
class Declared:
    """A component of no known name that says where it belongs."""

    stage = "ranking"

    @component.output_types(value=int)
    def run(self, value: int) -> dict[str, int]:
        return {"value": value}


@pytest.fixture
def service(gateway: Gateway) -> GatewayService:
    """A fresh service (its own metrics) over the session's sample gateway."""
    return GatewayService.serving(gateway)


@pytest.fixture
def url(service: GatewayService) -> Iterator[str]:
    yield from serve(build_http_app(service))


@pytest.fixture
def json_log(gateway: Gateway) -> Iterator[io.StringIO]:
    """What haygate logs while the test runs, formatted as `HAYGATE_LOG_FORMAT=json` formats it."""
    stream = io.StringIO()
    settings = Settings(**{**gateway.loader.settings.model_dump(), "log_format": "json"})
    handler = log_handler(settings.log_format, stream)
    haygate_logger = logging.getLogger("haygate")
    haygate_logger.addHandler(handler)
    level = haygate_logger.level
    haygate_logger.setLevel(logging.INFO)
    yield stream
    haygate_logger.removeHandler(handler)
    haygate_logger.setLevel(level)


def lines(stream: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


def call_lines(stream: io.StringIO) -> list[dict]:
    return [line for line in lines(stream) if line["logger"] == "haygate.calls"]


def scrape(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_one_json_line_per_call_with_the_request_id(url: str, json_log: io.StringIO) -> None:
    with httpx.Client(base_url=url, timeout=60) as http:
        answered = http.post("/api/tools/search_docs", json=QUERY, headers={"X-Request-ID": "trace-me-42"})
        refused = http.post("/api/tools/search_docs", json={"query": "x", "max_results": 99})
        assert answered.status_code == 200 and refused.status_code == 422
    assert answered.headers["X-Request-ID"] == "trace-me-42"
    generated = refused.headers["X-Request-ID"]
    assert len(generated) == 32 and generated != "trace-me-42"
    ok, error = call_lines(json_log)
    assert ok["tool"] == "search_docs" and ok["transport"] == "rest" and ok["outcome"] == "ok"
    assert ok["request_id"] == "trace-me-42" and ok["results"] == len(answered.json()["results"]) > 0
    assert ok["error_code"] is None and 0 < ok["duration_ms"] < 60_000
    stages = ok["stages_ms"]  # where the call's time went, each stage within the whole
    assert {"query_embedding", "store", "ranking", "formatting"} <= set(stages)
    assert 0 < sum(stages.values()) <= ok["duration_ms"]
    assert error["request_id"] == generated and error["error_code"] == "VALIDATION_ERROR"
    assert error["results"] is None
    assert "NOT filters" not in json_log.getvalue(), "arguments are user data: never at INFO"


def test_debug_shows_the_arguments_in_lines_of_the_same_request(url: str, json_log: io.StringIO) -> None:
    logging.getLogger("haygate").setLevel(logging.DEBUG)
    with httpx.Client(base_url=url, timeout=60) as http:
        http.post("/api/tools/search_docs", json=QUERY, headers={"X-Request-ID": "debug-7"})
    mine = [line for line in lines(json_log) if line["request_id"] == "debug-7"]
    assert any("NOT filters" in line["message"] for line in mine)
    assert any(line["logger"] == "haygate.calls" and line["level"] == "INFO" for line in mine)


def test_a_plain_line_carries_the_request_id(gateway: Gateway, url: str) -> None:
    stream = io.StringIO()
    handler = log_handler(gateway.loader.settings.log_format, stream)
    calls = logging.getLogger("haygate.calls")
    calls.addHandler(handler)
    calls.setLevel(logging.INFO)
    try:
        with httpx.Client(base_url=url, timeout=60) as http:
            http.post("/api/tools/search_docs", json=QUERY, headers={"X-Request-ID": "plain-1"})
    finally:
        calls.removeHandler(handler)
        calls.setLevel(logging.NOTSET)
    assert "[plain-1]: search_docs via rest:" in stream.getvalue()


async def test_metrics_count_calls_time_stages_and_gauge_collections(service: GatewayService, url: str) -> None:
    async with Client(build_mcp(service)) as client:
        await client.call_tool("search_docs", QUERY)
        await client.call_tool("search_docs", {"query": "x", "max_results": 0}, raise_on_error=False)
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        await http.post("/api/tools/search_docs", json=QUERY)
        await http.post("/api/tools/no_such_tool", json=QUERY)
        response = await http.get("/metrics")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
    metrics = scrape(response.text)

    def calls(tool: str, transport: str, outcome: str) -> float:
        labels = (("outcome", outcome), ("tool", tool), ("transport", transport))
        return metrics.get(("haygate_tool_calls_total", labels), 0.0)

    assert calls("search_docs", "mcp", "ok") == 1 and calls("search_docs", "mcp", "VALIDATION_ERROR") == 1
    assert calls("search_docs", "rest", "ok") == 1 and calls("(unknown)", "rest", "NOT_FOUND") == 1
    count = (("tool", "search_docs"), ("transport", "rest"))
    assert metrics[("haygate_tool_call_duration_seconds_count", count)] == 1
    stages = {
        dict(labels)["stage"]
        for (name, labels), value in metrics.items()
        if name == "haygate_pipeline_stage_duration_seconds_count" and dict(labels)["tool"] == "search_docs"
    }
    assert {"query_embedding", "store", "ranking", "formatting"} <= stages
    documents = metrics[("haygate_collection_documents", (("collection", "docs"),))]
    assert documents == service.collection_stats()["docs"]["documents"] > 0
    assert metrics[("haygate_collection_disk_bytes", (("collection", "docs"),))] > 0


def test_metrics_need_the_token_unless_public(gateway: Gateway) -> None:
    for public, status in ((False, 401), (True, 200)):
        settings = Settings(**{**gateway.loader.settings.model_dump(), "metrics_public": public})
        service = GatewayService.serving(gateway, telemetry=Telemetry(settings))
        service.settings = settings
        for url in serve(build_http_app(service, token=TOKEN)):
            assert httpx.get(f"{url}/metrics").status_code == status
            headers = {"Authorization": f"Bearer {TOKEN}"}
            assert httpx.get(f"{url}/metrics", headers=headers).status_code == 200
            assert httpx.get(f"{url}/openapi.json").status_code == 401
            assert httpx.get(f"{url}/docs").status_code == 200  # the page itself holds nothing


async def test_one_span_per_call_with_a_child_per_component(gateway: Gateway) -> None:
    exporter = InMemorySpanExporter()
    settings = gateway.loader.settings
    service = GatewayService.serving(gateway, telemetry=Telemetry(settings, span_exporter=exporter))
    async with Client(build_mcp(service)) as client:
        await client.call_tool("search_docs", QUERY)
    service.telemetry.close()  # the batch goes out
    spans = exporter.get_finished_spans()
    (root,) = [span for span in spans if span.name == "haygate.tool.call"]
    assert root.parent is None
    assert root.attributes["haygate.tool"] == "search_docs" and root.attributes["haygate.transport"] == "mcp"
    (pipeline,) = [span for span in spans if span.name == "haystack.pipeline.run"]
    assert pipeline.parent.span_id == root.context.span_id
    components = [span for span in spans if span.name == "haystack.component.run"]
    assert {span.parent.span_id for span in components} == {pipeline.context.span_id}
    names = {span.attributes["haystack.component.name"] for span in components}
    assert names == set(gateway.tools["search_docs"].pipeline.pipeline.graph.nodes)
    assert {span.context.trace_id for span in spans} == {root.context.trace_id}
    assert "haystack.pipeline.input_data" not in pipeline.attributes, "the caller's arguments stay here"


async def test_health_verbose_and_haygate_stats(
    service: GatewayService, url: str, samples_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        for query in ("filters", "bearer token", "pipelines in YAML"):
            await http.post("/api/tools/search_docs", json={"query": query})
        health = (await http.get("/health", params={"verbose": "1"})).json()
        plain = (await http.get("/health")).json()
    assert "collections" not in plain
    docs = health["collections"]["docs"]
    assert docs["documents"] > 0 and docs["disk_bytes"] > 0 and docs["last_write"].startswith("20")
    figures = health["calls"]["search_docs"]
    assert figures["calls"] == 3 and figures["outcomes"] == {"ok": 3}
    assert 0 < figures["p50_ms"] <= figures["p95_ms"]
    assert main(["stats", "--server", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["calls"]["search_docs"]["calls"] == 3
    assert main(["stats", "--server", url]) == 0
    table = capsys.readouterr().out
    assert "search_docs" in table and "docs" in table and "p95 ms" in table


def test_stats_without_a_server_reads_the_collections(
    samples_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(samples_dir))
    assert main(["stats", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["status"] == "not running" and figures["calls"] == {}
    assert figures["collections"]["docs"]["documents"] > 0


def test_a_component_declares_its_stage() -> None:
    """The stage comes from the class (found by the span's fully qualified type in Haystack's registry)."""
    assert stage_of(generate_qualified_class_name(QueryBuilder)) == "query_building"
    assert stage_of(generate_qualified_class_name(ResponseFormatter)) == "formatting"
    assert stage_of(generate_qualified_class_name(LinkedPage)) == "store"  # a project's own: haygate names no class
    assert stage_of(generate_qualified_class_name(Declared)) == "ranking"  # a name no suffix places


def test_a_component_without_a_stage_is_placed_by_haystack_s_naming() -> None:
    assert stage_of("haygate.components.dense_text_embedder.DenseTextEmbedder") == "query_embedding"
    assert stage_of("haystack_integrations.components.embedders.fastembed.FastembedTextEmbedder") == "query_embedding"
    assert stage_of("haygate.components.hybrid_retriever.HybridRetriever") == "store"
    assert stage_of("haystack_integrations.components.retrievers.qdrant.QdrantHybridRetriever") == "store"
    assert stage_of("components.skill_coverage_ranker.SkillCoverageRanker") == "ranking"
    assert stage_of("haystack.components.converters.output_adapter.OutputAdapter") == "formatting"
    assert stage_of("somewhere.Something") == stage_of("") == "other"
