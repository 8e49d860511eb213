"""How fast this machine is, against the speed the test budgets were set at: at the start of a run and while it
runs.

The same commit's suite takes 450 s one day and 620 s another on the same kind of machine, and within one run
the host's speed moves by a third from one few-second stretch to the next (a fixed piece of interpreter work
takes 24 ms, then 43 ms, then 25 ms, with no steal time and nothing else running). So every budget in
`tests/support/budgets.py` is multiplied by the speed measured over the time it covers: a slow hour fails
nothing, and a test that got slower on its own still fails.

What is timed is one *round*: a fixed piece of the work the suite does, in three parts,

- `model`: an ONNX Runtime forward of the packaged all-MiniLM-L6-v2 export on one thread, tokenizer included;
- `store`: Qdrant Edge queries on a small shard (hybrid dense + sparse fused with RRF under a keyword filter,
  and BM25 over a text index);
- `python`: interpreter work (records built, serialised to JSON and back, counted and sorted).

The speed is two factors, measured apart so that neither counts the suite's own load:

- the **host** factor: a round's time at the highest scheduling priority (nice -20), which nothing else on this
  machine can slow, against the same round's time in `speed-reference.json`. It is what the machine itself
  gives today (a busier host, a slower CPU);
- the **load** factor: how much longer the same round takes at normal priority, run in one process per test
  worker at once, than at the highest (other programs competing for the cores: a build, a busy loop).

At the start (`measure`), one process per test worker runs `ROUNDS` rounds at each priority, interleaved, and the
ratio printed in the run's header is host x load, clipped to `LIMITS`. One of those processes then stays, as
the *sampler*: a round at the highest priority every `SAMPLE_EVERY` seconds, appended to a file. A budget is
then judged at the host's speed over its own time (the samples within it, or the `NEAREST` ones for a short
test) times the load factor of the start. Where priorities cannot be raised (not root), both factors are one
figure taken at the start, and it holds for the whole run. `HAYGATE_SPEED_RATIO=R` skips all of it and uses R.

Re-take the reference on a quiet machine of CI's kind, as root, after any change to the work below (a test
compares its fingerprint): `make speed-reference`.
"""

import argparse
import functools
import hashlib
import inspect
import json
import math
import os
import platform
import select
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import IO, Any

REFERENCE = Path(__file__).with_name("speed-reference.json")
OVERRIDE = "HAYGATE_SPEED_RATIO"
# The ratio's range. Above 3 says more about the probe than the machine. Below 1 budgets would shrink, but a fast
# reading does not carry over to the suite: three `make test-fast` runs took 36.0 to 38.9 s while the rounds
# sampled through them read 0.70 to 1.01 of the reference. So a budget never falls below its reference figure.
LIMITS = (1.0, 3.0)
ROUNDS = 12  # rounds at each priority at the start; each part's median is its figure
SAMPLE_EVERY = 3.0  # seconds between the sampler's rounds (a round is about 60 ms: 2 % of one core)
NEAREST = 5  # samples an interval's host factor is taken from when fewer fall within it
HIGHEST, NORMAL = -20, 0  # nice values
PARTS = ("model", "store", "python")
PACKAGES = ("onnxruntime", "tokenizers", "qdrant-edge-py", "numpy")  # whose speed the probe's figures hold
REFERENCE_RUNS = 5  # probes a reference is the median of

# The work itself. Any change to these numbers or to the functions below changes the fingerprint.
WORK = {
    "model": {"texts": 3, "threads": 1},
    "store": {"points": 2000, "dimension": 384, "words": 40, "queries": 20, "prefetch": 50, "limit": 10, "threads": 1},
    "python": {"records": 2000},
}
PREFIXES = ("re", "con", "pro", "de", "in", "ex", "com", "dis")
STEM_TEXT = "trieval text vector index ranker query filter search token shard model field score fusion section record"
STEMS = [*STEM_TEXT.split(), "embed", "store", "judge", "gateway"]
VOCABULARY = [prefix + stem for prefix in PREFIXES for stem in STEMS]


@dataclass(frozen=True)
class Speed:
    """One run's speed: the ratio every budget is multiplied by, what it came from, and where the sampler
    writes the host's speed while the run goes on."""

    ratio: float  # at the start: host x load, clipped to LIMITS
    host: float
    load: float
    parts: dict[str, float]  # each part's host factor at the start
    copies: int  # processes that ran the probe side by side
    seconds: float  # the probe's wall time, start-up included
    source: str  # "probe", or the variable that set the ratio
    samples: str = ""  # the sampler's file; none where priorities cannot be raised
    stale: str = ""  # why the reference does not describe this probe's work, when it does not

    def describe(self) -> str:
        """The start's figures, for the run's header."""
        if self.source != "probe":
            return f"speed ratio {self.ratio:.2f} (set by {self.source}; no probe ran)"
        parts = ", ".join(f"{name} {value:.2f}" for name, value in self.parts.items())
        copies = f"{self.copies} {'copy' if self.copies == 1 else 'copies'} side by side"
        text = (
            f"speed ratio {self.ratio:.2f} of the reference at the start (host {self.host:.2f} x load "
            f"{self.load:.2f}; host by part: {parts}; {copies}, {self.seconds:.1f} s); "
        )
        text += (
            f"the host sampled every {SAMPLE_EVERY:.0f} s after"
            if self.samples
            else "it holds for the whole run (priorities cannot be raised here: no sampler)"
        )
        return text + (f"; STALE REFERENCE: {self.stale}" if self.stale else "")

    def between(self, start: float, stop: float) -> "Stretch":
        """The speed over [start, stop] (`time.time()`): the host factor the sampler measured then, times the
        start's load factor; the start's ratio where nothing was sampled."""
        samples = read_samples(Path(self.samples)) if self.samples else []
        within = [sample for sample in samples if start <= sample["at"] <= stop]
        if len(within) < NEAREST:
            middle = (start + stop) / 2
            within = sorted(samples, key=lambda sample: abs(sample["at"] - middle))[:NEAREST]
        if not within:
            return Stretch(self.ratio, 0)
        reference = read_reference()["seconds"]
        parts = {name: round(statistics.median(s[name] for s in within) / reference[name], 3) for name in PARTS}
        return Stretch(clipped(geometric_mean(parts.values()) * self.load), len(within), parts)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Speed":
        return cls(**data)


@dataclass(frozen=True)
class Stretch:
    """The speed over a stretch of a run, and how many of the sampler's rounds it is the median of."""

    ratio: float
    samples: int
    parts: dict[str, float] = field(default_factory=dict)  # each part's host factor over the stretch

    def describe(self, during: str) -> str:
        """`during` names the stretch: "while it ran", "over the run"."""
        source = f"from {self.samples} samples" if self.samples else "as measured at the start"
        return f"speed ratio {self.ratio:.2f} {during}, {source}"

    def by_part(self) -> str:
        return ", ".join(f"{name} {value:.2f}" for name, value in self.parts.items())


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
        max_search_threads=spec["threads"],  # one: a query split over threads would time the scheduler
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
    hashed.update(".".join(platform.python_version_tuple()[:2]).encode())
    return hashed.hexdigest()[:16]


# -- one copy of the probe ------------------------------------------------------------------------------------


def set_priority(nice: int) -> bool:
    """Every thread of this process (Linux sets priorities per thread) at `nice`; False where it may not be
    raised (not root)."""
    threads = os.listdir("/proc/self/task") if os.path.isdir("/proc/self/task") else ["0"]
    try:
        for thread in threads:
            os.setpriority(os.PRIO_PROCESS, int(thread), nice)
    except PermissionError:
        return False
    except ProcessLookupError:  # a thread that ended meanwhile
        pass
    return True


def timed_round(work: dict[str, Callable[[], None]]) -> dict[str, float]:
    times = {}
    for name in PARTS:
        started = time.perf_counter()
        work[name]()
        times[name] = time.perf_counter() - started
    return times


def probe_once(work: dict[str, Callable[[], None]]) -> dict[str, Any]:
    """`ROUNDS` rounds at the highest priority and as many at normal priority, interleaved, so a passing change
    of the host's speed touches both alike: each part's median at each, and whether the priority was raised."""
    for run in work.values():  # first calls warm caches and lazy paths
        run()
    rounds: dict[str, list[dict[str, float]]] = {"highest": [], "normal": []}
    raised = True
    for _ in range(ROUNDS):
        raised = set_priority(HIGHEST) and raised
        rounds["highest"].append(timed_round(work))
        set_priority(NORMAL)
        rounds["normal"].append(timed_round(work))
    medians = {
        priority: {name: statistics.median(r[name] for r in taken) for name in PARTS}
        for priority, taken in rounds.items()
    }
    return {**medians, "raised": raised}


@contextmanager
def prepared(model_folder: Path) -> Iterator[dict[str, Callable[[], None]]]:
    with tempfile.TemporaryDirectory(prefix="haygate-speed-") as scratch, store_work(Path(scratch) / "shard") as store:
        yield {"model": model_work(model_folder), "store": store, "python": python_work()}


def _child(model_folder: Path, samples: Path | None) -> None:
    """A copy run by `measure`: says `ready` once set up, waits for `go`, prints its figures as JSON; with
    `samples`, stays as the sampler until its standard input closes."""
    with prepared(model_folder) as work:
        print("ready", flush=True)
        sys.stdin.readline()
        figures = probe_once(work)
        print(json.dumps(figures), flush=True)
        if samples is not None and figures["raised"]:
            set_priority(HIGHEST)
            with samples.open("a") as out:
                sample(work, out)


def sample(work: dict[str, Callable[[], None]], out: IO[str]) -> None:
    """A round every `SAMPLE_EVERY` seconds, one JSON line each, until standard input closes (the run is over,
    or its controller is gone)."""
    while not select.select([sys.stdin], [], [], SAMPLE_EVERY)[0]:
        out.write(json.dumps({"at": time.time(), **timed_round(work)}) + "\n")
        out.flush()


@functools.cache
def read_reference() -> dict[str, Any]:
    return dict(json.loads(REFERENCE.read_text()))


def read_samples(path: Path) -> list[dict[str, float]]:
    """The sampler's rounds so far (a line being written is left for the next read)."""
    found = []
    for line in path.read_text().splitlines() if path.is_file() else []:
        try:
            found.append(json.loads(line))
        except ValueError:
            continue
    return found


# -- the run's probe and sampler --------------------------------------------------------------------------------


class Probe:
    """`copies` processes of the probe, their timed work started together; with `samples`, the first stays as
    the sampler until `stop()`."""

    def __init__(self, copies: int, model_folder: Path, samples: Path | None = None) -> None:
        command = [sys.executable, "-m", "tests.support.speed", "--child", str(model_folder)]
        path = os.pathsep.join(filter(None, [str(Path(__file__).parents[2]), os.environ.get("PYTHONPATH")]))
        self.processes = [
            subprocess.Popen(
                [*command, *(["--samples", str(samples)] if samples is not None and number == 0 else [])],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONPATH": path},
            )
            for number in range(copies)
        ]

    def run(self) -> list[dict[str, Any]]:
        for process in self.processes:
            assert process.stdout is not None
            if process.stdout.readline().strip() != "ready":
                msg = "the speed probe's process stopped before it was ready (see its error above)"
                raise RuntimeError(msg)
        for process in self.processes:
            assert process.stdin is not None
            process.stdin.write("go\n")
            process.stdin.flush()
        results = []
        for process in self.processes:
            assert process.stdout is not None
            results.append(json.loads(process.stdout.readline()))
        return results

    def stop(self) -> None:
        """Every copy ends: the sampler when its standard input closes, the others have ended already."""
        for process in self.processes:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(timeout=SAMPLE_EVERY + 5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def exported_model(cache_dir: Path) -> Path:
    """The packaged model's ONNX export in `cache_dir`, made there first if it is not yet (about a second)."""
    from haygate.components.embedding_backends import onnx_export
    from haygate.components.models import model_folder
    from tests.support.project import EMBEDDING_MODEL

    return onnx_export(model_folder(EMBEDDING_MODEL), cache_dir, EMBEDDING_MODEL)


# -- the ratio ------------------------------------------------------------------------------------------------


def geometric_mean(values: Any) -> float:
    return math.exp(statistics.fmean(math.log(value) for value in values))


def clipped(ratio: float) -> float:
    return round(min(max(ratio, LIMITS[0]), LIMITS[1]), 3)


def factors(measured: list[dict[str, Any]], reference: dict[str, Any]) -> tuple[float, float, dict[str, float]]:
    """(host, load, host by part): each part's mean over the copies, at the highest priority against the
    reference, and at normal priority against the highest; each factor the geometric mean of its parts. Load
    is at least 1: competition never makes work faster."""
    mean = {
        priority: {name: statistics.fmean(copy[priority][name] for copy in measured) for name in PARTS}
        for priority in ("highest", "normal")
    }
    parts = {name: mean["highest"][name] / float(reference["seconds"][name]) for name in PARTS}
    load = geometric_mean(mean["normal"][name] / mean["highest"][name] for name in PARTS)
    return geometric_mean(parts.values()), max(1.0, load), {name: round(value, 3) for name, value in parts.items()}


def measure(copies: int, cache_dir: Path, samples: Path | None = None) -> tuple[Speed, Probe | None]:
    """This run's speed at the start, and its sampler (to `stop()` when the run ends) writing to `samples`:
    `HAYGATE_SPEED_RATIO` when set, else the probe's, in `copies` processes at once."""
    if os.environ.get(OVERRIDE):
        return Speed(clipped(float(os.environ[OVERRIDE])), 1.0, 1.0, {}, 0, 0.0, OVERRIDE), None
    started = time.perf_counter()
    reference = read_reference()
    probe = Probe(copies, exported_model(cache_dir), samples)
    try:
        measured = probe.run()
    except BaseException:
        probe.stop()
        raise
    host, load, parts = factors(measured, reference)
    raised = all(copy["raised"] for copy in measured)
    stale = ""
    if reference.get("fingerprint") != (current := fingerprint()):
        stale = (
            f"taken for fingerprint {reference.get('fingerprint')}, the probe is now {current}: `make speed-reference`"
        )
    speed = Speed(
        clipped(host * load),
        round(host, 3),
        round(load, 3),
        parts,
        copies,
        round(time.perf_counter() - started, 2),
        "probe",
        str(samples) if samples is not None and raised else "",
        stale,
    )
    return speed, probe


def take_reference(copies: int, cache_dir: Path, runs: int = REFERENCE_RUNS) -> dict[str, Any]:
    """The reference: each part's median over `runs` probes of `copies` copies, at the highest priority, with
    what it was taken on."""
    folder = exported_model(cache_dir)
    probes = []
    for _ in range(runs):
        probe = Probe(copies, folder)
        try:
            probes.append(probe.run())
        finally:
            probe.stop()
    seconds = {
        name: statistics.median(statistics.fmean(c["highest"][name] for c in probe) for probe in probes)
        for name in PARTS
    }
    loads = [factors(probe, {"seconds": seconds})[1] for probe in probes]
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
            "load_factor": round(statistics.median(loads), 3),
            "priority_raised": all(copy["raised"] for probe in probes for copy in probe),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="re-take the reference and write it to --output")
    parser.add_argument("--output", type=Path, default=REFERENCE, help="where --write writes")
    parser.add_argument("--runs", type=int, default=REFERENCE_RUNS, help="probes a reference is the median of")
    parser.add_argument("--copies", type=int, default=os.cpu_count() or 1, help="processes side by side")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--samples", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child:
        _child(arguments.child, arguments.samples)
        return 0
    from tests.support.cache import model_cache_dir

    cache_dir = Path(os.environ.get("HAYGATE_MODEL_CACHE_DIR") or model_cache_dir())
    if arguments.write:
        reference = take_reference(arguments.copies, cache_dir, arguments.runs)
        arguments.output.write_text(json.dumps(reference, indent=2) + "\n")
        print(json.dumps(reference, indent=2))
        return 0
    speed, probe = measure(arguments.copies, cache_dir)
    if probe is not None:
        probe.stop()
    print(json.dumps(speed.to_json(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
