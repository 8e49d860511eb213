"""The gateway's operations, declared once: each is a function of a `Workspace` and a pydantic request, answering
a pydantic reply. One table (`OPERATIONS`) serves every door: the server's route family
(`POST /api/operations/{name}`, `haygate.server.routes.operations`), the one client method that calls it
(`ServerClient.operate`), and the command line, whose commands are rows of operation and printer
(`haygate.remote.OPERATED`). Where an operation runs is the only fork: in this process (`LocalWorkspace`) or
in the server that holds the data (`haygate.server.workspace.ServedWorkspace`), with the same answers.

A new operation is a request model, a reply model, a function and a row here; a command for it is one more row
in `haygate.remote.OPERATED`, and it works beside a running server with no more code.
"""

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, Protocol, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, RootModel, ValidationError

from haygate.errors import InvalidRequestError, NotFoundError
from haygate.gateway.agreement import Agreement
from haygate.gateway.judged_sets import SET_NAME, SavedSet, Whole, save_set, whole_number
from haygate.ingest.report import IngestReport
from haygate.settings import Settings

if TYPE_CHECKING:  # Haystack's: the table is read where no pipeline runs (the server's OpenAPI, a handshake)
    from haygate.document_stores.hybrid import HybridDocumentStore
    from haygate.gateway.declarations import ToolDeclaration
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

    def listing(self) -> dict[str, "ToolDeclaration"]:
        """The tools served, by name (their declarations, read without building a pipeline)."""
        ...

    def reading(self, collection: str) -> AbstractContextManager["HybridDocumentStore"]:
        """A collection's store, to read (a server's: one its tools serve)."""
        ...

    def explain(self, tool: str, arguments: Any, pipeline: Path | None, source: str | None = None) -> dict[str, Any]:
        """A call with each result row's provenance: the tool as served, or with `pipeline` in its place, or its
        retrievers on one `source` (a comparison: a server does not count it as the tool's call)."""
        ...

    def reload(self) -> dict[str, Any] | None:
        """The tools rebuilt from the configuration on disk and swapped in if every check passes (`reloaded`,
        `tools`, `problems`); None where no server serves them, so there is nothing to reload."""
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


class UpsertRequest(Request):
    collection: str = Field(min_length=1, description="The collection to write the records into.")
    records: list[dict[str, Any]] = Field(
        min_length=1,
        description="Records (JSON objects), each mapped as the collection's YAML declares and written through its "
        "indexing pipeline: a record that does not fit is refused with why, the rest land.",
    )


class Ingested(RootModel):  # type: ignore[type-arg]  # RootModel[IngestReport] would build its schema at import
    """What a write did with each record: added, updated, unchanged or refused (with why); the ingest's report."""

    model_config = ConfigDict(defer_build=True)  # built at the first write: a server's start reads the table

    root: IngestReport


class ReloadRequest(Request):
    """Nothing to say: the configuration is read as it is on disk."""


class Reloaded(BaseModel):
    """A reload of configs/ and pipelines/: swapped in only if every check passed."""

    reloaded: bool = Field(description="Whether the new configuration is serving now.")
    running: bool = Field(
        True,
        description="Whether a server serves the tools: without one nothing is reloaded (a server reads the "
        "configuration as it is when it starts, and reloads it when a file changes).",
    )
    tools: list[str] = Field(description="The tools served now (none where no server runs).")
    problems: list[str] = Field(
        description="Why it was not swapped in: what the configuration gets wrong (the old tools keep serving), "
        "or that no server runs."
    )


class SkillRequest(Request):
    """Nothing to say: the skill is the project's, for the tools served."""


class SkillReply(BaseModel):
    """The project's skill for agents (a server's MCP serves it as `skill://<name>/...`), as `haygate skill`
    prints it."""

    name: str = Field(description="The skill's name: the project's (`HAYGATE_SKILL_NAME`, else its folder's).")
    description: str = Field(description="What it is for, as SKILL.md's front matter says.")
    files: dict[str, str] = Field(description="Each file's text by its path in the skill: SKILL.md, tools/<tool>.md.")
    from_data: bool = Field(
        description="Whether its example calls ran on ingested data (false: nothing is ingested yet, and it says "
        "what the declarations say)."
    )


class SaveJudgedSetRequest(SavedSet, Request):
    """One split of a judged set, as the console's Judge tab saves it."""

    model_config = ConfigDict(defer_build=True)  # built at the first save, not at a server's start

    name: str = Field(
        description="The set: its folder under the project's evaluation/ (a-z, 0-9, '-', '_').",
        json_schema_extra={"pattern": SET_NAME},  # published; refused by `set_folder`, which says what a name is
    )


class JudgedSetSaved(BaseModel):
    """What a judged set's save wrote."""

    name: str = Field(description="The judged set.")
    folder: str = Field(description="Its folder, under the project (`evaluation/<name>`).")
    split: str = Field(description="The split saved (the others were kept as they were).")
    queries: int = Field(description="The split's queries.")
    judged: int = Field(description="The split's grades, 0 (judged, not relevant) included.")
    agreement: list[Agreement] = Field(description="Each pair of the split's raters: Cohen's kappa, where both graded.")


MAX_IDS = 10_000  # ids one judged-id or record-id lookup takes
PIPELINE_FILE = r"^[A-Za-z0-9_-][A-Za-z0-9_.-]*(/[A-Za-z0-9_-][A-Za-z0-9_.-]*)*\.yaml$"  # under pipelines/: no `..`


class ExplainRequest(Request):
    tool: str = Field(min_length=1, description="The tool to call.")
    arguments: Any = Field(default_factory=dict, description="Its arguments, as its input schema types them.")
    pipeline: str | None = Field(
        None,
        pattern=PIPELINE_FILE,
        description="A pipeline file under pipelines/ to run in the tool's place: eval/search_docs_dbsf.yaml.",
    )


class Explained(BaseModel):
    """A call with its provenance (the console's explained call, `haygate eval` through a server)."""

    tool: str = Field(description="The tool called.")
    pipeline: str | None = Field(description="The pipeline file that ran in its place, if one did.")
    result: dict[str, Any] = Field(description="The tool's result, as its result schema says.")
    provenance: list[dict[str, Any] | None] = Field(
        description="Per result row: its document, ranks and scores per source (None: a row no document made)."
    )
    elapsed_ms: float = Field(description="How long the pipeline took.")
    collections: list[str] = Field(description="The collections its results' records are read whole from.")


class IdsRequest(Request):
    collection: str = Field(min_length=1, description="The collection the ids name records or sections of.")
    ids: list[str] = Field(max_length=MAX_IDS, description="Document ids, as a judged set or a ranking names them.")


class JudgedIds(BaseModel):
    """Which judged ids name something of the collection (`haygate eval` checks a set's ids before it runs)."""

    records: list[str] = Field(description="Ids that name a whole record.")
    sections: list[str] = Field(description="Ids that name a section (a chunk) of a record.")
    unknown: dict[str, list[str]] = Field(description="Each id that names nothing, with the closest real ids.")
    examples: dict[str, str] = Field(description="Real ids of each kind, to show what an id looks like.")


class RecordIds(BaseModel):
    records: dict[str, str] = Field(description="Each document id (a chunk's, a section's) with its record's id.")


class KnownItemsRequest(Request):
    collection: str = Field(min_length=1, description="The collection whose sections' headings become queries.")
    name: str = Field(
        min_length=1, description="The judged set's name (evaluation/<name>/).", json_schema_extra={"pattern": SET_NAME}
    )
    tool: str = Field(min_length=1, description="The tool the set is evaluated on (one that reads the collection).")
    limit: Annotated[int, Field(ge=1), BeforeValidator(whole_number)] | None = Field(
        None, description="A seeded sample of this many sections (default: every one)."
    )
    seed: Whole = Field(0, description="The sample's seed.")


class KnownItemsMade(BaseModel):
    folder: str = Field(description="The judged set written, relative to the project.")
    queries: int = Field(description="Known-item queries written: one per section whose heading is its own.")
    sections: int = Field(description="Sections with a heading in the collection.")
    shared_headings: int = Field(description="Headings several sections share, left out (they name no one section).")
    limits: str = Field(description="What a known-item set measures, and what it does not.")


MAX_POOLED_PIPELINES = 8  # variants one pool runs beside the tool
Source = Literal["dense", "bm25"]
SOURCES: tuple[Source, ...] = ("dense", "bm25")


class PoolRequest(Request):
    tool: str = Field(min_length=1, description="The tool whose rankings are pooled.")
    arguments: Any = Field(default_factory=dict, description="The query's call, as the tool's input schema types it.")
    pipelines: list[Annotated[str, Field(pattern=PIPELINE_FILE)]] = Field(
        default_factory=list,
        max_length=MAX_POOLED_PIPELINES,
        description="Pipeline files under pipelines/ run in the tool's place, each a ranking of the pool.",
        json_schema_extra={"uniqueItems": True},
    )
    sources: list[Source] = Field(
        default_factory=lambda: list(SOURCES),
        max_length=2,
        description="The tool's pipeline with its retrievers on one source alone: `dense`, `bm25`.",
        json_schema_extra={"uniqueItems": True},
    )
    depth: Annotated[int, Field(ge=1, le=50), BeforeValidator(whole_number)] = Field(
        10, description="How many results of each ranking are pooled (its top k)."
    )
    level: Literal["record", "section"] = Field("section", description="What a pooled id names: a record or a section.")


class PooledResult(BaseModel):
    judged_id: str = Field(description="The record or section a judge grades.")
    row: dict[str, Any] = Field(description="The result's row as a ranking answered it, without its scores.")
    document_id: str | None = Field(description="The stored document the row was made from.")
    record_id: str | None = Field(description="Its record.")
    rankings: list[str] = Field(description="The rankings whose top k hold it (for the set to keep, not to show).")


class Pooled(BaseModel):
    """A judging pool for one query (`haygate.gateway.pooling`)."""

    tool: str = Field(description="The tool pooled.")
    depth: int = Field(description="How many results of each ranking are pooled.")
    level: Literal["record", "section"] = Field(description="What a pooled id names.")
    rankings: dict[str, list[str]] = Field(description="Each ranking's judged ids, best first (its top k).")
    unavailable: dict[str, str] = Field(description="A ranking that could not run here, and why.")
    results: list[PooledResult] = Field(description="The pool, de-duplicated, in an order no ranking gave it.")
    collections: list[str] = Field(description="The collections its results' records are read whole from.")
    unjudgeable: int = Field(description="Rows of the rankings' top k that name no document, so none to grade.")
    elapsed_ms: float = Field(description="How long the rankings took.")


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
    from haygate.gateway.paths import declaration_file
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


def upsert(workspace: Workspace, request: UpsertRequest) -> Ingested:
    return write_records(workspace, request.collection, request.records)


def write_records(workspace: Workspace, collection: str, records: Sequence[Any]) -> Ingested:
    """Records written through the collection's indexing pipeline, each mapped as its YAML declares: JSON objects
    (the `upsert` operation's), or records a reader read from a file sent as it is (a server's PUT of CSV,
    Markdown or JSONL), with a line that could not be read refused alone."""
    return Ingested.model_validate(workspace.writing(lambda writer: writer.upsert(collection, records)))


NOTHING_TO_RELOAD = (
    "no haygate server runs on {data_dir}: nothing is served, so nothing was reloaded (a server reads configs/ and "
    "pipelines/ as they are when it starts; `haygate validate` checks them now)"
)


def reload(workspace: Workspace, request: ReloadRequest) -> Reloaded:
    """The server's tools rebuilt from the YAML as it is now, swapped in only if every one builds and warms up.
    Where no server runs (this process holds the data), nothing serves: a reply that says so, not an error, so a
    caller reads one reply whichever door it asked."""
    done = workspace.reload()
    if done is None:
        problem = NOTHING_TO_RELOAD.format(data_dir=workspace.settings.data_dir)
        return Reloaded(reloaded=False, running=False, tools=[], problems=[problem])
    return Reloaded.model_validate(done)


def skill(workspace: Workspace, request: SkillRequest) -> SkillReply:
    """The skill a server of this project serves (`skill://<name>/SKILL.md`), its example calls run on the
    ingested data (with nothing ingested, it says what the declarations say). The data's owner asks for it
    (`owner_only`): it builds every tool and runs their example calls each time, a cost a client beyond this
    machine should not be able to repeat at will; such a client reads the same skill from the server's MCP
    resources, made once per change of the tools."""
    from haygate.gateway.instructions import outline, skill_name
    from haygate.gateway.skill import build_skill
    from haygate.gateway.workspace import has_data

    settings = workspace.settings
    name = skill_name(settings.home.resolve().name, settings.skill_name)
    from_data = bool(settings.qdrant_url) or has_data(settings.data_dir)
    if not from_data:
        listing = workspace.listing()
        built = build_skill(outline(name, settings.pipelines_dir, settings.collections_dir, listing), listing, None)
    else:
        with workspace.serving() as gateway:
            for runtime in gateway.tools.values():
                if runtime.pipeline is not None:
                    runtime.pipeline.pipeline.warm_up()
            served = {n: runtime.declaration for n, runtime in gateway.tools.items()}
            project = outline(name, settings.pipelines_dir, settings.collections_dir, served)
            built = build_skill(project, served, gateway.tools)
    return SkillReply(name=built.name, description=built.description, files=built.files, from_data=from_data)


def save_judged_set(workspace: Workspace, request: SaveJudgedSetRequest) -> JudgedSetSaved:
    """One split of a judged set written into the project (`evaluation/<name>/`, `haygate eval --judged` reads
    it), its queries judged on a tool served here; the other splits' queries and grades are kept."""
    root = workspace.settings.judged_sets_dir
    return JudgedSetSaved.model_validate(save_set(root, request.name, request, set(workspace.listing())))


def explain(workspace: Workspace, request: ExplainRequest) -> Explained:
    from haygate.gateway.paths import project_pipeline

    settings = workspace.settings
    pipeline = project_pipeline(settings.pipelines_dir, request.pipeline) if request.pipeline else None
    answer = workspace.explain(request.tool, request.arguments, pipeline)
    return Explained.model_validate({**answer, "pipeline": request.pipeline})


def pool(workspace: Workspace, request: PoolRequest) -> Pooled:
    """A judging pool for one query: the tool's, each variant's and each one-source ranking's top k."""
    import time

    from haygate.gateway import pooling
    from haygate.gateway.paths import project_pipeline

    settings = workspace.settings
    if len(set(request.pipelines)) < len(request.pipelines) or len(set(request.sources)) < len(request.sources):
        raise InvalidRequestError("a pool names each pipeline and source once", {"field": "pipelines"})
    declaration = workspace.listing().get(request.tool)
    if declaration is not None and declaration.action is not None:
        msg = f"tool '{request.tool}' writes ({declaration.action}): only a search tool's rankings are pooled"
        raise InvalidRequestError(msg, {"field": "tool"})

    def explain(pipeline: str | None, source: str | None) -> dict[str, Any]:
        path = project_pipeline(settings.pipelines_dir, pipeline) if pipeline else None
        return workspace.explain(request.tool, request.arguments, path, source)

    started = time.perf_counter()
    query = str(request.arguments.get("query", "")) if isinstance(request.arguments, dict) else ""
    made = pooling.pool(explain, query, request.pipelines, request.sources, request.depth, request.level)
    return Pooled(
        tool=request.tool,
        depth=request.depth,
        level=request.level,
        rankings=made.rankings,
        unavailable=made.unavailable,
        results=[PooledResult.model_validate(result, from_attributes=True) for result in made.results],
        collections=made.collections,
        unjudgeable=made.unjudgeable,
        elapsed_ms=round((time.perf_counter() - started) * 1000, 2),
    )


def judged_ids(workspace: Workspace, request: IdsRequest) -> JudgedIds:
    from haygate.ingest.judged import judged_ids as found_in  # Haystack: when asked, not at start-up

    with workspace.reading(request.collection) as store:
        return JudgedIds.model_validate(found_in(store, request.ids))


def record_ids(workspace: Workspace, request: IdsRequest) -> RecordIds:
    from haygate.ingest.judged import record_ids as records_of

    with workspace.reading(request.collection) as store:
        return RecordIds(records=records_of(store, request.ids))


def known_items(workspace: Workspace, request: KnownItemsRequest) -> KnownItemsMade:
    """A known-item judged set from the collection as ingested (`haygate.gateway.known_items`): each section's
    heading a query, the section its answer, written into the project's evaluation/ folder. The data's owner asks
    for it (`owner_only`): it reads a whole collection and writes a set into the project."""
    from haygate.gateway import known_items as known
    from haygate.gateway.judged_sets import set_folder

    settings = workspace.settings
    if request.tool not in workspace.listing():
        raise NotFoundError(f"no tool '{request.tool}' is served here", {"field": "tool"})
    folder = set_folder(settings.judged_sets_dir, request.name)
    with workspace.reading(request.collection) as store:
        made = known.known_items(store, request.limit, request.seed)
    known.write_known_items(folder, made, request.tool)
    home = settings.home.resolve()
    return KnownItemsMade(
        folder=str(folder.resolve().relative_to(home) if folder.resolve().is_relative_to(home) else folder),
        queries=len(made.queries),
        sections=made.sections,
        shared_headings=made.shared_headings,
        limits=known.LIMITS,
    )


OPERATIONS: dict[str, Operation[Any, Any]] = {
    op.name: op
    for op in (
        Operation("call", "Call a tool.", CallRequest, ToolResult, call_tool),
        Operation("delete", "Delete records by id.", DeleteRequest, Deleted, delete, writes=True),
        Operation("health", "The service's status.", HealthRequest, HealthReply, health),
        Operation("validate", "Every check, on the data.", ValidateRequest, ValidationReply, check, owner_only=True),
        Operation("examples", "Examples from the data.", ExamplesRequest, ExamplesReply, examples, owner_only=True),
        Operation("skill", "The project's skill for agents.", SkillRequest, SkillReply, skill, owner_only=True),
        Operation("upsert", "Write records.", UpsertRequest, Ingested, upsert, writes=True),
        # a reload changes what every client is served: it is refused where writes are
        Operation("reload", "Reload configs/ and pipelines/.", ReloadRequest, Reloaded, reload, writes=True),
        Operation("explain", "A call with its provenance.", ExplainRequest, Explained, explain),
        Operation(
            "known_items",
            "A known-item set from headings.",
            KnownItemsRequest,
            KnownItemsMade,
            known_items,
            writes=True,
            owner_only=True,
        ),
        Operation("pool", "A judging pool of a query's rankings.", PoolRequest, Pooled, pool),
        Operation("judged_ids", "Which judged ids name records.", IdsRequest, JudgedIds, judged_ids),
        Operation("record_ids", "The records of document ids.", IdsRequest, RecordIds, record_ids),
        Operation(
            "save_judged_set", "Save a judged set.", SaveJudgedSetRequest, JudgedSetSaved, save_judged_set, writes=True
        ),
    )
}


def operation(name: str) -> Operation[Any, Any]:
    if name not in OPERATIONS:
        raise NotFoundError(f"no operation '{name}'; operations: {', '.join(OPERATIONS)}", {"field": "name"})
    return OPERATIONS[name]
