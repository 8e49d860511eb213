"""`haygate` command line: init, serve, ingest, delete, extract, optimize, repair, validate, examples, skill,
call, stats, eval, tune and judged.

The top layer: it builds `Settings` from the environment once and hands them to what it runs. It imports
what a command needs when the command runs: `--help` loads nothing, a command that a running server takes
over loads only the client (`haygate.remote`), and Haystack is loaded by the commands that run here."""

import haygate._env  # noqa: F401  (offline defaults before anything reads the environment)

# isort: split
import argparse
import contextlib
import faulthandler
import importlib
import json
import logging
import os
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, NoReturn

from haygate import __version__
from haygate.compat import install
from haygate.errors import ConfigurationError, ExitCode, HaygateError, OperatorError, StoreInUseError, envelope

if TYPE_CHECKING:
    from haygate.settings import Settings

logger = logging.getLogger("haygate")

WARM_UP_GRACE = 3.0  # seconds the model loading waits for a client's handshake (`initialize`, `tools/list`); a call,
# a health check or the listing starts it at once


def main(argv: list[str] | None = None) -> int:
    install()  # haygate.compat's patches of Haystack, before any command imports it
    parser = build_parser()
    args = parser.parse_args(argv)
    if hasattr(args, "no_progress"):  # bars on a terminal or when asked, none when told; else a line now and then
        args.progress = True if args.progress else False if args.no_progress else sys.stderr.isatty() or None
    if args.handler == "cmd_init":
        return cmd_init(args)
    from haygate.home import environment
    from haygate.logs import configure_logging

    configure_logging(environment("LOG_FORMAT"), verbose=args.verbose)
    with contextlib.suppress(ValueError, OSError):  # stderr without a file descriptor (captured in a test)
        faulthandler.enable()  # a fatal signal that no check foresaw still says where it struck
    try:
        return run(args)
    except StoreInUseError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return ExitCode.IN_USE
    except OperatorError as error:  # full disk, unwritable or damaged store: the operator reads what to do
        print(f"error: {error.message}", file=sys.stderr)
        return ExitCode.STORAGE
    except ConfigurationError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return ExitCode.CONFIG
    except HaygateError as error:
        if args.handler == "cmd_call":  # a tool call's error: its envelope, as a client of the server sees it
            print(json.dumps(envelope(error)[1]), file=sys.stderr)
        else:  # a refused input (a judged set, a record): what to change, as the other errors say it
            print(f"error: {error.message}", file=sys.stderr)
        return ExitCode.FAILED
    except OSError as error:  # a file the command was told to read or write (--out, --sheet): which, and why
        where = f"{error.filename}: " if error.filename else ""
        print(f"error: {where}{error.strerror or error}", file=sys.stderr)
        return ExitCode.STORAGE


def run(args: argparse.Namespace) -> int:
    """A command a running server takes over goes to it with what `haygate.home` finds (no pydantic, no
    Haystack); anything else builds the settings and runs here."""
    from haygate.remote import FORWARDED, OPERATED, forward

    if args.handler in FORWARDED and not getattr(args, "ray_address", None):  # --ray: the embedding is not the server's
        from haygate.home import locate

        forwarded = forward(args.handler, args, locate(args.home))
        if forwarded is not None:
            return forwarded
    from haygate.settings import Settings, refuse_misspelt_variables

    refuse_misspelt_variables(dict(os.environ))
    on_ray = {name: value for name in RAY_SETTINGS if (value := getattr(args, name, None)) is not None}
    settings = Settings(**({"home": args.home.resolve()} if args.home else {}), **on_ray)
    if not settings.has_project and args.handler != "cmd_extract":
        given = bool(args.home or os.environ.get("HAYGATE_HOME"))
        print(f"error: {no_project(settings.home, given)}", file=sys.stderr)
        return ExitCode.CONFIG
    if args.handler in (cmd_serve, "cmd_validate") and not any(settings.tools_dir.glob("*.yaml")):
        msg = f"{settings.tools_dir} declares no tool: add a declaration there, or start from `haygate init DIR`"
        print(f"error: {msg}", file=sys.stderr)
        return ExitCode.CONFIG
    if args.handler is cmd_serve:
        return cmd_serve(args, settings)
    if args.handler in OPERATED:
        return _commands().run_operated(args, settings)
    return int(getattr(_commands(), args.handler)(args, settings) or 0)


def no_project(home: Path, given: bool) -> str:
    """What a user reads when there is no project to work on, and what to do about it."""
    where = f"{home} is not a haygate project" if given else f"no haygate project in {home} or above it"
    return (
        f"{where} (a project holds configs/tools/); create one with `haygate init DIR`, "
        "or point at one with --home DIR or HAYGATE_HOME"
    )


def cmd_init(args: argparse.Namespace) -> int:
    from haygate.templates import TemplateError, init_project

    target = args.directory.resolve()
    try:
        written = init_project(target, args.template)
    except TemplateError as error:
        print(f"error: {error}", file=sys.stderr)
        return ExitCode.CONFIG
    print(f"created a haygate project ({args.template}) in {target}: {', '.join(written)}")
    print(f"next: cd {args.directory} && haygate ingest --samples && haygate serve --http")
    return ExitCode.OK


def _commands() -> ModuleType:
    """Every command but `serve` needs Haystack; importing it here keeps `serve`'s first answer fast."""
    return importlib.import_module("haygate.commands")


LIMIT_HELP = (
    "a quick run: the first N queries, over their judged records and 10 others per query "
    "(figures not comparable with a full run)"
)


def positive(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


ABOUT = """haygate serves Haystack pipelines declared in YAML as typed MCP tools, and the same tools as REST
endpoints, for AI agents; it ingests your files into the collections they search, and evaluates the tools on
judged sets. A project is a folder with configs/ and pipelines/ (`haygate init` writes one)."""
FIRST_STEPS = """Start here: haygate init my-docs && cd my-docs && haygate ingest docs ./my-markdown && haygate serve.
`haygate COMMAND --help` says what a command does; the documentation's Command line page has every option."""


def _described(help_text: str) -> str:
    """A command's one-line help as the opening sentence of its own --help."""
    return help_text[0].upper() + help_text[1:] + "."


def progress_flags(command: argparse.ArgumentParser) -> None:
    shown = command.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true", help="progress bars even when stderr is not a terminal")
    shown.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress at all (without a terminal, a long run says where it is in a plain line every 15 s)",
    )


def positive_number(text: str) -> float:
    """An argparse type: a number above 0 (an actor's share of CPUs or GPUs)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a number above 0, got {text!r}")
    return value


def ray_flags(command: argparse.ArgumentParser) -> None:
    """Where the embedding of an ingest (or of an evaluation's indexing) runs: a Ray cluster, with the `ray`
    extra (the settings `ray_*`, HAYGATE_RAY_*)."""
    group = command.add_argument_group("embedding on a Ray cluster (the `ray` extra)")
    group.add_argument(
        "--ray",
        metavar="ADDRESS",
        dest="ray_address",
        help="embed on this Ray cluster: auto, HOST:PORT, ray://HOST:PORT, or local (a Ray of this machine)",
    )
    group.add_argument("--ray-actors", type=positive, metavar="N", help="embedding actors (default: as the nodes hold)")
    group.add_argument(
        "--ray-actor-cpus", type=positive_number, metavar="N", help="CPUs (and model threads) per actor (default: 1)"
    )
    group.add_argument(
        "--ray-actor-gpus", type=positive_number, metavar="N", help="GPUs per actor: its model runs on the GPU"
    )


RAY_SETTINGS = ("ray_address", "ray_actors", "ray_actor_cpus", "ray_actor_gpus")


Commands = argparse._SubParsersAction  # what `add_subparsers` gives: each command is added to it


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="haygate", description=ABOUT, epilog=FIRST_STEPS)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging (to stderr)")
    parser.add_argument("--version", action="version", version=f"haygate {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    home = argparse.ArgumentParser(add_help=False)
    home.add_argument(
        "--home",
        type=Path,
        default=None,
        help="the project folder (default: HAYGATE_HOME, else this folder or the nearest above it with configs/tools/)",
    )

    add_project_commands(commands, home)
    add_data_commands(commands, home)
    add_tool_commands(commands, home)
    add_evaluation_commands(commands, home)
    add_judged_commands(commands, home)
    described(commands)
    return parser


def add_project_commands(commands: "Commands", home: argparse.ArgumentParser) -> None:
    """`init` and `serve`."""
    init = commands.add_parser("init", help="write a new project into DIR (minimal: docs search; full: the example)")
    init.add_argument("directory", type=Path, help="a new or empty folder")
    init.add_argument(
        "--template",
        choices=["minimal", "full"],
        default="minimal",
        help="minimal: one docs collection and its search tool; full: this repository's example, all its tools",
    )
    init.set_defaults(handler="cmd_init", home=None)

    serve = commands.add_parser(
        parents=[home],
        name="serve",
        help="serve the project's tools to agents: MCP over stdio, or MCP and REST over HTTP (--http)",
    )
    serve.add_argument("--http", action="store_true", help="streamable HTTP at /mcp plus REST")
    serve.add_argument("--host", default=None, help="bind address (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=None, help="port (default 8000)")
    serve.add_argument("--strict", action="store_true", help="refuse to serve if any tool or model is broken")
    serve.set_defaults(handler=cmd_serve)


def add_data_commands(commands: "Commands", home: argparse.ArgumentParser) -> None:
    """What writes or mends a collection: `ingest`, `delete`, `extract`, `optimize`, `repair`."""
    ingest = commands.add_parser(
        parents=[home], name="ingest", help="ingest JSONL, CSV or Markdown files into a collection"
    )
    ingest.add_argument("collection", nargs="?", help="collection name (configs/collections/NAME.yaml)")
    ingest.add_argument("files", nargs="*", type=Path, help="files to ingest")
    ingest.add_argument("--samples", action="store_true", help="ingest the bundled sample collections")
    ingest.add_argument(
        "--include",
        action="append",
        default=[],
        metavar="GLOB",
        help="of a folder, read only files matching this (a .gitignore glob such as 'docs/**/*.md'); repeatable",
    )
    ingest.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="of a folder, leave out files matching this ('changelog.md', 'blog/**'); repeatable; adds to the "
        "collection YAML's `files: {include, exclude}`",
    )
    progress_flags(ingest)
    ingest.add_argument(
        "--wait", action="store_true", help="build the indexes (HNSW) before returning, not later in `haygate serve`"
    )
    ingest.add_argument("--server", help="write through this haygate server (default: the local one, if it runs)")
    ray_flags(ingest)
    ingest.set_defaults(handler="cmd_ingest")

    delete = commands.add_parser(parents=[home], name="delete", help="delete records (and all their chunks) by id")
    delete.add_argument("collection", help="the collection the records are in")
    delete.add_argument("ids", nargs="+", help="record ids (each record's chunks go with it)")
    delete.add_argument("--server", help="delete through this haygate server (default: the local one, if it runs)")
    delete.set_defaults(handler="cmd_delete")

    extract = commands.add_parser(
        parents=[home], name="extract", help="derive knowledge extractions from a documentation corpus"
    )
    extract.add_argument("corpus", choices=["haystack-docs"], help="which corpus format")
    extract.add_argument("source", type=Path, help="the corpus file, e.g. ../shared/data/haystack-docs/sections.jsonl")
    extract.add_argument("--out", type=Path, default=Path("extractions.jsonl"), help="JSONL to write")
    extract.add_argument("--project", default="haystack-docs", help="project_id (tenant) of the extractions")
    extract.set_defaults(handler="cmd_extract")

    optimize = commands.add_parser(
        parents=[home], name="optimize", help="compact a collection (merge segments, build indexes)"
    )
    optimize.add_argument("collection", help="the collection to compact and index")
    optimize.set_defaults(handler="cmd_optimize")

    repair = commands.add_parser(
        parents=[home],
        name="repair",
        help="rebuild a damaged embedded collection from what can be read (keeps the damaged copy)",
    )
    repair.add_argument("collection", help="the damaged collection (the server must be stopped)")
    repair.add_argument("--force", action="store_true", help="rebuild even a collection that opens cleanly")
    repair.set_defaults(handler="cmd_repair")


def add_tool_commands(commands: "Commands", home: argparse.ArgumentParser) -> None:
    """What checks, calls or describes the tools: `validate`, `examples`, `skill`, `call`, `stats`."""
    validate = commands.add_parser(parents=[home], name="validate", help="check tool declarations and their pipelines")
    validate.add_argument("files", nargs="*", type=Path, help="declarations (default: configs/tools/*.yaml)")
    validate.add_argument(
        "--fix",
        action="store_true",
        help="show the change the advice names (a parameter taken out) as a diff, then write it",
    )
    validate.add_argument("--yes", action="store_true", help="with --fix: write the change without asking")
    validate.set_defaults(handler="cmd_validate")

    examples = commands.add_parser(
        parents=[home],
        name="examples",
        help="draw each tool's examples (filter values, queries) from the ingested data; show the diff, then write",
    )
    examples.add_argument("tool", nargs="?", help="one tool (default: every search tool)")
    examples.add_argument("--yes", action="store_true", help="write the changes without asking")
    examples.set_defaults(handler="cmd_examples")

    skill = commands.add_parser(
        parents=[home],
        name="skill",
        help="print the project's skill for agents (SKILL.md: its tools, filter values, example calls, paging)",
    )
    skill.add_argument("--out", type=Path, default=None, help="write SKILL.md and tools/<tool>.md into this folder")
    skill.set_defaults(handler="cmd_skill")

    call = commands.add_parser(
        parents=[home],
        name="call",
        help="run one tool once and print its result as JSON (through the running server, if one holds the data)",
    )
    call.add_argument("tool", help="the tool's name, as `tools/list` gives it")
    call.add_argument("--json", dest="arguments", default="{}", help="arguments as a JSON object")
    call.add_argument("--server", help="call this haygate server (default: the local one, if it runs)")
    call.set_defaults(handler="cmd_call")

    stats = commands.add_parser(
        parents=[home],
        name="stats",
        help="per collection its documents, disk use and last write; per tool its calls and p50/p95",
    )
    stats.add_argument("--server", help="ask this haygate server (default: the local one, if it runs)")
    stats.add_argument("--json", action="store_true", help="print the figures as JSON")
    stats.set_defaults(handler="cmd_stats")


def add_evaluation_commands(commands: "Commands", home: argparse.ArgumentParser) -> None:
    """`eval`, `tune` and `compare`."""
    evaluate = commands.add_parser(
        parents=[home], name="eval", help="evaluate pipelines or a served tool on a judged BEIR-layout set"
    )
    judged = evaluate.add_mutually_exclusive_group(required=True)
    judged.add_argument("--dataset", type=Path, help="folder with corpus.jsonl, queries.jsonl, qrels/")
    judged.add_argument("--judged", type=Path, help="a tool's judged set: queries.jsonl, qrels/, eval.yaml")
    source = evaluate.add_mutually_exclusive_group()
    source.add_argument("--corpus", type=Path, help="with --judged: the corpus, instead of the one eval.yaml names")
    source.add_argument(
        "--collection",
        help="with --judged: evaluate this collection as ingested (no corpus, no indexing), e.g. the one served",
    )
    evaluate.add_argument("--split", default="test", help="qrels/<split>.tsv (default: test)")
    evaluate.add_argument(
        "--pipeline",
        type=Path,
        action="append",
        default=[],
        help="a query pipeline (repeat); with --judged, one run in the tool's place and compared with it",
    )
    evaluate.add_argument("--metric", action="append", default=[], help="extra ranx metric, e.g. precision@5")
    evaluate.add_argument("--out", type=Path, default=Path("eval-out"), help="report folder (default: eval-out)")
    evaluate.add_argument("--limit", type=positive, metavar="N", help=LIMIT_HELP)
    progress_flags(evaluate)
    ray_flags(evaluate)
    evaluate.set_defaults(handler="cmd_eval")

    tune = commands.add_parser(
        parents=[home], name="tune", help="grid-search pipeline parameters on a split; write the best as YAML"
    )
    tune.add_argument("--dataset", type=Path, required=True, help="folder with corpus.jsonl, queries.jsonl, qrels/")
    tune.add_argument("--split", default="train", help="qrels/<split>.tsv to tune on (default: train)")
    tune.add_argument("--pipeline", type=Path, required=True, help="the query pipeline whose parameters vary")
    tune.add_argument("--grid", type=Path, required=True, help="YAML: component.parameter -> [values]")
    tune.add_argument("--validate-split", default=None, help="report the best point on this split too")
    tune.add_argument("--objective", default="ndcg@10", help="the ranx metric the best point maximises")
    tune.add_argument("--out", type=Path, default=Path("eval-out/tune"), help="report folder (default: eval-out/tune)")
    tune.add_argument("--limit", type=positive, metavar="N", help=LIMIT_HELP)
    progress_flags(tune)
    ray_flags(tune)
    tune.set_defaults(handler="cmd_tune")

    compare = commands.add_parser(
        parents=[home],
        name="compare",
        help="per-query differences between two runs of an evaluation report: what got better or worse, and how",
    )
    compare.add_argument("report", type=Path, metavar="REPORT", help="an `eval --out` folder (report.json, runs/)")
    compare.add_argument("before", nargs="?", help="the run compared from (default: the report's baseline)")
    compare.add_argument("after", nargs="?", help="the run compared to (default: the report's second variant)")
    compare.add_argument("--metric", help="the metric compared (default: nDCG@10, else the report's first)")
    compare.add_argument("--limit", type=int, default=10, help="gains and losses listed, each (default: 10)")
    compare.set_defaults(handler="cmd_compare")


def add_judged_commands(commands: "Commands", home: argparse.ArgumentParser) -> None:
    """`judged import trec|quepid` and `judged export trec`: a judged set to and from other tools' files."""
    judged = commands.add_parser(
        name="judged",
        help="pool a judged set's rankings; import judgments from TREC qrels, Quepid or a graded sheet; export TREC",
    )
    actions = judged.add_subparsers(required=True, metavar="ACTION", help="import, export, pool or known-items")
    importing = actions.add_parser("import", help="write a judged set from another tool's judgments")
    formats = importing.add_subparsers(
        required=True, metavar="FORMAT", help="the file's format: trec, quepid or a graded sheet"
    )
    trec = formats.add_parser(
        "trec",
        parents=[home],
        help="TREC qrels (`query-id 0 doc-id grade`, grades 0-3) or BEIR's qrels TSV, with the queries' texts",
    )
    trec.add_argument("qrels", type=Path, metavar="QRELS_FILE", help="the qrels file")
    trec.add_argument(
        "--queries",
        type=Path,
        help="the queries' texts, which qrels lack: BEIR's queries.jsonl ({_id, text}) or TSV query-id<TAB>text",
    )
    import_flags(trec)
    trec.set_defaults(handler="cmd_judged_import_trec")
    quepid = formats.add_parser(
        "quepid", parents=[home], help="a Quepid case's ratings, as its CSV exports write them (Basic or Detailed)"
    )
    quepid.add_argument("ratings", type=Path, metavar="CSV", help="the exported ratings")
    quepid.add_argument(
        "--scale",
        choices=["0-1", "0-3", "0-10"],
        help="the case's rating scale, mapped to grades 0-3 (default: the smallest that holds the highest rating)",
    )
    import_flags(quepid)
    quepid.set_defaults(handler="cmd_judged_import_quepid")
    sheet = formats.add_parser(
        "sheet", parents=[home], help="a grading sheet `haygate judged pool` wrote, its `grade` cells filled in"
    )
    sheet.add_argument("sheet", type=Path, metavar="CSV", help="the graded sheet")
    sheet.add_argument("--into", type=Path, required=True, help="the judged set it was pooled from")
    sheet.add_argument("--split", default="test", help="the split it was pooled from (default: test)")
    sheet.add_argument("--rater", help="who graded it: the grades are recorded as theirs, for the raters' agreement")
    sheet.set_defaults(handler="cmd_judged_import_sheet")

    add_pool_command(actions, home)

    known = actions.add_parser(
        "known-items",
        parents=[home],
        help="a judged set made from a collection's headings: each section's heading a query, the section its answer",
    )
    known.add_argument("collection", help="the collection, as ingested")
    known.add_argument("name", help="the judged set's name: it is written to evaluation/<name>/")
    known.add_argument("--tool", required=True, help="the tool the set is evaluated on (one that reads the collection)")
    known.add_argument("--limit", type=int, help="a seeded sample of this many sections (default: every one)")
    known.add_argument("--seed", type=int, default=0, help="the sample's seed (default: 0)")
    known.add_argument("--server", help="through this haygate server (default: the local one, if it runs)")
    known.set_defaults(handler="cmd_known_items")

    exporting = actions.add_parser("export", help="write a judged set's grades in another tool's format")
    formats = exporting.add_subparsers(required=True, metavar="FORMAT", help="the format: trec")
    trec = formats.add_parser(
        "trec", parents=[home], help="TREC qrels, `query-id 0 doc-id grade` (a space in an id percent-encoded)"
    )
    trec.add_argument("folder", type=Path, metavar="SET", help="the judged set's folder, e.g. evaluation/search_docs")
    trec.add_argument("--split", default="test", help="qrels/<split>.tsv (default: test)")
    trec.add_argument("--out", type=Path, help="the file to write (default: standard output)")
    trec.set_defaults(handler="cmd_judged_export_trec")


def add_pool_command(actions: "Commands", home: argparse.ArgumentParser) -> None:
    """`judged pool`: every query of a set pooled into a sheet to grade (`haygate.evaluation.sheets`)."""
    pool = actions.add_parser(
        "pool",
        parents=[home],
        help="pool every query of a set (the tool, its variants, dense and BM25 alone) into a sheet to grade",
    )
    pool.add_argument("folder", type=Path, metavar="SET", help="the judged set's folder, e.g. evaluation/handbook")
    pool.add_argument("--sheet", type=Path, required=True, help="the grading sheet (CSV) to write")
    pool.add_argument("--split", default="test", help="the split whose queries are pooled (default: test)")
    pool.add_argument("--depth", type=int, default=10, help="the top k of each ranking pooled (default: 10)")
    pool.add_argument(
        "--pipeline", type=Path, action="append", default=[], help="a variant pooled beside the tool (repeat)"
    )
    pool.add_argument(
        "--source",
        choices=["dense", "bm25"],
        action="append",
        help="a one-source ranking pooled (repeat; default: both)",
    )
    pool.add_argument("--no-sources", action="store_true", help="no one-source rankings: the tool and its variants")
    pool.add_argument(
        "--every",
        action="store_true",
        help="every pooled result in the sheet, graded ones too, each cell empty (a second rater's blind pass)",
    )
    pool.set_defaults(handler="cmd_judged_pool")


def import_flags(command: argparse.ArgumentParser) -> None:
    command.add_argument("--into", type=Path, required=True, help="the judged set's folder, e.g. evaluation/handbook")
    command.add_argument("--tool", required=True, help="the tool the set judges, one the project declares")
    command.add_argument("--split", default="test", help="the split the judgments become (default: test)")
    command.add_argument(
        "--force",
        action="store_true",
        help="replace that split of a set already there (its other splits and eval.yaml's other keys stay)",
    )


def described(commands: "Commands") -> None:
    """Each command's own --help opens with what it does (and so do the commands of a command group)."""
    for choice in commands._choices_actions:
        command = commands.choices[choice.dest]
        command.description = command.description or _described(choice.help or "")
        command.epilog = FIRST_STEPS.splitlines()[1]
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                described(action)


def cmd_serve(args: argparse.Namespace, settings: "Settings") -> NoReturn:
    from haygate.server.endpoint import claim_data_dir
    from haygate.server.handshake import open_front, project_key
    from haygate.server.service import GatewayService

    claim_data_dir(settings.data_dir)
    if args.http:  # a port another program holds is said now, before a model loads
        from haygate.serve.ports import check_port

        check_port(args.host or settings.host, args.port or settings.port)
    service = GatewayService(settings, strict=args.strict, torch_threads=1)
    # Over stdio the handshake is answered from what FastMCP answered last time, while it imports.
    folders = [settings.home / "configs", settings.pipelines_dir]
    front = None if args.http else open_front(settings.data_dir, project_key(settings.model_dump_json(), folders))
    service.start(background=not args.strict, grace=WARM_UP_GRACE)
    logger.info("serving %d tool(s): %s", len(service.listing()), ", ".join(sorted(service.listing())))
    from haygate.serve.transports import serve  # FastMCP: a second of imports, after the front answers

    serve(
        service,
        "http" if args.http else "stdio",
        args.host or settings.host,
        args.port or settings.port,
        settings.token,
        front=front,
    )
    # Everything that holds data is flushed and closed by now. What is left is the interpreter's teardown, a
    # garbage collection over every object torch and the models made: 2.5 s of a clean stop, for nothing.
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(ExitCode.OK)


if __name__ == "__main__":
    sys.exit(main())
