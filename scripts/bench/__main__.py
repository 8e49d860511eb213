"""The core benchmarks (`make bench`): embedding, a call inside the gateway, a served gateway under concurrent
clients, and ingest. Prints one JSON document; nothing here is asserted.

embedding    Query embedding p50 on the ONNX runtime against `SentenceTransformer.encode`, the same distinct
             texts side by side (alternating per text), one query per call; the lowest cosine between them.
gateway      On a synthetic `docs` collection of --docs documents in Qdrant Edge, for each distinct query: the
             query embedding (the model, no cache), the store call alone, and the whole `search_docs` call
             inside the gateway, which embeds the text itself (never seen before, so never cached). The
             gateway overhead is the per-query difference, with and without filters.
concurrency  REST `search_docs` on a real `haygate serve --http` over that collection: total throughput of
             one client calling sequentially against --clients concurrent clients, every query distinct.
ingest       End-to-end `ingest` of real text (haystack-docs sections when ../shared is present, else the
             bundled samples) on the ONNX runtime against the torch runtime, alternating rounds.
--synthetic N  Writes N documents with precomputed vectors (and BM25 sparse vectors) through the project's
             own indexing writer (Haystack's DocumentWriter) into Qdrant Edge in batches, then builds the
             indexes (`optimize`), then times filtered and unfiltered hybrid store queries; peak RSS. With
             --data DIR the collection is kept (and reused when already written); --full-scan-kb K...
             reopens it with each `full_scan_threshold_kb`, rebuilds its indexes (a built graph keeps
             the threshold it was built with) and times the queries again.

Reading the output: latencies are `{n, p50_ms, p95_ms, p99_ms, max_ms, load}` (`scripts.measure.percentiles`),
rates are per second, and every figure sits beside the 1-minute load average taken when it was measured. The
figures and the machine they were taken on are in docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench` or `.venv/bin/python -m scripts.bench --synthetic 100000`.
Cold start over stdio is measured by `scripts.bench.live` (startup).
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import os

os.environ.setdefault("HAYGATE_KEEP_VECTORS", "0")  # timed ingests embed every text, as a first one does

# isort: split
import argparse
import asyncio
import dataclasses
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
from haystack import Document
from haystack.components.writers import DocumentWriter
from haystack.dataclasses import SparseEmbedding
from qdrant_edge import Bm25, Bm25Config

from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder
from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.document_stores.query import HybridQuery
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.ingest.readers import read_records
from haygate.ingest.schema import StorageSettings
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import free_port, load_average, peak_rss_mb, percentiles, rss_mb, serve_command, served

SHARED_SECTIONS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
VERSIONS = ["1.0", "1.1", "2.0", "3.0"]
TYPES = ["code", "prose", "mixed"]
SECTIONS = ["guide", "reference", "concepts", "howto", "api"]
FILTERED = {"version": "2.0", "content_type": "code", "section_path": "guide"}
FILTERS = {
    "operator": "AND",
    "conditions": [
        {"field": "meta.version", "operator": "==", "value": "2.0"},
        {"field": "meta.content_type", "operator": "==", "value": "code"},
        {"field": "meta.section_path_prefixes", "operator": "==", "value": "guide"},
    ],
}
WORDS = [
    "pipeline",
    "retriever",
    "ranker",
    "embedder",
    "filter",
    "metadata",
    "document",
    "store",
    "qdrant",
    "hybrid",
    "dense",
    "sparse",
    "bm25",
    "serialize",
    "yaml",
    "component",
    "socket",
    "connection",
    "agent",
    "tool",
    "memory",
    "chunk",
    "split",
    "overlap",
    "window",
    "token",
    "query",
    "score",
    "rerank",
    "cross",
    "encoder",
    "batch",
    "index",
    "segment",
    "optimize",
    "shard",
    "payload",
    "keyword",
    "version",
    "section",
]


def load() -> float:
    return load_average()[0]


def spread(samples_seconds: list[float]) -> dict[str, float]:
    """The percentiles of durations with the load average they were taken under."""
    return {**percentiles(samples_seconds), "load": load()}


def timed(fn: Callable[[], Any]) -> float:
    """Seconds `fn` takes."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def distinct_queries(count: int, seed: int) -> list[str]:
    """Natural-looking queries, each text different (so no stage can answer from a cache)."""
    rng = random.Random(seed)
    return [f"{' '.join(rng.sample(WORDS, 5))} {seed}-{i}" for i in range(count)]


def synthetic_batches(n: int, batch: int = 2000, seed: int = 7) -> Iterator[list[Document]]:
    """N documents with unit vectors, BM25 sparse vectors and the docs collection's payload, made a batch
    at a time so a million never sit in memory together."""
    rng = random.Random(seed)
    numbers = np.random.default_rng(seed)
    vocabulary = [f"term{i}" for i in range(5000)]
    bm25 = Bm25(Bm25Config(language="english"))
    for start in range(0, n, batch):
        size = min(batch, n - start)
        vectors = numbers.standard_normal((size, 384)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        documents = []
        for offset, vector in enumerate(vectors.tolist()):
            i = start + offset
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
                    embedding=vector,
                    sparse_embedding=SparseEmbedding(indices=list(sparse.indices), values=list(sparse.values)),
                )
            )
        yield documents


MODELS = Path(tempfile.mkdtemp(prefix="haygate-bench-models-"))  # one ONNX export for every stage


def settings_for(data_dir: Path) -> Settings:
    return Settings(home=PROJECT, data_dir=data_dir, watch=False, model_cache_dir=MODELS)


def write_synthetic(store: HybridDocumentStore, n: int) -> dict[str, Any]:
    """Through the indexing pipelines' own writer (DocumentWriter, OVERWRITE), each batch durable."""
    from haystack.document_stores.types import DuplicatePolicy

    writer = DocumentWriter(document_store=store, policy=DuplicatePolicy.OVERWRITE)  # type: ignore[arg-type]
    writing = 0.0
    for documents in synthetic_batches(n):
        started = time.perf_counter()
        with store.batch():
            writer.run(documents=documents)
        writing += time.perf_counter() - started
    written = {"docs": n, "write_seconds": round(writing, 1), "docs_per_s": round(n / writing), "load": load()}
    started = time.perf_counter()
    store.optimize()
    written["optimize_seconds"] = round(time.perf_counter() - started, 1)
    written["optimize_load"] = load()
    return written


def store_request(dense: Any, sparse: Any, condition: dict[str, Any] | None) -> HybridQuery:
    """What search_docs' retriever sends: dense and BM25 sources fused (RRF), 50 kept of 100 per source."""
    return HybridQuery(dense=list(map(float, dense)), sparse=sparse, filters=condition, limit=50, prefetch_limit=100)


def store_queries(store: HybridDocumentStore, count: int) -> dict[str, Any]:
    """The hybrid query, and each of its sources alone (which one grows with the collection)."""
    rng = np.random.default_rng(5)
    sparse = Bm25SparseTextEmbedder()
    results: dict[str, Any] = {}
    for label, condition in (("no_filter", None), ("filtered", FILTERS)):
        times: dict[str, list[float]] = {"hybrid": [], "dense_only": [], "sparse_only": []}
        for i in range(count):
            dense = rng.standard_normal(384).astype(np.float32)
            dense /= np.linalg.norm(dense)
            text = f"term{rng.integers(5000)} term{rng.integers(5000)} term{rng.integers(5000)} q{i}"
            request = store_request(dense, sparse.run(text)["sparse_embedding"], condition)
            requests = {
                "hybrid": request,
                "dense_only": dataclasses.replace(request, sparse=None),
                "sparse_only": dataclasses.replace(request, dense=None),
            }
            for name, one in requests.items():
                times[name].append(timed(lambda r=one: store.hybrid_search(r)))  # type: ignore[misc]
        results[label] = spread(times["hybrid"])
        for name in ("dense_only", "sparse_only"):
            results[f"{label}_{name}"] = spread(times[name])
    return results


def storage_settings(pairs: list[str]) -> dict[str, int | str]:
    """`key=value` pairs as a collection's `storage:` mapping, checked by the schema's own model."""
    raw = dict(pair.split("=", 1) for pair in pairs)
    return StorageSettings.model_validate(raw).model_dump(exclude_none=True)


def measure_synthetic(
    n: int, data_dir: Path, queries: int, storage: dict[str, int | str], full_scan_kb: list[int]
) -> dict[str, Any]:
    """Write and index N documents (unless `data_dir` already holds them: --data keeps a collection to query
    again), time queries, then reopen the shard with each `full_scan_threshold_kb` and time them again."""
    with Loader(settings_for(data_dir)) as loader:
        store = loader.store("docs")
        # --storage: set before the shard opens, as the collection's YAML would
        store.storage.update(storage)  # type: ignore[attr-defined]
        if store.exists() and store.count_documents() >= n:
            result: dict[str, Any] = {"docs": n, "reused": str(data_dir)}
        else:
            result = write_synthetic(store, n)
        result["points"] = store.count_documents()
        result["store_query_ms"] = store_queries(store, queries)
        result.update(rss_mb=rss_mb(), peak_rss_mb=peak_rss_mb())
    for threshold in full_scan_kb:
        with Loader(settings_for(data_dir)) as loader:
            store = loader.store("docs")
            store.storage.update({**storage, "full_scan_threshold_kb": threshold})  # type: ignore[attr-defined]
            started = time.perf_counter()
            store.optimize()  # a built graph keeps the threshold it was built with: a new one means a rebuild
            result[f"store_query_ms_full_scan_{threshold}kb"] = {
                "rebuild_seconds": round(time.perf_counter() - started, 1),
                **store_queries(store, queries),
            }
    return result


def measure_embedding(texts: list[str]) -> dict[str, Any]:
    """ONNX Runtime against sentence-transformers on torch, per text, alternating (side by side)."""
    onnx = DenseTextEmbedder(backend="onnx", model_cache_dir=MODELS)
    onnx.warm_up()
    torch_embedder = DenseTextEmbedder(backend="torch")
    torch_embedder.warm_up()
    model = torch_embedder.embedding_backend.model  # type: ignore[union-attr]
    onnx_ms, torch_ms, cosines = [], [], []
    for text in texts:
        started = time.perf_counter()
        a = onnx.embedding_backend.embed_one(text)  # type: ignore[union-attr]
        onnx_ms.append(time.perf_counter() - started)
        started = time.perf_counter()
        b = model.encode(text, show_progress_bar=False)
        torch_ms.append(time.perf_counter() - started)
        cosines.append(float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))))
    return {
        "onnx_ms": spread(onnx_ms),
        "sentence_transformers_encode_ms": spread(torch_ms),
        "speedup_p50": round(statistics.median(torch_ms) / statistics.median(onnx_ms), 2),
        "min_cosine": round(min(cosines), 6),
    }


def measure_gateway(data_dir: Path, texts: list[str]) -> dict[str, Any]:
    """Per distinct query: embedding (model only), store alone, whole call inside the gateway."""
    from haygate.gateway.runtime import Gateway

    result: dict[str, Any] = {}
    with Loader(settings_for(data_dir)) as loader:
        store = loader.store("docs")
        gateway = Gateway.load(loader, only="search_docs")
        gateway.warm_up()
        pipeline = gateway.tools["search_docs"].pipeline
        assert pipeline is not None
        embedder: Any = pipeline.pipeline.get_component("dense_embedder")
        sparse = Bm25SparseTextEmbedder()
        for label, extra, condition in (("no_filter", {}, None), ("filtered", FILTERED, FILTERS)):
            embed, store_only, server, overhead = [], [], [], []
            for text in texts:
                query = f"{text} {label}"  # distinct per stage too: the gateway never finds it cached
                started = time.perf_counter()
                dense = embedder.embedding_backend.embed_one(query)
                embed.append(time.perf_counter() - started)
                request = store_request(dense, sparse.run(query)["sparse_embedding"], condition)
                store_only.append(timed(lambda r=request: store.hybrid_search(r)))  # type: ignore[misc]
                arguments = {"query": query, **extra}
                server.append(timed(lambda a=arguments: gateway.call("search_docs", a)))  # type: ignore[misc]
                overhead.append(server[-1] - embed[-1] - store_only[-1])
            result[label] = {
                "query_embedding_ms": spread(embed),
                "store_query_ms": spread(store_only),
                "server_ms": spread(server),
                "gateway_overhead_ms": spread(overhead),
            }
        gateway.writer.close()
    return result


WRK_SCRIPT = """
local counter = 0
function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
end
function request()
  counter = counter + 1
  local body = string.format('{"query": "pipeline retriever filter %d %d"}', counter, math.random(1, 1000000000))
  return wrk.format("POST", "/api/tools/search_docs", {["Content-Type"] = "application/json"}, body)
end
"""


def run_wrk(base: str, connections: int, seconds: int) -> dict[str, Any]:
    """`connections` clients, each calling again as soon as it has its answer, for `seconds`."""
    script = Path(tempfile.mkdtemp()) / "queries.lua"
    script.write_text(WRK_SCRIPT)
    threads = min(2, connections)
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "--timeout", "30s"]
    command += ["--latency", "-s", str(script)]
    output = subprocess.run([*command, base], capture_output=True, text=True, check=True).stdout
    figures: dict[str, Any] = {"connections": connections, "load": load()}
    for line in output.splitlines():
        parts = line.split()
        if line.startswith("Requests/sec:"):
            figures["per_s"] = float(parts[1])
        elif line.strip().startswith(("50%", "99%")):
            figures[f"latency_{parts[0]}"] = parts[1]
        elif "requests in" in line:
            figures["calls"] = int(parts[0])
    figures["errors"] = sum(int(line.split()[-1]) for line in output.splitlines() if "Non-2xx" in line) + sum(
        int(n) for line in output.splitlines() if "Socket errors" in line for n in re.findall(r"\d+", line)
    )
    return figures


def measure_concurrency(data_dir: Path, clients: int, per_client: int, seconds: int = 20) -> dict[str, Any]:
    import httpx

    port = free_port()
    env = {
        **os.environ,
        "HAYGATE_HOME": str(PROJECT),
        "HAYGATE_DATA_DIR": str(data_dir),
        "HAYGATE_MODEL_CACHE_DIR": str(MODELS),
        "HAYGATE_WATCH": "false",
    }
    with served(serve_command(port), port=port, env=env, cwd=PROJECT, timeout=180) as server:
        base = server.url
        url = f"{base}/api/tools/search_docs"
        if shutil.which("wrk"):
            one = run_wrk(base, connections=1, seconds=seconds)
            many = run_wrk(base, connections=clients, seconds=seconds)
            return {
                "load_generator": "wrk (a C client; every request body a new query)",
                "one_client": one,
                "concurrent": many,
                "throughput_ratio": round(many["per_s"] / one["per_s"], 2),
                "errors": one["errors"] + many["errors"],
            }
        sequential = distinct_queries(clients * per_client // 4, seed=31)
        errors = 0
        with httpx.Client(timeout=60) as client:
            started = time.perf_counter()
            for text in sequential:
                errors += client.post(url, json={"query": text}).status_code != 200
            one_seconds = time.perf_counter() - started
        one = {"calls": len(sequential), "per_s": round(len(sequential) / one_seconds, 1), "load": load()}
        concurrent_texts = distinct_queries(clients * per_client, seed=37)
        latencies: list[float] = []

        async def run_clients() -> int:
            failures = 0
            limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
            async with httpx.AsyncClient(timeout=120, limits=limits) as client:

                async def worker(texts: list[str]) -> None:
                    nonlocal failures
                    for text in texts:
                        began = time.perf_counter()
                        response = await client.post(url, json={"query": text})
                        latencies.append(time.perf_counter() - began)
                        failures += response.status_code != 200

                await asyncio.gather(*(worker(concurrent_texts[i::clients]) for i in range(clients)))
            return failures

        started = time.perf_counter()
        failures = asyncio.run(run_clients())
        many_seconds = time.perf_counter() - started
        many = {
            "clients": clients,
            "calls": len(concurrent_texts),
            "per_s": round(len(concurrent_texts) / many_seconds, 1),
            "latency_ms": spread(latencies),
            "load": load(),
        }
        return {
            "load_generator": "httpx (Python, on the same cores as the server)",
            "one_client": one,
            "concurrent": many,
            "throughput_ratio": round(many["per_s"] / one["per_s"], 2),
            "errors": errors + failures,
        }


def real_texts(limit: int, folder: Path) -> tuple[Path, str]:
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
    """A full ingest (split, embed, BM25, write, optimize) into a fresh store per round, on each runtime,
    alternating; the models are warm."""
    source, label = real_texts(limit, work)
    rates: dict[str, list[float]] = {"onnx": [], "torch": []}
    written = 0
    for round_number in range(rounds):
        for runtime in ("onnx", "torch"):
            with Loader(settings_for(work / f"ingest-{runtime}-{round_number}")) as loader:
                collection = loader.collection("docs")
                embedder: Any = collection.indexing.get_component("dense_embedder")
                embedder.backend = runtime
                embedder.warm_up()
                started = time.perf_counter()
                report = ingest_files(collection, [source], progress=False, optimize=True)
                rates[runtime].append(report.written / (time.perf_counter() - started))
                written = report.written
    return {
        "texts": label,
        "documents": written,
        "rounds": rounds,
        "onnx_docs_per_s": round(statistics.median(rates["onnx"]), 1),
        "torch_docs_per_s": round(statistics.median(rates["torch"]), 1),
        "speedup": round(statistics.median(rates["onnx"]) / statistics.median(rates["torch"]), 2),
        "load": load(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m scripts.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20000, help="synthetic collection for gateway/concurrency")
    parser.add_argument("--queries", type=int, default=200, help="distinct queries per measurement")
    parser.add_argument("--clients", type=int, default=64, help="concurrent HTTP clients")
    parser.add_argument("--per-client", type=int, default=10, help="calls per concurrent client")
    parser.add_argument("--ingest-docs", type=int, default=600, help="real sections for the ingest stage")
    parser.add_argument("--synthetic", type=int, nargs="*", default=[], help="write N docs, index, query")
    stages = ["embedding", "gateway", "concurrency", "ingest"]
    parser.add_argument(
        "--storage", nargs="*", default=[], help="collection storage settings for --synthetic, e.g. quantization=int8"
    )
    parser.add_argument("--data", type=Path, help="--synthetic: keep the collection here, reuse it if written")
    parser.add_argument(
        "--full-scan-kb", type=int, nargs="*", default=[], help="--synthetic: time queries again at each threshold"
    )
    parser.add_argument("--skip", nargs="*", default=[], choices=stages)
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="haygate-bench-"))
    report: dict[str, Any] = {"machine": {"cpus": os.cpu_count()}, "load_at_start": load()}
    try:
        for n in args.synthetic:
            data_dir = args.data / f"synthetic-{n}" if args.data else work / f"synthetic-{n}"
            report[f"synthetic_{n}"] = measure_synthetic(
                n, data_dir, args.queries, storage_settings(args.storage), args.full_scan_kb
            )
            print(json.dumps({f"synthetic_{n}": report[f"synthetic_{n}"]}), file=sys.stderr)
        if args.synthetic:
            args.skip = stages  # --synthetic runs alone
        if "embedding" not in args.skip:
            report["embedding"] = measure_embedding(distinct_queries(args.queries, seed=13))
        if "gateway" in args.skip and "concurrency" in args.skip:
            pass
        else:
            data_dir = work / "gateway"
            with Loader(settings_for(data_dir)) as loader:
                store = loader.store("docs")
                report["gateway_collection"] = write_synthetic(store, args.docs)
            if "gateway" not in args.skip:
                report["gateway"] = measure_gateway(data_dir, distinct_queries(args.queries, seed=17))
            if "concurrency" not in args.skip:
                report["concurrency"] = measure_concurrency(data_dir, args.clients, args.per_client)
        if "ingest" not in args.skip:
            report["ingest"] = measure_ingest(args.ingest_docs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(MODELS, ignore_errors=True)
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
