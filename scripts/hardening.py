"""What haygate does when an operator gets things wrong, re-run against today's code. Prints one JSON document;
nothing here is asserted: each row says what came back (status, error code, exit code, the last line said).

Each row is what an operator tried: a full disk, hostile sizes and depths, duplicate ids in one file, an
ingest holding a collection while the server runs, a damaged shard, unknown paths and methods, a
lowercase `bearer`, and SIGTERM/SIGINT. Real processes throughout: `haygate serve --http` on a free
loopback port over a temp data dir with the bundled configuration, and the `haygate` command.
The full-disk row mounts a 400 MiB tmpfs and needs root; without it, that row says why it was skipped.

Run: `.venv/bin/python -m scripts.hardening`
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from scripts import PROJECT
from scripts.measure import Served, free_port, load_average, serve_command, served

ENTITY = {"entity_type": "bug", "product_id": "product:1", "title": "Zebra tooltip"}
TOKEN = "hardening-token"


def env_for(data_dir: Path, **values: str) -> dict[str, str]:
    return {**os.environ, "HAYGATE_HOME": str(PROJECT), "HAYGATE_DATA_DIR": str(data_dir), **values}


def haygate(data_dir: Path, *args: str, **values: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "haygate.cli", *args]
    return subprocess.run(command, env=env_for(data_dir, **values), capture_output=True, text=True, timeout=900)


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:300] if lines else ""


@contextmanager
def server(data_dir: Path, **values: str) -> Iterator[Served]:
    """A ready `haygate serve --http` on the admin tier over `data_dir` (`/health` needs no token)."""
    port = free_port()
    env = env_for(data_dir, HAYGATE_TIER="admin", HAYGATE_WATCH="false", **values)
    with served(serve_command(port), port=port, env=env) as running:
        yield running


def answer(response: httpx.Response, started: float) -> dict[str, Any]:
    try:
        code = response.json().get("error", {}).get("code")
    except ValueError:
        code = None
    return {"status": response.status_code, "code": code, "seconds": round(time.monotonic() - started, 3)}


def post(http: httpx.Client, path: str, **kwargs: Any) -> dict[str, Any]:
    started = time.monotonic()
    return answer(http.post(path, **kwargs), started)


def sizes_and_depths(url: str) -> dict[str, Any]:
    with httpx.Client(base_url=url, timeout=300) as http:
        deep_body = "[" * 100_000 + "]" * 100_000
        return {
            "249 nested parentheses, search raw": post(
                http, "/api/tools/search", json={"query": "(" * 249 + "x" + ")" * 249, "match_mode": "raw"}
            ),
            "search.entities with 1.6M items": post(
                http, "/api/tools/search", json={"query": "x", "entities": ["bugs"] * 1_600_000}
            ),
            "search_docs.version of 10 MB": post(
                http, "/api/tools/search_docs", json={"query": "x", "version": "v" * 10**7}
            ),
            "a 40 MB body": post(http, "/api/tools/search", content=b'{"query": "' + b"x" * (40 * 2**20) + b'"}'),
            "a 5,001-digit integer": post(
                http, "/api/tools/search", content=b'{"query": "x", "limit": ' + b"9" * 5001 + b"}"
            ),
            "JSON nested 100,000 deep": post(http, "/api/tools/search", content=deep_body.encode()),
            "GET on a tool route": answer(http.get("/api/tools/search"), time.monotonic()),
            "an unknown path": answer(http.get("/nowhere"), time.monotonic()),
        }


def duplicates(work: Path) -> dict[str, Any]:
    data_dir = work / "dup-data"
    long_text = " ".join(f"word{n}" for n in range(700))
    source = work / "dup.jsonl"
    records = [
        {"_id": "dup", "title": "Long", "version": "1", "source": "s", "path": "p", "text": long_text},
        {"_id": "dup", "title": "Short", "version": "1", "source": "s", "path": "p", "text": "short text now"},
    ]
    source.write_text("".join(json.dumps(r) + "\n" for r in records))
    first = haygate(data_dir, "ingest", "docs", str(source), "--no-progress")
    points = haygate(data_dir, "call", "search_docs", "--json", json.dumps({"query": "word1 short", "max_results": 10}))
    ids = [r["id"] for r in json.loads(points.stdout or "{}").get("results", [])] if points.returncode == 0 else []
    entities = work / "entities-5k.jsonl"
    entities.write_text(
        "".join(json.dumps({**ENTITY, "entity_id": f"bug:{n}", "title": f"Bug {n}"}) + "\n" for n in range(5000))
    )
    once = haygate(data_dir, "ingest", "entities", str(entities), "--no-progress")
    twice = haygate(data_dir, "ingest", "entities", str(entities), "--no-progress")
    return {
        "long then short version of one id": {"report": last_line(first.stderr), "stored ids": ids},
        "5k-record file, first ingest": last_line(once.stderr),
        "5k-record file, again unchanged": last_line(twice.stderr),
    }


def store_in_use(work: Path) -> dict[str, Any]:
    """An ingest process holds the entities shard (a slow ingest is simulated by holding the store open in
    a child process), while a server serves the same data dir."""
    data_dir = work / "held-data"
    haygate(data_dir, "ingest", "--samples", "--no-progress")
    holder_code = (
        "import sys, time\n"
        "from haygate.gateway.loader import Loader\nfrom haygate.settings import Settings\n"
        "loader = Loader(Settings()); loader.store('entities').count_documents()\n"
        "print('held', flush=True); time.sleep(60)\n"
    )
    with server(data_dir) as (url, _):
        holder = subprocess.Popen([sys.executable, "-c", holder_code], env=env_for(data_dir), stdout=subprocess.PIPE)
        try:
            assert holder.stdout is not None
            holder.stdout.readline()
            # the server opens entities lazily: the holder took it first
            response = httpx.post(f"{url}/api/tools/search", json={"query": "export"}, timeout=60)
            result = {**answer(response, time.monotonic()), "retry_after": response.headers.get("retry-after")}
        finally:
            holder.kill()
    return {"a search while another process holds the collection": result}


def auth_and_signals(work: Path) -> dict[str, Any]:
    data_dir = work / "auth-data"
    rows: dict[str, Any] = {}
    with server(data_dir, HAYGATE_TOKEN=TOKEN) as (url, _):
        started = time.monotonic()
        lower = httpx.post(
            f"{url}/api/tools/search", json={"query": "x"}, headers={"Authorization": f"bearer {TOKEN}"}, timeout=60
        )
        rows["lowercase bearer scheme"] = answer(lower, started)
    for stop in (signal.SIGTERM, signal.SIGINT):
        with server(data_dir) as (url, process):
            httpx.post(f"{url}/api/tools/search", json={"query": "x"}, timeout=60)
            started = time.monotonic()
            process.send_signal(stop)
            code = process.wait(60)
            rows[f"{stop.name} to a serving server"] = {
                "exit_code": code,
                "seconds": round(time.monotonic() - started, 3),
            }
    return rows


def damaged_shard(work: Path) -> dict[str, Any]:
    data_dir = work / "damaged-data"
    haygate(data_dir, "ingest", "--samples", "--no-progress")
    rows = {}
    (data_dir / "entities" / "edge_config.json").write_text('{"vectors": ')
    called = haygate(data_dir, "call", "search", "--json", '{"query": "export"}')
    rows["truncated edge_config.json, haygate call"] = {
        "exit_code": called.returncode,
        "says": last_line(called.stderr),
    }
    repaired = haygate(data_dir, "repair", "entities")
    rows["haygate repair entities"] = {
        "exit_code": repaired.returncode,
        "says": repaired.stderr.strip().splitlines()[-3:],
    }
    again = haygate(data_dir, "call", "search", "--json", '{"query": "export"}')
    rows["haygate call after the repair"] = {"exit_code": again.returncode}
    return rows


def full_disk(work: Path) -> dict[str, Any]:
    mount = work / "fs"
    mount.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400m", "tmpfs", str(mount)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        return {"skipped": f"cannot mount a tmpfs: {mounted.stderr.strip()}"}
    try:
        data_dir = mount / "data"
        entities = work / "few.jsonl"
        entities.write_text("".join(json.dumps({**ENTITY, "entity_id": f"bug:{n}"}) + "\n" for n in range(40)))
        haygate(data_dir, "ingest", "entities", str(entities), "--no-progress")
        filler = mount / "filler.bin"
        with filler.open("wb") as out:
            out.write(b"\0" * (shutil.disk_usage(mount).free - 8 * 2**20))
        ingest = haygate(data_dir, "ingest", "entities", str(entities), "--no-progress")
        call = haygate(data_dir, "call", "search", "--json", '{"query": "zebra"}')
        filler.unlink()
        after = haygate(data_dir, "call", "search", "--json", '{"query": "zebra"}')
        return {
            "ingest on a full disk": {"exit_code": ingest.returncode, "says": last_line(ingest.stderr)},
            "opening a shard on a full disk": {"exit_code": call.returncode, "says": last_line(call.stderr)},
            "results once space is freed": len(json.loads(after.stdout or "{}").get("results", [])),
        }
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()  # --help, and nothing else
    work = Path(tempfile.mkdtemp(prefix="haygate-hardening-"))
    report: dict[str, Any] = {"load_average": load_average()}
    try:
        report["full disk"] = full_disk(work)
        report["damaged shard"] = damaged_shard(work)
        with server(work / "size-data") as (url, _):
            report["sizes and depths"] = sizes_and_depths(url)
        report["duplicates"] = duplicates(work)
        report["store in use"] = store_in_use(work)
        report["auth and signals"] = auth_and_signals(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report["load_average_after"] = load_average()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
