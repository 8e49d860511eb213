"""What logging, metrics and tracing cost a `search_docs` call (issue #17: goal <= 0.3 ms at the p50).

Two services over one gateway (the bundled samples, ingested into a temporary data dir): one with
everything on (the per-call JSON log line written to a file, Prometheus metrics, the stage tracer and
OpenTelemetry spans through a real SDK span processor, exported to nowhere), one with `telemetry` off and
Haystack's no-op tracer. Calls alternate between them, each with a text never sent before (the judged
sets' queries), so no cache serves either side. Prints JSON: the p50 of each, the p50 of the per-pair
differences, and the load average beside them. Run: `.venv/bin/python scripts/bench_telemetry.py`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import asyncio
import json
import logging
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from haystack import tracing
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult
from query_texts import judged_texts

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import sample_files
from haygate.logs import log_handler
from haygate.server.service import GatewayService
from haygate.server.telemetry import Telemetry
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parents[1]


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
        times[side].append((time.perf_counter() - started) * 1000)
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
            load_before = os.getloadavg()[0]
            times = asyncio.run(measure(on, off, texts[20:]))
            load_after = os.getloadavg()[0]
        pairs = [a - b for a, b in zip(times["on"], times["off"], strict=False)]
        print(
            json.dumps(
                {
                    "opentelemetry": not args.no_otel,
                    "calls_per_side": len(times["on"]),
                    "p50_ms_all_on": round(statistics.median(times["on"]), 3),
                    "p50_ms_all_off": round(statistics.median(times["off"]), 3),
                    "overhead_p50_ms": round(statistics.median(times["on"]) - statistics.median(times["off"]), 3),
                    "overhead_median_of_pairs_ms": round(statistics.median(pairs), 3),
                    "log_lines_written": sum(1 for _ in log_file.open()),
                    "load_average": [round(load_before, 2), round(load_after, 2)],
                },
                indent=1,
            )
        )
        on.telemetry.close()


if __name__ == "__main__":
    main()
