"""Benchmarks for issue #2. Prints one JSON document; nothing here is asserted.

(a) search_docs tool-call latency through the FastMCP in-memory client on Qdrant Edge at N docs, with and
    without filters, beside the query-embedding time and the store query time alone.
(b) the same pipeline and store calls on qdrant-haystack's local mode (qdrant-client) at the same N docs.
(c) ingest docs/s through `haygate ingest` beside raw `SentenceTransformer.encode` docs/s on the same texts.

(a) and (b) use synthetic vectors and payloads; (c) uses real text (../shared haystack-docs when present,
else the bundled samples). Run: `make bench` or `.venv/bin/python scripts/bench.py --docs 20000`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch
from haystack import Document
from qdrant_edge import Bm25, Bm25Config

from components.collections import close_all, open_collection, schema_for
from components.embedders import Bm25SparseTextEmbedder, DenseTextEmbedder, to_sparse
from components.hybrid import HybridQuery
from haygate.settings import get_settings

PROJECT = Path(__file__).resolve().parent.parent
SHARED_SECTIONS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
VERSIONS = ["1.0", "1.1", "2.0", "3.0"]
TYPES = ["code", "prose", "mixed"]
SECTIONS = ["guide", "reference", "concepts", "howto", "api"]
FILTERED = {"version": "2.0", "content_type": "code", "section_path": "guide"}


def percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
        "n": len(ordered),
    }


def timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def use_backend(data_dir: Path, qdrant_url: str | None) -> None:
    close_all()
    os.environ["HAYGATE_DATA_DIR"] = str(data_dir)
    os.environ.pop("HAYGATE_QDRANT_URL", None)
    if qdrant_url:
        os.environ["HAYGATE_QDRANT_URL"] = qdrant_url
    get_settings.cache_clear()


def synthetic_documents(n: int, seed: int = 7) -> list[Document]:
    rng = random.Random(seed)
    vocabulary = [f"term{i}" for i in range(5000)]
    bm25 = Bm25(Bm25Config(language="english"))
    vectors = np.random.default_rng(seed).standard_normal((n, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    documents = []
    for i in range(n):
        text = " ".join(rng.choices(vocabulary, k=60))
        section = f"{rng.choice(SECTIONS)}/topic-{rng.randrange(40)}"
        parts = section.split("/")
        documents.append(
            Document(
                id=f"syn-{i}",
                content=text,
                meta={
                    "title": f"Section {i}",
                    "version": rng.choice(VERSIONS),
                    "content_type": rng.choice(TYPES),
                    "source_name": "synthetic",
                    "section_path": section,
                    "section_path_prefixes": ["/".join(parts[: j + 1]) for j in range(len(parts))],
                    "record_id": f"syn-{i}",
                },
                embedding=vectors[i].tolist(),
                sparse_embedding=to_sparse(bm25.embed_document(text)),
            )
        )
    return documents


def queries(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(f"term{rng.randrange(5000)}" for _ in range(4)) for _ in range(count)]


def load_store(documents: list[Document]) -> Any:
    store = open_collection("docs")
    for start in range(0, len(documents), 1000):
        store.write_documents(documents[start : start + 1000])
    store.optimize()
    return store


def measure_backend(documents: list[Document], texts: list[str], embedder: DenseTextEmbedder) -> dict[str, Any]:
    """Per query, in sequence: query embedding, the store call alone, then the whole tool call.

    Measuring the three back to back for each query, and taking the median of the per-query difference,
    keeps the overhead figure honest on a noisy machine. `server_ms` is the time inside the gateway
    (validation, pipeline, envelope); `tool_call_ms` adds the in-memory MCP round trip, including the
    client's own JSON-schema validation of the structured result.
    """
    from fastmcp import Client

    from haygate.gateway import Gateway
    from server import build_mcp

    started = time.perf_counter()
    store = load_store(documents)
    load_seconds = time.perf_counter() - started
    sparse = Bm25SparseTextEmbedder()
    gateway = Gateway.load()
    gateway.warm_up()
    server_ms: list[float] = []
    call_async = gateway.call_async

    async def timed_call(name: str, arguments: Any) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            return await call_async(name, arguments)
        finally:
            server_ms.append((time.perf_counter() - start) * 1000)

    gateway.call_async = timed_call  # type: ignore[method-assign]
    filters = {
        "operator": "AND",
        "conditions": [
            {"field": "meta.version", "operator": "==", "value": FILTERED["version"]},
            {"field": "meta.content_type", "operator": "==", "value": FILTERED["content_type"]},
            {"field": "meta.section_path_prefixes", "operator": "==", "value": FILTERED["section_path"]},
        ],
    }
    result: dict[str, Any] = {"docs": store.count_documents(), "load_seconds": round(load_seconds, 1)}

    async def run(label: str, extra: dict[str, Any], condition: dict[str, Any] | None) -> None:
        embed, store_only, tool, overhead = [], [], [], []
        async with Client(build_mcp(gateway)) as client:
            await client.call_tool("search_docs", {"query": "warm up", **extra})
            for text in texts:
                embed.append(timed(lambda t=text: embedder.run(t)))
                dense = embedder.run(text)["embedding"]
                sparse_vector = sparse.run(text)["sparse_embedding"]
                request = HybridQuery(
                    dense=dense, sparse=sparse_vector, filters=condition, limit=50, prefetch_limit=100
                )
                store_only.append(timed(lambda r=request: store.hybrid_search(r)))
                start = time.perf_counter()
                await client.call_tool("search_docs", {"query": text, **extra})
                tool.append((time.perf_counter() - start) * 1000)
                overhead.append(server_ms[-1] - embed[-1] - store_only[-1])
        result[label] = {
            "query_embedding_ms": percentiles(embed),
            "store_query_ms": percentiles(store_only),
            "server_ms": percentiles(server_ms[-len(texts) :]),
            "tool_call_ms": percentiles(tool),
            "gateway_overhead_ms": percentiles(overhead),
        }

    asyncio.run(run("no_filter", {}, None))
    asyncio.run(run("filtered", FILTERED, filters))
    return result


def real_texts(limit: int) -> tuple[Path, str]:
    folder = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    if SHARED_SECTIONS.exists():
        lines = SHARED_SECTIONS.read_text().splitlines()[:limit]
        target = folder / "sections.jsonl"
        target.write_text("\n".join(lines) + "\n")
        return target, f"haystack-docs sections.jsonl (first {len(lines)})"
    target = folder / "samples.jsonl"
    from haygate.records import read_records

    rows = [r.data for p in sorted((PROJECT / "samples" / "docs").glob("*.md")) for r in read_records(p) if r.data]
    target.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return target, f"bundled samples ({len(rows)} sections)"


def measure_ingest(limit: int, work: Path, rounds: int = 2) -> dict[str, Any]:
    """Alternate raw encode and a full ingest into a fresh store, `rounds` times, with the model warm.

    Alternating cancels the drift of a noisy machine; the ratio is taken per round, then the median.
    """
    from haygate.ingest import indexing_pipeline, ingest_files
    from haygate.records import read_records, to_documents

    source, label = real_texts(limit)
    schema = schema_for("docs")
    documents = [d for r in read_records(source) if r.data for d in to_documents(r.data, schema)]
    texts = [f"{d.meta.get('title', '')}\n{d.content}" for d in documents]  # what DenseDocumentEmbedder embeds
    pipeline = indexing_pipeline(schema)
    pipeline.warm_up()
    model = pipeline.get_component("dense_embedder").embedding_backend.model
    model.encode(texts[:64], batch_size=32)
    encode_rates, ingest_rates, ratios = [], [], []
    for round_number in range(rounds):
        start = time.perf_counter()
        model.encode(texts, batch_size=32, show_progress_bar=False)
        encode_seconds = time.perf_counter() - start
        use_backend(work / f"ingest-{round_number}", None)
        start = time.perf_counter()
        report = ingest_files("docs", [source], progress=False, pipeline=pipeline)
        ingest_seconds = time.perf_counter() - start
        close_all()
        assert report.written == report.records
        encode_rates.append(len(documents) / encode_seconds)
        ingest_rates.append(len(documents) / ingest_seconds)
        ratios.append(encode_seconds / ingest_seconds)
    return {
        "texts": label,
        "documents": len(documents),
        "rounds": rounds,
        "raw_encode_docs_per_s": round(statistics.median(encode_rates), 1),
        "ingest_docs_per_s": round(statistics.median(ingest_rates), 1),
        "ingest_over_encode": round(statistics.median(ratios), 3),
        "ingest_over_encode_per_round": [round(r, 3) for r in ratios],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20000, help="synthetic collection size for (a) and (b)")
    parser.add_argument("--queries", type=int, default=200, help="queries per Qdrant Edge measurement")
    parser.add_argument("--local-queries", type=int, default=20, help="queries per local-mode measurement")
    parser.add_argument("--ingest-docs", type=int, default=600, help="real sections for (c)")
    parser.add_argument("--skip", nargs="*", default=[], choices=["a", "b", "c"])
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="haygate-bench-"))
    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "torch_threads_for_queries": 1}}
    if "c" not in args.skip:
        report["c_ingest"] = measure_ingest(args.ingest_docs, work)
    torch.set_num_threads(1)  # as `haygate serve` does
    documents = synthetic_documents(args.docs)
    texts = queries(args.queries)
    embedder = DenseTextEmbedder()
    embedder.warm_up()
    embedder.run("warm up")
    if "a" not in args.skip:
        use_backend(work / "edge", None)
        report["a_qdrant_edge"] = measure_backend(documents, texts, embedder)
        close_all()
    if "b" not in args.skip:
        use_backend(work / "local", ":memory:")
        report["b_qdrant_local_mode"] = measure_backend(documents, texts[: args.local_queries], embedder)
        close_all()
    if "a_qdrant_edge" in report and "b_qdrant_local_mode" in report:
        edge, local = report["a_qdrant_edge"], report["b_qdrant_local_mode"]
        report["edge_speedup_store_p50"] = {
            label: round(local[label]["store_query_ms"]["p50"] / edge[label]["store_query_ms"]["p50"], 1)
            for label in ("no_filter", "filtered")
        }
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
