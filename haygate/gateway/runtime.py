"""The gateway core, transport-free: declarations + pipelines -> the served tools, built, warmed up and checked
from one loader (`Gateway`). One tool is `tool.ToolRuntime`; `haygate validate`'s checks are `validation`.

`mcp.py` and `http.py` put MCP and REST in front of this; `haygate call` uses it directly.
"""

import json
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from haygate.components.response_formatter import ResponseFormatter
from haygate.errors import (
    ConfigurationError,
    HaygateError,
    InvalidRequestError,
    NotFoundError,
    UnknownToolError,
)
from haygate.gateway.catalog import load_catalog
from haygate.gateway.loader import Loader
from haygate.gateway.tool import (
    ToolRuntime,
    check_interface,
    check_stores,
    ranked_rows,
)
from haygate.gateway.writer import Writer

logger = logging.getLogger(__name__)


class Gateway:
    """Every tool this server exposes, built and checked up front from one loader."""

    def __init__(
        self,
        tools: dict[str, ToolRuntime],
        loader: Loader,
        problems: list[str] | None = None,
        writer: Writer | None = None,
    ) -> None:
        self.tools = tools
        self.loader = loader
        self.problems = list(problems or [])
        self.warnings: list[str] = []  # what `haygate validate` reports without refusing: examples that find nothing
        self.writer = writer or Writer(loader)
        self._variants: dict[tuple[str, Path, str | None], ToolRuntime] = {}
        self._variants_lock = threading.Lock()

    @classmethod
    def load(
        cls, loader: Loader, files: list[Path] | None = None, strict: bool = True, only: str | None = None
    ) -> "Gateway":
        """Build the served tools (all of `configs/tools/` by default, or just the tool `only`). `strict`: any
        problem is a ConfigurationError listing them all; otherwise a broken tool is left out, its problem kept."""
        writer = Writer(loader)
        runtimes, problems = load_tools(loader, files, writer=writer, only=only)
        if problems and strict:
            msg = "invalid configuration:\n" + "\n".join(f"- {p}" for p in problems)
            raise ConfigurationError(msg, {"problems": problems})
        for problem in problems:
            logger.error("left out: %s", problem)
        return cls(runtimes, loader, problems, writer)

    def warm_up(
        self,
        strict: bool = True,
        optimize: bool = True,
        examples: int = 1,
        before_each: Callable[[], None] | None = None,
    ) -> None:
        """Load models and open stores now: a broken model stops a strict start, or leaves its tool out.
        `optimize`: build the indexes of collections written since (a server; not `haygate validate`).
        `examples`: example calls per tool (a server makes one; `haygate validate` up to REHEARSALS).
        `before_each`: called before each tool's turn (a serving server waits there for a lull in the calls)."""
        for name, runtime in list(self.tools.items()):
            if runtime.pipeline is None:
                continue
            if before_each is not None:
                before_each()
            try:
                check_stores(runtime)
                runtime.pipeline.pipeline.warm_up()
                answered = runtime.rehearse(examples)
                self.check_meta_fields(runtime, [result for _, result in answered])
                self.warnings += example_warnings(runtime, answered)
            except Exception as error:
                reason = error.message if isinstance(error, HaygateError) else str(error)
                problem = reason if reason.startswith(f"tool '{name}'") else f"tool '{name}': warm-up failed: {reason}"
                if strict:
                    raise ConfigurationError(problem) from error
                logger.error("left out: %s", problem)
                self.problems.append(problem)
                del self.tools[name]
        for collection, store in self.loader.stores().items() if optimize else []:
            if store.needs_optimizing():
                logger.info(
                    "'%s' was written without building its indexes: building them in the background", collection
                )
                self.writer.optimize_soon(collection)

    def check_meta_fields(self, runtime: ToolRuntime, results: list[dict[str, Any]]) -> None:
        """A formatter field whose meta key no example result has and the collection does not declare is a
        typo (`meta.sorce` for `meta.source`): every result would carry it as null. Checked only when the
        examples found something, since an empty store has no meta to go by."""
        assert runtime.pipeline is not None
        for _, formatter in runtime.pipeline.pipeline.walk():
            if not isinstance(formatter, ResponseFormatter):
                continue
            rows = [
                row for result in results for row in result.get(formatter.results_key) or [] if isinstance(row, dict)
            ]
            if not rows:
                continue
            declared = self.loader.schema(formatter.collection).declared_meta_keys()
            for field_name, key in formatter.meta_fields().items():
                if key not in declared and all(row.get(field_name) is None for row in rows):
                    msg = (
                        f"tool '{runtime.name}': formatter field '{field_name}' reads meta.{key}, which none of "
                        f"{len(rows)} example results has and collection '{formatter.collection}' does not "
                        f"declare; its declared meta keys: {', '.join(sorted(declared))}"
                    )
                    raise ConfigurationError(msg)

    def get(self, name: str) -> ToolRuntime:
        if name not in self.tools:
            raise UnknownToolError(name, self.tools)
        return self.tools[name]

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        return self.get(name).run(arguments)

    def variant(self, name: str, path: Path | None, source: str | None = None) -> ToolRuntime:
        """Tool `name` with another pipeline file in its place, as `haygate eval --pipeline` runs one, or (`path`
        None) its own; `source` (`dense`, `bm25`): with its retrievers on that source alone, as a judging pool
        runs it. The same declaration, argument checks and tenant. Built, checked against the declaration and
        warmed up once."""
        served = self.get(name)
        if path is None:
            path = self.loader.settings.pipelines_dir / served.declaration.pipeline_file
        with self._variants_lock:
            if (name, path, source) not in self._variants:
                try:
                    loaded = self.loader.pipeline(path, source)
                    check_interface(served.declaration, loaded)
                except ConfigurationError as error:
                    alone = f" on {source} alone" if source else ""
                    msg = f"pipeline '{path.name}' cannot run{alone} in place of '{name}': {error.message}"
                    raise InvalidRequestError(msg, {"field": "source" if source else "pipeline"}) from None
                loaded.pipeline.warm_up()
                self._variants[(name, path, source)] = ToolRuntime(
                    served.declaration, loaded, served.tenant, checks_result=source is None
                )
            return self._variants[(name, path, source)]

    async def call_async(self, name: str, arguments: Any) -> dict[str, Any]:
        return await anyio.to_thread.run_sync(self.get(name).run, arguments)


def example_warnings(runtime: ToolRuntime, answered: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[str]:
    """An example call that finds nothing: what the declaration shows agents should show something."""
    warnings = []
    for arguments, result in answered:
        rows = ranked_rows(result)
        if rows is not None and not rows:
            said = (result.get("metadata") or {}).get("message") if isinstance(result.get("metadata"), dict) else None
            warnings.append(
                f"tool '{runtime.name}': its example call {json.dumps(arguments)} finds nothing"
                + (f" ({said})" if said else "")
                + "; give examples that find something in your data (`haygate examples` proposes some)"
            )
    return warnings


def load_tools(
    loader: Loader,
    files: list[Path] | None = None,
    include_hidden: bool = False,
    writer: Writer | None = None,
    only: str | None = None,
) -> tuple[dict[str, ToolRuntime], list[str]]:
    """Build every served declaration (every one, for `haygate validate`; or the one tool `only`, for
    `haygate call`); collect all problems."""
    settings = loader.settings
    catalog = load_catalog(settings, files)
    declarations = catalog.declarations if include_hidden else catalog.served
    if only is not None:
        if only in catalog.hidden and not include_hidden:
            msg = f"tool '{only}' is not served: {catalog.hidden[only]}"
            raise NotFoundError(msg, {"tool": only})
        if only not in declarations:
            raise UnknownToolError(only, catalog.served)
        declarations = {only: declarations[only]}
    elif not include_hidden:
        for name, reason in catalog.hidden.items():
            logger.info("tool '%s' is not served: %s", name, reason)
    runtimes: dict[str, ToolRuntime] = {}
    problems = list(catalog.problems) if only is None else []  # the one tool parsed; others don't matter
    writer = writer or Writer(loader)
    for declaration in declarations.values():
        try:
            if declaration.action is not None:
                runtimes[declaration.name] = ToolRuntime(declaration, None, settings.project_id, writer)
                continue
            pipeline = loader.pipeline(settings.pipelines_dir / declaration.pipeline_file)
            check_interface(declaration, pipeline)
            runtimes[declaration.name] = ToolRuntime(declaration, pipeline, settings.project_id)
        except ConfigurationError as error:
            named = f"tool '{declaration.name}'" in error.message
            problems.append(error.message if named else f"tool '{declaration.name}': {error.message}")
    return runtimes, problems
