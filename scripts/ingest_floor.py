"""How far an ingest is from the model's own pace: the ingest of --sections haystack-docs sections against a
bare encode of exactly the texts it embedded, with the same ONNX runtime, threads and batch size.

The ingest runs first, into the `docs` collection of an empty data dir (models warmed up beforehand, so
neither figure holds a model load); then the chunks it wrote are read back and each is encoded as the
indexing pipeline's embedder builds its text (the title, a newline, the content). Prints JSON: both wall
times, their ratio, texts/s, the ingest's peak RSS, and the load average beside each.
Run: `.venv/bin/python scripts/ingest_floor.py --sections 1000`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from haygate.components.embedding_backends import load_backend
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import ingest_files
from haygate.settings import Settings

PROJECT = Path(__file__).resolve().parents[1]
CORPUS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
MODEL = "sentence-transformers/all-MiniLM-L6-v2"


def load() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=1000, help="haystack-docs sections ingested")
    args = parser.parse_args()
    if not CORPUS.exists():
        raise SystemExit(f"no haystack-docs sections at {CORPUS}: this benchmark needs ../shared")
    result: dict[str, Any] = {"sections": args.sections}
    with tempfile.TemporaryDirectory(prefix="haygate-floor-") as scratch:
        source = Path(scratch) / "sections.jsonl"
        with CORPUS.open() as lines, source.open("w") as out:
            for number, line in enumerate(lines):
                if number == args.sections:
                    break
                out.write(line)
        settings = Settings(
            home=PROJECT,
            data_dir=Path(scratch) / "data",
            token=None,
            tier="public",
            model_cache_dir=PROJECT / "data" / ".models",
        )
        with Loader(settings) as loader:
            collection = loader.collection("docs")
            collection.indexing.warm_up()
            before = load()
            report = ingest_files(collection, [source], progress=False, optimize=False)
            result["ingest"] = {
                "seconds": round(report.seconds, 1),
                "chunks": report.chunks,
                "chunks_per_s": round(report.chunks / report.seconds, 1),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "load": {"before": before, "after": load()},
            }
            stored = collection.store.meta_by_filter(None)
        texts = ["\n".join([*([str(d.meta["title"])] if d.meta.get("title") else []), d.content or ""]) for d in stored]
        backend = load_backend(MODEL, "onnx", PROJECT / "data" / ".models", max_batch=32)
        backend.embed(texts[:32])
        before = load()
        started = time.perf_counter()
        backend.embed(texts, batch_size=32)
        bare = time.perf_counter() - started
        result["bare_encode"] = {
            "seconds": round(bare, 1),
            "texts": len(texts),
            "texts_per_s": round(len(texts) / bare, 1),
            "load": {"before": before, "after": load()},
        }
        result["ingest_over_floor"] = round(report.seconds / bare, 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
