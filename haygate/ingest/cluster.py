"""Embedding on a Ray cluster: `haygate ingest --ray ADDRESS`, and the indexing `haygate eval` does.

Only the model's work leaves this process. Records are read, mapped, compared with the store, split and
written here, on the same code path as a local ingest (`haygate.ingest.indexer`); the collection's dense
document embedders are swapped for `ClusterDocumentEmbedder`s, which hand each batch's documents to a pool of
Ray actors and take them back embedded. So a Ray ingest and a local one give the same collection: the same
ids, the same replacements, the same report, and vectors from the same component class.

- Each actor builds the embedder from its serialized form and loads the model once (`warm_up`), with as many
  runtime threads as the CPUs it reserves, on a GPU when it reserves one.
- The documents go out in tasks of `documents_per_task`, sorted by length so a task's texts pad alike, and
  at most `tasks_per_actor` tasks wait per actor: memory stays bounded whatever the corpus, and an actor
  never waits for work while the next task is already there.
- Ingest keeps two batches going (`haygate.ingest.indexer.two_at_a_time`): while the actors embed one, this
  process reads, compares and splits the next, and writes the one before.
- An actor that dies (its node lost, its process killed) has its tasks run again on the others, and a
  replacement is asked for; only when none is left does the ingest stop, with an error that says so. The
  batches written before are durable and a second run skips them, so nothing is ever short in silence.

Ray is the `ray` extra; nothing else imports this module.
"""

import importlib.util
import logging
import math
import socket
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from haystack import Document, Pipeline, component
from haystack.core.serialization import component_from_dict, component_to_dict, import_class_by_name
from haystack.core.serialization_security import allow_deserialization_module

from haygate.compat import graph
from haygate.components.embedding_backends import place_runtime
from haygate.errors import ConfigurationError, OperatorError
from haygate.extras import add_extra
from haygate.ingest.indexer import LocalLock, embeds_densely

if TYPE_CHECKING:
    from types import ModuleType

logger = logging.getLogger(__name__)

WORKER_SETUP = "haygate.compat.install"  # what every Ray worker runs first (Ray imports it by name)
LOCAL = "local"  # start a Ray on this machine for this process, instead of joining a cluster
DOCUMENTS_PER_TASK = 64  # ~2 model calls of 32 texts: a task's round trip is a few ms of a second of work
TASKS_PER_ACTOR = 2  # one computing, one queued behind it: no idle gap, and bounded memory
START_TIMEOUT = 120.0  # seconds for the first actor to load its model (a cold ONNX export included)
READY_GRACE = 15.0  # seconds the others may take after the first is ready, before the work starts without them
CONNECT_SECONDS = 5.0  # for the cluster's address to answer at all
CLIENT_ATTEMPTS = 3  # Ray Client sessions the head is asked for before the address is refused
CLIENT_RETRY_SECONDS = 2.0  # the pause before the next one, times the attempt
MAX_ATTEMPTS = 3  # a task whose actor dies this often is not tried again: the data itself may kill it


class RayUnavailableError(ConfigurationError):
    """`--ray` without Ray installed."""


class ClusterLostError(OperatorError):
    """No embedding actor is left on the Ray cluster (its nodes are gone), or a task kept losing its actor."""

    code = "CLUSTER_LOST"
    http_status = 503
    public_message = "the Ray cluster that embeds this server's writes lost its workers; its operator must look"


@dataclass(frozen=True)
class RayOptions:
    """Where and how the embedding runs (`Settings.ray_*`, `--ray` and its companions)."""

    address: str
    """`local`, `auto` (the cluster `ray start` made on this machine), `HOST:PORT` or `ray://HOST:PORT`."""
    actors: int | None = None
    """How many embedding actors; None: as many as the cluster's nodes hold at `num_cpus` (`num_gpus`) each."""
    num_cpus: float = 1.0
    """CPUs each actor reserves on its node, and the model threads it runs (at least one)."""
    num_gpus: float = 0.0
    """GPUs each actor reserves; above 0 its model runs on the GPU Ray gives it (0.5: two actors share one)."""
    documents_per_task: int = DOCUMENTS_PER_TASK
    """The most documents one task carries to an actor (a small batch is cut finer, so every actor gets work)."""
    tasks_per_actor: int = TASKS_PER_ACTOR
    """Tasks in flight per actor: one computing, the others queued behind it; what bounds memory."""


def require_ray() -> "ModuleType":
    """The `ray` module, or an error that names the extra to install."""
    if sys.modules.get("ray", True) is None or importlib.util.find_spec("ray") is None:
        msg = f"--ray embeds on a Ray cluster, and Ray is not installed: {add_extra('ray')}"
        raise RayUnavailableError(msg, {"missing": ["ray"]})
    import ray

    return ray


def connect(options: RayOptions) -> "ModuleType":
    """This process joins the cluster at `options.address` (once), quietly: Ray's own lines would bury the
    ingest's, and its actors' logs stay on their nodes."""
    ray = require_ray()
    if ray.is_initialized():
        return ray
    _check_reachable(options.address)
    quiet: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False, "namespace": "haygate"}
    # Each Ray worker imports Haystack as the `haygate` command does, after haygate's patches (torch on first
    # use): an embedding actor then starts without torch, seconds sooner and hundreds of MB lighter.
    quiet["runtime_env"] = {"worker_process_setup_hook": WORKER_SETUP}
    logging.getLogger("ray._private.worker").addFilter(_NotMainThread())
    for attempt in range(1, CLIENT_ATTEMPTS + 1):
        try:
            if options.address == LOCAL:
                ray.init(include_dashboard=False, **quiet)
            else:
                ray.init(address=options.address, **quiet)
            return ray
        except ConnectionAbortedError as error:
            # Ray Client (`ray://`): the head's client server could not start this driver's server. That
            # server is a new process on the head each time, and a busy head sometimes fails to start one.
            if attempt == CLIENT_ATTEMPTS:
                raise _cannot_join(options.address, error) from None
            logger.warning(
                "the Ray Client server at %s failed to start this driver's session (%s); trying again",
                options.address,
                _reason(error),
            )
            time.sleep(CLIENT_RETRY_SECONDS * attempt)
        except (ConnectionError, RuntimeError, ValueError) as error:
            raise _cannot_join(options.address, error) from None
    raise AssertionError("unreachable: the last attempt returns or raises")


def _cannot_join(address: str, error: Exception) -> ConfigurationError:
    msg = (
        f"cannot join the Ray cluster at {address!r}: {_reason(error)} "
        f"(start one with `ray start --head`, or use --ray {LOCAL} for a Ray of this machine alone)"
    )
    return ConfigurationError(msg, {"address": address})


def _check_reachable(address: str) -> None:
    """A `HOST:PORT` (or `ray://HOST:PORT`) that nothing answers on is refused at once: Ray itself would retry
    it for minutes before it gives up."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not port.isdigit():
        return  # `local`, `auto`: Ray finds (or starts) the cluster itself
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        msg = (
            f"cannot join the Ray cluster at {address!r}: nothing answers there ({error.strerror or error}); "
            f"start one with `ray start --head`, or use --ray {LOCAL} for a Ray of this machine alone"
        )
        raise ConfigurationError(msg, {"address": address}) from None


def on_cluster(pipeline: Pipeline, options: RayOptions) -> list["ClusterDocumentEmbedder"]:
    """Swap `pipeline`'s dense document embedders for ones that embed on the cluster, and return those. Done
    before the pipeline's schedule is made, which holds the instances."""
    require_ray()  # now, not once the first records are read
    swapped = []
    for name, instance in list(pipeline.walk()):
        if embeds_densely(type(instance)) and not isinstance(instance, ClusterDocumentEmbedder):
            proxy = ClusterDocumentEmbedder(component_to_dict(instance, name), options)
            graph.swap_instance(pipeline, name, proxy)
            swapped.append(proxy)
    return swapped


@component
class ClusterDocumentEmbedder:
    """Embeds documents on a Ray cluster with the dense document embedder it stands in for.

    Its input and output are that embedder's (`documents` in, `documents` out, embedded), so it takes the
    embedder's place in an indexing pipeline without another change (`on_cluster` does the swap).
    """

    def __init__(self, embedder: dict[str, Any], options: RayOptions) -> None:
        """:param embedder: the stood-in embedder, serialized (`component_to_dict`): each actor builds it.
        :param options: the cluster's address and the actors' resources."""
        self.embedder = embedder
        self.options = options
        # what ingest reads off a dense embedder (`IndexingPlan`): whether it embeds passages as well
        self.passages = (embedder.get("init_parameters") or {}).get("passages")
        self.pool: ActorPool | None = None
        self.refused: Exception | None = None  # why the pool could not start: the next batch is told at once
        self.local_lock: LocalLock | None = None  # let go of while the actors work (`RunsElsewhere`)
        self._embedding = threading.Lock()  # one batch's tasks at a time: the next one's wait their turn

    def warm_up(self) -> None:
        """Join the cluster and start the actors; returns once they have loaded their model (or, after one
        has, `READY_GRACE` seconds later with those that have)."""
        if self.refused is not None:
            raise self.refused
        if self.pool is None:
            pool = ActorPool(self.embedder, self.options)
            try:
                pool.start()
            except Exception as error:
                self.refused = error
                raise
            self.pool = pool

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        """The documents, each with its embedding (and whatever else the stood-in embedder adds)."""
        if not documents:
            return {"documents": []}
        self.warm_up()
        assert self.pool is not None
        held = self.local_lock
        if held is not None:
            held.release()  # this process's other work goes on while the cluster embeds
        try:
            with self._embedding:
                embedded = self.pool.embed(documents)
        finally:
            if held is not None:
                held.acquire()
        return {"documents": embedded}

    def close(self) -> list[str]:
        """Stop the actors (they hold a model each); what the ingest's report should say of them."""
        if self.pool is None:
            return []
        notes = self.pool.close()
        self.pool = None
        return notes


class EmbedderActor:
    """One embedder, on one Ray worker, its model loaded once."""

    def __init__(self, embedder: dict[str, Any], threads: int, device: str) -> None:
        place_runtime(threads=threads, device=device)
        # The loader allow-listed this type when it built the pipeline this spec was taken from; the worker
        # trusts that one module, not the allow-list's whole breadth.
        allow_deserialization_module(embedder["type"].rpartition(".")[0])
        kind = import_class_by_name(embedder["type"])
        self.component: Any = component_from_dict(kind, embedder, "embedder")
        if hasattr(self.component, "warm_up"):
            self.component.warm_up()

    def node(self) -> str:
        import ray

        return str(ray.get_runtime_context().get_node_id())

    def embed(self, documents: list[Document]) -> list[Document]:
        return list(self.component.run(documents=documents)["documents"])


@dataclass
class Task:
    """The `index`th slice of a batch's documents (in length order), and how often it was handed out."""

    index: int
    documents: list[Document]
    attempts: int = 0


@dataclass
class Member:
    """A live actor of the pool, and the node it runs on."""

    handle: Any
    node: str
    busy: int = 0


class ActorPool:
    """Actors holding one embedder each, fed tasks with bounded work in flight, replaced when they die."""

    def __init__(self, embedder: dict[str, Any], options: RayOptions) -> None:
        self.embedder = embedder
        self.options = options
        self.members: list[Member] = []
        self.starting: dict[Any, Any] = {}  # an actor's first call (`node`) -> the actor
        self.target = 0
        self.lost = 0  # actors that died while this pool ran
        self.rerun = 0  # tasks run again after their actor died
        self.created = 0  # actors asked for
        self.embedded = 0  # documents
        self.seconds = 0.0  # spent waiting for the actors' embeddings: the rest of an ingest is this process's
        self._remote: Any = None

    def start(self) -> None:
        ray = connect(self.options)
        self.target = self.options.actors or self._fitting(ray)
        self._remote = ray.remote(EmbedderActor).options(
            num_cpus=self.options.num_cpus, num_gpus=self.options.num_gpus, max_restarts=0, max_concurrency=1
        )
        self._top_up()
        deadline = time.monotonic() + START_TIMEOUT
        while not self.members:
            if time.monotonic() > deadline:
                self.close()
                msg = (
                    f"no embedding actor started on the Ray cluster at {self.options.address!r} within "
                    f"{START_TIMEOUT:.0f} s (each wants {self._wants()}); free now: "
                    f"{_cpus_and_gpus(ray.available_resources())} of {_cpus_and_gpus(ray.cluster_resources())} "
                    "(other jobs may hold the rest)"
                )
                raise ClusterLostError(msg, {"address": self.options.address})
            self._admit(timeout=1.0)
        grace = time.monotonic() + READY_GRACE  # actors start side by side: the others are seconds behind
        while len(self.members) < self.target and self.starting and time.monotonic() < grace:
            self._admit(timeout=1.0)
        logger.info(
            "embedding on Ray at %s: %d actor(s) wanted, %d ready", self.options.address, self.target, len(self.members)
        )

    def _wants(self) -> str:
        gpus = f" and {self.options.num_gpus:g} GPU" if self.options.num_gpus else ""
        return f"{self.options.num_cpus:g} CPU{gpus}"

    def _fitting(self, ray: Any) -> int:
        """How many actors the cluster's live nodes hold; refused at once if no node can hold one."""
        count = 0
        for node in ray.nodes():
            if not node.get("Alive"):
                continue
            resources = node.get("Resources") or {}
            fits = [resources.get("CPU", 0) / self.options.num_cpus if self.options.num_cpus else math.inf]
            if self.options.num_gpus:
                fits.append(resources.get("GPU", 0) / self.options.num_gpus)
            count += math.floor(min(fits) + 1e-9)
        if count == 0:
            msg = (
                f"no node of the Ray cluster at {self.options.address!r} can hold an embedding actor "
                f"({self._wants()} each; lower --ray-actor-cpus or --ray-actor-gpus, or add a node)"
            )
            raise ConfigurationError(msg, {"address": self.options.address})
        return count

    def _top_up(self) -> None:
        """Ask for actors until live and starting ones make the target (Ray places them as nodes allow), up to
        `MAX_ATTEMPTS` actors per place in all: a cluster that keeps losing them is not fed more."""
        while len(self.members) + len(self.starting) < self.target and self.created < self.target * MAX_ATTEMPTS:
            self.created += 1
            threads = max(1, math.floor(self.options.num_cpus))
            device = "cuda" if self.options.num_gpus > 0 else "cpu"
            handle = self._remote.remote(self.embedder, threads, device)
            self.starting[handle.node.remote()] = handle

    def _admit(self, timeout: float = 0.0) -> None:
        """Started actors join the pool; one that failed to start says why (a model it cannot load)."""
        if not self.starting:
            return
        import ray

        ready, _ = ray.wait(list(self.starting), num_returns=len(self.starting), timeout=timeout)
        for ref in ready:
            handle = self.starting.pop(ref)
            try:
                node = ray.get(ref)
            except ray.exceptions.RayActorError as error:
                if error.actor_init_failed:  # the embedder itself cannot be built there (its model, its class)
                    self.close()
                    msg = f"an embedding actor could not start on the Ray cluster: {_reason(error)}"
                    raise ConfigurationError(msg, {"address": self.options.address}) from None
                self._lose(Member(handle, "(starting)"), error)  # its node went while it started
                continue
            self.members.append(Member(handle, node))

    def embed(self, documents: list[Document]) -> list[Document]:
        """The documents embedded by the actors, in the order given."""
        started = time.perf_counter()
        try:
            embedded = self._embed(documents)
        finally:
            self.seconds += time.perf_counter() - started
        self.embedded += len(embedded)
        return embedded

    def _embed(self, documents: list[Document]) -> list[Document]:
        import ray

        order = sorted(range(len(documents)), key=lambda i: len(documents[i].content or ""))
        size = self.task_size(len(documents))
        queue = deque(
            Task(n, [documents[i] for i in order[s : s + size]]) for n, s in enumerate(range(0, len(order), size))
        )
        results: list[list[Document] | None] = [None] * len(queue)
        running: dict[Any, tuple[Member, Task]] = {}
        failure: BaseException | None = None
        while queue or running:
            self._admit()
            for member in self.members:
                while queue and failure is None and member.busy < self.options.tasks_per_actor:
                    task = queue.popleft()
                    task.attempts += 1
                    running[member.handle.embed.remote(task.documents)] = (member, task)
                    member.busy += 1
            if not running:
                self._wait_for_members()
                continue
            done, _ = ray.wait(list(running), num_returns=1)
            for ref in done:
                member, task = running.pop(ref)
                member.busy -= 1
                try:
                    results[task.index] = ray.get(ref)
                except ray.exceptions.RayTaskError as error:  # the embedder raised: the ingest decides
                    failure = failure or _cause(error)
                except ray.exceptions.RayActorError as error:
                    self._lose(member, error)
                    if task.attempts >= MAX_ATTEMPTS:
                        msg = f"a batch of {len(task.documents)} documents lost its Ray actor {task.attempts} times"
                        failure = failure or ClusterLostError(msg, {"address": self.options.address})
                    else:
                        self.rerun += 1
                        queue.appendleft(task)
            if failure is not None:
                queue.clear()  # what runs is let finish, so no actor is left working for nobody
        if failure is not None:
            raise failure
        embedded: list[Document | None] = [None] * len(documents)
        for position, document in zip(order, (d for part in results if part for d in part), strict=True):
            embedded[position] = document
        return [document for document in embedded if document is not None]

    def task_size(self, documents: int) -> int:
        """`documents_per_task`, or less for a batch too small to give every actor a few tasks: a batch ends
        when its last task does, so its tasks are best many and alike."""
        actors = max(1, len(self.members))
        return max(1, min(self.options.documents_per_task, math.ceil(documents / (actors * TASKS_PER_ACTOR * 2))))

    def _lose(self, member: Member, error: BaseException) -> None:
        """A dead actor leaves the pool; a replacement is asked for, to start wherever the cluster has room."""
        if member in self.members or member.node == "(starting)":
            if member in self.members:
                self.members.remove(member)
            self.lost += 1
            logger.warning(
                "an embedding actor on Ray node %s is gone (%s); its work runs again on the %d left",
                member.node[:12],
                _reason(error),
                len(self.members),
            )
            self._top_up()

    def _wait_for_members(self) -> None:
        """Work is left and no actor: wait for a replacement to start, for as long as a first actor may take."""
        deadline = time.monotonic() + START_TIMEOUT
        while not self.members:
            if time.monotonic() > deadline:
                msg = (
                    f"every embedding actor on the Ray cluster at {self.options.address!r} is gone ({self.lost} lost) "
                    f"and none could start again within {START_TIMEOUT:.0f} s; what was written is kept: run the same "
                    "command again to go on"
                )
                raise ClusterLostError(msg, {"address": self.options.address})
            self._admit(timeout=1.0)

    def close(self) -> list[str]:
        """Stop the actors; a note for the report if any were lost."""
        import ray

        if self.embedded:
            logger.info(
                "Ray embedded %d documents in %.1f s on %d actor(s); %d lost, %d task(s) run again",
                self.embedded,
                self.seconds,
                len(self.members) + self.lost,
                self.lost,
                self.rerun,
            )
        for handle in [m.handle for m in self.members] + list(self.starting.values()):
            ray.kill(handle, no_restart=True)
        self.members.clear()
        self.starting.clear()
        if not self.lost:
            return []
        return [
            f"{self.lost} embedding actor(s) on the Ray cluster at {self.options.address} were lost; "
            f"their {self.rerun} task(s) ran again on the others, and every record was embedded"
        ]


def _cpus_and_gpus(resources: dict[str, float]) -> str:
    return f"{resources.get('CPU', 0):g} CPU, {resources.get('GPU', 0):g} GPU"


class _NotMainThread(logging.Filter):
    """Ray warns that it sets no SIGTERM handler when it is joined from a thread other than the main one, as an
    ingest's batch threads do: this process handles its own signals, so the line is noise."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "SIGTERM handler is not set" not in record.getMessage()


def _cause(error: Any) -> BaseException:
    """The exception the embedder raised on the worker, as itself (a refused record stays a refused record)."""
    cause = getattr(error, "cause", None)
    return cause if isinstance(cause, BaseException) else error


def _reason(error: BaseException) -> str:
    """The first meaningful line of a Ray error, not its page of context."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error" in line and not line.startswith(("File ", "Traceback")):
            return line[:300]
    return lines[0][:300] if lines else type(error).__name__
