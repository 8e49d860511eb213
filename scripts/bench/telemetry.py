"""What logging, metrics and tracing cost a `search_docs` call, at the p50, in process (no HTTP).

Two services over one gateway (the bundled samples, ingested into a temporary data dir): one with
everything on (the per-call JSON log line written to a file, Prometheus metrics, the stage tracer and
OpenTelemetry spans through a real SDK span processor, exported to nowhere), one with `telemetry` off and
Haystack's no-op tracer. Calls alternate between them, each with a text never sent before (the judged
sets' queries), so no cache serves either side. Prints JSON: the p50 of each side (`p50_ms_all_on`,
`p50_ms_all_off`), their difference (`overhead_p50_ms`), the p50 of the per-pair differences
(`overhead_median_of_pairs_ms`), and the 1-minute load average before and after (`scripts.measure`). Figures:
docs/how-to/observe.md. Run: `.venv/bin/python -m scripts.bench.telemetry`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import asyncio
import json
import logging
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from haystack import tracing
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import sample_files
from haygate.logs import log_handler
from haygate.server.service import GatewayService
from haygate.server.telemetry import Telemetry
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import load_average, percentiles
from scripts.workload.query_texts import judged_texts


class Nowhere(SpanExporter):
    """Takes the finished spans and drops them: the SDK's work is measured, not a network."""

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        return SpanExportResult.SUCCESS


async def measure(on: GatewayService, off: GatewayService, texts: list[str]) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"on": [], "off": []}
    for number, text in enumerate(texts):
        # Alternate which side goes first; Haystack's tracer is process-wide, so each side sets its own.
        side = ("on", "off")[number % 2]
        if side == "on":
            on.telemetry.install()
            service = on
        else:
            tracing.disable_tracing()
            service = off
        started = time.perf_counter()
        await service.call("search_docs", {"query": text}, "rest")
        times[side].append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data-dir", type=Path, help="reuse a data dir that holds the samples")
    parser.add_argument("--no-otel", action="store_true", help="logs and metrics on, no OpenTelemetry spans")
    args = parser.parse_args()
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="haygate-bench-telemetry-"))
    base = Settings(home=PROJECT, data_dir=data_dir, token=None, qdrant_url=None)
    with Loader(base) as loader:
        if args.data_dir is None:
            for collection, files in sample_files(PROJECT / "samples", base.collections_dir).items():
                ingest_files(loader.collection(collection), files, progress=False)
        gateway = Gateway.load(loader, only="search_docs")
        gateway.warm_up()
        log_file = data_dir / "calls.jsonl"
        with log_file.open("w") as sink:
            on_settings = base.model_copy(update={"telemetry": True, "log_format": "json"})
            handler = log_handler(on_settings.log_format, sink)
            logging.getLogger("haygate.calls").addHandler(handler)
            logging.getLogger("haygate.calls").setLevel(logging.INFO)
            on = GatewayService.serving(
                gateway, Telemetry(on_settings, span_exporter=None if args.no_otel else Nowhere())
            )
            off = GatewayService.serving(gateway, Telemetry(base.model_copy(update={"telemetry": False})))
            texts = judged_texts()
            asyncio.run(measure(on, off, texts[:20]))  # both paths warm
            load_before = load_average()[0]
            times = asyncio.run(measure(on, off, texts[20:]))
            load_after = load_average()[0]
        p50_on, p50_off = percentiles(times["on"])["p50_ms"], percentiles(times["off"])["p50_ms"]
        pairs = [a - b for a, b in zip(times["on"], times["off"], strict=False)]
        print(
            json.dumps(
                {
                    "opentelemetry": not args.no_otel,
                    "calls_per_side": len(times["on"]),
                    "p50_ms_all_on": p50_on,
                    "p50_ms_all_off": p50_off,
                    "overhead_p50_ms": round(p50_on - p50_off, 3),
                    "overhead_median_of_pairs_ms": percentiles(pairs)["p50_ms"],
                    "log_lines_written": sum(1 for _ in log_file.open()),
                    "load_average": [load_before, load_after],
                },
                indent=1,
            )
        )
        on.telemetry.close()


if __name__ == "__main__":
    main()
