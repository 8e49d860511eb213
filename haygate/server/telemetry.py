"""What a running gateway says about its calls: a log line each, Prometheus metrics, OpenTelemetry spans.

- **Request ids.** Every call has one (a REST client's `X-Request-ID`, else a new one). It is in every log
  line written while the call runs (`RequestIdFilter`, a contextvar, so worker threads see it too) and goes
  back to REST clients in the `X-Request-ID` header.
- **One line per call**: tool, transport, outcome, duration, result count, error code. Never the arguments
  at INFO (they can hold user data); DEBUG shows them.
- **Metrics** live in a registry per service (`/metrics`): calls by outcome and transport, latency per tool,
  the pipeline's stages, and the stores' documents and disk use, read at scrape time.
- **Stages and spans.** Haystack opens a span around every component run. `StageTracer` is the Haystack
  tracer haygate installs: it times those spans into the stage histograms (no code in any component), and
  hands every span to OpenTelemetry when `HAYGATE_OTLP_ENDPOINT` is set (the `otel` extra).
"""

import contextlib
import logging
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from haygate.errors import ConfigurationError, HaygateError
from haygate.extras import add_extra
from haygate.logs import REQUEST_ID, new_request_id
from haygate.settings import Settings

if TYPE_CHECKING:
    from haystack.tracing import Span, Tracer
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SpanExporter

disable_created_metrics()  # `*_created` series double every family and say only when the process started

logger = logging.getLogger(__name__)
call_logger = logging.getLogger("haygate.calls")

UNKNOWN_TOOL = "(unknown)"  # one label for every name that is not a tool: callers cannot grow the metrics
RECENT_CALLS = 10_000  # per tool, for the p50/p95 of `haygate stats`
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# A component declares its stage (`stage = "store"`, haygate.api's `Stage`); a class without one is placed by
# Haystack's naming, so third-party components (Haystack's own, integrations') land where their names say.
STAGE_SUFFIXES = (
    ("TextEmbedder", "query_embedding"),
    ("Retriever", "store"),
    ("Ranker", "ranking"),
    ("Formatter", "formatting"),
    ("OutputAdapter", "formatting"),
)


_STAGES_SEEN: dict[str, str] = {}  # fully qualified type -> stage, for the classes Haystack's registry holds


def stage_of(qualified_type: str) -> str:
    """The stage of a component class, by its `haystack.component.fully_qualified_type` span tag.

    The class's own `stage` when Haystack's component registry holds the class (every `@component` class is
    in it once its module is imported, as it is when it runs), else the suffix of its name, else `other`.
    """
    stage = _STAGES_SEEN.get(qualified_type)
    if stage is not None:
        return stage
    from haystack.core.component.component import component

    cls = component.registry.get(qualified_type)
    declared = getattr(cls, "stage", None)
    name = qualified_type.rpartition(".")[2]
    if isinstance(declared, str) and declared:
        stage = declared
    else:
        stage = next((stage for suffix, stage in STAGE_SUFFIXES if name.endswith(suffix)), "other")
    if cls is not None:  # a registered class keeps its stage; an unknown name is asked again, cheaply
        _STAGES_SEEN[qualified_type] = stage
    return stage


@dataclass
class CallRecord:
    """One call as it runs: what the log line, the metrics and `haygate stats` are made of."""

    tool: str
    transport: str
    request_id: str
    started: float = field(default_factory=time.perf_counter)
    stages: dict[str, float] = field(default_factory=dict)  # seconds per stage
    result: dict[str, Any] | None = None


CURRENT_CALL: ContextVar[CallRecord | None] = ContextVar("haygate_current_call", default=None)


class NoSpan:
    """What a span is when no OpenTelemetry is configured (Haystack's NullSpan, without importing Haystack:
    the server answers before Haystack loads)."""

    def set_tag(self, key: str, value: Any) -> None:
        pass

    def set_tags(self, tags: dict[str, Any]) -> None:
        pass

    def set_content_tag(self, key: str, value: Any) -> None:
        pass

    def raw_span(self) -> Any:
        return None

    def get_correlation_data_for_logs(self) -> dict[str, Any]:
        return {}


# The span tags passed on to OpenTelemetry. Haystack also tags each span with the component's wiring (input and output
# specs) and the pipeline's inputs; serialising those is a measurable share of a call (docs/results/benchmarks.md), and
# the inputs are the caller's arguments: user data, which no span sends anywhere.
EXPORTED_TAGS = ("haystack.component.name", "haystack.component.type", "haystack.component.visits")


def exported(tags: dict[str, Any] | None) -> dict[str, Any] | None:
    if not tags:
        return tags
    return {key: value for key, value in tags.items() if key in EXPORTED_TAGS or key.startswith("haygate.")}


class StageTracer:
    """Haystack's tracer while haygate serves (a `haystack.tracing.Tracer` by its methods): times each
    component run into its call's stages, and passes every span on to OpenTelemetry when configured."""

    def __init__(self, inner: "Tracer | None" = None) -> None:
        self.inner = inner

    @contextlib.contextmanager
    def _span(self, operation_name: str, tags: dict[str, Any] | None, parent_span: "Span | None") -> Iterator[Any]:
        if self.inner is None:
            yield NoSpan()
            return
        with self.inner.trace(operation_name, tags=exported(tags), parent_span=parent_span) as span:
            yield span

    @contextlib.contextmanager
    def trace(
        self, operation_name: str, tags: dict[str, Any] | None = None, parent_span: "Span | None" = None
    ) -> Iterator[Any]:
        call = CURRENT_CALL.get()
        if call is None or operation_name != "haystack.component.run" or not tags:
            with self._span(operation_name, tags, parent_span) as span:
                yield span
            return
        stage = stage_of(str(tags.get("haystack.component.fully_qualified_type", "")))
        started = time.perf_counter()
        try:
            with self._span(operation_name, tags, parent_span) as span:
                yield span
        finally:
            call.stages[stage] = call.stages.get(stage, 0.0) + time.perf_counter() - started

    def current_span(self) -> "Span | None":
        return self.inner.current_span() if self.inner is not None else None


def opentelemetry_tracer(
    settings: Settings, exporter: "SpanExporter | None" = None
) -> tuple["Tracer", "TracerProvider"] | None:
    """Haystack's OpenTelemetry tracer over a provider of haygate's own (the process-wide one is left to the
    application): OTLP over HTTP to `HAYGATE_OTLP_ENDPOINT`, or `exporter` (tests). None when neither is set."""
    if exporter is None and not settings.otlp_endpoint:
        return None
    try:
        from haystack_integrations.tracing.opentelemetry import OpenTelemetryTracer
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as error:
        msg = f"HAYGATE_OTLP_ENDPOINT is set, but OpenTelemetry is not installed ({error}): {add_extra('otel')}"
        raise ConfigurationError(msg) from error
    provider = TracerProvider(resource=Resource.create({"service.name": settings.service_name}))
    if exporter is None:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=settings.otlp_endpoint)
    provider.add_span_processor(BatchSpanProcessor(exporter))  # exports off the call path, in batches
    return OpenTelemetryTracer(provider.get_tracer("haygate")), provider


def result_count(result: dict[str, Any] | None) -> int | None:
    """How many items a result holds: the length of its first top-level list (`results`, `candidates`...)."""
    if not isinstance(result, dict):
        return None
    return next((len(value) for value in result.values() if isinstance(value, list)), None)


@dataclass
class ToolStats:
    outcomes: dict[str, int] = field(default_factory=dict)
    durations: deque[float] = field(default_factory=lambda: deque(maxlen=RECENT_CALLS))

    def summary(self) -> dict[str, Any]:
        times = sorted(self.durations)
        p50: float | None
        p95: float | None
        if len(times) >= 2:
            cuts = statistics.quantiles(times, n=100, method="inclusive")
            p50, p95 = cuts[49], cuts[94]
        else:
            p50 = p95 = times[0] if times else None
        return {
            "calls": sum(self.outcomes.values()),
            "outcomes": dict(sorted(self.outcomes.items())),
            "p50_ms": None if p50 is None else round(p50 * 1000, 2),
            "p95_ms": None if p95 is None else round(p95 * 1000, 2),
        }


class StoreCollector(Collector):
    """Documents and disk use per collection, read when Prometheus scrapes (never on the call path)."""

    def __init__(self, collections: Callable[[], dict[str, dict[str, Any]]]) -> None:
        self.collections = collections

    def collect(self) -> Iterable[Metric]:
        documents = GaugeMetricFamily(
            "haygate_collection_documents", "Documents (points) in each collection.", labels=["collection"]
        )
        disk = GaugeMetricFamily(
            "haygate_collection_disk_bytes", "Bytes each embedded collection takes on disk.", labels=["collection"]
        )
        try:
            stats = self.collections()
        except Exception:  # a scrape must not fail because one store is busy or gone
            logger.debug("collection statistics unavailable", exc_info=True)
            stats = {}
        for name, figures in sorted(stats.items()):
            if figures.get("documents") is not None:
                documents.add_metric([name], figures["documents"])
            if figures.get("disk_bytes") is not None:
                disk.add_metric([name], figures["disk_bytes"])
        return [documents, disk]


class Telemetry:
    """A service's logs, metrics and spans. `enabled=False` (HAYGATE_TELEMETRY=0) keeps only the log line's
    absence and the plain call path, to measure what the rest costs."""

    def __init__(
        self,
        settings: Settings,
        collections: Callable[[], dict[str, dict[str, Any]]] | None = None,
        span_exporter: "SpanExporter | None" = None,
    ) -> None:
        self.enabled = settings.telemetry
        self.registry = CollectorRegistry(auto_describe=True)
        self.calls = Counter(
            "haygate_tool_calls",
            "Tool calls, by tool, transport and outcome (ok or the error code).",
            ["tool", "transport", "outcome"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "haygate_tool_call_duration_seconds",
            "Time from a call's arrival to its answer, by tool and transport.",
            ["tool", "transport"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.stage_latency = Histogram(
            "haygate_pipeline_stage_duration_seconds",
            "Time in each pipeline stage (query_embedding, store, ranking, formatting, ...), by tool.",
            ["tool", "stage"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        if collections is not None:
            self.registry.register(StoreCollector(collections))
        self._tools: dict[str, ToolStats] = {}
        self._guard = threading.Lock()
        self._settings = settings
        self._span_exporter = span_exporter
        self._provider: TracerProvider | None = None
        self.tracer = StageTracer()

    def install(self) -> None:
        """Make this the tracer Haystack's pipelines report to, with OpenTelemetry behind it if configured.
        Called once the pipelines are built: Haystack (and OpenTelemetry's integration, which imports it)
        loads after the server already answers. Haystack's tracer is process-wide, so the last service built
        serves; calls of other services are told apart by their contextvar."""
        if self.enabled:
            from haystack import tracing

            if self.tracer.inner is None:
                otel = opentelemetry_tracer(self._settings, self._span_exporter)
                if otel is not None:
                    self.tracer.inner, self._provider = otel

            tracing.enable_tracing(self.tracer)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def call(self, tool: str, transport: str, arguments: Any = None) -> Iterator[CallRecord]:
        """Around one call: its request id, its span, then its log line and metrics, whatever it ends in."""
        if not self.enabled:
            yield CallRecord(tool, transport, REQUEST_ID.get() or "")
            return
        request_id = REQUEST_ID.get() or new_request_id()
        record = CallRecord(tool, transport, request_id)
        tokens = (REQUEST_ID.set(request_id), CURRENT_CALL.set(record))
        if call_logger.isEnabledFor(logging.DEBUG):
            call_logger.debug("%s via %s: arguments %.2000r", tool, transport, arguments)
        code: str | None = None
        try:
            tags = {"haygate.tool": tool, "haygate.transport": transport, "haygate.request_id": request_id}
            with self.tracer.trace("haygate.tool.call", tags=tags) as span:
                try:
                    yield record
                except BaseException as error:
                    code = error.code if isinstance(error, HaygateError) else "INTERNAL_ERROR"
                    span.set_tag("haygate.error_code", code)
                    raise
        finally:
            self._finish(record, code)
            CURRENT_CALL.reset(tokens[1])
            REQUEST_ID.reset(tokens[0])

    def _finish(self, record: CallRecord, code: str | None) -> None:
        duration = time.perf_counter() - record.started
        outcome = "ok" if code is None else code
        self.calls.labels(record.tool, record.transport, outcome).inc()
        self.latency.labels(record.tool, record.transport).observe(duration)
        for stage, seconds in record.stages.items():
            self.stage_latency.labels(record.tool, stage).observe(seconds)
        with self._guard:
            stats = self._tools.setdefault(record.tool, ToolStats())
            stats.outcomes[outcome] = stats.outcomes.get(outcome, 0) + 1
            stats.durations.append(duration)
        count = result_count(record.result)
        fields = {
            "tool": record.tool,
            "transport": record.transport,
            "outcome": outcome,
            "duration_ms": round(duration * 1000, 2),
            "results": count,
            "error_code": code,
            "stages_ms": {stage: round(seconds * 1000, 3) for stage, seconds in record.stages.items()},
        }
        said = f"{count} result(s)" if code is None else code
        call_logger.info("%s via %s: %s in %.1f ms", record.tool, record.transport, said, duration * 1000, extra=fields)

    def tool_stats(self) -> dict[str, Any]:
        with self._guard:
            return {name: stats.summary() for name, stats in sorted(self._tools.items())}

    def close(self) -> None:
        if self._provider is not None:
            self._provider.shutdown()  # sends what the batch still holds
