"""The running gateway: answers at once, loads in the background, reloads while serving, takes writes.

- **Fast start.** The catalog (declarations only, no Haystack) is read at once, so `initialize` and
  `tools/list` are answered while the pipelines and models load in a background thread. A call that comes
  before they are ready waits for them, up to `HAYGATE_STARTUP_TIMEOUT`, then gets `UNAVAILABLE`.
- **Generations.** What serves calls is one generation: a loader, its gateway and its writer. A reload
  builds and warms a new one from the changed YAML and swaps it in at once; calls already running finish on
  the old one, which is closed when its last call ends. A change with any problem is not swapped in: the
  old tools keep serving, and the problems (with their file and component) are logged, reported by
  `/health` (status `degraded`) and the console, and told to a client that calls a tool the change declares.
- **Listeners** hear when the served tool set changes (the MCP layer tells connected clients).
"""

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio

from haygate.compat import torch_loaded
from haygate.errors import (
    ConfigurationError,
    HaygateError,
    UnavailableError,
    UnknownToolError,
)
from haygate.gateway.catalog import Catalog, load_catalog
from haygate.gateway.declarations import ToolDeclaration
from haygate.gateway.instructions import Outline, instructions, outline, skill_name
from haygate.server.telemetry import UNKNOWN_TOOL, Telemetry
from haygate.settings import Settings

if TYPE_CHECKING:
    from haygate.gateway.runtime import Gateway
    from haygate.gateway.skill import Skill

logger = logging.getLogger(__name__)
Written = TypeVar("Written")  # what a write answers (an ingest's report, a delete's)

State = Literal["starting", "ready", "failed"]
LULL = 0.25  # seconds without a call before the next tool's warm-up starts
LULL_WAIT = 0.5  # at most this long per tool: under steady calls the warm-up goes on (and `ready` comes) anyway


@dataclass
class Generation:
    """One built tool set; closed (its stores released) once retired and its last call has ended."""

    gateway: "Gateway"
    inflight: int = 0
    retired: bool = False
    _guard: threading.Lock = field(default_factory=threading.Lock)

    def enter(self) -> None:
        with self._guard:
            self.inflight += 1

    def leave(self) -> None:
        with self._guard:
            self.inflight -= 1
            done = self.retired and self.inflight == 0
        if done:
            self._close()

    def retire(self) -> None:
        with self._guard:
            self.retired = True
            done = self.inflight == 0
        if done:
            self._close()

    def _close(self) -> None:
        self.gateway.writer.close()
        self.gateway.loader.close()


@dataclass
class ReloadResult:
    swapped: bool
    tools: list[str]
    problems: list[str]


@dataclass(frozen=True)
class RefusedReload:
    """The configuration as it is on disk, which the last reload could not serve: the old tools keep serving."""

    problems: list[str]
    declared: frozenset[str]  # the tools its files declare
    at: str  # when (UTC, ISO 8601)


class GatewayService:
    def __init__(
        self,
        settings: Settings,
        strict: bool = False,
        torch_threads: int | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        """
        :param strict: any configuration problem (a bad declaration, a model that does not load) stops the
            server; otherwise a broken tool is left out, reported, and every other tool is served.
        :param torch_threads: intra-op threads per query where torch serves (set after warm-up, if it
            loaded); on a busy 2-core machine, two spinning threads multiply the latency, so `haygate serve`
            uses one.
        :param telemetry: logs, metrics and spans (built from the settings unless given: tests pass one
            with an in-memory span exporter).
        """
        self.settings = settings
        self.strict = strict
        self.torch_threads = torch_threads
        self.catalog: Catalog = load_catalog(settings)
        if self.catalog.problems and strict:
            msg = "invalid configuration:\n" + "\n".join(f"- {p}" for p in self.catalog.problems)
            raise ConfigurationError(msg, {"problems": self.catalog.problems})
        self.state: State = "starting"
        self.failure: str | None = None
        self.problems: list[str] = list(self.catalog.problems)
        self.refused: RefusedReload | None = None  # the last reload, when it was refused
        self._generation: Generation | None = None
        self._ready = threading.Event()  # every tool warmed up and rehearsed (or the start failed)
        self._callable = threading.Event()  # the tools are built: a call runs (and warms its own tool)
        self._wanted = threading.Event()  # a client listed the tools, called one or asked for health
        self._answered = threading.Event()  # a first call was answered, or readiness asked: warm up the rest
        self._readiness_asked = threading.Event()  # `/health` was asked: an operator waits for `ready`
        self._reload_lock = threading.Lock()
        self._listeners: list[Callable[[], None]] = []
        self._data_listeners: list[Callable[[], None]] = []
        self.data_version = 0  # writes through this service so far: what the skill's filter values rest on
        self.started_at = time.monotonic()
        self._last_call_ended = 0.0  # when a call last ended (monotonic): the warm-up waits for lulls
        self.telemetry = telemetry or Telemetry(settings, self.collection_stats)

    @classmethod
    def serving(cls, gateway: "Gateway", telemetry: Telemetry | None = None) -> "GatewayService":
        """A ready service around a gateway built elsewhere (tests, `haygate call`): no background build."""
        service = cls(gateway.loader.settings, telemetry=telemetry)
        service._generation = Generation(gateway)
        service.telemetry.install()
        service.problems = list(gateway.problems)
        service.state = "ready"
        service._ready.set()
        service._callable.set()
        return service

    # -- what is served --------------------------------------------------------------------------

    def listing(self) -> dict[str, ToolDeclaration]:
        """The tools served now: the catalog's while starting, then the ones that were built."""
        generation = self._generation
        if generation is None:
            return self.catalog.served
        return {name: runtime.declaration for name, runtime in generation.gateway.tools.items()}

    def current(self) -> Generation | None:
        """The serving generation, or None while starting."""
        return self._generation

    def on_tools_changed(self, listener: Callable[[], None]) -> None:
        self._listeners.append(listener)

    def on_data_changed(self, listener: Callable[[], None]) -> None:
        """`listener()` after every write through this service (called in the writing thread)."""
        self._data_listeners.append(listener)

    def _tools_changed(self) -> None:
        for listener in self._listeners:
            try:
                listener()
            except Exception:
                logger.exception("a tools-changed listener failed")

    def health(self, verbose: bool = False) -> dict[str, Any]:
        """The status, with the collections whose indexes are being built aside (`indexing`: their calls are
        answered meanwhile, from unindexed segments); `verbose` adds each collection's documents, disk use and
        last write, and each tool's calls and p50/p95 since start (what `haygate stats` prints)."""
        from haygate import __version__

        self.load_now()  # whoever asks is waiting for it
        self._answered.set()
        self._readiness_asked.set()  # and the warm-up no longer waits for lulls in the calls
        problems = [*self.problems, *(self.refused.problems if self.refused else [])]
        degraded = self.state == "ready" and bool(problems)
        health: dict[str, Any] = {
            "status": "degraded" if degraded else self.state,
            "version": __version__,
            "tools": sorted(self.listing()),
            "problems": problems,
            **({"reload_refused": {"at": self.refused.at, "problems": self.refused.problems}} if self.refused else {}),
            "indexing": self._generation.gateway.writer.building() if self._generation is not None else [],
            "uptime_s": round(time.monotonic() - self.started_at, 1),
        }
        if verbose:
            health["collections"] = self.collection_stats()
            health["calls"] = self.telemetry.tool_stats()
        return health

    def collection_stats(self) -> dict[str, dict[str, Any]]:
        """Per configured collection: documents, disk bytes, last durable write (`Loader.collection_stats`)."""
        generation = self._generation
        return {} if generation is None else generation.gateway.loader.collection_stats()

    # -- starting --------------------------------------------------------------------------------

    def start(self, background: bool = True, grace: float = 0.0) -> None:
        """Build the first generation, in the background (the server answers meanwhile) or now. Failing
        now is a ConfigurationError: that is how `serve --strict` refuses to serve a broken configuration.

        In the background it goes in two steps, so a client's first answer waits only for what it needs:
        the tools are built (Haystack, the pipelines), and a call runs at once, warming its own pipeline;
        then, after that first answer, every tool is warmed up and rehearsed (`Gateway.warm_up`), and one
        that fails is left out and the clients told.

        :param grace: seconds the background build waits for a client to list the tools first (a call or a
            health check starts it at once: `load_now`), and then for a first call before it warms up the
            rest. Importing Haystack and loading the models holds the interpreter for a second or more; a
            client's handshake should not queue behind it, nor its first call behind the other tools'.
        """
        if background:
            threading.Thread(target=self._start_after, args=(grace,), name="haygate-warm-up", daemon=True).start()
            return
        self._start(grace=None)
        if self.state == "failed":
            raise ConfigurationError(self.failure or "the tools could not be built")

    def load_now(self) -> None:
        """A client has the tool list, wants an answer or asks whether the server is ready: the background
        build need not wait any longer."""
        self._wanted.set()

    def _start_after(self, grace: float) -> None:
        self._wanted.wait(grace)
        self._start(grace)

    def _start(self, grace: float | None) -> None:
        """Build; with a `grace`, serve calls once built and warm up the rest after the first answer (or the
        grace); without one, warm up before serving."""
        try:
            generation = self._build(warm=grace is None)
        except Exception as error:
            self.failure = getattr(error, "message", None) or f"{type(error).__name__}: {error}"
            self.state = "failed"
            logger.error("haygate cannot serve: %s", self.failure, exc_info=not isinstance(error, HaygateError))
            self._callable.set()
            self._ready.set()
            return
        if grace is not None:
            self._generation = generation
            self._callable.set()
            logger.info("serving calls: %d tool(s) built in %.1f s", len(generation.gateway.tools), self._uptime())
            self._answered.wait(grace)
            try:
                self._warm(generation.gateway, in_lulls=True)
            except Exception:  # what was served keeps serving; each tool was checked on its own and left out
                logger.exception("warming up the tools failed; they are served as they are")
        self._generation = generation
        self.state = "ready"
        self._callable.set()
        self._ready.set()
        logger.info("ready: %d tool(s) in %.1f s", len(generation.gateway.tools), self._uptime())
        if set(self.listing()) != set(self.catalog.served):
            self._tools_changed()  # a tool was left out while loading

    def _lull(self) -> None:
        """Wait until no call has run for `LULL` seconds (at most `LULL_WAIT`): a tool's warm-up holds the
        interpreter for a tenth of a second or more, which a client's next call should not wait behind. Not
        once `/health` was asked: whoever asks waits for `ready`, which comes when the warm-up ends."""
        deadline = time.monotonic() + LULL_WAIT
        while time.monotonic() < deadline and not self._readiness_asked.is_set():
            generation = self._generation
            busy = generation is not None and generation.inflight > 0
            if not busy and time.monotonic() - self._last_call_ended >= LULL:
                return
            time.sleep(LULL / 4)

    def _uptime(self) -> float:
        return time.monotonic() - self.started_at

    def _build(self, strict: bool | None = None, warm: bool = True) -> Generation:
        # Deferred on purpose: Haystack, torch and the models load here, after the server already answers.
        from haygate.gateway.loader import Loader
        from haygate.gateway.runtime import Gateway

        strict = self.strict if strict is None else strict
        loader = Loader(self.settings)
        try:
            gateway = Gateway.load(loader, strict=strict)
            if warm:
                self._warm(gateway, strict)
        except BaseException:
            loader.close()
            raise
        self.problems = list(gateway.problems)
        self.telemetry.install()
        return Generation(gateway)

    def _warm(self, gateway: "Gateway", strict: bool | None = None, in_lulls: bool = False) -> None:
        """Load every tool's models, open its stores and rehearse it; a tool that fails is left out (or, strict,
        stops the start). `in_lulls`: while serving, each tool's turn waits for a lull in the calls."""
        before_each = self._lull if in_lulls else None
        gateway.warm_up(strict=self.strict if strict is None else strict, before_each=before_each)
        if self.torch_threads is not None and torch_loaded():  # a torch backend or a cross-encoder serves
            import torch

            torch.set_num_threads(self.torch_threads)
        self.problems = list(gateway.problems)

    def wait_ready(self, timeout: float | None = None) -> Generation:
        """The serving generation; waits while starting, then UNAVAILABLE with a retry hint."""
        limit = self.settings.startup_timeout if timeout is None else timeout
        self.load_now()
        if not self._callable.wait(limit):
            msg = "haygate is starting (loading pipelines and models); retry in a few seconds"
            raise UnavailableError(msg, {"retry_after": 5, "status": self.state})
        if self._generation is None:
            msg = f"haygate could not start its tools: {self.failure}"
            raise UnavailableError(msg, {"status": self.state})
        return self._generation

    async def ready_generation(self) -> Generation:
        if self._callable.is_set():  # once started, no thread hop on the per-call path
            return self.wait_ready()
        return await anyio.to_thread.run_sync(self.wait_ready)

    # -- serving ---------------------------------------------------------------------------------

    async def call(self, name: str, arguments: Any, transport: str = "direct") -> dict[str, Any]:
        """One tool call, from any transport (`mcp`, `rest`, `cli`): logged, measured and traced as one."""
        known = name in self.listing()
        with self.telemetry.call(name if known else UNKNOWN_TOOL, transport, arguments) as record:
            if not known:
                raise self.unknown_tool(name)
            generation = await self.ready_generation()
            generation.enter()
            try:
                record.result = await generation.gateway.call_async(name, arguments)
            finally:
                generation.leave()
                self._last_call_ended = time.monotonic()
                self._answered.set()  # the other tools warm up after this first answer, not before it
            return record.result

    async def served_store(self, name: str) -> Any:
        """A configured collection's store, the one the serving tools share (what /health's `collections` lists);
        an unknown name is refused as a loader refuses it, whichever door asked."""
        generation = await self.ready_generation()
        return await anyio.to_thread.run_sync(generation.gateway.loader.store, name)

    async def explain(
        self, name: str, arguments: Any, pipeline: Path | None = None, source: str | None = None
    ) -> dict[str, Any]:
        """A console call: the tool as served (a call like any other, counted under the transport `console`),
        or with another pipeline file of the project in its place, or its retrievers on one `source` (a
        comparison, not counted as the tool's); with each result row's provenance and the time the call took."""
        if name not in self.listing():
            raise self.unknown_tool(name)
        generation = await self.ready_generation()
        generation.enter()
        try:
            gateway = generation.gateway
            if pipeline is None and source is None:
                runtime = gateway.get(name)
                with self.telemetry.call(name, "console", arguments) as record:
                    started = time.perf_counter()
                    result, provenance = await anyio.to_thread.run_sync(runtime.explain, arguments)
                    record.result = result
            else:
                runtime = await anyio.to_thread.run_sync(gateway.variant, name, pipeline, source)
                started = time.perf_counter()
                result, provenance = await anyio.to_thread.run_sync(runtime.explain, arguments)
            elapsed_ms = (time.perf_counter() - started) * 1000
        finally:
            generation.leave()
        elapsed = round(elapsed_ms, 2)
        answer = {"tool": name, "result": result, "provenance": provenance, "elapsed_ms": elapsed}
        return {**answer, "collections": runtime.collections}  # where its results' records are read whole

    def unknown_tool(self, name: str) -> HaygateError:
        """What a client is told (MCP and REST alike) for a tool this server does not serve: UNAVAILABLE, with
        why, for one its configuration declares but that could not be served (a refused reload, a tool left out
        at start); else NOT_FOUND."""
        available = sorted(self.listing())
        why = self.not_served(name)
        if why:
            msg = f"tool '{name}' is declared but not served: {why[0]}" + (
                f" (and {len(why) - 1} more)" if len(why) > 1 else ""
            )
            return UnavailableError(msg, {"tool": name, "problems": why, "available": available})
        return UnknownToolError(name, available)

    def not_served(self, name: str) -> list[str]:
        """Why a tool the configuration declares is not served: the problems of a refused reload, or of the
        start, that name it (or all of a refused reload's, when none names it); empty when it is not declared."""
        refused = self.refused
        declared = name in self.catalog.declarations or (refused is not None and name in refused.declared)
        problems = [*(refused.problems if refused else []), *self.problems]
        naming = [p for p in problems if f"'{name}'" in p or f"{name}.yaml" in p]
        if naming:
            return naming
        if declared and refused is not None:
            return [f"the last reload of the configuration was refused: {p}" for p in refused.problems]
        return []

    async def write(self, work: Callable[["Gateway"], Written]) -> Written:
        """Run a write (`lambda gateway: gateway.writer.upsert(...)`) on the serving generation."""
        generation = await self.ready_generation()
        generation.enter()
        try:
            written = await anyio.to_thread.run_sync(work, generation.gateway)
        finally:
            generation.leave()
        self.data_version += 1
        for listener in self._data_listeners:
            try:
                listener()
            except Exception:
                logger.exception("a data-changed listener failed")
        return written

    # -- reloading -------------------------------------------------------------------------------

    def reload(self) -> ReloadResult:
        """Rebuild from the YAML as it is now; swap only if every tool builds and warms up."""
        with self._reload_lock:
            catalog = load_catalog(self.settings)
            problems = list(catalog.problems)
            generation: Generation | None = None
            if not problems:
                try:
                    generation = self._build(strict=True)
                except ConfigurationError as error:
                    problems = list(error.details.get("problems") or [error.message])
            current = sorted(self.listing())
            if generation is None:
                for problem in problems:
                    logger.error("reload refused, the old tools keep serving: %s", problem)
                at = datetime.now(UTC).isoformat(timespec="seconds")
                self.refused = RefusedReload(problems, frozenset(catalog.declarations), at)
                return ReloadResult(False, current, problems)
            old, self._generation, self.catalog = self._generation, generation, catalog
            self.problems, self.state, self.refused = list(generation.gateway.problems), "ready", None
            self._callable.set()
            self._ready.set()
            if old is not None:
                old.retire()
            logger.info("reloaded: %s", ", ".join(sorted(self.listing())))
            self._tools_changed()
            return ReloadResult(True, sorted(self.listing()), [])

    @contextmanager
    def reloads_held(self) -> Iterator[None]:
        """No reload swaps the tools while this holds (a validation checks what is on disk meanwhile)."""
        with self._reload_lock:
            yield

    # -- what an agent is told -------------------------------------------------------------------

    @property
    def skill_name(self) -> str:
        """The project's name as its skill and instructions give it (`HAYGATE_SKILL_NAME`, else the folder's)."""
        return skill_name(self.settings.home.resolve().name, self.settings.skill_name)

    def outline(self, listing: dict[str, ToolDeclaration]) -> Outline:
        """What the project's YAML says of these tools: its name, their collections and what those hold."""
        return outline(self.skill_name, self.settings.pipelines_dir, self.settings.collections_dir, listing)

    def instructions(self) -> str:
        """The MCP instructions for the tools served now: from the YAML alone, so a starting server has them."""
        listing = self.listing()
        return instructions(self.outline(listing), listing)

    def skill(self) -> "Skill":
        """The project's skill for the tools served now, drawn from their data (its example calls run on the
        serving generation); while the tools load, from the declarations alone."""
        from haygate.gateway.skill import build_skill

        generation = self._generation
        if generation is None:
            listing = self.listing()
            return build_skill(self.outline(listing), listing, None)
        generation.enter()
        try:
            tools = generation.gateway.tools
            listing = {name: runtime.declaration for name, runtime in tools.items()}
            return build_skill(self.outline(listing), listing, tools)
        finally:
            generation.leave()

    async def watch(self) -> None:
        """Reload when a file under configs/ or pipelines/ changes; a change made while starting is
        reloaded once the start ends (which also lets a fixed file recover a start that failed)."""
        import watchfiles

        folders = [self.settings.home / "configs", self.settings.pipelines_dir]
        # A short rust_timeout: the watcher thread notices a stop (shutdown) within 0.2 s.
        async for changes in watchfiles.awatch(*folders, debounce=400, step=100, rust_timeout=200):
            logger.info("configuration changed (%d file(s)); reloading", len(changes))
            if not self._ready.is_set():  # the first build may have read the files before they changed
                await anyio.to_thread.run_sync(self._ready.wait, abandon_on_cancel=True)
            await anyio.to_thread.run_sync(self.reload)

    def close(self) -> None:
        generation, self._generation = self._generation, None
        if generation is not None:
            generation.retire()
        self.telemetry.close()
