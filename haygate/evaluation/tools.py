"""Judged sets of served tools: `haygate eval --judged evaluation/<tool>` scores the tool itself.

A judged set's folder holds `queries.jsonl`, `qrels/<split>.tsv` and `eval.yaml`, which names the tool, the
corpus, the arguments of each call and where the ranked ids are in the tool's answer. The corpus is ingested
into the tool's own collection by that collection's own indexing pipeline, in an eval store of its own, and
every judged query is then a real tool call: arguments validated, the pipeline run, the answer checked
against the tool's output schema, exactly as a client's call. Other `--pipeline` files run in the tool's
place, under the same declaration, and are compared with it.
"""

import copy
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from haygate import yamlfile
from haygate.components.chunk_ids import record_of
from haygate.components.dense_text_embedder import forget_queries
from haygate.errors import ConfigurationError, DatasetError, NotFoundError
from haygate.evaluation.datasets import Dataset, limited, load_judged_queries
from haygate.evaluation.runner import (
    Comparison,
    VariantResult,
    check_metrics,
    compare_with_baseline,
    ensure_corpus_index,
    run_queries,
    score,
    store_settings,
)
from haygate.gateway.catalog import load_catalog
from haygate.gateway.declarations import ToolDeclaration
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import ToolRuntime, check_interface
from haygate.ingest.indexer import stored_records
from haygate.ingest.readers import SUFFIXES
from haygate.settings import Settings

logger = logging.getLogger(__name__)

SPEC_FILE = "eval.yaml"
QUERY_SLOT = "{query}"  # in `arguments`, a string that is exactly this becomes the judged query's text
CALL_METADATA = "arguments"  # a query's `metadata.arguments`: arguments of its own, over the spec's


class JudgedSetSpec(BaseModel):
    """`eval.yaml`: how a judged set calls its tool and reads the ranking from the answer."""

    model_config = ConfigDict(extra="forbid")

    tool: str = Field(min_length=1, description="the served tool's name")
    corpus: Path = Field(description="a file or folder of records, relative to the judged set's folder")
    collection: str | None = Field(None, description="where the corpus goes (default: the one the tool reads)")
    project: str | None = Field(None, description="the tenant a tenant-scoped tool serves (default: the server's)")
    arguments: dict[str, Any] = Field(default_factory=lambda: {"query": QUERY_SLOT})
    results: str = Field("results", min_length=1, description="the answer's ranked list, best first")
    id: str = Field(
        "id",
        min_length=1,
        description="each item's field holding its record id (or a chunk id of one), or a template of its fields "
        "that makes the record id: `{entity_type}:{entity_id}`",
    )
    metrics: list[str] = Field(default_factory=lambda: ["ndcg@10", "mrr@10", "recall@10"], min_length=1)


@dataclass(frozen=True)
class JudgedToolSet:
    spec: JudgedSetSpec
    dataset: Dataset
    corpus: list[Path]  # the record files, in order
    calls: dict[str, dict[str, Any]]  # query id -> the tool's arguments (every query, judged or not)

    @property
    def unjudged(self) -> list[str]:
        """Queries with no relevant record: each should come back empty."""
        return [q for q in self.calls if q not in self.dataset.qrels]

    @property
    def name(self) -> str:
        return self.dataset.name


def load_judged_set(
    folder: Path, split: str = "test", corpus: Path | None = None, limit: int | None = None
) -> JudgedToolSet:
    """Read and check `eval.yaml`, the queries and the qrels; `corpus` overrides the spec's. `limit`: only the
    first `limit` queries of the split (judged or not), over a sample of the corpus (`limited`)."""
    folder = Path(folder)
    spec_path = folder / SPEC_FILE
    if not spec_path.is_file():
        raise DatasetError(f"{spec_path}: missing (a tool's judged set says in it which tool to call and how)")
    try:
        spec = JudgedSetSpec.model_validate(yamlfile.safe_load(spec_path.read_text()) or {})
    except (yaml.YAMLError, ValidationError) as error:
        raise DatasetError(f"{spec_path}: {error}") from None
    dataset, queries = load_judged_queries(folder, split)
    root = Path(corpus) if corpus is not None else (folder / spec.corpus)
    if root.is_dir():
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
    else:
        files = [root] if root.is_file() else []
    if not files:
        hint = "" if corpus is not None else " (pass --corpus to point at another copy)"
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
    return JudgedToolSet(spec, dataset, files, calls)


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
        msg = f"unknown tool '{tool}'; declared: {', '.join(sorted(catalog.declarations))}"
        raise NotFoundError(msg, {"tool": tool})
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
    """The tool as served first (the baseline), then each of `pipelines` in its place; one index for all."""
    spec = judged.spec
    metrics = check_metrics([*spec.metrics, *metrics])
    declaration = _declaration(settings, spec.tool)
    collection = _collection(settings, spec, declaration)
    served = settings.pipelines_dir / declaration.pipeline_file
    store = f"{spec.tool}-{judged.dataset.store_name}"
    with Loader(store_settings(settings, store, judged.corpus, collection)) as loader:
        runtimes = []
        for path in [served, *pipelines]:
            loaded = loader.pipeline(Path(path))
            check_interface(declaration, loaded)  # a variant must fit the tool's declaration as it stands
            tenant = spec.project if spec.project is not None else settings.project_id
            runtimes.append((Path(path), ToolRuntime(declaration, loaded, tenant)))
        ensure_corpus_index(loader, judged.name, judged.corpus, collection, progress, judged.dataset.sample)
        _check_judged_ids(loader, collection, judged)
        results, names = [], set()
        for path, runtime in runtimes:
            name = path.stem if path != served else spec.tool
            while name in names:
                name += "'"
            names.add(name)
            assert runtime.pipeline is not None
            runtime.pipeline.pipeline.warm_up()
            forget_queries()  # each variant's calls embed their queries, as a client's calls do
            started = time.perf_counter()
            ranked = _caller(runtime, judged)
            result = run_queries(name, path, judged.dataset, ranked, progress)
            score(result, judged.dataset, metrics)
            result.unjudged = {q: len(ranked(q, "")) for q in judged.unjudged}
            results.append(result)
            logger.info("%s: %d calls in %.1f s", name, len(judged.calls), time.perf_counter() - started)
    return results, compare_with_baseline(results, judged.dataset, metrics)


def _caller(runtime: ToolRuntime, judged: JudgedToolSet) -> Any:
    spec = judged.spec

    def ranked(query_id: str, _: str) -> list[str]:
        answer = runtime.run(judged.calls[query_id])
        items = answer.get(spec.results)
        if not isinstance(items, list):
            msg = f"tool '{spec.tool}' answered without a list `{spec.results}` (keys: {sorted(answer)})"
            raise ConfigurationError(msg)
        return [record_of(_record_id(item, spec.id)) for item in items]

    return ranked


def _record_id(item: dict[str, Any], field: str) -> str:
    """The item's record id: the field `field` names, or the template it is filled in (`{a}:{b}`)."""
    if "{" not in field:
        return str(item[field])
    try:
        return field.format_map(item)
    except (KeyError, ValueError, IndexError) as error:
        msg = f"eval.yaml `id: {field}` cannot be filled in from an answer's item (keys: {sorted(item)}): {error}"
        raise ConfigurationError(msg) from None


def _check_judged_ids(loader: Loader, collection: str, judged: JudgedToolSet) -> None:
    """A judged id the index lacks is a broken judged set (or the wrong corpus), not a miss to count."""
    judged_ids = sorted({doc for docs in judged.dataset.qrels.values() for doc in docs})
    missing = sorted(set(judged_ids) - stored_records(loader.store(collection), judged_ids))
    if missing:
        msg = (
            f"{judged.dataset.root}: {len(missing)} judged ids are not records of '{collection}' after indexing "
            f"{judged.corpus[0]}{' and more' if len(judged.corpus) > 1 else ''}, e.g. {missing[:3]}"
        )
        raise DatasetError(msg)
