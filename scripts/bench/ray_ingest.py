"""What embedding on Ray costs and gives: `haygate ingest docs` of the same corpus, locally and with `--ray` on a
Ray cluster of this machine (`scripts.ray_cluster`: `ray start` nodes of one CPU each), into fresh data dirs.

- `local_all_cores`: a local ingest, the model on every core (what `haygate ingest` does);
- `local_one_core`: the same, the whole process held to one core (`taskset -c 0`);
- `ray_1_node`, `ray_2_nodes`: `--ray` on a cluster of one and of two one-CPU nodes, one actor each;
- `embedding_alone`: Ray's own cost, the same chunks embedded in this process on one thread and by one actor
  of a one-CPU node (tasks, transfers, the pool), alternating.

Every run sizes its batches as on a terminal (`--progress`: about 2 s each), so a Ray ingest has many batches
and keeps two going (one embedding, the other's local work). Each figure is the ingest report's chunks/s,
which leaves out the model's load (an actor's start included); `wall_s` is the whole command. From the two-node
run: the rate per actor, and this process's own time per chunk (reading, splitting, BM25, writing: the time
it held its local lock, as it logs), which caps what one ingest process can feed. `projection` scales both to
100 and 1,000 cores: a projection from measured rates, not a measurement. Runs alternate configurations for
`--rounds` rounds; medians are printed, with the load average beside each run. Prints JSON. Figures:
docs/results/benchmarks.md.
Run: `.venv/bin/python -m scripts.bench.ray_ingest --sections 400 --rounds 2`.
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import os

os.environ.setdefault("HAYGATE_KEEP_VECTORS", "0")  # timed ingests embed every text, as a first one does

# isort: split
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from scripts import PROJECT
from scripts.measure import load_average
from scripts.ray_cluster import ENV, local_cluster

CORPUS = PROJECT.parent / "shared" / "data" / "haystack-docs" / "sections.jsonl"
REPORTED = re.compile(r"(\d[\d,]*) chunks written \(([\d.]+) chunks/s\)")
ON_RAY = re.compile(r"Ray embedded (\d+) documents in ([\d.]+) s on (\d+) actor")
LOCAL_SHARE = re.compile(r"ingest worked ([\d.]+) s of ([\d.]+) s here")
PROJECTED_CORES = (100, 1000)


def ingest(source: Path, scratch: Path, *extra: str, prefix: list[str] | None = None) -> dict[str, Any]:
    """One `haygate ingest docs` into a fresh data dir; its report's figures."""
    data_dir = Path(tempfile.mkdtemp(dir=scratch))
    env = {**os.environ, **ENV, "HAYGATE_HOME": str(PROJECT), "HAYGATE_DATA_DIR": str(data_dir)}
    command = [*(prefix or []), sys.executable, "-m", "haygate.cli", "ingest", "docs", str(source), "--progress"]
    started = time.perf_counter()
    done = subprocess.run([*command, *extra], env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - started
    found = REPORTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    chunks, rate = int(found.group(1).replace(",", "")), float(found.group(2))
    run: dict[str, Any] = {"chunks": chunks, "chunks_per_s": rate, "wall_s": round(wall, 1), "load": load_average()}
    run["data_dir"] = str(data_dir)
    if on_ray := ON_RAY.search(done.stderr):
        run["embed_wait_s"] = float(on_ray.group(2))
        run["actors"] = int(on_ray.group(3))
    if local := LOCAL_SHARE.search(done.stderr):
        run["own_s"], run["overlapped_wall_s"] = float(local.group(1)), float(local.group(2))
        run["own_s_per_chunk"] = round(run["own_s"] / chunks, 5)
    return run


def embedding_overhead(data_dir: Path, rounds: int) -> dict[str, Any]:
    """Ray's own cost, alone: the chunks of an ingest embedded by the collection's embedder in this process on one
    thread, against one actor of a one-CPU node embedding the same documents (tasks, transfers, the pool),
    alternating; seconds and their ratio."""
    from haystack import Document
    from haystack.core.serialization import component_to_dict

    from haygate.components.embedding_backends import place_runtime
    from haygate.document_stores.payload import PASSAGE_EMBEDDINGS
    from haygate.gateway.loader import Loader
    from haygate.ingest.cluster import ActorPool, RayOptions
    from haygate.settings import Settings

    place_runtime(threads=1)  # before this process loads its model: one thread, as the actor has
    with Loader(Settings(home=PROJECT, data_dir=data_dir)) as loader:
        stored = loader.store("docs").filter_documents(None)
        embedder: Any = loader.collection("docs").indexing.get_component("dense_embedder")
    documents = [
        Document(id=d.id, content=d.content, meta={k: v for k, v in d.meta.items() if k != PASSAGE_EMBEDDINGS})
        for d in stored
    ]
    embedder.warm_up()
    local, on_ray = [], []
    with local_cluster(nodes=1, cpus_per_node=1) as cluster:
        os.environ.update(ENV)
        pool = ActorPool(component_to_dict(embedder, "dense_embedder"), RayOptions(cluster.address, actors=1))
        pool.start()
        for _ in range(rounds):
            started = time.perf_counter()
            embedder.run(documents=documents)
            local.append(time.perf_counter() - started)
            started = time.perf_counter()
            pool.embed(documents)
            on_ray.append(time.perf_counter() - started)
        pool.close()
        import ray

        ray.shutdown()
    return {
        "documents": len(documents),
        "local_one_thread_s": round(statistics.median(local), 2),
        "one_actor_s": round(statistics.median(on_ray), 2),
        "ray_over_local": round(statistics.median(on_ray) / statistics.median(local), 3),
        "load": load_average(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=400, help="haystack-docs sections ingested (../shared)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of every configuration, alternated")
    args = parser.parse_args()
    if not CORPUS.exists():
        raise SystemExit(f"no haystack-docs sections at {CORPUS}: this benchmark needs ../shared")
    runs: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory(prefix="haygate-ray-bench-") as folder:
        scratch = Path(folder)
        source = scratch / "sections.jsonl"
        with CORPUS.open() as lines, source.open("w") as out:
            for _, line in zip(range(args.sections), lines, strict=False):
                out.write(line)
        for _ in range(args.rounds):
            runs.setdefault("local_all_cores", []).append(ingest(source, scratch))
            runs.setdefault("local_one_core", []).append(ingest(source, scratch, prefix=["taskset", "-c", "0"]))
            for nodes in (1, 2):
                with local_cluster(nodes=nodes, cpus_per_node=1) as cluster:
                    name = f"ray_{nodes}_node{'s' if nodes > 1 else ''}"
                    runs.setdefault(name, []).append(ingest(source, scratch, "--ray", cluster.address))
        overhead = embedding_overhead(Path(runs["local_all_cores"][0]["data_dir"]), args.rounds)
    medians = {name: statistics.median(r["chunks_per_s"] for r in taken) for name, taken in runs.items()}
    # the one-node run gives each role a core of its own (the actor its node's, this process the other), as a
    # real cluster does: the two-node run has three busy processes on two cores
    per_actor = medians["ray_1_node"]
    own = statistics.median(r["own_s_per_chunk"] for r in runs["ray_1_node"])
    ceiling = 1 / own if own > 0 else math.inf
    result = {
        "corpus": f"haystack-docs:{args.sections}",
        "cores": os.cpu_count(),
        "runs": runs,
        "median_chunks_per_s": medians,
        "ray_2_nodes_vs_local_all_cores": round(medians["ray_2_nodes"] / medians["local_all_cores"], 3),
        "ray_1_node_vs_local_one_core": round(medians["ray_1_node"] / medians["local_one_core"], 3),
        "embedding_alone": overhead,
        "projection": {
            "note": "a projection from the one-node run's rates (one CPU per actor), not a measurement",
            "chunks_per_s_per_actor": round(per_actor, 1),
            "one_process_ceiling_chunks_per_s": round(ceiling, 1),
            **{
                f"{cores}_cores": {
                    "actors_chunks_per_s": round(cores * per_actor),
                    "ingest_processes_to_feed_them": math.ceil(cores * per_actor / ceiling),
                }
                for cores in PROJECTED_CORES
            },
        },
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
