"""`haygate` command line: serve, ingest, delete, optimize, validate, call, extract, eval and tune.

The top layer: it builds `Settings` from the environment once and hands them to what it runs."""

import haygate._env  # noqa: F401  (offline defaults before anything reads the environment)

# isort: split
import argparse
import json
import logging
import sys
import time
from pathlib import Path

from haygate.errors import ConfigurationError, HaygateError, StoreInUseError, envelope
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway, load_tools
from haygate.ingest.extract import write_extractions
from haygate.ingest.indexer import delete_records, ingest_files, sample_files
from haygate.settings import Settings

logger = logging.getLogger("haygate")

EXIT_OK, EXIT_FAILED, EXIT_CONFIG, EXIT_IN_USE = 0, 1, 2, 3


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        stream=sys.stderr,
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for noisy in ("httpx", "sentence_transformers", "haystack", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    try:
        return int(args.handler(args, Settings()) or 0)
    except StoreInUseError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return EXIT_IN_USE
    except ConfigurationError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return EXIT_CONFIG
    except HaygateError as error:
        print(json.dumps(envelope(error)[1]), file=sys.stderr)  # what a client of the server would see
        return EXIT_FAILED


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="haygate", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging (to stderr)")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="serve MCP over stdio, or over HTTP with REST (--http)")
    serve.add_argument("--http", action="store_true", help="streamable HTTP at /mcp plus REST")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8000)")
    serve.set_defaults(handler=cmd_serve)

    ingest = commands.add_parser("ingest", help="ingest JSONL, CSV or Markdown files into a collection")
    ingest.add_argument("collection", nargs="?", help="collection name (configs/collections/NAME.yaml)")
    ingest.add_argument("files", nargs="*", type=Path, help="files to ingest")
    ingest.add_argument("--samples", action="store_true", help="ingest the bundled sample collections")
    ingest.add_argument("--no-progress", action="store_true", help="no progress bar")
    ingest.set_defaults(handler=cmd_ingest)

    delete = commands.add_parser("delete", help="delete records (and all their chunks) by id")
    delete.add_argument("collection")
    delete.add_argument("ids", nargs="+")
    delete.set_defaults(handler=cmd_delete)

    extract = commands.add_parser("extract", help="derive knowledge extractions from a documentation corpus")
    extract.add_argument("corpus", choices=["haystack-docs"], help="which corpus format")
    extract.add_argument("source", type=Path, help="the corpus file, e.g. ../shared/data/haystack-docs/sections.jsonl")
    extract.add_argument("--out", type=Path, default=Path("extractions.jsonl"), help="JSONL to write")
    extract.add_argument("--project", default="haystack-docs", help="project_id (tenant) of the extractions")
    extract.set_defaults(handler=cmd_extract)

    optimize = commands.add_parser("optimize", help="compact a collection (merge segments, build indexes)")
    optimize.add_argument("collection")
    optimize.set_defaults(handler=cmd_optimize)

    validate = commands.add_parser("validate", help="check tool declarations and their pipelines")
    validate.add_argument("files", nargs="*", type=Path, help="declarations (default: configs/tools/*.yaml)")
    validate.set_defaults(handler=cmd_validate)

    call = commands.add_parser("call", help="run one tool in-process and print its structured result")
    call.add_argument("tool")
    call.add_argument("--json", dest="arguments", default="{}", help="arguments as a JSON object")
    call.set_defaults(handler=cmd_call)

    evaluate = commands.add_parser("eval", help="evaluate pipelines on a judged BEIR-layout dataset")
    evaluate.add_argument("--dataset", type=Path, required=True, help="folder with corpus.jsonl, queries.jsonl, qrels/")
    evaluate.add_argument("--split", default="test", help="qrels/<split>.tsv (default: test)")
    evaluate.add_argument("--pipeline", type=Path, action="append", required=True, help="a query pipeline (repeat)")
    evaluate.add_argument("--metric", action="append", default=[], help="extra ranx metric, e.g. precision@5")
    evaluate.add_argument("--out", type=Path, default=Path("eval-out"), help="report folder (default: eval-out)")
    evaluate.add_argument("--no-progress", action="store_true")
    evaluate.set_defaults(handler=cmd_eval)

    tune = commands.add_parser("tune", help="grid-search pipeline parameters on a split; write the best as YAML")
    tune.add_argument("--dataset", type=Path, required=True)
    tune.add_argument("--split", default="train")
    tune.add_argument("--pipeline", type=Path, required=True)
    tune.add_argument("--grid", type=Path, required=True, help="YAML: component.parameter -> [values]")
    tune.add_argument("--validate-split", default=None, help="report the best point on this split too")
    tune.add_argument("--objective", default="ndcg@10")
    tune.add_argument("--out", type=Path, default=Path("eval-out/tune"))
    tune.add_argument("--no-progress", action="store_true")
    tune.set_defaults(handler=cmd_tune)
    return parser


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import torch
    import uvicorn

    from haygate.gateway.http import build_http_app
    from haygate.gateway.mcp import build_mcp

    # One intra-op thread per query: on a busy 2-core box, two spinning threads cost 10x in latency.
    torch.set_num_threads(1)
    with Loader(settings) as loader:
        gateway = Gateway.load(loader)
        gateway.warm_up()
        logger.info("serving %d tool(s): %s", len(gateway.tools), ", ".join(sorted(gateway.tools)))
        if not args.http:
            build_mcp(gateway).run(transport="stdio", show_banner=False)
            return EXIT_OK
        host = args.host or settings.host
        port = args.port or settings.port
        app = build_http_app(gateway, token=settings.token)
        auth = "bearer token required" if settings.token else "no token (set HAYGATE_TOKEN to require one)"
        if not settings.token and host not in ("127.0.0.1", "localhost", "::1"):
            logger.warning("binding %s without HAYGATE_TOKEN: anyone who can reach this port can call every tool", host)
        logger.info("MCP at http://%s:%d/mcp, REST at /api/tools/{name}; %s", host, port, auth)
        uvicorn.run(app, host=host, port=port, log_level="warning")
    return EXIT_OK


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    if args.samples:
        jobs = sample_files(settings.home / "samples", settings.collections_dir)
    elif args.collection and args.files:
        jobs = {args.collection: list(args.files)}
    else:
        print("error: give COLLECTION FILE... or --samples", file=sys.stderr)
        return EXIT_CONFIG
    failed = False
    with Loader(settings) as loader:
        for collection, files in jobs.items():
            report = ingest_files(loader.collection(collection), files, progress=not args.no_progress)
            for problem in report.errors:
                print(f"rejected {problem}", file=sys.stderr)
            for warning in report.warnings:
                print(f"warning: {warning}", file=sys.stderr)
            print(report.summary(), file=sys.stderr)
            failed = failed or bool(report.errors)
    return EXIT_FAILED if failed else EXIT_OK


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


def cmd_delete(args: argparse.Namespace, settings: Settings) -> int:
    with Loader(settings) as loader:
        deleted, missing = delete_records(loader.store(args.collection), args.ids)
    print(f"{args.collection}: deleted {len(args.ids) - len(missing)} record(s), {deleted} point(s)", file=sys.stderr)
    if missing:
        print(f"error: not found in '{args.collection}': {', '.join(missing)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def cmd_validate(args: argparse.Namespace, settings: Settings) -> int:
    with Loader(settings) as loader:
        runtimes, problems = load_tools(loader, args.files or None)
    for name in sorted(runtimes):
        print(f"ok  {name}  ({runtimes[name].declaration.source_file})")
    for problem in problems:
        print(f"ERR {problem}")
    return EXIT_CONFIG if problems else EXIT_OK


def cmd_call(args: argparse.Namespace, settings: Settings) -> int:
    try:
        arguments = json.loads(args.arguments)
    except json.JSONDecodeError as error:
        print(f"error: --json is not valid JSON: {error}", file=sys.stderr)
        return EXIT_CONFIG
    with Loader(settings) as loader:
        result = Gateway.load(loader).call(args.tool, arguments)
    print(json.dumps(result, indent=2, default=str))
    return EXIT_OK


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    # Evaluation pulls in ranx (numba) and scipy; other commands should not wait for them.
    from haygate.evaluation.datasets import load_dataset
    from haygate.evaluation.report import write_report
    from haygate.evaluation.runner import DEFAULT_METRICS, evaluate_variants

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


if __name__ == "__main__":
    sys.exit(main())
