"""What calls see while a server builds a collection's indexes: the slowest tool call and `/health` in the build.

Writes --sections documentation sections (random unit vectors, as an ingest that did not wait leaves them:
durable, searchable, indexes not built) into the `docs` collection of a fresh `haygate init` project, then
starts `haygate serve --http` on it, which builds the indexes once it is up. From the first `ready` until the
shard's manifest says it is built, one client makes `search_docs` calls one after another (a distinct text
each time) and another checks `GET /health` every 50 ms, each timed. Prints JSON: the build's wall time
(`build_s_after_ready`), the calls' and health checks' `{count, n, p50_ms, p95_ms, p99_ms, max_ms}`
(`scripts.measure.percentiles`), and the load average before and after. Figures: docs/results/benchmarks.md.

With `--copy DATA_DIR --collection candidates`, the points of that collection in an ingested data dir (say
the 10,000 CVs of `scripts.bench.skills`) are copied, vectors and all, into the fresh project in place of
the sections, and the calls are `search_by_skills` ones: a recruiter's base just ingested without --wait.

It drives the server only over HTTP and the data only through the store, so the same script measures any
version of haygate (the figures before and after a change are two runs of it, one per checkout).
Run: `.venv/bin/python -m scripts.bench.build --sections 60000`, or
`.venv/bin/python -m scripts.bench.build --copy bench-out/skills/data-10000 --collection candidates`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from haystack import Document

from haygate.gateway.loader import Loader
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import free_port, load_average, percentiles, served

BATCH = 2000


def write_sections(settings: Settings, count: int) -> float:
    """`count` sections with random vectors, written as an ingest without --wait leaves them; seconds taken."""
    rng = np.random.default_rng(11)
    started = time.perf_counter()
    with Loader(settings) as loader:
        store = loader.store("docs")
        for first in range(0, count, BATCH):
            size = min(BATCH, count - first)
            vectors = rng.standard_normal((size, 384)).astype(np.float32)
            vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
            store.write_documents(
                [
                    Document(
                        id=f"synthetic:{first + i}",
                        content=f"Section {first + i} on pipelines, retrievers and document stores.",
                        meta={"title": f"Section {first + i}", "version": "3.0", "source_name": "synthetic"},
                        embedding=vectors[i].tolist(),
                    )
                    for i in range(size)
                ]
            )
        assert store.needs_optimizing()
    return time.perf_counter() - started


def copy_collection(settings: Settings, source: Path, name: str) -> tuple[int, float]:
    """Every point of collection `name` in data dir `source`, written into the same collection of `settings`
    as an ingest without --wait leaves it: (points, seconds taken)."""
    started = time.perf_counter()
    origin = Settings(home=settings.home, data_dir=source, token=None, tier="public")
    with Loader(origin) as reading:
        documents = reading.store(name).filter_documents()
    with Loader(settings) as loader:
        store = loader.store(name)
        for first in range(0, len(documents), BATCH):
            store.write_documents(documents[first : first + BATCH])
        assert store.needs_optimizing()
    return len(documents), time.perf_counter() - started


SKILLS = ["Python", "Java", "SQL", "container orchestration", "Machine Learning", "AWS", "React", "data analysis"]
CALLS = {  # the tool called during the build, per collection copied, and its n-th call's arguments
    "docs": ("search_docs", lambda n: {"query": f"retrievers and stores {n}"}),
    "candidates": ("search_by_skills", lambda n: {"required_skills": [SKILLS[n % len(SKILLS)]], "top_k": 10}),
}


def check_health(url: str, building: threading.Event, times: list[float], timeout: float) -> None:
    """`GET /health` every 50 ms from a client of its own, while the build lasts: what a load balancer sees."""
    with httpx.Client(base_url=url, timeout=timeout) as http:
        while building.is_set():
            asked = time.perf_counter()
            http.get("/health").raise_for_status()
            times.append(time.perf_counter() - asked)
            time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=60_000, help="sections written before the server starts")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds to wait for the build")
    parser.add_argument("--copy", type=Path, default=None, help="a data dir whose collection is copied in")
    parser.add_argument("--collection", default="docs", choices=sorted(CALLS), help="the collection copied")
    args = parser.parse_args()
    tool, arguments = CALLS[args.collection]
    haygate = str(Path(sys.executable).with_name("haygate"))
    with tempfile.TemporaryDirectory(prefix="haygate-build-") as scratch:
        home = Path(scratch) / "project"
        models = None
        if args.collection == "docs":
            subprocess.run([haygate, "init", str(home)], check=True, capture_output=True)
        else:  # this project's declarations (the CV collection, its tool and components), none of its data
            for part in ("configs", "pipelines", "components"):
                shutil.copytree(PROJECT / part, home / part, ignore=shutil.ignore_patterns("__pycache__"))
            models = PROJECT / "data" / ".models"  # the model's ONNX export, made once
        settings = Settings(home=home, data_dir=home / "data", token=None, tier="public", model_cache_dir=models)
        if args.copy is not None:
            points, written = copy_collection(settings, args.copy.resolve(), args.collection)
        else:
            points, written = args.sections, write_sections(settings, args.sections)
        watcher = Loader(settings).store(args.collection)  # reads the manifest only: the server holds the shard
        port = free_port()
        env = {**os.environ, "HAYGATE_HOME": str(home), "HAYGATE_DATA_DIR": str(home / "data")}
        env["HAYGATE_PORT"] = str(port)
        if models is not None:
            env["HAYGATE_MODEL_CACHE_DIR"] = str(models)
        load_before = load_average()
        calls: list[float] = []
        health: list[float] = []
        log = Path(scratch) / "serve.log"
        with (
            served([haygate, "serve", "--http"], port=port, env=env, log=log, timeout=120) as server,
            httpx.Client(base_url=server.url, timeout=args.timeout) as http,
        ):
            ready = time.perf_counter()
            building = threading.Event()
            building.set()
            checker = threading.Thread(target=check_health, args=(server.url, building, health, args.timeout))
            checker.start()
            deadline = time.monotonic() + args.timeout
            try:
                while watcher.needs_optimizing() and time.monotonic() < deadline:
                    asked = time.perf_counter()
                    http.post(f"/api/tools/{tool}", json=arguments(len(calls))).raise_for_status()
                    calls.append(time.perf_counter() - asked)
            finally:
                building.clear()
                checker.join()
            built = time.perf_counter() - ready
    result: dict[str, Any] = {
        "collection": args.collection,
        "points": points,
        "write_s": round(written, 1),
        "build_s_after_ready": round(built, 1),
        "calls": {"count": len(calls), **percentiles(calls)},
        "health": {"count": len(health), **percentiles(health)},
        "load_average": {"before": load_before, "after": load_average()},
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
