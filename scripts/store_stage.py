"""Where a `search_docs` store call's time goes, on the index of the haystack-docs sections: the whole
`hybrid_search` against the engine's own `query_batch` of the same plan, with the fused list's payloads read
for all 50 candidates, for the 10 a call returns, and for none (ids and scores only).

The index is the one `haygate eval --judged evaluation/search_docs` builds (built here when absent: minutes).
Query vectors are computed up front, so only the store is timed; each query text is used once. Prints JSON:
the p50 of each, in ms, with the load average. Run: `.venv/bin/python scripts/store_stage.py`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import dataclasses
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from query_texts import judged_texts

from haygate.components.bm25_sparse_text_embedder import Bm25SparseTextEmbedder
from haygate.components.embedding_backends import load_backend
from haygate.document_stores.hybrid import HybridQuery, plan
from haygate.evaluation.runner import ensure_corpus_index, store_settings
from haygate.gateway.loader import Loader
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parents[1]
CORPUS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300, help="distinct query texts (default: 300)")
    args = parser.parse_args()
    base = Settings(home=PROJECT, data_dir=PROJECT / "data", token=None, tier="public")
    settings = store_settings(base, "search_docs-search_docs", [CORPUS], "docs")
    with Loader(settings) as loader:
        ensure_corpus_index(loader, "search_docs", [CORPUS], "docs", progress=True)
        store = loader.store("docs")
        backend = load_backend(MODEL, "onnx", settings.models_dir, max_batch=32)
        sparse = Bm25SparseTextEmbedder()
        words = judged_texts()[: args.queries]
        queries = [
            HybridQuery(dense=list(map(float, vector)), sparse=sparse.run(text)["sparse_embedding"], limit=50)
            for text, vector in zip(words, backend.embed(words), strict=True)
        ]
        warm, measured = queries[:20], queries[20:]
        for query in warm:
            store.hybrid_search(query)
        times: dict[str, list[float]] = {"hybrid_search": [], "payloads_50": [], "payloads_10": [], "ids_only": []}
        load_before = os.getloadavg()
        for query in measured:
            requests = plan(query)
            fused, alone = requests[0], requests[1:]
            times["hybrid_search"].append(timed(lambda q=query: store.hybrid_search(q)))  # type: ignore[misc]
            for name, first in (
                ("payloads_50", fused),
                ("payloads_10", dataclasses.replace(fused, limit=10)),
                ("ids_only", dataclasses.replace(fused, with_payload=False)),
            ):
                batch = [first, *alone]
                times[name].append(timed(lambda q=query, b=batch: store._query_batch(q, b)))  # type: ignore[misc]
    print(
        json.dumps(
            {
                "queries": len(measured),
                "p50_ms": {name: round(statistics.median(values), 2) for name, values in times.items()},
                "load_average": {
                    "before": [round(x, 2) for x in load_before],
                    "after": [round(x, 2) for x in os.getloadavg()],
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
