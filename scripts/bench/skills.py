"""Recruiter search at scale: ingest rate and `search_by_skills` latency at --cvs CVs, and the embedding floor.

The corpus is the 220 real CVs (`../shared/data/resumes`) and, beyond them, CVs recombined from them by
`scripts.workload.cv_generator` (seed 7). Stages, each printed with the load average taken when it ran:

floor    On the 220 real CVs alone, side by side: a bare encode of exactly what their ingest embeds (each CV's
         350-word windows, with the name as the pipeline embeds it, and each distinct short phrase) with the same
         ONNX runtime and threads, and the whole ingest of them into an empty collection. Their ratio is how far
         the ingest is from the model's own pace on this machine.
ingest   The --cvs corpus into the `candidates` collection of --data, no vector kept from before (skipped when it
         already holds them):
         CVs/s and chunks/s (chunks and phrases are the points written).
reingest The --cvs corpus into an empty data dir with no vector kept, then into another: the second reads every
         vector back, as a re-ingest after an edit to configs/skills.yaml does (`first`, `again`, `speedup`).
calls    `search_by_skills` inside the gateway (argument checks, pipeline, formatter; REST adds its HTTP round
         trip) on that collection: one required skill per call, the judged set's request texts, each sent once,
         so no cache answers: `{calls, n, p50_ms, p95_ms, p99_ms, max_ms}` (`scripts.measure.percentiles`), and
         the engine's share of the same calls (`engine`, `engine_share_p50`: every read of the Qdrant Edge
         shard timed where the call makes it).

Prints one JSON document, one key per stage; wall times in seconds (`*_s`, `seconds`), rates per second,
memory in MB. Figures: docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.skills --cvs 10000` (the 10,000-CV ingest takes tens of minutes; its
data dir is kept under bench-out/ and reused).
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scripts import PROJECT
from scripts.measure import load_average, peak_rss_mb, percentiles

REAL = PROJECT.parent / "shared" / "data" / "resumes" / "resumes.jsonl"
QUERIES = PROJECT / "evaluation" / "search_by_skills" / "queries.jsonl"


def settings_for(data_dir: Path, models: Path | None = None) -> Any:
    """`models`: where the model's export and its kept vectors are (default: the project's `data/.models`)."""
    from haygate.settings import Settings

    models = models or PROJECT / "data" / ".models"
    return Settings(home=PROJECT, data_dir=data_dir, token=None, tier="public", model_cache_dir=models)


def corpus(count: int, folder: Path) -> Path:
    """The real CVs, then generated ones up to `count`, in one JSONL file (written once)."""
    path = folder / f"cvs-{count}.jsonl"
    if not path.exists():
        generated = folder / f"generated-{count}.jsonl"
        if count > 220:
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "scripts.workload.cv_generator",
                    "--count",
                    str(count - 220),
                    "--out",
                    str(generated),
                ],
                cwd=PROJECT,
                check=True,
                capture_output=True,
            )
        with path.open("w") as out:
            out.write(REAL.read_text())
            if count > 220:
                out.write(generated.read_text())
    return path


def ingest(data_dir: Path, source: Path, models: Path | None = None) -> dict[str, Any]:
    """`source` into the `candidates` collection of `data_dir`; `models`: see `settings_for` (a new folder: cold,
    no vector kept from an earlier ingest)."""
    from haygate.gateway.loader import Loader
    from haygate.ingest.indexer import ingest_files

    with Loader(settings_for(data_dir, models)) as loader:
        collection = loader.collection("candidates")
        collection.indexing.warm_up()
        before = load_average()
        started = time.perf_counter()
        report = ingest_files(collection, [source], progress=False, optimize=True)
        took = time.perf_counter() - started
        return {
            "records": report.records,
            "points": collection.store.count_documents(),
            "seconds": round(took, 1),
            "seconds_writing": round(report.seconds, 1),
            "cvs_per_s": round(report.records / report.seconds, 2),
            "points_per_s": round(report.chunks / report.seconds, 1),
            "peak_rss_mb": peak_rss_mb(),  # the process so far
            "load": {"before": before, "after": load_average()},
        }


def floor(scratch: Path) -> dict[str, Any]:
    """A bare encode of what the real CVs' ingest embeds, then that ingest, one after the other."""
    from haystack import Document
    from haystack.components.preprocessors import DocumentSplitter

    from components.cv_profile import PHRASE_WORDS, phrases
    from haygate.components.embedding_backends import load_backend

    records = [json.loads(line) for line in REAL.read_text().splitlines() if line.strip()]
    splitter = DocumentSplitter(split_by="word", split_length=350, split_overlap=40)
    chunks = splitter.run(documents=[Document(content=r["text"], meta={"name": r["name"]}) for r in records])[
        "documents"
    ]
    windows = [f"{c.meta['name']}\n{c.content}" for c in chunks]  # meta_fields_to_embed: [name]
    unique_phrases = list(dict.fromkeys(p for r in records for p in phrases(r["text"], PHRASE_WORDS)))
    backend = load_backend("sentence-transformers/all-MiniLM-L6-v2", "onnx", PROJECT / "data" / ".models", max_batch=32)
    backend.embed(windows[:32])  # the session is warm before either is timed
    before = load_average()
    started = time.perf_counter()
    backend.embed(windows, batch_size=32)
    backend.embed(unique_phrases, batch_size=32)
    bare = time.perf_counter() - started
    whole = ingest(scratch / "floor-data", REAL, scratch / "models")  # no vector kept from before
    return {
        "cvs": len(records),
        "windows": len(windows),
        "distinct_phrases": len(unique_phrases),
        "bare_encode_s": round(bare, 1),
        "bare_load": {"before": before, "after": load_average()},
        "ingest_s": whole["seconds_writing"],
        "ingest_over_floor": round(whole["seconds_writing"] / bare, 2),
        "floor_cvs_per_s": round(len(records) / bare, 2),
        "ingest": whole,
    }


def reingest(source: Path, scratch: Path) -> dict[str, Any]:
    """`source` ingested into an empty data dir with no vector kept, then into another empty one: the second reads
    every vector back (`haygate.components.kept_vectors`), as a re-ingest after a vocabulary edit does."""
    first = ingest(scratch / "first", source, scratch / "models")
    again = ingest(scratch / "again", source, scratch / "models")
    return {"first": first, "again": again, "speedup": round(first["seconds_writing"] / again["seconds_writing"], 2)}


def calls(data_dir: Path, limit: int) -> dict[str, Any]:
    from haygate.gateway.loader import Loader
    from haygate.gateway.runtime import Gateway

    texts = list(dict.fromkeys(json.loads(line)["text"] for line in QUERIES.read_text().splitlines() if line.strip()))
    with Loader(settings_for(data_dir)) as loader:
        gateway = Gateway.load(loader, only="search_by_skills")
        gateway.warm_up(optimize=False)
        tool = gateway.get("search_by_skills")
        for warm in ("Python", "Java", "SQL"):
            tool.run({"required_skills": [warm], "top_k": 10})
        store: Any = loader.store("candidates")
        open_shard = store._pool[store.path]
        engine = TimedShard(open_shard.shard)
        open_shard.shard = engine  # every engine call of a search, timed where it is made
        before = load_average()
        times, engine_times = [], []
        try:
            for text in texts[:limit]:
                engine.seconds = 0.0
                started = time.perf_counter()
                tool.run({"required_skills": [text], "top_k": 10})
                times.append(time.perf_counter() - started)
                engine_times.append(engine.seconds)
        finally:
            open_shard.shard = engine.shard
        gateway.writer.close()
    return {
        "calls": len(times),
        **percentiles(times),
        "engine": percentiles(engine_times),
        "engine_share_p50": round(statistics.median(e / t for e, t in zip(engine_times, times, strict=True)), 3),
        "load": {"before": before, "after": load_average()},
    }


class TimedShard:
    """The Qdrant Edge shard, its reads timed: the engine's own share of a call, inside the call itself."""

    TIMED = frozenset(["query", "query_batch", "scroll", "retrieve", "count", "facet", "search"])

    def __init__(self, shard: Any) -> None:
        self.shard = shard
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.shard, name)
        if name not in self.TIMED:
            return found

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return found(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started

        return timed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cvs", type=int, default=10_000, help="CVs in the collection the calls search")
    parser.add_argument("--data", type=Path, default=None, help="data dir (default: bench-out/skills/data-<cvs>)")
    parser.add_argument(
        "--stages", nargs="*", default=["floor", "ingest", "calls"], choices=["floor", "ingest", "reingest", "calls"]
    )
    parser.add_argument("--queries", type=int, default=200, help="request texts timed (default: 200)")
    args = parser.parse_args()
    if not REAL.exists():
        raise SystemExit(f"no real CVs at {REAL}: this benchmark needs ../shared")
    folder = PROJECT / "bench-out" / "skills"
    folder.mkdir(parents=True, exist_ok=True)
    data_dir = args.data or folder / f"data-{args.cvs}"
    result: dict[str, Any] = {"cvs": args.cvs, "data_dir": str(data_dir)}
    if "floor" in args.stages:
        with tempfile.TemporaryDirectory(prefix="haygate-skills-") as scratch:
            result["floor"] = floor(Path(scratch))
    if "ingest" in args.stages:
        source = corpus(args.cvs, folder)
        marker = data_dir / "ingested.json"
        if marker.exists():
            result["ingest"] = json.loads(marker.read_text())
        else:
            with tempfile.TemporaryDirectory(prefix="haygate-models-") as models:
                result["ingest"] = ingest(data_dir, source, Path(models))  # cold: no vector kept
            marker.write_text(json.dumps(result["ingest"]))
    if "reingest" in args.stages:
        with tempfile.TemporaryDirectory(prefix="haygate-skills-") as scratch:
            result["reingest"] = reingest(corpus(args.cvs, folder), Path(scratch))
    if "calls" in args.stages:
        result["calls"] = calls(data_dir, args.queries)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
