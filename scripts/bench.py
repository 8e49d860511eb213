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
from haystack.dataclasses import SparseEmbedding
from qdrant_edge import Bm25, Bm25Config

from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder
from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.document_stores.hybrid import HybridDocumentStore, HybridQuery
from haygate.gateway.loader import Loader
from haygate.gateway.service import GatewayService
from haygate.ingest.indexer import ingest_files
from haygate.ingest.mapping import to_document
from haygate.ingest.readers import read_records
from haygate.settings import Settings

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


def backend(data_dir: Path, qdrant_url: str | None) -> Settings:
    return Settings(home=PROJECT, data_dir=data_dir, qdrant_url=qdrant_url)


def synthetic_documents(n: int, seed: int = 7) -> list[Document]:
    rng = random.Random(seed)
    vocabulary = [f"term{i}" for i in range(5000)]
    bm25 = Bm25(Bm25Config(language="english"))
    vectors = np.random.default_rng(seed).standard_normal((n, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    documents = []
    for i in range(n):
        text = " ".join(rng.choices(vocabulary, k=60))
        sparse = bm25.embed_document(text)
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
                sparse_embedding=SparseEmbedding(indices=list(sparse.indices), values=list(sparse.values)),
            )
        )
    return documents


def queries(count: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(f"term{rng.randrange(5000)}" for _ in range(4)) for _ in range(count)]


def load_store(store: HybridDocumentStore, documents: list[Document]) -> HybridDocumentStore:
    for start in range(0, len(documents), 1000):
        store.write_documents(documents[start : start + 1000])
    store.optimize()
    return store


def measure_backend(
    settings: Settings, documents: list[Document], texts: list[str], embedder: DenseTextEmbedder
) -> dict[str, Any]:
    """Per query, in sequence: query embedding, the store call alone, then the whole tool call.

    Measuring the three back to back for each query, and taking the median of the per-query difference,
    keeps the overhead figure honest on a noisy machine. `server_ms` is the time inside the gateway
    (validation, pipeline, envelope); `tool_call_ms` adds the in-memory MCP round trip, including the
    client's own JSON-schema validation of the structured result.
    """
    from fastmcp import Client

    from haygate.gateway.mcp import build_mcp
    from haygate.gateway.runtime import Gateway

    loader = Loader(settings)
    started = time.perf_counter()
    store = load_store(loader.store("docs"), documents)
    load_seconds = time.perf_counter() - started
    sparse = Bm25SparseTextEmbedder()
    gateway = Gateway.load(loader, files=[settings.tools_dir / "search_docs.yaml"])
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
        async with Client(build_mcp(GatewayService.serving(gateway))) as client:
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
    loader.close()
    return result


def real_texts(limit: int) -> tuple[Path, str]:
    folder = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    if SHARED_SECTIONS.exists():
        lines = SHARED_SECTIONS.read_text().splitlines()[:limit]
        target = folder / "sections.jsonl"
        target.write_text("\n".join(lines) + "\n")
        return target, f"haystack-docs sections.jsonl (first {len(lines)})"
    target = folder / "samples.jsonl"
    rows = [r.data for p in sorted((PROJECT / "samples" / "docs").glob("*.md")) for r in read_records(p) if r.data]
    target.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return target, f"bundled samples ({len(rows)} Markdown files)"


def measure_ingest(limit: int, work: Path, rounds: int = 2) -> dict[str, Any]:
    """Alternate raw encode and a full ingest into a fresh store, `rounds` times, with the model warm.

    Alternating cancels the drift of a noisy machine; the ratio is taken per round, then the median.
    """
    source, label = real_texts(limit)
    settings = backend(work / "ingest-texts", None)
    with Loader(settings) as loader:
        collection = loader.collection("docs")
        pipeline = collection.indexing
        records = [to_document(r.data, collection.schema) for r in read_records(source) if r.data]
        # What the dense embedder sees: the documents after the stages before it in indexing/docs.yaml.
        routed = pipeline.get_component("router").run(documents=records)
        pages = routed["markdown"]
        split = pipeline.get_component("headings").run(documents=pages)["documents"] if pages else []
        documents = pipeline.get_component("sections").run(documents=split)["documents"] + routed["unmatched"]
        for stage in ("section_metadata", "splitter", "chunk_ids"):
            documents = pipeline.get_component(stage).run(documents=documents)["documents"]
    texts = [f"{d.meta.get('title', '')}\n{d.content}" for d in documents]  # what DenseDocumentEmbedder embeds
    pipeline.warm_up()
    model = pipeline.get_component("dense_embedder").embedding_backend.model
    model.encode(texts[:64], batch_size=32)
    encode_rates, ingest_rates, ratios = [], [], []
    for round_number in range(rounds):
        start = time.perf_counter()
        model.encode(texts, batch_size=32, show_progress_bar=False)
        encode_seconds = time.perf_counter() - start
        with Loader(backend(work / f"ingest-{round_number}", None)) as loader:
            collection = loader.collection("docs")
            collection.indexing = pipeline  # the warm pipeline; its writer writes to this round's store
            pipeline.get_component("writer").document_store = collection.store
            start = time.perf_counter()
            report = ingest_files(collection, [source], progress=False)
            ingest_seconds = time.perf_counter() - start
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
        report["a_qdrant_edge"] = measure_backend(backend(work / "edge", None), documents, texts, embedder)
    if "b" not in args.skip:
        local = backend(work / "local", ":memory:")
        report["b_qdrant_local_mode"] = measure_backend(local, documents, texts[: args.local_queries], embedder)
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
