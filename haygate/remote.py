"""The `haygate` commands that go through a running server: `ingest`, and those that are one of the gateway's
operations (`OPERATED`: `call`, `delete`, `stats`, `validate`, `examples`, `skill`).

While a server holds a data dir the command never opens its shards: it sends the work to the server, which
does it with the same code. Nothing here imports Haystack, the models or the stores, so a command that a
server answers costs a JSON round trip, not seconds of imports; only without a server does the CLI load
`haygate.commands` and do the work itself.
"""

import argparse
import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from haygate.errors import ExitCode
from haygate.home import Place
from haygate.ingest.readers import EVERYTHING, SUFFIXES, ReadOptions, read_records, sample_files
from haygate.ingest.report import BATCH_RECORDS, PROGRESS_SECONDS, IngestReport, Pacer, Refusal
from haygate.server.client import ServerClient, local_server

logger = logging.getLogger("haygate")


def server_for(args: argparse.Namespace, place: Place) -> ServerClient | None:
    """The server to go through: `--server URL`, or the local one that holds the data dir, if any."""
    if getattr(args, "server", None):
        return ServerClient(args.server, token=place.token)
    client = local_server(place.data_dir)
    if client is not None:
        logger.info("a haygate server holds %s: going through it (%s)", place.data_dir, client.where)
    return client


def ingest_jobs(args: argparse.Namespace, home: Path) -> dict[str, list[Path]] | None:
    """What `haygate ingest` was asked to ingest, per collection; None when it was not told."""
    if args.samples:
        return sample_files(home / "samples", home / "configs" / "collections")
    if args.collection and args.files:
        return {args.collection: list(args.files)}
    print("error: give COLLECTION FILE... or --samples", file=sys.stderr)
    return None


def print_report(report: IngestReport, files: list[Path] | None = None) -> bool:
    """The report on stderr; False when nothing at all was read from `files` (an empty folder, a wrong glob),
    which is said as an error rather than a summary of zeros."""
    if files is not None and report.records == 0 and not report.errors:
        kinds = ", ".join(SUFFIXES)
        named = ", ".join(str(f) for f in files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        print(
            f"error: nothing to ingest into '{report.collection}' from {named}: no record in a {kinds} file "
            "there (hidden files, and those the collection's include/exclude globs leave out, are not read)",
            file=sys.stderr,
        )
        return False
    for problem in report.errors:
        print(f"rejected {problem}", file=sys.stderr)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for where, targets in report.missing_includes.items():
        print(f"include not found, left out: {where}: {', '.join(targets)}", file=sys.stderr)
    print(report.summary(), file=sys.stderr)
    return True


def ingest(args: argparse.Namespace, place: Place, client: ServerClient) -> int:
    jobs = ingest_jobs(args, place.home)
    if jobs is None:
        return ExitCode.CONFIG
    failed = False
    for collection, files in jobs.items():
        from haygate.ingest.schema import schema_for  # pydantic: only for an ingest

        schema = schema_for(collection, place.home / "configs" / "collections")
        options = schema.read_options(args.include, args.exclude)
        report = ingest_through(client, collection, files, progress=args.progress, options=options)
        read = print_report(report, files)
        failed = failed or bool(report.errors) or not read
    return ExitCode.FAILED if failed else ExitCode.OK


def ingest_through(
    client: ServerClient,
    collection: str,
    files: list[Path],
    progress: bool | None,
    options: ReadOptions = EVERYTHING,
) -> IngestReport:
    """The files' records, read here (as `options` say) and written by the server in requests sized as a local
    ingest sizes its batches (`Pacer`); refusals keep their file:line."""
    from haygate.progress import progress_bar  # a progress bar is for an ingest, not for every command

    report = IngestReport(collection)
    records = [record for path in files for record in read_records(path, options)]
    for record in records:
        if record.data is not None and record.data.get("format") == "markdown":
            report.note_page(record.where, record.data)
    pacer = Pacer(PROGRESS_SECONDS) if progress is not False else None
    start = 0
    with progress_bar(len(records), f"ingest {collection}", "rec", progress) as bar:
        while start < len(records):
            batch = records[start : start + (pacer.size if pacer else BATCH_RECORDS)]
            began = time.perf_counter()
            sendable = [(start + i, r) for i, r in enumerate(batch) if r.data is not None and not r.error]
            for index, record in enumerate(batch, start=start):
                if record.data is None or record.error:
                    report.refused.append(Refusal(index=index, where=record.where, reason=record.error or "no data"))
            report.records += len(batch)
            if sendable:
                answer = client.operate("upsert", {"collection": collection, "records": [r.data for _, r in sendable]})
                report.added += answer["added"]
                report.updated += answer["updated"]
                report.unchanged += answer["unchanged"]
                report.duplicates += answer.get("duplicates", 0)
                for refusal in answer["refused"]:
                    index, record = sendable[refusal["index"]]
                    report.refused.append(Refusal(index=index, where=record.where, reason=refusal["reason"]))
                report.chunks += answer.get("chunks", 0)
                report.seconds += answer.get("seconds", 0.0)
                report.warnings += [w for w in answer.get("warnings") or [] if w not in report.warnings]
            if pacer is not None:
                pacer.took(len(batch), time.perf_counter() - began)
            bar.update(len(batch))
            start += len(batch)
    return report


def report_deleted(collection: str, ids: list[str], points: int, missing: list[str]) -> int:
    print(f"{collection}: deleted {len(ids) - len(missing)} record(s), {points} point(s)", file=sys.stderr)
    if missing:
        print(f"error: not found in '{collection}': {', '.join(missing)}", file=sys.stderr)
        return ExitCode.FAILED
    return ExitCode.OK


def parse_arguments(text: str) -> object:
    """`--json`'s arguments; a ValueError names what is wrong with them."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"--json is not valid JSON: {error}") from None


def report_validation(report: dict[str, Any], args: argparse.Namespace, served: bool = False) -> int:
    """The report, then with `--fix` the change its advice names: the exit code is the report's (validate again)."""
    code = print_validation(report)
    if getattr(args, "fix", False):
        apply_fixes(report, args.yes)
    return code


def print_validation(report: dict[str, Any]) -> int:
    """`haygate validate`'s report (`Validation.as_dict`), made here or by the server: `ok` only for a tool
    every check was made for."""
    for name, source in sorted(report["tools"].items()):
        note = f"  (not served here: {report['hidden'][name]})" if name in report["hidden"] else ""
        print(f"ok  {name}  ({source}){note}")
    for name, what in sorted(report["unchecked"].items()):
        print(f"part {name}: built and warmed up; not checked: {what}")
    for warning in report["warnings"]:
        print(f"warn {warning}")
    for problem in report["problems"]:
        print(f"ERR {problem}")
    return ExitCode.CONFIG if report["problems"] else ExitCode.OK


def apply_examples(proposals: dict[str, dict[str, Any]], yes: bool) -> int:
    """Each tool's declaration with its examples drawn from the data, as a diff; written when confirmed
    (`--yes`, or `y` at the prompt). A running server reloads the rewritten file by itself."""
    import difflib

    from haygate.gateway.examples import rewritten

    changed = {}
    for tool, proposal in sorted(proposals.items()):
        path = Path(proposal["file"])
        before = path.read_text(encoding="utf-8")
        after = rewritten(before, proposal["proposed"])
        if after == before:
            print(f"{tool}: its examples already come from the data ({path})", file=sys.stderr)
            continue
        sys.stdout.writelines(
            difflib.unified_diff(before.splitlines(True), after.splitlines(True), str(path), str(path))
        )
        changed[path] = after
    return write_confirmed(changed, yes)


def apply_fixes(report: dict[str, Any], yes: bool) -> int:
    """`validate --fix`: each parameter a check advised taking out, cut from its declaration and its pipeline
    (every line that goes with it), shown as a diff; written when confirmed (`--yes`, or `y` at the prompt)."""
    import difflib

    from haygate.gateway.fixes import cut, parameter_cuts

    cuts = [
        c
        for found in report.get("removable") or []
        for c in parameter_cuts(Path(found["declaration"]), Path(found["pipeline"]), found["parameter"])
    ]
    if not cuts:
        print("nothing to fix: no check advised taking anything out", file=sys.stderr)
        return ExitCode.OK
    changed = {}
    for path, (before, after) in cut(cuts).items():
        sys.stdout.writelines(
            difflib.unified_diff(before.splitlines(True), after.splitlines(True), str(path), str(path))
        )
        changed[path] = after
    return write_confirmed(changed, yes)


def write_confirmed(changed: dict[Path, str], yes: bool) -> int:
    """Write each file's new text once confirmed: `yes`, or `y` at a terminal's prompt (nothing without one)."""
    if not changed:
        return ExitCode.OK
    if not yes:
        if not sys.stdin.isatty():
            print("not written: run again with --yes to write these changes", file=sys.stderr)
            return ExitCode.OK
        if input(f"write {len(changed)} file(s)? [y/N] ").strip().lower() not in ("y", "yes"):
            print("not written", file=sys.stderr)
            return ExitCode.OK
    for path, text in changed.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)
    return ExitCode.OK


def print_stats(figures: dict, as_json: bool, server: bool) -> int:
    if as_json:
        print(json.dumps(figures, indent=2))
        return ExitCode.OK
    print(f"server: {figures.get('status')}" + (f", up {figures['uptime_s']} s" if "uptime_s" in figures else ""))
    print(f"\n{'collection':<24}{'documents':>11}{'disk':>11}  last write")
    for name, collection in figures["collections"].items():
        if "error" in collection:
            print(f"{name:<24}  {collection['error']}")
            continue
        disk = "-" if collection["disk_bytes"] is None else f"{collection['disk_bytes'] / 1e6:.1f} MB"
        print(f"{name:<24}{collection['documents']:>11}{disk:>11}  {collection['last_write'] or '-'}")
    calls = figures.get("calls") or {}
    print(f"\n{'tool':<24}{'calls':>8}{'errors':>8}{'p50 ms':>9}{'p95 ms':>9}")
    for name, tool in calls.items():
        errors = tool["calls"] - tool["outcomes"].get("ok", 0)
        print(f"{name:<24}{tool['calls']:>8}{errors:>8}{tool['p50_ms']:>9}{tool['p95_ms']:>9}")
    if not calls:
        print("(no calls since the server started)" if server else "(no server runs: no calls)")
    return ExitCode.OK


@dataclass(frozen=True)
class Operated:
    """A command that is one of the gateway's operations (`haygate.gateway.operations`): the request its
    arguments make, and how its reply is printed (with whether a server answered it). Run by a server when one
    holds the data, else in this process: the only fork (`forward`, `haygate.commands.run_operated`)."""

    operation: str
    request: Callable[[argparse.Namespace], dict[str, Any]]
    printer: Callable[[dict[str, Any], argparse.Namespace, bool], int]


def print_call(reply: dict[str, Any], args: argparse.Namespace, served: bool) -> int:
    print(json.dumps(reply, indent=2, default=str))
    return ExitCode.OK


def print_deleted(reply: dict[str, Any], args: argparse.Namespace, served: bool) -> int:
    return report_deleted(reply["collection"], args.ids, reply["points"], reply["missing"])


def print_health(reply: dict[str, Any], args: argparse.Namespace, served: bool) -> int:
    return print_stats(reply, args.json, server=served)


def print_examples(reply: dict[str, Any], args: argparse.Namespace, served: bool) -> int:
    return apply_examples(reply["tools"], args.yes)


def print_skill(reply: dict[str, Any], args: argparse.Namespace, served: bool) -> int:
    """SKILL.md on stdout, or every file of the skill written into `--out`."""
    if not reply["from_data"]:
        print("nothing is ingested yet: the skill says what the declarations say", file=sys.stderr)
    if args.out is None:
        print(reply["files"]["SKILL.md"], end="")
        return ExitCode.OK
    from haygate.text.folder import write_folder

    write_folder(args.out, reply["files"])
    print(f"wrote {', '.join(sorted(reply['files']))} into {args.out}", file=sys.stderr)
    return ExitCode.OK


def print_known_items(reply: dict[str, Any]) -> int:
    print(
        f"wrote {reply['queries']} known-item queries into {reply['folder']} from {reply['sections']} headed sections "
        f"({reply['shared_headings']} headings shared by several sections left out)",
        file=sys.stderr,
    )
    print(f"limits: {reply['limits']}", file=sys.stderr)
    return ExitCode.OK


OPERATED: dict[str, Operated] = {
    "cmd_call": Operated("call", lambda a: {"tool": a.tool, "arguments": parse_arguments(a.arguments)}, print_call),
    "cmd_delete": Operated("delete", lambda a: {"collection": a.collection, "ids": a.ids}, print_deleted),
    "cmd_stats": Operated("health", lambda a: {"verbose": True}, print_health),
    "cmd_validate": Operated(
        "validate", lambda a: {"files": [str(Path(f).resolve()) for f in a.files or []]}, report_validation
    ),
    "cmd_examples": Operated("examples", lambda a: {"tool": a.tool}, print_examples),
    "cmd_skill": Operated("skill", lambda a: {}, print_skill),
    "cmd_known_items": Operated(
        "known_items",
        lambda a: {"collection": a.collection, "name": a.name, "tool": a.tool, "limit": a.limit, "seed": a.seed},
        lambda reply, a, served: print_known_items(reply),
    ),
}
FORWARDED = {"cmd_ingest", *OPERATED}  # what a running server takes over


def operated_request(handler: str, args: argparse.Namespace) -> dict[str, Any] | None:
    """The request a command's arguments make; None (said on stderr) when they make none (`--json` not JSON)."""
    try:
        return OPERATED[handler].request(args)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return None


def forward(handler: str, args: argparse.Namespace, place: Place) -> int | None:
    """Run the command through a server when one is to be used; None when there is none (run it here)."""
    if handler not in FORWARDED:
        return None
    client = server_for(args, place)
    if client is None:
        return None
    try:
        if handler == "cmd_ingest":
            return ingest(args, place, client)
        request = operated_request(handler, args)
        if request is None:
            return ExitCode.CONFIG
        row = OPERATED[handler]
        return row.printer(client.operate(row.operation, request), args, True)
    finally:
        client.close()
