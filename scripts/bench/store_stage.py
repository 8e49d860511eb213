"""Where a `search_docs` call's time goes, before and after reading whole documents only for those returned.

On the index of the haystack-docs sections (the one `haygate eval --judged evaluation/search_docs` builds;
built here when absent: minutes), two pipelines side by side in one process, alternating query by query:

- `whole`: the retriever reads the whole payload of all 50 fused candidates and the ranker keeps 10 (the
  served pipeline without its `fetcher` and `payload_fields: []`: what `search_docs` did before);
- `ids`: the served pipeline: the retriever reads ids and scores, the ranker keeps 10, `DocumentFetcher`
  reads those 10 whole.

For each, per query: the store stage (the retriever's `run`, plus the fetcher's), the engine's own time for
the same work (the same `query_batch`, plus the `retrieve` of the 10, straight on the shard, requests built
beforehand), the query embedding alone, and the whole call through the gateway (the tool's `run`: argument
checks, pipeline, formatter). The gateway's overhead is the call less the embedding and the store stage.
The serial part of a call, which bounds throughput on an engine that holds the GIL, is the call less the
ONNX inference (the one stage that releases the GIL); the script also measures calls/s with 4 threads.

Each query text is sent once per pipeline (suffixed), so no cache answers. Prints JSON: per pipeline and stage
`{n, p50_ms, p95_ms, p99_ms, max_ms}` (`scripts.measure.percentiles`), the ratios, calls/s, and the load
average before and after. Figures: docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.store_stage`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import qdrant_edge as qe
import yaml

from haygate.document_stores.payload import convert_id
from haygate.document_stores.query import HybridQuery, plan
from haygate.evaluation.runner import ensure_corpus_index, store_settings
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import load_average, percentiles
from scripts.workload.query_texts import judged_texts

CORPUS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
SERVED = PROJECT / "pipelines" / "tools" / "search_docs.yaml"
KEPT = 10  # the ranker's top_k: what a call returns


def timed(work: Callable[[], Any]) -> float:
    """Seconds `work` takes."""
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def whole_payload_pipeline(folder: Path) -> Path:
    """The served pipeline as it was before: whole payloads for every candidate, no fetcher."""
    pipeline = yaml.safe_load(SERVED.read_text())
    del pipeline["components"]["fetcher"]
    del pipeline["components"]["retriever"]["init_parameters"]["payload_fields"]
    connections = [c for c in pipeline["connections"] if "fetcher" not in (c["sender"] + c["receiver"])]
    connections.append({"sender": "ranker.documents", "receiver": "formatter.documents"})
    pipeline["connections"] = connections
    path = folder / "search_docs_whole_payloads.yaml"
    path.write_text(yaml.safe_dump(pipeline, sort_keys=False))
    return path


def throughput(run: Callable[[dict[str, Any]], Any], texts: list[str], threads: int) -> float:
    """Calls/s of `threads` threads sharing `texts` (each sent once)."""
    pending = list(texts)
    guard = threading.Lock()

    def worker() -> None:
        while True:
            with guard:
                if not pending:
                    return
                text = pending.pop()
            run({"query": text})

    workers = [threading.Thread(target=worker) for _ in range(threads)]
    started = time.perf_counter()
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    return round(len(texts) / (time.perf_counter() - started), 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300, help="distinct query texts (default: 300)")
    parser.add_argument("--threads", type=int, default=4, help="threads for the calls/s figure (default: 4)")
    args = parser.parse_args()
    base = Settings(home=PROJECT, data_dir=PROJECT / "data", token=None, tier="public")
    settings = store_settings(base, "search_docs-search_docs", [CORPUS], "docs")
    with Loader(settings) as loader, tempfile.TemporaryDirectory() as scratch:
        ensure_corpus_index(loader, "search_docs", [CORPUS], "docs", progress=True)
        store = loader.store("docs")
        gateway = Gateway.load(loader, only="search_docs")
        gateway.warm_up()
        arms = {
            "whole": gateway.variant("search_docs", whole_payload_pipeline(Path(scratch))),
            "ids": gateway.get("search_docs"),
        }
        components = {name: arm.pipeline.pipeline for name, arm in arms.items()}  # type: ignore[union-attr]
        embedder: Any = components["ids"].get_component("dense_embedder")
        sparse = components["ids"].get_component("sparse_embedder")
        texts = judged_texts()[: args.queries + 20]
        for text in texts[:20]:  # warm every path
            for arm in arms.values():
                arm.run({"query": f"{text} warm"})
        texts = texts[20:]
        times: dict[str, dict[str, list[float]]] = {
            name: {"store_stage": [], "engine": [], "embedding": [], "call": []} for name in arms
        }
        load_before = load_average()
        for number, text in enumerate(texts):
            vector = embedder.embedding_backend.embed_one(text)
            request = {
                "query_embedding": list(map(float, vector)),
                "query_sparse_embedding": sparse.run(text)["sparse_embedding"],
                "query": text,
            }
            order = list(arms) if number % 2 == 0 else list(reversed(arms))
            for name in order:
                pipeline, measured = components[name], times[name]
                retriever: Any = pipeline.get_component("retriever")
                fetcher: Any = pipeline.get_component("fetcher") if name == "ids" else None
                query = HybridQuery(
                    dense=request["query_embedding"],
                    sparse=request["query_sparse_embedding"],
                    limit=retriever.top_k,
                    prefetch_limit=retriever.prefetch_limit,
                    payload_fields=None if fetcher is None else (),
                )
                batch = qe.QueryBatchRequest([store._request(query, ranked, None) for ranked in plan(query)])  # type: ignore[attr-defined]

                def engine(batch: qe.QueryBatchRequest = batch, fetch: bool = fetcher is not None) -> None:
                    fused = store.shard.query_batch(batch)[0]  # type: ignore[attr-defined]
                    if fetch:
                        ids = [convert_id(point.payload["id"]) for point in fused[:KEPT]]
                        store.shard.retrieve(ids, with_payload=True, with_vector=False)  # type: ignore[attr-defined]

                def stage(retriever: Any = retriever, fetcher: Any = fetcher, request: Any = request) -> None:
                    kept = retriever.run(**request)["documents"][:KEPT]
                    if fetcher is not None:
                        fetcher.run(documents=kept)

                # Whichever of the two runs a query first finds its vectors and postings colder: they take turns.
                same_work: list[tuple[str, Callable[[], Any]]] = [("engine", engine), ("store_stage", stage)]
                for key, work in same_work if number % 2 == 0 else reversed(same_work):
                    measured[key].append(timed(work))
                suffixed = f"{text} {name}"  # a text this pipeline has not embedded yet
                measured["embedding"].append(timed(lambda t=suffixed: embedder.embedding_backend.embed_one(t)))  # type: ignore[misc]
                measured["call"].append(timed(lambda t=f"{suffixed} call", a=arms[name]: a.run({"query": t})))  # type: ignore[misc]
        result: dict[str, Any] = {"queries": len(texts), "kept": KEPT}
        for name, measured in times.items():
            overhead = [
                c - e - s
                for c, e, s in zip(measured["call"], measured["embedding"], measured["store_stage"], strict=True)
            ]
            serial = [c - e for c, e in zip(measured["call"], measured["embedding"], strict=True)]
            result[name] = {
                **{key: percentiles(values) for key, values in measured.items()},
                "gateway_overhead": percentiles(overhead),
                "serial_part": percentiles(serial),
                "store_stage_over_engine_p50": round(
                    statistics.median(measured["store_stage"]) / statistics.median(measured["engine"]), 2
                ),
            }
        load_between = load_average()
        spare = judged_texts()[args.queries + 20 :] or texts
        for name, arm in (("ids", arms["ids"]), ("whole", arms["whole"]), ("ids_again", arms["ids"])):
            batch_texts = [f"{t} {name} threads" for t in spare[:200]]
            result.setdefault("calls_per_second", {})[name] = throughput(arm.run, batch_texts, args.threads)
        gateway.writer.close()
    result["threads"] = args.threads
    result["load_average"] = {
        "before": load_before,
        "between": load_between,
        "after": load_average(),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
