"""What the `haygate` commands other than `serve` do in this process. Imported only when one of them runs
here: they need Haystack, which neither `serve`'s first answers nor a command a running server takes over
(`haygate.remote`) should wait for."""

import argparse
import importlib.util
import json
import logging
import re
import sys
import time
from pathlib import Path
from typing import Any

from haygate.document_stores import backends
from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.edge.repair import repair
from haygate.errors import ConfigurationError, ExitCode, InvalidRequestError, UnknownToolError
from haygate.evaluation.interchange import Imported, counted, import_quepid, import_trec, trec_qrels
from haygate.extras import add_extra
from haygate.gateway.catalog import load_catalog
from haygate.gateway.judged_sets import QUERIES_FILE, SPEC_FILE, SPLIT_NAME, write_split
from haygate.gateway.loader import Loader
from haygate.ingest.extract import write_extractions
from haygate.ingest.indexer import ingest_files
from haygate.ingest.mapping import RECORD_HASH
from haygate.remote import OPERATED, ingest_jobs, operated_request, print_report
from haygate.server.endpoint import claim_data_dir
from haygate.settings import Settings

logger = logging.getLogger("haygate")


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Ingest here: no server holds the data dir (`haygate.remote` went through one if it did)."""
    jobs = ingest_jobs(args, settings.home)
    if jobs is None:
        return ExitCode.CONFIG
    failed = False
    with Loader(settings) as loader:
        for collection, files in jobs.items():
            chosen = loader.collection(collection)
            options = chosen.schema.read_options(args.include, args.exclude)
            report = ingest_files(chosen, files, progress=args.progress, optimize=args.wait, options=options)
            if report.written and not args.wait and chosen.store.needs_optimizing():
                print(
                    f"{collection}: written and searchable; `haygate serve` builds its index in the background "
                    f"(or now: `haygate optimize {collection}`, or ingest with --wait)",
                    file=sys.stderr,
                )
            read = print_report(report, files)
            failed = failed or bool(report.errors) or not read
    return ExitCode.FAILED if failed else ExitCode.OK


def cmd_extract(args: argparse.Namespace, settings: Settings) -> int:
    if not args.source.is_file():
        print(f"error: {args.source}: no such file", file=sys.stderr)
        return ExitCode.FAILED
    counts = write_extractions(args.source, args.out, args.project)
    print(json.dumps({"out": str(args.out), "extractions": dict(sorted(counts.items()))}))
    print(f"ingest them with: haygate ingest knowledge {args.out}", file=sys.stderr)
    return ExitCode.OK


def cmd_optimize(args: argparse.Namespace, settings: Settings) -> int:
    backend = backends.chosen(settings.store, settings.qdrant_url)
    if backend != "edge":
        print(f"{args.collection}: nothing to build: the {backend} store backend indexes as it writes", file=sys.stderr)
        return ExitCode.OK
    with Loader(settings) as loader:
        store = loader.store(args.collection)  # an unknown collection is an error, not an empty store
        if not store.exists():
            print(f"error: collection '{args.collection}' is empty; ingest it first", file=sys.stderr)
            return ExitCode.FAILED
        started = time.perf_counter()
        store.optimize()
        print(f"{args.collection}: optimized {store.count_documents()} points in {time.perf_counter() - started:.1f} s")
    return ExitCode.OK


REPAIRS_ITSELF = {
    "qdrant": "a Qdrant server recovers its own",
    "memory": "a memory collection is one file, written whole: restore it, or delete it and ingest again",
}
OTHER_BACKEND = "this store backend has no repair of haygate's"


def cmd_repair(args: argparse.Namespace, settings: Settings) -> int:
    backend = backends.chosen(settings.store, settings.qdrant_url)
    if backend != "edge":
        print(
            f"error: `repair` mends Qdrant Edge shards; {REPAIRS_ITSELF.get(backend, OTHER_BACKEND)}", file=sys.stderr
        )
        return ExitCode.CONFIG
    claim_data_dir(settings.data_dir)  # a running server holds the shard: it has to stop first
    with Loader(settings) as loader:
        store = loader.store(args.collection)
        assert isinstance(store, EdgeDocumentStore)
        report = repair(store, force=args.force, stale_key=RECORD_HASH)
    print(report.summary(), file=sys.stderr)
    return ExitCode.OK


EVAL_EXTRA_MODULES = ("ranx", "matplotlib")  # haygate's `eval` extra: scores (ranx, numba, scipy) and the plot


def require_eval_extra() -> None:
    """`haygate eval` and `tune` score with ranx and draw with matplotlib, the `eval` extra (about 400 MB that
    a server never loads): without it, say what to install."""
    missing = []
    for module in EVAL_EXTRA_MODULES:
        try:
            found = sys.modules.get(module, True) is not None and importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(module)
    if missing:
        msg = f"evaluation needs {' and '.join(missing)}, which are not installed: " + add_extra("eval")
        raise ConfigurationError(msg, {"missing": missing})


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    # Evaluation pulls in ranx (numba) and scipy; other commands should not wait for them.
    require_eval_extra()
    from haygate.evaluation.datasets import load_dataset
    from haygate.evaluation.report import write_report
    from haygate.evaluation.runner import DEFAULT_METRICS, evaluate_variants
    from haygate.evaluation.tools import evaluate_tool, load_judged_set

    if args.judged is not None:
        judged = load_judged_set(args.judged, args.split, args.corpus, args.limit, args.collection)
        dataset = judged.dataset
        results, comparisons = evaluate_tool(settings, judged, args.pipeline, args.metric, progress=args.progress)
    else:
        if not args.pipeline or args.corpus is not None or args.collection is not None:
            msg = (
                "--dataset evaluates the --pipeline files (at least one) on the folder's own corpus.jsonl "
                "(--corpus and --collection go with --judged)"
            )
            raise InvalidRequestError(msg)
        dataset = load_dataset(args.dataset, args.split, args.limit)
        results, comparisons = evaluate_variants(
            settings, dataset, args.pipeline, [*DEFAULT_METRICS, *args.metric], progress=args.progress
        )
    write_report(args.out, dataset, results, comparisons)
    print((args.out / "report.md").read_text())
    print(f"wrote {args.out}/report.json, report.md, plot.png and runs/*.trec", file=sys.stderr)
    return ExitCode.OK


def cmd_compare(args: argparse.Namespace, settings: Settings) -> int:
    """Any two runs of a report folder, query by query (`haygate.evaluation.differences`): no model, no index."""
    from haygate.evaluation.compare import compare_runs

    print(compare_runs(args.report, args.before, args.after, args.metric, args.limit))
    return ExitCode.OK


def cmd_tune(args: argparse.Namespace, settings: Settings) -> int:
    require_eval_extra()
    from haygate.evaluation.datasets import load_dataset
    from haygate.evaluation.tune import tune

    dataset = load_dataset(args.dataset, args.split, args.limit)
    validate = load_dataset(args.dataset, args.validate_split, args.limit) if args.validate_split else None
    summary = tune(
        settings,
        dataset,
        args.pipeline,
        args.grid,
        args.out,
        objective=args.objective,
        validate=validate,
        progress=args.progress,
    )
    print((args.out / "tune.md").read_text())
    print(f"best pipeline: {summary['best']['pipeline']}", file=sys.stderr)
    return ExitCode.OK


NEEDS_QUERIES = (
    "TREC qrels name each query by its id alone, and a judged set needs each query's text: pass --queries FILE, "
    "BEIR's queries.jsonl ({_id, text}) or a TSV of query-id<TAB>text"
)


def cmd_judged_import_trec(args: argparse.Namespace, settings: Settings) -> int:
    if args.queries is None:
        raise ConfigurationError(NEEDS_QUERIES, {"missing": "--queries"})
    check_import_target(args, settings)
    return write_imported(args, import_trec(args.qrels, args.queries), f"TREC qrels {args.qrels}")


def cmd_judged_import_quepid(args: argparse.Namespace, settings: Settings) -> int:
    check_import_target(args, settings)
    return write_imported(args, import_quepid(args.ratings, args.scale), f"Quepid ratings {args.ratings}")


def check_import_target(args: argparse.Namespace, settings: Settings) -> None:
    """Before any file is read: a tool the project declares, a split name, and no set already there unless
    --force (which replaces that split only, as a save from the Judge tab does)."""
    declared = load_catalog(settings).declarations
    if args.tool not in declared:
        raise UnknownToolError(args.tool, declared, listed_as="declared")
    action = declared[args.tool].action
    if action is not None:
        raise ConfigurationError(f"tool '{args.tool}' writes ({action}); only search tools are judged")
    if not re.match(SPLIT_NAME, args.split):
        raise ConfigurationError(f"--split: lowercase letters, digits, '-' and '_' (up to 32), got {args.split!r}")
    there = [name for name in (SPEC_FILE, QUERIES_FILE, "qrels") if (args.into / name).exists()]
    if there and not args.force:
        msg = (
            f"{args.into} already holds a judged set ({', '.join(there)}); pass --force to replace its "
            f"{args.split} split (its other splits and eval.yaml's other keys stay), or choose another --into"
        )
        raise ConfigurationError(msg, {"folder": str(args.into)})


def write_imported(args: argparse.Namespace, imported: Imported, source: str) -> int:
    judged = write_split(args.into, args.tool, args.split, imported.queries, imported.grades)
    print(
        f"{args.into}: {counted(len(imported.queries), 'query')} and {counted(judged, 'judgment')} from {source}, "
        f"as the {args.split} split of a judged set of {args.tool}"
    )
    for note in imported.notes:
        print(f"  {note}")
    print(f"next: haygate eval --judged {args.into} --split {args.split}", file=sys.stderr)
    return ExitCode.OK


def cmd_judged_export_trec(args: argparse.Namespace, settings: Settings) -> int:
    text, notes = trec_qrels(args.folder, args.split)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    for note in [*notes, *([f"wrote {args.out}"] if args.out is not None else [])]:
        print(note, file=sys.stderr)
    return ExitCode.OK


def cmd_judged_pool(args: argparse.Namespace, settings: Settings) -> int:
    """Every query of a set's split pooled (the gateway's `pool` operation, through the server that holds the
    data if one runs), the pools written as a grading sheet and recorded in the set."""
    from haygate.evaluation.sheets import pool_set
    from haygate.gateway.operations import MAX_POOLED_PIPELINES, operation
    from haygate.gateway.workspace import LocalWorkspace
    from haygate.server.client import local_server

    if not args.sheet.parent.is_dir():  # said before any ranking runs, not after the pools are recorded
        raise ConfigurationError(f"--sheet {args.sheet}: no folder {args.sheet.parent} to write it in")
    pipelines = [pipeline_in_project(path, settings) for path in args.pipeline]
    if len(pipelines) > MAX_POOLED_PIPELINES:
        raise ConfigurationError(f"--pipeline: a pool runs up to {MAX_POOLED_PIPELINES} variants")
    sources = [] if args.no_sources else list(dict.fromkeys(args.source or ["dense", "bm25"]))
    client = None if settings.qdrant_url else local_server(settings.data_dir)
    if client is not None:
        logger.info("a haygate server holds %s: the pools are made through it (%s)", settings.data_dir, client.where)
        try:
            pooled = pool_set(args.folder, args.split, client.operate, pipelines, sources, args.depth, args.every)
        finally:
            client.close()
    else:
        with LocalWorkspace(settings) as workspace:

            def operate(name: str, request: dict[str, Any]) -> dict[str, Any]:
                return dict(operation(name)(workspace, request).model_dump(mode="json"))

            pooled = pool_set(args.folder, args.split, operate, pipelines, sources, args.depth, args.every)
    args.sheet.write_text(pooled.sheet(), encoding="utf-8")
    queries = len(pooled.judged_before.get("served", []))
    print(
        f"{args.sheet}: {counted(len(pooled.rows), 'result')} to grade, of the {counted(pooled.pooled, 'result')} "
        f"pooled for {counted(queries, 'query')}{'' if args.every else ' (those the set has not graded)'}; "
        f"which rankings pooled each is recorded in {args.folder}/judging.json"
    )
    print(f"  judged@{args.depth} before this pool, on average over the queries:")
    for ranking, shares in pooled.judged_before.items():
        print(f"    {ranking}: {sum(shares) / len(shares):.0%}")
    for ranking, why in pooled.unavailable.items():
        print(f"  {ranking}: not pooled: {why}")
    if pooled.unjudgeable:
        print(f"  {counted(pooled.unjudgeable, 'row')} of the rankings named no document, so nothing to grade them as")
    print(
        f"next: grade the empty `grade` cells 0-3 (0 not relevant, 3 exactly what was asked), then "
        f"haygate judged import sheet {args.sheet} --into {args.folder}"
        + (f" --split {args.split}" if args.split != "test" else ""),
        file=sys.stderr,
    )
    return ExitCode.OK


def pipeline_in_project(path: Path, settings: Settings) -> str:
    """A pipeline file as the server names it: its path under the project's pipelines/."""
    resolved = Path(path).resolve()
    root = settings.pipelines_dir.resolve()
    if not resolved.is_file() or not resolved.is_relative_to(root):
        raise ConfigurationError(f"--pipeline {path}: not a pipeline file under {settings.pipelines_dir}")
    return resolved.relative_to(root).as_posix()


def cmd_judged_import_sheet(args: argparse.Namespace, settings: Settings) -> int:
    from haygate.evaluation.sheets import import_sheet
    from haygate.gateway.judged_sets import RATER

    if args.rater is not None and not re.match(RATER, args.rater):
        raise ConfigurationError(f"--rater: a name or initials, up to 64 characters on one line, got {args.rater!r}")
    print(import_sheet(args.into, args.split, args.sheet, args.rater))
    print(f"next: haygate eval --judged {args.into}" + (f" --split {args.split}" if args.split != "test" else ""))
    return ExitCode.OK


def run_operated(args: argparse.Namespace, settings: Settings) -> int:
    """A command that is one of the gateway's operations, run in this process: no server holds the data dir
    (`haygate.remote.forward` went through one if it did). The same operation, request and printer."""
    from haygate.gateway.operations import operation
    from haygate.gateway.workspace import LocalWorkspace

    row = OPERATED[args.handler]
    request = operated_request(args.handler, args)
    if request is None:
        return ExitCode.CONFIG
    reply = operation(row.operation)(LocalWorkspace(settings), request)
    return row.printer(reply.model_dump(mode="json"), args, False)
