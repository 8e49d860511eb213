"""The gateway's operations, declared once: each is a function of a `Workspace` and a pydantic request, answering
a pydantic reply. One table (`OPERATIONS`) serves every door: the server's route family
(`POST /api/operations/{name}`, `haygate.server.routes.operations`), the one client method that calls it
(`ServerClient.operate`), and the command line, whose commands are rows of operation and printer
(`haygate.remote.OPERATED`). Where an operation runs is the only fork: in this process (`LocalWorkspace`) or
in the server that holds the data (`haygate.server.workspace.ServedWorkspace`), with the same answers.

A new operation is a request model, a reply model, a function and a row here; a command for it is one more row
in `haygate.remote.OPERATED`, and it works beside a running server with no more code.
"""

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from haygate.errors import InvalidRequestError, NotFoundError
from haygate.settings import Settings

if TYPE_CHECKING:  # Haystack's: the table is read where no pipeline runs (the server's OpenAPI, a handshake)
    from haygate.gateway.loader import Loader
    from haygate.gateway.runtime import Gateway
    from haygate.gateway.writer import Writer

T = TypeVar("T")


class Workspace(Protocol):
    """Where an operation runs: what differs between this process and the server that holds the data."""

    settings: Settings

    def serving(self, only: str | None = None) -> AbstractContextManager["Gateway"]:
        """The tools as served (warm: their pipelines built and their models loaded); `only`: that tool alone
        will do (this process then builds no other)."""
        ...

    def writing(self, work: Callable[["Writer"], T]) -> T:
        """A write, on the collections' one writer (a server's runs it beside its calls)."""
        ...

    def checking(self) -> AbstractContextManager[tuple["Loader", bool]]:
        """A loader to check the configuration on disk with, on the data (or a scratch data dir with nothing
        ingested: then True, and the checks say what that left unchecked)."""
        ...

    def call(self, tool: str, arguments: Any) -> dict[str, Any]:
        """One tool call (a server's is logged, measured and traced as any other)."""
        ...

    def health(self, verbose: bool) -> dict[str, Any]:
        """The service's status; `verbose`: with its collections and calls."""
        ...


class Request(BaseModel):
    """A request as it comes (JSON): no field it does not declare, and no value coerced to another type."""

    model_config = ConfigDict(extra="forbid", strict=True)


class CallRequest(Request):
    tool: str = Field(min_length=1, description="The tool to call.")
    arguments: Any = Field(default_factory=dict, description="Its arguments, as its input schema types them.")


class ToolResult(BaseModel):
    """A tool's own result, as its declaration's result schema says."""

    model_config = ConfigDict(extra="allow")


class DeleteRequest(Request):
    collection: str = Field(min_length=1, description="The collection to delete records from.")
    ids: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1, description="Record ids (each record goes with all its chunks)."
    )


class Deleted(BaseModel):
    """What a delete by id did."""

    collection: str = Field(description="The collection the ids were deleted from.")
    deleted: int = Field(description="Records deleted, with all their chunks.")
    points: int = Field(description="Stored points (chunks) deleted.")
    missing: list[str] = Field(description="Ids that were not there.")


class HealthRequest(Request):
    verbose: bool = Field(False, description="With each collection's documents, disk use and last write, and calls.")


class HealthReply(BaseModel):
    """The service's status (`not running`: no server holds the data, and this process read it)."""

    model_config = ConfigDict(extra="allow")

    status: str = Field(
        description="`ready`, `starting`, `degraded`, ...; `not running` when no server holds the data."
    )
    collections: dict[str, dict[str, Any]] | None = Field(
        None, description="Per configured collection: documents, disk bytes, last write (with `verbose`)."
    )
    calls: dict[str, dict[str, Any]] | None = Field(
        None, description="Per tool: calls, outcomes and latency since the server started (with `verbose`)."
    )


class ValidateRequest(Request):
    files: list[str] = Field(default_factory=list, description="Declarations (default: configs/tools/*.yaml).")


class ValidationReply(BaseModel):
    """What `haygate validate` found (`haygate.gateway.validation.Validation`)."""

    tools: dict[str, str] = Field(description="Each tool that passed every check, with its declaration file.")
    unchecked: dict[str, str] = Field(description="Each tool some check could not be made for, and why.")
    hidden: dict[str, str] = Field(description="Each tool this server would not serve (tier, tenant), and why.")
    problems: list[str] = Field(description="What fails the configuration: each with its file, line and fix.")
    warnings: list[str] = Field(description="What does not fail it but finds nothing (an example, a filter value).")
    removable: list[dict[str, str]] = Field(
        description="Each parameter a check advises taking out, with its declaration and pipeline (`--fix`)."
    )


class ExamplesRequest(Request):
    tool: str | None = Field(None, description="One tool (default: every search tool).")


class Proposal(BaseModel):
    file: str = Field(description="The tool's declaration.")
    proposed: dict[str, Any] = Field(description="Per parameter, examples drawn from the data.")


class ExamplesReply(BaseModel):
    tools: dict[str, Proposal] = Field(description="Per tool, the examples drawn for its parameters.")


Q = TypeVar("Q", bound=Request)
R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True)
class Operation(Generic[Q, R]):
    """One thing the gateway does, for any door."""

    name: str
    summary: str
    request: type[Q]
    reply: type[R]
    run: Callable[[Workspace, Q], R]
    writes: bool = False  # refused where writes are (a server open beyond this machine without a token)
    owner_only: bool = False  # only the data's owner may ask (a server's local socket): it builds every tool

    def __call__(self, workspace: Workspace, request: Any) -> R:
        """Run it on `workspace` with `request` (a model, or what validates as one: a field that does not is
        refused, by name)."""
        try:
            checked = self.request.model_validate(request)
        except ValidationError as error:
            problem = error.errors()[0]
            where = ".".join(str(part) for part in problem["loc"]) or "body"
            raise InvalidRequestError(f"{self.name}: {where}: {problem['msg']}", {"field": where}) from None
        return self.run(workspace, checked)


def call_tool(workspace: Workspace, request: CallRequest) -> ToolResult:
    return ToolResult.model_validate(workspace.call(request.tool, request.arguments))


def delete(workspace: Workspace, request: DeleteRequest) -> Deleted:
    return Deleted.model_validate(workspace.writing(lambda writer: writer.delete(request.collection, request.ids)))


def health(workspace: Workspace, request: HealthRequest) -> HealthReply:
    return HealthReply.model_validate(workspace.health(request.verbose))


def check(workspace: Workspace, request: ValidateRequest) -> ValidationReply:
    """Every check a server makes on the configuration as it is on disk, nothing swapped in."""
    from haygate.gateway.validation import validate

    home = workspace.settings.home.resolve()
    files = [declaration_file(home, name) for name in request.files] or None
    with workspace.checking() as (loader, empty):
        found = validate(loader, files, empty=empty)
    return ValidationReply.model_validate(found.as_dict())


def examples(workspace: Workspace, request: ExamplesRequest) -> ExamplesReply:
    """Examples for each search tool's parameters (or one tool's), drawn from the data."""
    from haygate.gateway.examples import propose

    with workspace.serving(only=request.tool) as gateway:
        if not any(store.exists() for store in gateway.loader.stores().values()):
            raise InvalidRequestError("nothing is ingested yet: `haygate ingest COLLECTION FILE...` first")
        names = [request.tool] if request.tool else sorted(n for n, t in gateway.tools.items() if t.pipeline)
        proposals = {}
        for name in names:
            runtime = gateway.get(name)
            if runtime.pipeline is None:
                raise InvalidRequestError(f"tool '{name}' runs no pipeline: it has no examples to draw")
            runtime.pipeline.pipeline.warm_up()
            proposals[name] = Proposal(file=str(runtime.declaration.source_file), proposed=propose(runtime))
    return ExamplesReply(tools=proposals)


def declaration_file(home: Path, name: str) -> Path:
    """A declaration file, absolute or relative to the project, in configs/tools/ or not (a draft checked before
    it is put there): the same file whichever door checks it."""
    path = (home / name).resolve()
    if not path.is_file():
        raise InvalidRequestError(f"no declaration file {name!r}", {"field": "files"})
    return path


OPERATIONS: dict[str, Operation[Any, Any]] = {
    op.name: op
    for op in (
        Operation("call", "Call a tool.", CallRequest, ToolResult, call_tool),
        Operation("delete", "Delete records by id.", DeleteRequest, Deleted, delete, writes=True),
        Operation("health", "The service's status.", HealthRequest, HealthReply, health),
        Operation("validate", "Every check, on the data.", ValidateRequest, ValidationReply, check, owner_only=True),
        Operation("examples", "Examples from the data.", ExamplesRequest, ExamplesReply, examples, owner_only=True),
    )
}


def operation(name: str) -> Operation[Any, Any]:
    if name not in OPERATIONS:
        raise NotFoundError(f"no operation '{name}'; operations: {', '.join(OPERATIONS)}", {"field": "name"})
    return OPERATIONS[name]
