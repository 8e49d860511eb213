"""The gateway core, transport-free: declarations + pipelines -> callable tools with one error model.

`server.py` puts MCP and REST in front of this; `haygate call` and evaluation use it directly.
"""

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
from haystack import Pipeline
from haystack.core.errors import PipelineRuntimeError
from pydantic import BaseModel, ValidationError

from components.errors import ConfigurationError, HaygateError, InvalidRequestError, NotFoundError
from haygate.declarations import ToolDeclaration, load_declarations
from haygate.loader import load_pipeline
from haygate.settings import TIER_ORDER, Settings, get_settings

logger = logging.getLogger(__name__)


class InternalError(HaygateError):
    """Anything unexpected; its text never reaches a client."""

    code = "INTERNAL_ERROR"


def validation_details(error: ValidationError, declaration: ToolDeclaration) -> list[dict[str, Any]]:
    """pydantic errors -> one entry per field, with what the declaration allows."""
    details = []
    for problem in error.errors(include_url=False, include_input=False):
        name = str(problem["loc"][0]) if problem["loc"] else ""
        entry: dict[str, Any] = {"field": name, "problem": problem["type"], "message": problem["msg"]}
        if len(problem["loc"]) > 1:
            entry["location"] = ".".join(str(part) for part in problem["loc"])  # e.g. required_skills.1
        spec = declaration.parameters.get(name)
        if problem["type"] == "extra_forbidden":
            entry["message"] = f"unknown parameter; allowed: {', '.join(declaration.parameters)}"
        elif spec is not None:
            entry["expected"] = spec.type if spec.type != "array" else f"array of {spec.items or 'string'}"
            if spec.enum is not None or spec.item_enum is not None:
                entry["allowed"] = spec.enum if spec.enum is not None else spec.item_enum
            if spec.minimum is not None:
                entry["minimum"] = spec.minimum
            if spec.maximum is not None:
                entry["maximum"] = spec.maximum
        details.append(entry)
    return details


def cause_of(error: BaseException) -> HaygateError | None:
    """The first HaygateError in an exception chain (Haystack wraps component errors)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, HaygateError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


@dataclass
class ToolRuntime:
    """One declared tool bound to its loaded pipeline."""

    declaration: ToolDeclaration
    pipeline: Pipeline
    arguments_model: type[BaseModel] = field(init=False)

    def __post_init__(self) -> None:
        self.arguments_model = self.declaration.arguments_model()
        self._input = self.declaration.input.split(".", 1)
        self._output = self.declaration.output.split(".", 1)

    @property
    def name(self) -> str:
        return self.declaration.name

    def validate_arguments(self, arguments: Any) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            msg = f"arguments must be a JSON object, got {type(arguments).__name__}"
            raise InvalidRequestError(msg)
        try:
            return self.arguments_model.model_validate(arguments).model_dump()
        except ValidationError as error:
            details = validation_details(error, self.declaration)
            summary = "; ".join(f"{d['field']}: {d['message']}" for d in details)
            msg = f"invalid arguments for '{self.name}': {summary}"
            raise InvalidRequestError(msg, {"errors": details}) from None

    def run(self, arguments: Any, server_filters: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """Validate, run the pipeline, return the declared output. Raises HaygateError subclasses only."""
        valid = {**self.validate_arguments(arguments), **self.declaration.fixed_arguments}
        component, socket = self._input
        data: dict[str, dict[str, Any]] = {component: {socket: valid}}
        if server_filters:
            data[component]["server_filters"] = server_filters
        out_component, out_socket = self._output
        try:
            outputs = self.pipeline.run(data, include_outputs_from={out_component})
        except Exception as error:
            known = cause_of(error)
            if known is not None:
                raise known from None
            where = error.component_name if isinstance(error, PipelineRuntimeError) else "pipeline"
            logger.exception("tool '%s' failed in component '%s'", self.name, where)
            msg = f"tool '{self.name}' failed; the server log has the details"
            raise InternalError(msg) from error
        return outputs[out_component][out_socket]


class Gateway:
    """Every tool this server exposes, loaded and checked up front."""

    def __init__(self, tools: dict[str, ToolRuntime], settings: Settings) -> None:
        self.tools = tools
        self.settings = settings

    @classmethod
    def load(cls, settings: Settings | None = None, files: list[Path] | None = None) -> "Gateway":
        """Load declarations (all of `configs/tools/` by default). Raises ConfigurationError listing problems."""
        settings = settings or get_settings()
        runtimes, problems = load_tools(settings, files)
        if problems:
            msg = "invalid configuration:\n" + "\n".join(f"- {p}" for p in problems)
            raise ConfigurationError(msg, {"problems": problems})
        visible = {
            name: runtime
            for name, runtime in runtimes.items()
            if TIER_ORDER[runtime.declaration.tier] <= TIER_ORDER[settings.tier]
        }
        return cls(visible, settings)

    def warm_up(self) -> None:
        """Load models and open stores now, so a broken model stops the server at start."""
        for runtime in self.tools.values():
            try:
                runtime.pipeline.warm_up()
            except HaygateError:
                raise
            except Exception as error:
                msg = f"tool '{runtime.name}': warm-up failed: {error}"
                raise ConfigurationError(msg) from error

    def get(self, name: str) -> ToolRuntime:
        if name not in self.tools:
            msg = f"unknown tool '{name}'; available: {', '.join(sorted(self.tools))}"
            raise NotFoundError(msg, {"tool": name, "available": sorted(self.tools)})
        return self.tools[name]

    def server_filters(self, runtime: ToolRuntime) -> list[dict[str, Any]]:
        """Conditions the server applies to a tool's every query (the tenant); callers cannot see or change them."""
        field = runtime.declaration.tenant_field
        if field is None:
            return []
        return [{"field": field, "operator": "==", "value": self.settings.project_id}]

    def call(self, name: str, arguments: Any) -> dict[str, Any]:
        runtime = self.get(name)
        return runtime.run(arguments, self.server_filters(runtime))

    async def call_async(self, name: str, arguments: Any) -> dict[str, Any]:
        runtime = self.get(name)
        return await anyio.to_thread.run_sync(runtime.run, arguments, self.server_filters(runtime))


def load_tools(settings: Settings, files: list[Path] | None = None) -> tuple[dict[str, ToolRuntime], list[str]]:
    """Load every declaration and its pipeline; collect all problems instead of stopping at the first."""
    paths = files if files is not None else sorted(settings.tools_dir.glob("*.yaml"))
    runtimes: dict[str, ToolRuntime] = {}
    problems: list[str] = []
    for path in paths:
        try:
            declarations = load_declarations(path)
        except ConfigurationError as error:
            problems.append(error.message)
            continue
        for declaration in declarations:
            try:
                if declaration.name in runtimes:
                    msg = f"{path}: tool name '{declaration.name}' is declared twice"
                    raise ConfigurationError(msg)
                pipeline_path = settings.home / "pipelines" / declaration.pipeline
                pipeline = load_pipeline(pipeline_path)
                check_sockets(declaration, pipeline, pipeline_path)
                if declaration.tenant_field and not settings.project_id:
                    # Never serve tenant data without a tenant: the tool stays hidden, and the log says why.
                    logger.warning(
                        "tool '%s' is not served: it is tenant-scoped (%s); set HAYGATE_PROJECT_ID",
                        declaration.name,
                        declaration.tenant_field,
                    )
                    continue
                runtimes[declaration.name] = ToolRuntime(declaration, pipeline)
            except ConfigurationError as error:
                problems.append(error.message)
    return runtimes, problems


def check_sockets(declaration: ToolDeclaration, pipeline: Pipeline, path: Path) -> None:
    """The declared input and output must be real sockets of the pipeline (Hayhooks checks the same)."""
    inputs = pipeline.inputs(include_components_with_connected_inputs=True)
    outputs = pipeline.outputs(include_components_with_connected_outputs=True)
    for kind, target, sockets in (
        ("input", declaration.input, inputs),
        ("output", declaration.output, outputs),
    ):
        component, _, socket = target.partition(".")
        if component not in sockets or socket not in sockets[component]:
            msg = f"{path}: tool '{declaration.name}' declares {kind} '{target}', which the pipeline lacks"
            raise ConfigurationError(msg, {"file": str(path), "component": component})
