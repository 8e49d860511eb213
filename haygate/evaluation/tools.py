"""Judged sets of served tools: `haygate eval --judged evaluation/<set>` scores the tool itself.

A judged set's folder holds `queries.jsonl`, `qrels/<split>.tsv` and `eval.yaml` (`JudgedSetSpec`: the tool,
the corpus, the arguments of each call). Every judged query is a real tool call: arguments validated, the
pipeline run, the answer checked against the tool's output schema, exactly as a client's call. Other
`--pipeline` files run in the tool's place, under the same declaration, and are compared with it.

- **Judged ids at the level people judge**: a record (a file) or a section (`haygate.ingest.judged`). Each
  result counts as the most specific of its ancestors the query judged, read from the stored document the
  result was made from, never from a field the tool's answer happens to carry.
- **Checked before anything is indexed**: every judged id must name a record or a section of the corpus, as
  an ingest would make them (the indexing pipeline run up to its embedders); a refusal names the closest real
  ids.
- **One index per corpus**: the corpus goes into the tool's collection in an eval store keyed by the corpus'
  content and the collection's indexing configuration, so every judged set over one corpus shares it; with no
  corpus (`--collection`, or none in `eval.yaml`) the collection as ingested is evaluated, with no indexing.
"""

import copy
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from haygate.components.dense_text_embedder import forget_queries
from haygate.errors import ConfigurationError, DatasetError, UnknownToolError
from haygate.evaluation.datasets import Dataset, limited, load_judged_queries
from haygate.evaluation.runner import (
    Comparison,
    VariantResult,
    check_metrics,
    compare_with_baseline,
    corpus_key,
    ensure_corpus_index,
    run_queries,
    score,
    store_settings,
)
from haygate.gateway.catalog import load_catalog
from haygate.gateway.declarations import ToolDeclaration
from haygate.gateway.judged_sets import QUERY_SLOT, JudgedSetSpec, lines_naming, read_spec
from haygate.gateway.loader import Loader
from haygate.gateway.tool import ToolRuntime, check_interface
from haygate.ingest.indexer import planned_documents
from haygate.ingest.judged import CorpusIds, ancestors, counted_as, record_ids, unknown_ids_message
from haygate.ingest.readers import files_under, read_records
from haygate.server.client import ServerClient, local_server
from haygate.settings import Settings

logger = logging.getLogger(__name__)

PLANNED_IDS = "eval-ids"  # the data dir's folder of each corpus's planned ids, beside its eval stores (`eval`)

CALL_METADATA = "arguments"  # a query's `metadata.arguments`: arguments of its own, over the spec's


@dataclass(frozen=True)
class JudgedToolSet:
    spec: JudgedSetSpec
    dataset: Dataset
    corpus: list[Path]  # files or folders of records, in order; empty: the collection as ingested
    calls: dict[str, dict[str, Any]]  # query id -> the tool's arguments (every query, judged or not)

    @property
    def unjudged(self) -> list[str]:
        """Queries with no relevant record: each should come back empty."""
        return [q for q in self.calls if q not in self.dataset.qrels]

    @property
    def name(self) -> str:
        return self.dataset.name


def load_judged_set(
    folder: Path,
    split: str = "test",
    corpus: Path | None = None,
    limit: int | None = None,
    collection: str | None = None,
) -> JudgedToolSet:
    """Read and check `eval.yaml`, the queries and the qrels; `corpus` overrides the spec's, and `collection`
    evaluates that collection as ingested (no corpus, no indexing). `limit`: only the first `limit` queries of
    the split (judged or not), over a sample of the corpus (`limited`)."""
    folder = Path(folder)
    spec = read_spec(folder)
    if collection is not None:
        spec = spec.model_copy(update={"collection": collection, "corpus": None})
    dataset, queries = load_judged_queries(folder, split)
    roots = [] if collection is not None else [Path(corpus)] if corpus is not None else []
    if not roots and collection is None and spec.corpus is not None:
        roots = [folder / spec.corpus]
    for root in roots:
        if not (root.is_dir() and files_under(root)) and not root.is_file():
            hint = "" if corpus is not None else " (pass --corpus to point at another copy, or --collection NAME)"
            raise DatasetError(f"{root.resolve()}: no corpus records there{hint}")
    calls = {}
    for query_id, (text, metadata) in queries.items():
        own = metadata.get(CALL_METADATA) or {}
        if not isinstance(own, dict):
            raise DatasetError(f"{folder / 'queries.jsonl'}: query '{query_id}': metadata.arguments is not an object")
        calls[query_id] = {**_filled(spec.arguments, text), **own}
    if limit is not None:
        calls = dict(list(calls.items())[:limit])
        dataset = limited(dataset, list(calls))
    return JudgedToolSet(spec, dataset, roots, calls)


def _filled(template: Any, text: str) -> Any:
    if template == QUERY_SLOT:
        return text
    if isinstance(template, dict):
        return {key: _filled(value, text) for key, value in template.items()}
    if isinstance(template, list):
        return [_filled(value, text) for value in template]
    return copy.deepcopy(template)


def _declaration(settings: Settings, tool: str) -> ToolDeclaration:
    catalog = load_catalog(settings)
    if tool not in catalog.declarations:
        raise UnknownToolError(tool, catalog.declarations, listed_as="declared")
    declaration = catalog.declarations[tool]
    if declaration.action is not None:
        raise ConfigurationError(f"tool '{tool}' writes ({declaration.action}); only search tools are evaluated")
    return declaration


def _collection(settings: Settings, spec: JudgedSetSpec, declaration: ToolDeclaration) -> str:
    if spec.collection is not None:
        return spec.collection
    read = Loader.collections_of(settings.pipelines_dir / declaration.pipeline_file)
    if len(read) != 1:
        msg = f"tool '{spec.tool}' reads {read or 'no collection'}: say which one the corpus goes to (`collection:`)"
        raise ConfigurationError(msg)
    return read[0]


def evaluate_tool(
    settings: Settings,
    judged: JudgedToolSet,
    pipelines: Sequence[Path] = (),
    metrics: Sequence[str] = (),
    progress: bool = True,
) -> tuple[list[VariantResult], list[Comparison]]:
    """The tool as served first (the baseline), then each of `pipelines` in its place; one index for all, shared
    with every judged set over the same corpus, or none (the collection as ingested)."""
    spec = judged.spec
    asked = [*spec.metrics, *metrics]  # checked after the judged ids: checking imports ranx (3 s), ids need none
    declaration = _declaration(settings, spec.tool)
    collection = _collection(settings, spec, declaration)
    served = settings.pipelines_dir / declaration.pipeline_file
    paths = [served, *pipelines]
    if not judged.corpus:
        client = None if settings.qdrant_url else local_server(settings.data_dir)
        if client is not None:  # a server holds the data: it makes the calls
            # The metrics first: their check imports ranx (3 s), longer than the server keeps an idle connection.
            checked = check_metrics(asked)
            logger.info(
                "a haygate server holds %s: the judged calls go through it (%s)", settings.data_dir, client.where
            )
            try:
                served_target = ServedTarget(client, collection, spec.tool, settings.pipelines_dir)
                served_target.check_ids(judged)
                return _evaluate(served_target, judged, paths, checked, progress)
            finally:
                client.close()
        with Loader(settings) as loader:
            target = LocalTarget(loader, collection, declaration, spec, settings.project_id)
            _check_judged_ids(target.corpus_ids(), judged, collection, "the collection as ingested")
            return _evaluate(target, judged, paths, check_metrics(asked), progress)
    key = corpus_key(settings, judged.corpus, collection)
    corpus = _planned_ids(settings, collection, judged, key)  # before anything is indexed
    _check_judged_ids(corpus, judged, collection, "the corpus")
    metrics = check_metrics(asked)
    dataset = judged.dataset
    if dataset.sample is not None:  # a limited run indexes the records the kept queries judged (or parts of)
        records = {_record_of(corpus, judged_id) for judged_id in dataset.sample.judged}
        dataset = replace(dataset, sample=replace(dataset.sample, judged=frozenset(records)))
    name = collection if dataset.sample is None else f"{collection}-limit-{dataset.sample.key}"
    with Loader(store_settings(settings, name, judged.corpus, collection, key)) as loader:
        target = LocalTarget(loader, collection, declaration, spec, settings.project_id)
        target.prepare(paths)  # every variant builds and fits the declaration before anything is indexed
        ensure_corpus_index(loader, name, judged.corpus, collection, progress, dataset.sample)
        return _evaluate(target, judged, paths, metrics, progress)


def _planned_ids(settings: Settings, collection: str, judged: JudgedToolSet, key: str) -> CorpusIds:
    """What the corpus would hold once indexed: its records and documents, with no model and no store. Kept
    under the corpus's key (`PLANNED_IDS`), so the next run over the same corpus and configuration, a quick
    `--limit` one above all, does not read and split every record again."""
    kept = Path(settings.data_dir) / PLANNED_IDS / f"{collection}-{key}.json"
    if (corpus := CorpusIds.read(kept)) is not None:
        logger.info("%s: the corpus's ids, as planned before (%s)", collection, kept)
        return corpus
    started = time.perf_counter()
    with Loader(settings) as loader:
        schema = loader.schema(collection)
        records = (record for root in judged.corpus for record in read_records(root, schema.read_options()))
        planned = planned_documents(loader.preview(collection), schema, records)
        corpus = CorpusIds.of_documents(planned)
    try:
        corpus.write(kept)
    except OSError as error:  # a full disk, a read-only data dir: the next run plans again, nothing else is lost
        logger.warning("%s: cannot keep the corpus's planned ids at %s (%s)", collection, kept, error.strerror or error)
    took = time.perf_counter() - started
    logger.info("%s: planned the corpus's %d documents in %.1f s", collection, len(corpus.documents), took)
    return corpus


def _record_of(corpus: CorpusIds, judged_id: str) -> str:
    """The record a judged id is, or is part of (a section or a chunk of it)."""
    return corpus.record_of_document.get(judged_id) or corpus.record_of_document.get(judged_id + "#chunk0", judged_id)


def _check_judged_ids(corpus: CorpusIds, judged: JudgedToolSet, collection: str, what: str) -> None:
    """A judged id that names no record or section is a broken judged set (or the wrong corpus): refused
    before any call, with the closest real ids."""
    judged_ids = {doc for docs in judged.dataset.qrels.values() for doc in docs}
    earlier = {old: new for old in judged_ids if not corpus.names(old) and (new := corpus.current(old))}
    if earlier:  # ids an earlier version wrote (a heading's attribute list in them): graded as the section now
        for docs in [*judged.dataset.qrels.values(), *judged.dataset.judged.values()]:
            for old in [doc for doc in docs if doc in earlier]:
                docs[earlier[old]] = max(docs.pop(old), docs.get(earlier[old], 0))
        old, new = next(iter(sorted(earlier.items())))
        logger.warning(
            "%s: %d judged id(s) written by an earlier haygate name their sections by an id those have no more; "
            "each is graded as the section's id now (e.g. %r -> %r). Save the set again to write the new ids.",
            judged.dataset.root,
            len(earlier),
            old,
            new,
        )
        judged_ids = {doc for docs in judged.dataset.qrels.values() for doc in docs}
    unknown = corpus.unknown(judged_ids)
    if unknown:
        message = unknown_ids_message(judged_where(judged, set(unknown), what), collection, unknown, corpus.examples())
        raise DatasetError(message, {"unknown": sorted(unknown)})


def judged_where(judged: JudgedToolSet, ids: set[str], what: str) -> str:
    """Where a refusal of these judged ids points: the qrels file and the lines that judge them (the first few)."""
    qrels = judged.dataset.root / "qrels" / f"{judged.dataset.split}.tsv"
    lines = sorted(line for found in lines_naming(qrels, ids).values() for line in found) if qrels.is_file() else []
    shown = ",".join(map(str, lines[:5])) + (",..." if len(lines) > 5 else "")
    return f"{qrels}:{shown} ({what})" if lines else f"{judged.dataset.root} ({what})"


Explained = tuple[dict[str, Any], list[dict[str, Any] | None]]  # an answer, and each row's provenance


class Target(Protocol):
    """Where a judged set's calls run: in this process (`LocalTarget`), or in the server that holds the data
    (`ServedTarget`)."""

    def prepare(self, paths: Sequence[Path]) -> None:
        """Build and check every variant (each must fit the tool's declaration) before any call."""

    def explain(self, path: Path, arguments: dict[str, Any]) -> Explained: ...

    def record_ids(self, document_ids: list[str]) -> dict[str, str]: ...


class LocalTarget:
    """The tool and its variants run in this process, over a loader's collection."""

    def __init__(
        self, loader: Loader, collection: str, declaration: ToolDeclaration, spec: JudgedSetSpec, project: str | None
    ) -> None:
        self.loader, self.collection, self.declaration, self.spec = loader, collection, declaration, spec
        self.tenant = spec.project if spec.project is not None else project
        self._runtimes: dict[Path, ToolRuntime] = {}

    def corpus_ids(self) -> CorpusIds:
        return CorpusIds.of_store(self.loader.store(self.collection))

    def prepare(self, paths: Sequence[Path]) -> None:
        for path in paths:
            if path not in self._runtimes:
                loaded = self.loader.pipeline(Path(path))
                check_interface(self.declaration, loaded)  # a variant must fit the tool's declaration as it stands
                self._runtimes[path] = ToolRuntime(self.declaration, loaded, self.tenant)

    def explain(self, path: Path, arguments: dict[str, Any]) -> Explained:
        runtime = self._runtimes[path]
        assert runtime.pipeline is not None
        runtime.pipeline.pipeline.warm_up()  # once: Haystack's warm_up tolerates repeated calls
        return runtime.explain(arguments)

    def record_ids(self, document_ids: list[str]) -> dict[str, str]:
        return record_ids(self.loader.store(self.collection), document_ids)


class ServedTarget:
    """The running server that holds the data makes the calls (the console's explained calls, over the owner's
    socket): a judged set over the collection as served is evaluated while clients use it."""

    def __init__(self, client: ServerClient, collection: str, tool: str, pipelines_dir: Path) -> None:
        self.client, self.collection, self.tool, self.pipelines_dir = client, collection, tool, pipelines_dir
        self.served: Path | None = None

    def check_ids(self, judged: JudgedToolSet) -> None:
        judged_ids = sorted({doc for docs in judged.dataset.qrels.values() for doc in docs})
        found = self.client.operate("judged_ids", {"collection": self.collection, "ids": judged_ids})
        unknown = found["unknown"]
        if unknown:
            where = judged_where(judged, set(unknown), "the collection as served")
            message = unknown_ids_message(where, self.collection, unknown, found.get("examples") or {})
            raise DatasetError(message, {"unknown": sorted(unknown)})

    def prepare(self, paths: Sequence[Path]) -> None:
        self.served = paths[0]
        for path in paths[1:]:
            self._relative(path)

    def _relative(self, path: Path) -> str:
        resolved = Path(path).resolve()
        if not resolved.is_relative_to(self.pipelines_dir.resolve()):
            msg = f"{path}: the server runs only pipeline files of its project (under {self.pipelines_dir})"
            raise ConfigurationError(msg, {"file": str(path)})
        return resolved.relative_to(self.pipelines_dir.resolve()).as_posix()

    def explain(self, path: Path, arguments: dict[str, Any]) -> Explained:
        pipeline = None if path == self.served else self._relative(path)
        answer = self.client.operate("explain", {"tool": self.tool, "arguments": arguments, "pipeline": pipeline})
        return answer["result"], answer["provenance"]

    def record_ids(self, document_ids: list[str]) -> dict[str, str]:
        answered = self.client.operate("record_ids", {"collection": self.collection, "ids": document_ids})
        return dict(answered["records"])


def _evaluate(
    target: Target, judged: JudgedToolSet, paths: list[Path], metrics: list[str], progress: bool
) -> tuple[list[VariantResult], list[Comparison]]:
    spec = judged.spec
    target.prepare(paths)
    results, names = [], set()
    served = paths[0]
    for path in paths:
        name = path.stem if path != served else spec.tool
        while name in names:
            name += "'"
        names.add(name)
        forget_queries()  # each variant's calls embed their queries, as a client's calls do
        started = time.perf_counter()
        caller = Caller(target, path, judged)
        result = run_queries(name, path, judged.dataset, caller.ranked, progress)
        score(result, judged.dataset, metrics)
        result.unjudged = {q: len(caller.ranked(q, "")) for q in judged.unjudged}
        result.judged_hits = caller.hits
        if caller.hits == 0 and caller.rows:
            raise DatasetError(caller.no_match_message(name), {"variant": name})
        results.append(result)
        logger.info("%s: %d calls in %.1f s", name, len(judged.calls), time.perf_counter() - started)
    return results, compare_with_baseline(results, judged.dataset, metrics)


class Caller:
    """One variant's calls: each answer's rows as the judged ids they count as (`haygate.ingest.judged`)."""

    def __init__(self, target: Target, path: Path, judged: JudgedToolSet) -> None:
        self.target, self.path, self.judged = target, path, judged
        self.hits = 0  # rows that counted as an id their query judged
        self.rows = 0
        self.example: tuple[str, str] | None = None  # a row's document and record, for a message

    def ranked(self, query_id: str, _: str) -> list[str]:
        spec = self.judged.spec
        answer, provenance = self.target.explain(self.path, self.judged.calls[query_id])
        rows = answer.get(spec.results)
        if not isinstance(rows, list):
            msg = f"tool '{spec.tool}' answered without a list `{spec.results}` (keys: {sorted(answer)})"
            raise ConfigurationError(msg, {"field": spec.results})
        chains = self._chains(rows, provenance)
        judged = self.judged.dataset.judgments.get(query_id, {})  # grade 0 too: a judged result, not relevant
        counted = [counted_as(chain, judged) for chain in chains]
        self.rows += len(counted)
        self.hits += sum(1 for c in counted if c in judged)
        return counted

    def _chains(self, rows: list[Any], provenance: list[dict[str, Any] | None]) -> list[list[str]]:
        """Each row's document id, section and record, from the stored document it was made from; where a row
        cannot be traced (no Documents to pair with), its `id` field as eval.yaml names it."""
        traced = [entry for entry in provenance if entry is not None]
        if rows and len(traced) == len(rows):
            missing = [e["id"] for e in traced if e.get("record_id") is None]
            records = self.target.record_ids(missing) if missing else {}
            chains = [ancestors(e["id"], e.get("record_id") or records.get(e["id"])) for e in traced]
        else:
            chains = [ancestors(_record_id(row, self.judged.spec)) for row in rows]
        if chains and self.example is None:
            self.example = (chains[0][0], chains[0][-1])
        return chains

    def no_match_message(self, name: str) -> str:
        judged_ids = sorted({doc for docs in self.judged.dataset.qrels.values() for doc in docs})
        document, record = self.example or ("?", "?")
        return (
            f"{self.judged.dataset.root}: none of the {self.rows} results of '{name}' is a judged record or section, "
            f"or part of one: the results are documents such as {document!r} (record {record!r}), the judged ids "
            f"such as {judged_ids[:2]}. Do they name the collection the tool reads, for the tenant and filters "
            "its calls use?"
        )


def _record_id(row: Any, spec: JudgedSetSpec) -> str:
    """A row's id from its own fields (`id` in eval.yaml): the field it names, or the template it fills in."""
    field = spec.id
    if not isinstance(row, dict):
        msg = (
            f"tool '{spec.tool}': a row of `{spec.results}` is not an object, so eval.yaml `id: {field}` cannot be read"
        )
        raise ConfigurationError(msg, {"field": field})
    if "{" not in field:
        if field not in row:
            msg = (
                f"tool '{spec.tool}': its answer rows cannot be traced to stored documents and have no field "
                f"'{field}' (keys: {sorted(row)}); name the field that holds each row's id in eval.yaml (`id:`)"
            )
            raise ConfigurationError(msg, {"field": field})
        return str(row[field])
    try:
        return field.format_map(row)
    except (KeyError, ValueError, IndexError) as error:
        msg = f"eval.yaml `id: {field}` cannot be filled in from an answer's row (keys: {sorted(row)}): {error}"
        raise ConfigurationError(msg, {"field": field}) from None
