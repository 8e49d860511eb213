"""What the `haygate` commands other than `serve` do. Imported when one of them runs: they need Haystack,
and `serve` answers before Haystack has loaded."""

import argparse
import json
import logging
import sys
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.edge.repair import repair
from haygate.errors import HaygateError, InvalidRequestError
from haygate.gateway.catalog import load_catalog
from haygate.gateway.client import ServerClient, local_server
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway, load_tools
from haygate.gateway.serving import claim_data_dir
from haygate.ingest.extract import write_extractions
from haygate.ingest.indexer import (
    BATCH_RECORDS,
    PROGRESS_SECONDS,
    IngestReport,
    Pacer,
    Refusal,
    delete_records,
    ingest_files,
    sample_files,
)
from haygate.ingest.mapping import RECORD_HASH
from haygate.ingest.readers import read_records
from haygate.settings import Settings

logger = logging.getLogger("haygate")

EXIT_OK, EXIT_FAILED, EXIT_CONFIG = 0, 1, 2


def server_for(args: argparse.Namespace, settings: Settings) -> ServerClient | None:
    """The server to go through: `--server URL`, or the local one that holds the data dir, if any."""
    if getattr(args, "server", None):
        return ServerClient(args.server, token=settings.token)
    client = local_server(settings.data_dir)
    if client is not None:
        logger.info("a haygate server holds %s: going through it (%s)", settings.data_dir, client.where)
    return client


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    if args.samples:
        jobs = sample_files(settings.home / "samples", settings.collections_dir)
    elif args.collection and args.files:
        jobs = {args.collection: list(args.files)}
    else:
        print("error: give COLLECTION FILE... or --samples", file=sys.stderr)
        return EXIT_CONFIG
    failed = False
    client = server_for(args, settings)
    with Loader(settings) as loader:
        for collection, files in jobs.items():
            if client is not None:
                report = ingest_through(client, collection, files, progress=not args.no_progress)
            else:
                target = loader.collection(collection)
                report = ingest_files(target, files, progress=not args.no_progress, optimize=args.wait)
                if report.written and not args.wait:
                    print(
                        f"{collection}: written and searchable; `haygate serve` builds its index in the background "
                        f"(or now: `haygate optimize {collection}`, or ingest with --wait)",
                        file=sys.stderr,
                    )
            for problem in report.errors:
                print(f"rejected {problem}", file=sys.stderr)
            for warning in report.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            print(report.summary(), file=sys.stderr)
            failed = failed or bool(report.errors)
    return EXIT_FAILED if failed else EXIT_OK


def ingest_through(client: ServerClient, collection: str, files: list[Path], progress: bool) -> IngestReport:
    """The files' records, read here and written by the server in requests sized as a local ingest sizes its
    batches (`Pacer`); refusals keep their file:line."""
    report = IngestReport(collection)
    records = [record for path in files for record in read_records(path)]
    pacer = Pacer(PROGRESS_SECONDS) if progress else None
    start = 0
    with tqdm(total=len(records), unit="rec", desc=f"ingest {collection}", disable=not progress) as bar:
        while start < len(records):
            batch = records[start : start + (pacer.size if pacer else BATCH_RECORDS)]
            began = time.perf_counter()
            sendable = [(start + i, r) for i, r in enumerate(batch) if r.data is not None and not r.error]
            for index, record in enumerate(batch, start=start):
                if record.data is None or record.error:
                    report.refused.append(Refusal(record.where, index, record.error or "no data"))
            report.records += len(batch)
            if sendable:
                answer = client.upsert(collection, [record.data for _, record in sendable])
                report.added += answer["added"]
                report.updated += answer["updated"]
                report.unchanged += answer["unchanged"]
                report.duplicates += answer.get("duplicates", 0)
                for refusal in answer["refused"]:
                    index, record = sendable[refusal["index"]]
                    report.refused.append(Refusal(record.where, index, refusal["reason"]))
                report.warnings = answer.get("warnings") or report.warnings
            if pacer is not None:
                pacer.took(len(batch), time.perf_counter() - began)
            bar.update(len(batch))
            start += len(batch)
    return report


def cmd_extract(args: argparse.Namespace, settings: Settings) -> int:
    if not args.source.is_file():
        print(f"error: {args.source}: no such file", file=sys.stderr)
        return EXIT_FAILED
    counts = write_extractions(args.source, args.out, args.project)
    print(json.dumps({"out": str(args.out), "extractions": dict(sorted(counts.items()))}))
    print(f"ingest them with: haygate ingest knowledge {args.out}", file=sys.stderr)
    return EXIT_OK


def cmd_optimize(args: argparse.Namespace, settings: Settings) -> int:
    with Loader(settings) as loader:
        store = loader.store(args.collection)  # an unknown collection is an error, not an empty store
        if not store.exists():
            print(f"error: collection '{args.collection}' is empty; ingest it first", file=sys.stderr)
            return EXIT_FAILED
        started = time.perf_counter()
        store.optimize()
        print(f"{args.collection}: optimized {store.count_documents()} points in {time.perf_counter() - started:.1f} s")
    return EXIT_OK


def cmd_repair(args: argparse.Namespace, settings: Settings) -> int:
    if settings.qdrant_url:
        print("error: `repair` mends embedded Qdrant Edge shards; a Qdrant server recovers its own", file=sys.stderr)
        return EXIT_CONFIG
    claim_data_dir(settings.data_dir)  # a running server holds the shard: it has to stop first
    with Loader(settings) as loader:
        store = loader.store(args.collection)
        assert isinstance(store, EdgeDocumentStore)
        report = repair(store, force=args.force, stale_key=RECORD_HASH)
    print(report.summary(), file=sys.stderr)
    return EXIT_OK


def cmd_delete(args: argparse.Namespace, settings: Settings) -> int:
    client = server_for(args, settings)
    if client is not None:
        answer = client.delete(args.collection, args.ids)
        points, missing = answer["points"], answer["missing"]
    else:
        with Loader(settings) as loader:
            store = loader.store(args.collection)
            with store.batch():
                points, missing = delete_records(store, args.ids)
    print(f"{args.collection}: deleted {len(args.ids) - len(missing)} record(s), {points} point(s)", file=sys.stderr)
    if missing:
        print(f"error: not found in '{args.collection}': {', '.join(missing)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def cmd_validate(args: argparse.Namespace, settings: Settings) -> int:
    """Every check `serve --strict` makes, on every declaration, served here or not (a hidden tool says why):
    pipelines built, interfaces checked, models loaded; and every collection's schema and indexing pipeline.
    On a scratch data dir, so it runs beside a server that holds the real one."""
    with tempfile.TemporaryDirectory(prefix="haygate-validate-") as scratch:
        checked = settings if settings.qdrant_url else settings.model_copy(update={"data_dir": Path(scratch)})
        with Loader(checked) as loader:
            runtimes, problems = load_tools(loader, args.files or None, include_hidden=True)
            gateway = Gateway(runtimes, loader, problems)
            gateway.warm_up(strict=False)
            if not args.files:
                for path in sorted(settings.collections_dir.glob("*.yaml")):
                    try:
                        loader.collection(path.stem)
                    except HaygateError as error:
                        gateway.problems.append(error.message)
        hidden = load_catalog(settings, args.files or None).hidden
    for name in sorted(gateway.tools):
        note = f"  (not served here: {hidden[name]})" if name in hidden else ""
        print(f"ok  {name}  ({gateway.tools[name].declaration.source_file}){note}")
    for problem in gateway.problems:
        print(f"ERR {problem}")
    return EXIT_CONFIG if gateway.problems else EXIT_OK


def cmd_call(args: argparse.Namespace, settings: Settings) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as error:
        print(f"error: --json is not valid JSON: {error}", file=sys.stderr)
        return EXIT_CONFIG
    client = server_for(args, settings)
    if client is not None:
        result = client.call(args.tool, arguments)
    else:
        with Loader(settings) as loader:
            result = Gateway.load(loader, only=args.tool).call(args.tool, arguments)
    print(json.dumps(result, indent=2, default=str))
    return EXIT_OK


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    """A running server's figures (its calls too); with none running, the collections as they lie on disk."""
    client = server_for(args, settings)
    if client is not None:
        figures = client.health(verbose=True)
    else:
        with Loader(settings) as loader:
            names = sorted(path.stem for path in settings.collections_dir.glob("*.yaml"))
            collections = {name: loader.store(name).stats() for name in names}
        figures = {"status": "not running", "collections": collections, "calls": {}}
    if args.json:
        print(json.dumps(figures, indent=2))
        return EXIT_OK
    print(f"server: {figures.get('status')}" + (f", up {figures['uptime_s']} s" if "uptime_s" in figures else ""))
    print(f"\n{'collection':<24}{'documents':>11}{'disk':>11}  last write")
    for name, stats in figures["collections"].items():
        if "error" in stats:
            print(f"{name:<24}  {stats['error']}")
            continue
        disk = "-" if stats["disk_bytes"] is None else f"{stats['disk_bytes'] / 1e6:.1f} MB"
        print(f"{name:<24}{stats['documents']:>11}{disk:>11}  {stats['last_write'] or '-'}")
    calls = figures.get("calls") or {}
    print(f"\n{'tool':<24}{'calls':>8}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}")
    for name, stats in calls.items():
        errors = stats["calls"] - stats["outcomes"].get("ok", 0)
        print(f"{name:<24}{stats['calls']:>8}{errors:>8}{stats['p50_ms']:>9}{stats['p95_ms']:>9}")
    if not calls:
        print("(no calls since the server started)" if client is not None else "(no server runs: no calls)")
    return EXIT_OK


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    # Evaluation pulls in ranx (numba) and scipy; other commands should not wait for them.
    from haygate.evaluation.datasets import load_dataset
    from haygate.evaluation.report import write_report
    from haygate.evaluation.runner import DEFAULT_METRICS, evaluate_variants
    from haygate.evaluation.tools import evaluate_tool, load_judged_set

    if args.judged is not None:
        judged = load_judged_set(args.judged, args.split, args.corpus)
        dataset = judged.dataset
        results, comparisons = evaluate_tool(
            settings, judged, args.pipeline, args.metric, progress=not args.no_progress
        )
    else:
        if not args.pipeline or args.corpus is not None:
            msg = "--dataset evaluates the --pipeline files (at least one) on the folder's own corpus.jsonl"
            raise InvalidRequestError(msg)
        dataset = load_dataset(args.dataset, args.split)
        results, comparisons = evaluate_variants(
            settings, dataset, args.pipeline, [*DEFAULT_METRICS, *args.metric], progress=not args.no_progress
        )
    write_report(args.out, dataset, results, comparisons)
    print((args.out / "report.md").read_text())
    print(f"wrote {args.out}/report.json, report.md, plot.png and runs/*.trec", file=sys.stderr)
    return EXIT_OK


def cmd_tune(args: argparse.Namespace, settings: Settings) -> int:
    from haygate.evaluation.datasets import load_dataset
    from haygate.evaluation.tune import tune

    dataset = load_dataset(args.dataset, args.split)
    validate = load_dataset(args.dataset, args.validate_split) if args.validate_split else None
    summary = tune(
        settings,
        dataset,
        args.pipeline,
        args.grid,
        args.out,
        objective=args.objective,
        validate=validate,
        progress=not args.no_progress,
    )
    print((args.out / "tune.md").read_text())
    print(f"best pipeline: {summary['best']['pipeline']}", file=sys.stderr)
    return EXIT_OK
