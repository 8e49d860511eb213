"""One served tool: its declaration and its pipeline, called with checked arguments and answered with a checked
result, in one error model; and what a tool's pipeline reads (its collection's store) and returns (ranked rows,
each with its provenance). Transport-free: the gateway (`runtime`) holds the tools, MCP and REST sit in front.
"""

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import jsonschema_rs
from haystack import Document
from haystack.core.errors import PipelineRuntimeError
from jsonschema.protocols import Validator
from jsonschema.validators import validator_for
from pydantic import BaseModel, ValidationError

from haygate.components.envelope import documents_envelope
from haygate.components.filter_check import unmatched_filters
from haygate.components.query_builder import SERVER_FILTERS
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.errors import (
    ConfigurationError,
    HaygateError,
    InternalError,
    InvalidRequestError,
    cause_of,
)
from haygate.gateway.declarations import NOT_BLANK, ToolDeclaration
from haygate.gateway.loader import LoadedPipeline
from haygate.gateway.writer import Writer
from haygate.ingest.mapping import RECORD_ID

logger = logging.getLogger(__name__)

REHEARSALS = 3  # example calls per tool in `haygate validate`; a server's warm-up makes the first alone

QUERY_INPUTS = ("query", "text", "question")  # the input an envelope's `metadata.query` echoes


class OutputSchemaError(InternalError):
    """A tool's result broke its own output schema: a 500 to the caller, the problems for the operator."""

    def __init__(self, message: str, problems: list[str], result: Any) -> None:
        super().__init__(message)
        self.problems, self.result = problems, result


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
            if problem["type"] == "string_pattern_mismatch" and problem.get("ctx", {}).get("pattern") == NOT_BLANK:
                entry["message"] = "must have a character other than spaces"
            entry["expected"] = spec.type if spec.type != "array" else f"array of {spec.items or 'string'}"
            if spec.enum is not None or spec.item_enum is not None:
                entry["allowed"] = spec.enum if spec.enum is not None else spec.item_enum
            if spec.minimum is not None:
                entry["minimum"] = spec.minimum
            if spec.maximum is not None:
                entry["maximum"] = spec.maximum
        details.append(entry)
    return details


@dataclass
class ToolRuntime:
    """One declared tool bound to what runs it: its loaded pipeline, or the writer for an action tool.
    `tenant` is the server's project, if any."""

    declaration: ToolDeclaration
    pipeline: LoadedPipeline | None
    tenant: str | None = None
    writer: Writer | None = None
    # False for a one-source ranking of a judging pool: its scores are its source's own (BM25's unbounded), it is
    # read by rank and never answered as the tool's result
    checks_result: bool = True
    arguments_model: type[BaseModel] = field(init=False)
    result_validator: Validator | None = field(init=False)
    result_check: Any = field(init=False)  # jsonschema-rs: the per-call check, far faster than `jsonschema`
    documents_output: bool = field(init=False)  # the output is a list of Documents: returned in the envelope

    def __post_init__(self) -> None:
        self.arguments_model = self.declaration.arguments_model()
        schema = self.declaration.result_schema if self.checks_result else None
        self.result_validator = validator_for(schema)(schema) if schema else None
        self.result_check = jsonschema_rs.validator_for(schema) if schema else None
        pipeline, output = self.pipeline, self.declaration.output
        self.documents_output = (
            pipeline is not None and output in pipeline.outputs and returns_documents(pipeline, output)
        )

    @property
    def name(self) -> str:
        return self.declaration.name

    def validate_arguments(self, arguments: Any) -> dict[str, Any]:
        if not isinstance(arguments, dict):
            msg = f"arguments must be a JSON object, got {type(arguments).__name__}"
            raise InvalidRequestError(msg)
        if nesting_depth(arguments) > MAX_ARGUMENT_DEPTH:
            msg = f"arguments are nested more than {MAX_ARGUMENT_DEPTH} levels deep"
            raise InvalidRequestError(msg, {"limit": MAX_ARGUMENT_DEPTH})
        try:
            return self.arguments_model.model_validate(arguments).model_dump()
        except ValidationError as error:
            details = validation_details(error, self.declaration)
            summary = "; ".join(f"{d['field']}: {d['message']}" for d in details)
            msg = f"invalid arguments for '{self.name}': {summary}"
            raise InvalidRequestError(msg, {"errors": details}) from None

    def server_filters(self) -> list[dict[str, Any]]:
        """Conditions the server applies to every query of this tool (the tenant); callers cannot see or change them."""
        field_name = self.declaration.tenant_field
        if field_name is None:
            return []
        return [{"field": field_name, "operator": "==", "value": self.tenant}]

    def run(self, arguments: Any) -> dict[str, Any]:
        """Validate, run the pipeline, return the declared output. Raises HaygateError subclasses only."""
        return self._run(arguments)[0]

    @property
    def collections(self) -> list[str]:
        """The collections this tool's pipeline reads, in the order its components do (where its results live)."""
        if self.pipeline is None:
            return []
        stores = (collection_store(instance) for _, instance in self.pipeline.pipeline.walk())
        return list(dict.fromkeys(store.collection for store in stores if store is not None))

    def explain(self, arguments: Any) -> tuple[dict[str, Any], list[dict[str, Any] | None]]:
        """The call `run` makes, and why each result ranks where it does: per result row, in order, the scores
        its Document carried into the result (dense rank and cosine, BM25 rank, fused score, rerank score),
        read from what feeds the formatter's documents (or from the Documents a pipeline returns)."""
        return self._run(arguments, explained=True)

    def _run(self, arguments: Any, explained: bool = False) -> tuple[dict[str, Any], list[dict[str, Any] | None]]:
        values = {**self.validate_arguments(arguments), **self.declaration.fixed_arguments}
        if self.declaration.action is not None:
            assert self.writer is not None
            return self._checked(self._guarded(lambda: self.writer.perform(self.declaration.action, values))), []  # type: ignore[union-attr, arg-type]
        assert self.pipeline is not None
        pipeline = self.pipeline
        if SERVER_FILTERS in pipeline.inputs:
            values[SERVER_FILTERS] = self.server_filters()
        output = pipeline.outputs.get(self.declaration.output)
        ranked = pipeline.feeder(output[0], "documents") if explained and output and not self.documents_output else None
        outputs = self._guarded(lambda: pipeline.run(values, also=ranked))
        result = self._checked(self._guarded(lambda: self._enveloped(outputs, values)))
        if not explained:
            return result, []
        documents = outputs[self.declaration.output] if self.documents_output else outputs.get(".".join(ranked or ()))
        return result, provenance(result, documents)

    def _enveloped(self, outputs: dict[str, Any], values: dict[str, Any]) -> Any:
        """The declared output; a list of Documents in the standard results envelope, whose message says why
        nothing was found when a filter the caller sent can never match (as haygate's own FilterCheck does)."""
        result = outputs[self.declaration.output]
        if self.documents_output:
            query = next((v for k, v in values.items() if k in QUERY_INPUTS and isinstance(v, str)), None)
            envelope = documents_envelope(result, query)
            if not result:
                reason = self._unmatched(values)
                if reason:
                    envelope["metadata"]["message"] = reason
            return envelope
        return result

    def _unmatched(self, values: dict[str, Any]) -> str | None:
        """For an empty answer: a filter argument (one that feeds a `filters` socket) no record can match."""
        assert self.pipeline is not None
        for name, targets in self.pipeline.inputs.items():
            if values.get(name) is None or not any(socket == "filters" for _, socket in targets):
                continue
            for component, _ in targets:
                store = collection_store(self.pipeline.pipeline.get_component(component))
                if store is not None:
                    reason = unmatched_filters(store, values[name])
                    if reason:
                        return reason
        return None

    def rehearse(self, calls: int = 1) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The declaration's own examples, run at warm-up (up to `calls` calls, the k-th example of each
        required parameter): the model's first inference, the store's first query and every component's first
        run happen here, not in a client's first call. An example that fails inside the tool (a component
        raises, the result breaks the output schema, or a model or setting turns out wrong) is a
        ConfigurationError: such a tool would answer 500 to every call, so it is not served. One that finds
        nothing or names a value not yet stored is fine. Each answered call with its arguments."""
        if self.pipeline is None:
            return []  # write actions change data; their components are warmed by the writer
        results = []
        for arguments in self.example_arguments()[:calls]:
            started = time.perf_counter()
            try:
                results.append((arguments, self.run(arguments)))
            except InternalError as error:
                raise ConfigurationError(self._rehearsal_problem(arguments, error)) from error
            except ConfigurationError as error:  # a model or setting that fails every call: not served either
                call = json.dumps(arguments, default=str)
                raise ConfigurationError(
                    f"tool '{self.name}': its example call {call} failed: {error.message}"
                ) from error
            except HaygateError as error:
                logger.info("warm-up call of '%s' answered %s: %s", self.name, error.code, error.message)
            logger.debug("warm-up call of '%s' took %.1f ms", self.name, (time.perf_counter() - started) * 1000)
        return results

    def example_arguments(self) -> list[dict[str, Any]]:
        return self.declaration.example_calls(REHEARSALS)

    def _rehearsal_problem(self, arguments: dict[str, Any], error: InternalError) -> str:
        call = json.dumps(arguments, default=str)
        if isinstance(error, OutputSchemaError):
            hint = ""
            if isinstance(error.result, list):
                hint = (
                    f"; the pipeline output '{self.declaration.output}' is a list, and a tool returns an object: "
                    "a list of Documents gets the standard results envelope, anything else needs a formatter"
                )
            return (
                f"tool '{self.name}': its example call {call} gave a result outside its output_schema: "
                f"{'; '.join(error.problems[:3])}{hint}"
            )
        cause = error.__cause__
        where = cause.component_name if isinstance(cause, PipelineRuntimeError) else "pipeline"
        reason = str(cause.__cause__ or cause) if cause is not None else error.message
        return f"tool '{self.name}': its example call {call} failed in component '{where}': {reason[:500]}"

    def _checked(self, result: Any) -> dict[str, Any]:
        """A result that breaks the tool's own output schema never reaches a client: MCP clients validate
        structured content against it and would reject the whole call, with no usable result. The check is
        jsonschema-rs's; `jsonschema` words the problems when there are any."""
        if self.result_validator is None or self.result_check.is_valid(result):
            return result  # type: ignore[no-any-return]
        problems = [
            f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in self.result_validator.iter_errors(result)
        ]
        logger.error("tool '%s' produced a result outside its output schema: %s", self.name, "; ".join(problems[:5]))
        msg = f"tool '{self.name}' produced a result outside its declared output schema; the server log has details"
        raise OutputSchemaError(msg, problems=problems, result=result)

    def _guarded(self, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run the tool; anything but one of our errors is logged with its component and masked."""
        try:
            return work()
        except Exception as error:
            known = cause_of(error)
            if known is not None:
                raise self._in_callers_terms(known, error) from None
            where = error.component_name if isinstance(error, PipelineRuntimeError) else "pipeline"
            logger.exception("tool '%s' failed in component '%s'", self.name, where)
            msg = f"tool '{self.name}' failed; the server log has the details"
            raise InternalError(msg) from error

    def _in_callers_terms(self, known: HaygateError, error: BaseException) -> HaygateError:
        """A component names its own socket (`'query' is empty`); the caller sent the tool's parameter."""
        socket = known.details.get("field")
        component = error.component_name if isinstance(error, PipelineRuntimeError) else None
        owner = self.pipeline.socket_owner if self.pipeline is not None else None
        parameter = owner(component, socket) if owner and component and isinstance(socket, str) else None
        if parameter is None or parameter == socket:
            return known
        renamed = type(known).__new__(type(known))
        renamed.__dict__.update(
            known.__dict__,
            message=known.message.replace(f"'{socket}'", f"'{parameter}'"),
            details={**known.details, "field": parameter},
        )
        renamed.args = (renamed.message,)
        return renamed


PROVENANCE = ("dense_rank", "dense_score", "sparse_rank", "fused_score", "rerank_score")


def provenance(result: dict[str, Any], documents: Any) -> list[dict[str, Any] | None]:
    """Per row of the result's ranked list (its first list of objects), the Document it was made from (its id,
    its record's id where the Document carries it) and its scores: rows and Documents pair in order when they
    are as many (a formatter makes one row per Document)."""
    rows = next((v for v in result.values() if isinstance(v, list) and all(isinstance(r, dict) for r in v)), [])
    if not isinstance(documents, list) or len(documents) != len(rows):
        return [None] * len(rows)
    explained: list[dict[str, Any] | None] = []
    for document in documents:
        if not isinstance(document, Document):
            explained.append(None)
            continue
        scores = document.meta.get("scores") or {}
        record = document.meta.get(RECORD_ID)
        explained.append(
            {
                "id": document.id,
                "record_id": None if record is None else str(record),
                "score": document.score,
                **{k: scores.get(k) for k in PROVENANCE},
            }
        )
    return explained


UNFILLABLE_STORES = ("InMemoryDocumentStore",)  # built empty with the pipeline, and nothing can ingest into them


def store_of(instance: Any) -> Any:
    """The document store a component reads: haygate's and Haystack's keep it as `document_store`,
    qdrant-haystack's retrievers as `_document_store`."""
    return getattr(instance, "document_store", None) or getattr(instance, "_document_store", None)


def collection_store(instance: Any) -> HybridDocumentStore | None:
    """The collection's store a component reads, through the view a Haystack retriever is given (its `.store`)."""
    store = store_of(instance)
    store = getattr(store, "store", store)
    return store if isinstance(store, HybridDocumentStore) else None


def ranked_rows(result: dict[str, Any]) -> list[Any] | None:
    """A result's ranked list: its first list value (`results`, `candidates`, ...), or None when it has none."""
    return next((v for v in result.values() if isinstance(v, list)), None)


MAX_ARGUMENT_DEPTH = 32  # objects and arrays inside the arguments: past any declared shape, far below recursion


def nesting_depth(value: Any) -> int:
    """How deep objects and arrays nest, counted without recursion (the value may be hostile)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        if deepest > MAX_ARGUMENT_DEPTH:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def check_interface(declaration: ToolDeclaration, pipeline: LoadedPipeline) -> None:
    """The declaration types exactly the pipeline's inputs and returns one of its outputs."""
    where = f"{pipeline.path}: tool '{declaration.name}'"
    if declaration.tenant_field and SERVER_FILTERS not in pipeline.inputs:
        msg = f"{where} is tenant-scoped, but the pipeline has no `{SERVER_FILTERS}` input for the tenant condition"
        raise ConfigurationError(msg, {"file": str(pipeline.path)})
    supplied = set(declaration.parameters) | set(declaration.fixed_arguments)
    if declaration.tenant_field:
        supplied.add(SERVER_FILTERS)
    unknown = sorted(supplied - set(pipeline.inputs))
    if unknown:
        msg = f"{where} declares {unknown}, which are not inputs of the pipeline; inputs: {sorted(pipeline.inputs)}"
        raise ConfigurationError(msg, {"file": str(pipeline.path)})
    unfed = sorted(set(pipeline.inputs) - supplied - {SERVER_FILTERS} - pipeline.optional)
    if unfed:
        msg = f"{where}: pipeline inputs {unfed} are neither parameters nor fixed_arguments of the tool"
        raise ConfigurationError(msg, {"file": str(pipeline.path)})
    if declaration.output not in pipeline.outputs:
        outputs = sorted(pipeline.outputs)
        msg = (
            f"{where} returns output '{declaration.output}' (`output:` in the declaration, default `result`), "
            f"which the pipeline lacks; outputs: {outputs}"
        )
        raise ConfigurationError(msg, {"file": str(pipeline.path)})
    if declaration.output_schema is None and not returns_documents(pipeline, declaration.output):
        msg = (
            f"{where}: output '{declaration.output}' is not a list of Documents, so the declaration needs an "
            "`output_schema` (the JSON Schema of the object it returns)"
        )
        raise ConfigurationError(msg, {"file": str(pipeline.path)})


def returns_documents(pipeline: LoadedPipeline, output: str) -> bool:
    component, socket = pipeline.outputs[output]
    sockets = pipeline.pipeline.outputs(include_components_with_connected_outputs=True)
    return sockets.get(component, {}).get(socket, {}).get("type") == list[Document]


def check_stores(runtime: ToolRuntime) -> None:
    """A pipeline that reads a store nothing can fill (a Haystack InMemoryDocumentStore it builds empty) would
    answer every call with nothing: a configuration error, named, not a tool that finds nothing."""
    assert runtime.pipeline is not None
    for component, instance in runtime.pipeline.pipeline.walk():
        store = store_of(instance)
        if store is not None and type(store).__name__ in UNFILLABLE_STORES:
            msg = (
                f"tool '{runtime.name}': component '{component}' reads a {type(store).__name__} that the pipeline "
                "builds empty: nothing ingests into it, so every call would find nothing. Point it at a collection "
                "(`document_store: {collection: NAME}`; haygate's YAML resolves it to the collection's store)"
            )
            raise ConfigurationError(msg, {"tool": runtime.name, "component": component})
