"""How fast this machine is right now, against the speed the test budgets were set at.

The same commit's suite takes 450 s one day and 620 s another on the same kind of machine: the host's cores are
shared, and a bare model forward can take 1.8x as long as two days before. So every budget in
`tests/support/budgets.py` is multiplied by the ratio this probe measures at the start of a run: a slow hour
fails nothing, and a test that got slower on its own still fails.

The probe is a fixed piece of the work the suite does, timed in one process per test worker at once (the
workers share the cores, and so does anything else running):

- `model`: ONNX Runtime forwards of the packaged all-MiniLM-L6-v2 export on one thread, tokenizer included;
- `store`: Qdrant Edge queries on a small shard (hybrid dense + sparse fused with RRF under a keyword filter,
  and BM25 over a text index);
- `python`: interpreter work (records built, serialised to JSON and back, counted and sorted).

Each part's median over `ROUNDS` interleaved rounds is divided by the same part's figure in
`speed-reference.json`; the ratio is their geometric mean, clipped to `LIMITS`. `HAYGATE_SPEED_RATIO=R` skips
the probe and uses R (to see what a budget would do at another speed).

Re-take the reference on a quiet machine of CI's kind, after any change to the work below (a test compares
its fingerprint): `make speed-reference`.
"""

import argparse
import hashlib
import inspect
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

REFERENCE = Path(__file__).with_name("speed-reference.json")
OVERRIDE = "HAYGATE_SPEED_RATIO"
LIMITS = (0.5, 3.0)  # a ratio outside these says more about the probe than the machine
ROUNDS = 15  # interleaved rounds of the three parts; each part's median is its figure
PARTS = ("model", "store", "python")
PACKAGES = ("onnxruntime", "tokenizers", "qdrant-edge-py", "numpy")  # whose speed the probe's figures hold
REFERENCE_RUNS = 5  # probes a reference is the median of

# The work itself. Any change to these numbers or to the functions below changes the fingerprint.
WORK = {
    "model": {"texts": 6, "threads": 1},
    "store": {"points": 2000, "dimension": 384, "words": 40, "queries": 60, "prefetch": 50, "limit": 10},
    "python": {"records": 5000},
}
PREFIXES = ("re", "con", "pro", "de", "in", "ex", "com", "dis")
STEM_TEXT = "trieval text vector index ranker query filter search token shard model field score fusion section record"
STEMS = [*STEM_TEXT.split(), "embed", "store", "judge", "gateway"]
VOCABULARY = [prefix + stem for prefix in PREFIXES for stem in STEMS]


@dataclass(frozen=True)
class Speed:
    """One run's measurement: the ratio every budget is multiplied by, and what it came from."""

    ratio: float
    parts: dict[str, float]  # part -> measured / reference
    copies: int  # processes that ran the probe side by side
    seconds: float  # the probe's wall time, start-up included
    source: str  # "probe", or the variable that set the ratio
    stale: str = ""  # why the reference does not describe this probe's work, when it does not

    def describe(self) -> str:
        if self.source != "probe":
            return f"speed ratio {self.ratio:.2f} (set by {self.source}; no probe ran)"
        parts = ", ".join(f"{name} {value:.2f}" for name, value in self.parts.items())
        text = (
            f"speed ratio {self.ratio:.2f} of the reference ({parts}; {self.copies} "
            f"{'copy' if self.copies == 1 else 'copies'} side by side, {self.seconds:.1f} s)"
        )
        return text + (f"; STALE REFERENCE: {self.stale}" if self.stale else "")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Speed":
        return cls(**data)


# -- the work --------------------------------------------------------------------------------------------------


def model_work(folder: Path) -> Callable[[], None]:
    """One forward of `texts` sentences of mixed length through the exported model, tokenizer included."""
    import numpy as np
    import onnxruntime as ort
    from tokenizers import Tokenizer

    spec = WORK["model"]
    manifest = json.loads((folder / "haygate-onnx.json").read_text())
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.enable_truncation(int(manifest["max_seq_length"]))
    tokenizer.enable_padding(pad_id=int(manifest["pad_id"]), pad_token=str(manifest["pad_token"]))
    options = ort.SessionOptions()
    options.intra_op_num_threads = spec["threads"]
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
    texts = [
        " ".join(VOCABULARY[(i * 7 + j) % len(VOCABULARY)] for j in range(3 + 2 * i)) for i in range(spec["texts"])
    ]

    def forward() -> None:
        encodings = tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        tokens = session.run(None, {name: feeds[name] for name in manifest["inputs"]})[0]
        (tokens * mask[..., None]).sum(axis=1)

    return forward


@contextmanager
def store_work(folder: Path) -> Iterator[Callable[[], None]]:
    """A shard of `points` seeded documents, and `queries` hybrid and BM25 queries over it."""
    import numpy as np
    import qdrant_edge as qe

    spec = WORK["store"]
    random = np.random.default_rng(7)
    bm25 = qe.Bm25(qe.Bm25Config(language="english"))
    config = qe.EdgeConfig(
        vectors={"dense": qe.EdgeVectorParams(size=spec["dimension"], distance=qe.Distance.Cosine)},
        sparse_vectors={"sparse": qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
    )
    shard = qe.EdgeShard.create(str(folder), config)
    shard.update(qe.UpdateOperation.create_field_index("group", qe.PayloadSchemaType.Keyword))
    shard.update(
        qe.UpdateOperation.create_field_index(
            "text",
            qe.TextIndexParams(
                tokenizer=qe.TokenizerType.Word,
                lowercase=True,
                stemmer=qe.SnowballParams(qe.SnowballLanguage.English),
                scoring=True,
            ),
        )
    )
    vectors = random.standard_normal((spec["points"], spec["dimension"])).astype(np.float32)
    words = random.integers(0, len(VOCABULARY), (spec["points"], spec["words"]))
    points = []
    for i in range(spec["points"]):
        text = " ".join(VOCABULARY[w] for w in words[i])
        vector = {"dense": vectors[i].tolist(), "sparse": bm25.embed_document(text)}
        points.append(qe.Point(i, vector, {"group": f"g{i % 5}", "text": text}))
    shard.update(qe.UpdateOperation.upsert_points(points))
    queries = [
        (random.standard_normal(spec["dimension"]).tolist(), " ".join(VOCABULARY[w] for w in words[q][:3]))
        for q in range(spec["queries"])
    ]

    def search() -> None:
        for number, (dense, text) in enumerate(queries):
            keyword = qe.Filter(must=[qe.FieldCondition("group", match=qe.MatchValue(f"g{number % 5}"))])
            prefetches = [
                qe.Prefetch(limit=spec["prefetch"], query=qe.Query.Nearest(dense, using="dense"), filter=keyword),
                qe.Prefetch(
                    limit=spec["prefetch"],
                    query=qe.Query.Nearest(bm25.embed_query(text), using="sparse"),
                    filter=keyword,
                ),
            ]
            shard.query(
                qe.QueryRequest(
                    limit=spec["limit"], prefetches=prefetches, query=qe.Fusion.Rrf(k=60), with_payload=True
                )
            )
            shard.query(qe.QueryRequest(limit=spec["limit"], query=qe.TextQuery("text", text), with_payload=False))

    try:
        yield search
    finally:
        shard.close()


def python_work() -> Callable[[], None]:
    """Records built, serialised to JSON and back, their words counted and the records sorted."""
    count = WORK["python"]["records"]

    def shuffle() -> None:
        records = [
            {
                "id": f"doc-{i}",
                "title": VOCABULARY[i % len(VOCABULARY)],
                "score": (i * 37 % 101) / 7,
                "tags": [i % 3, i % 5],
            }
            for i in range(count)
        ]
        back = json.loads(json.dumps(records))
        counts = Counter(word for record in back for word in record["title"].split("e"))
        back.sort(key=lambda record: (-record["score"], record["id"]))
        assert counts and back[0]["score"] >= back[-1]["score"]

    return shuffle


def fingerprint() -> str:
    """What the reference's figures hold for: the work, its code, the runtimes' versions and the Python."""
    hashed = hashlib.sha256(json.dumps([WORK, VOCABULARY, ROUNDS], sort_keys=True).encode())
    for function in (model_work, store_work, python_work, probe_once):
        hashed.update(inspect.getsource(function).encode())
    for package in PACKAGES:
        hashed.update(f"{package}=={metadata.version(package)}".encode())
    hashed.update(platform.python_version_tuple()[0].encode() + platform.python_version_tuple()[1].encode())
    return hashed.hexdigest()[:16]


# -- one copy of the probe ------------------------------------------------------------------------------------


def probe_once(model_folder: Path, ready: Callable[[], None]) -> dict[str, float]:
    """Each part's median seconds over `ROUNDS` rounds, the parts interleaved so a passing hiccup touches all
    alike. `ready()` is called once the set-up (untimed) is done: the copies start their timed work together."""
    with tempfile.TemporaryDirectory(prefix="haygate-speed-") as scratch, store_work(Path(scratch) / "shard") as store:
        work = {"model": model_work(model_folder), "store": store, "python": python_work()}
        for run in work.values():  # first calls warm caches and lazy paths
            run()
        ready()
        times: dict[str, list[float]] = {name: [] for name in PARTS}
        for _ in range(ROUNDS):
            for name in PARTS:
                started = time.perf_counter()
                work[name]()
                times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) for name, values in times.items()}


def _child(model_folder: Path) -> None:
    """A copy run by `measure`: says `ready` once set up, waits for `go`, prints its figures as JSON."""

    def ready() -> None:
        print("ready", flush=True)
        sys.stdin.readline()

    print(json.dumps(probe_once(model_folder, ready)), flush=True)


@contextmanager
def _copies(count: int, model_folder: Path) -> Iterator[list[subprocess.Popen[str]]]:
    command = [sys.executable, "-m", "tests.support.speed", "--child", str(model_folder)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH", "")]),
    }
    processes = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
        for _ in range(count)
    ]
    try:
        yield processes
    finally:
        for process in processes:
            process.kill()
            process.wait()


def run_copies(count: int, model_folder: Path) -> list[dict[str, float]]:
    """`count` copies of the probe in processes of their own, their timed work started together."""
    with _copies(count, model_folder) as processes:
        for process in processes:
            assert process.stdout is not None
            if process.stdout.readline().strip() != "ready":
                msg = "the speed probe's process stopped before it was ready (see its error above)"
                raise RuntimeError(msg)
        for process in processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        results = []
        for process in processes:
            assert process.stdout is not None
            results.append(json.loads(process.stdout.readline()))
    return results


def exported_model(cache_dir: Path) -> Path:
    """The packaged model's ONNX export in `cache_dir`, made there first if it is not yet (about a second)."""
    from haygate.components.embedding_backends import onnx_export
    from haygate.components.models import model_folder
    from tests.support.project import EMBEDDING_MODEL

    return onnx_export(model_folder(EMBEDDING_MODEL), cache_dir, EMBEDDING_MODEL)


# -- the ratio ------------------------------------------------------------------------------------------------


def read_reference() -> dict[str, Any]:
    return dict(json.loads(REFERENCE.read_text()))


def ratio_of(measured: list[dict[str, float]], reference: dict[str, Any]) -> tuple[float, dict[str, float]]:
    """Each part's mean over the copies against the reference; their geometric mean, clipped to `LIMITS`."""
    parts = {
        name: statistics.fmean(copy[name] for copy in measured) / float(reference["seconds"][name]) for name in PARTS
    }
    combined = math.exp(statistics.fmean(math.log(value) for value in parts.values()))
    return min(max(combined, LIMITS[0]), LIMITS[1]), {name: round(value, 3) for name, value in parts.items()}


def measure(copies: int, cache_dir: Path) -> Speed:
    """This run's speed: `HAYGATE_SPEED_RATIO` when set, else the probe's, in `copies` processes at once."""
    if os.environ.get(OVERRIDE):
        value = float(os.environ[OVERRIDE])
        return Speed(value, {}, 0, 0.0, OVERRIDE)
    started = time.perf_counter()
    reference = read_reference()
    measured = run_copies(copies, exported_model(cache_dir))
    ratio, parts = ratio_of(measured, reference)
    stale = ""
    if reference.get("fingerprint") != (current := fingerprint()):
        stale = (
            f"taken for fingerprint {reference.get('fingerprint')}, the probe is now {current}: `make speed-reference`"
        )
    return Speed(round(ratio, 3), parts, copies, time.perf_counter() - started, "probe", stale)


def take_reference(copies: int, cache_dir: Path, runs: int = REFERENCE_RUNS) -> dict[str, Any]:
    """The reference: each part's median over `runs` probes of `copies` copies, with what it was taken on."""
    folder = exported_model(cache_dir)
    probes = [run_copies(copies, folder) for _ in range(runs)]
    seconds = {name: statistics.median(statistics.fmean(c[name] for c in probe) for probe in probes) for name in PARTS}
    return {
        "fingerprint": fingerprint(),
        "seconds": {name: round(value, 6) for name, value in seconds.items()},
        "copies": copies,
        "runs": runs,
        "work": WORK,
        "taken": {
            "at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "cores": os.cpu_count(),
            "machine": platform.machine(),
            "python": platform.python_version(),
            "packages": {package: metadata.version(package) for package in PACKAGES},
            "load_average": [round(value, 2) for value in os.getloadavg()],
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="re-take the reference and write it to --output")
    parser.add_argument(
        "--output", type=Path, default=REFERENCE, help=f"where --write writes (default: {REFERENCE.name})"
    )
    parser.add_argument("--runs", type=int, default=REFERENCE_RUNS, help="probes a reference is the median of")
    parser.add_argument("--copies", type=int, default=os.cpu_count() or 1, help="processes side by side")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        _child(arguments.child)
        return 0
    from tests.support.cache import model_cache_dir

    cache_dir = Path(os.environ.get("HAYGATE_MODEL_CACHE_DIR") or model_cache_dir())
    if arguments.write:
        reference = take_reference(arguments.copies, cache_dir, arguments.runs)
        arguments.output.write_text(json.dumps(reference, indent=2) + "\n")
        print(json.dumps(reference, indent=2))
        return 0
    print(json.dumps(measure(arguments.copies, cache_dir).to_json(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
