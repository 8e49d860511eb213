"""Storage faults on real filesystems and real shards: a full disk, a read-only disk, damaged shards.

The full and read-only disks are small tmpfs mounts, which need the right to mount (root, as in CI here);
elsewhere those tests skip and say why. Every process that touches a full disk is a child process: if a
check failed, Qdrant Edge would die of SIGBUS, and the test sees that exit code instead of dying with it.
"""

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from haygate.document_stores.edge.faults import MANIFEST
from haygate.document_stores.edge.repair import DAMAGED_DIR, STALE_PREFIX
from haygate.errors import ExitCode
from haygate.gateway.loader import Loader
from haygate.ingest.mapping import RECORD_HASH, RECORD_ID
from tests.integration.test_serve_process import http_server, server_env
from tests.support.processes import run_cli
from tests.support.project import ENTITY, make_home, make_settings

pytestmark = [pytest.mark.integration, pytest.mark.slow]
RESERVE_MB = 16
MIB = 1024 * 1024


def bug(n: int) -> dict[str, str]:
    return {**ENTITY, "entity_id": f"bug:{n}", "title": f"Zebra tooltip number {n}"}


def write_jsonl(path: Path, first: int, count: int) -> Path:
    path.write_text("".join(json.dumps(bug(n)) + "\n" for n in range(first, first + count)))
    return path


def haygate(home: Path, data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The command in a child process: a SIGBUS there would be its exit code (-7), not the test's end."""
    return run_cli(server_env(home, data_dir, HAYGATE_DISK_RESERVE_MB=str(RESERVE_MB)), args)


def fill_to(folder: Path, free_bytes: int) -> Path:
    """A filler file that leaves about `free_bytes` free on `folder`'s filesystem."""
    filler = folder / "filler.bin"
    room = shutil.disk_usage(folder).free - free_bytes
    with filler.open("wb") as out:
        out.write(b"\0" * max(room, 0))
    return filler


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 400 MiB tmpfs (in memory): a filesystem the test can fill, and remount read-only."""
    mount_point = tmp_path / "fs"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=400m", "tmpfs", str(mount_point)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root): {mounted.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def test_a_full_disk_is_an_error_that_names_the_directory_and_nothing_is_lost(tmp_path: Path, tiny_fs: Path) -> None:
    home, data_dir = make_home(tmp_path), tiny_fs / "data"
    first = haygate(home, data_dir, "ingest", "entities", str(write_jsonl(tmp_path / "a.jsonl", 0, 40)))
    assert first.returncode == ExitCode.OK, first.stderr
    filler = fill_to(tiny_fs, 100 * MIB)  # less than an entities segment (~150 MiB) plus the reserve

    more = haygate(home, data_dir, "ingest", "entities", str(write_jsonl(tmp_path / "b.jsonl", 40, 40)))
    assert more.returncode == ExitCode.STORAGE, (more.returncode, more.stderr)  # -7 would be SIGBUS
    assert "not enough disk space for collection 'entities'" in more.stderr
    assert str(data_dir.resolve() / "entities") in more.stderr and "reserve" in more.stderr
    assert "Traceback" not in more.stderr

    filler.unlink()  # space again: the first 40 are all there, and the rest goes in
    again = haygate(home, data_dir, "ingest", "entities", str(tmp_path / "b.jsonl"), "--no-progress")
    assert again.returncode == ExitCode.OK, again.stderr
    with Loader(make_settings(data_dir, home=home)) as loader:
        stored = {d.meta[RECORD_ID] for d in loader.store("entities").meta_by_filter(None)}
    assert stored == {f"bug:{n}" for n in range(80)}


def test_a_server_on_a_full_disk_refuses_writes_with_507_and_keeps_serving_reads(tmp_path: Path, tiny_fs: Path) -> None:
    home, data_dir = make_home(tmp_path), tiny_fs / "data"
    with http_server(home, data_dir, tmp_path / "server.log", HAYGATE_DISK_RESERVE_MB=str(RESERVE_MB)) as url:
        http = httpx.Client(base_url=url, timeout=60)
        assert http.put("/api/collections/entities/records", json=[bug(1), bug(2)]).status_code == 200
        filler = fill_to(tiny_fs, 60 * MIB)  # the shard is open: a write needs ~100 MiB plus the reserve
        refused = http.put("/api/collections/entities/records", json=[bug(3)])
        assert refused.status_code == 507, refused.text
        error = refused.json()["error"]
        assert error["code"] == "STORAGE_FULL" and error["details"]["collection"] == "entities"
        assert str(tiny_fs) not in refused.text  # no server path reaches a client
        found = http.post("/api/tools/search", json={"query": "zebra"})
        assert found.status_code == 200 and len(found.json()["results"]) == 2
        filler.unlink()
        assert http.put("/api/collections/entities/records", json=[bug(3)]).json()["added"] == 1
    assert "not enough disk space" in (tmp_path / "server.log").read_text()


def test_opening_a_shard_on_a_full_disk_is_an_error_not_sigbus(tmp_path: Path, tiny_fs: Path) -> None:
    home, data_dir = make_home(tmp_path), tiny_fs / "data"
    assert haygate(home, data_dir, "ingest", "entities", str(write_jsonl(tmp_path / "a.jsonl", 0, 5))).returncode == 0
    fill_to(tiny_fs, 1 * MIB)
    called = haygate(home, data_dir, "call", "search", "--json", '{"query": "zebra"}')
    assert called.returncode == ExitCode.STORAGE, (called.returncode, called.stderr)
    assert "opening the shard needs" in called.stderr


def test_a_read_only_data_dir_is_a_storage_error(tmp_path: Path, tiny_fs: Path) -> None:
    home, data_dir = make_home(tmp_path), tiny_fs / "data"
    data_dir.mkdir()
    subprocess.run(["mount", "-o", "remount,ro", str(tiny_fs)], check=True)
    result = haygate(home, data_dir, "ingest", "entities", str(write_jsonl(tmp_path / "a.jsonl", 0, 5)))
    assert result.returncode == ExitCode.STORAGE, result.stderr
    assert "cannot be written" in result.stderr and "Read-only file system" in result.stderr


# -- damaged shards -------------------------------------------------------------------------------


@pytest.fixture
def ingested(tmp_path: Path) -> tuple[Path, Path, Path]:
    """40 entities ingested (optimized: in a segment) in a fresh data dir; and the file they came from."""
    home, data_dir = make_home(tmp_path), tmp_path / "data"
    source = write_jsonl(tmp_path / "a.jsonl", 0, 40)
    assert haygate(home, data_dir, "ingest", "entities", str(source), "--no-progress").returncode == ExitCode.OK
    return home, data_dir, source


def files_of(folder: Path) -> dict[str, int]:
    """Each file's size; Edge itself rewrites a readable edge_config.json in a normal form when it opens one."""
    return {
        p.relative_to(folder).as_posix(): -1 if p.name == "edge_config.json" else p.stat().st_size
        for p in folder.rglob("*")
        if p.is_file()
    }


def damage(shard: Path, kind: str) -> None:
    segment = next((shard / "segments").iterdir())
    if kind == "config-missing":
        (shard / "edge_config.json").unlink()
    elif kind == "config-truncated":
        (shard / "edge_config.json").write_text('{"vectors":{"dense"')
    elif kind == "segment-file-missing":
        (segment / "payload_storage" / "page_0.dat").unlink()
    elif kind == "segment-and-wal-lost":
        shutil.rmtree(segment)
        for wal in (shard / "wal").glob("open-*"):
            with wal.open("r+b") as handle:
                handle.truncate(64)
    elif kind == "payload-truncated":
        with (segment / "payload_storage" / "page_0.dat").open("r+b") as handle:
            handle.truncate(2000)


@pytest.mark.parametrize(
    ("kind", "names", "survivors"),
    [
        ("config-missing", "edge_config.json is missing", 40),  # the config is written anew from the YAML
        ("config-truncated", "edge_config.json", 40),
        ("segment-file-missing", "segments/", 40),  # the segment is left out; its points come back from the WAL
        ("segment-and-wal-lost", "holds 0 points where 40 were written", 0),
        ("payload-truncated", "out of bounds", 7),  # the 2,000 bytes left hold the first 7 payloads whole
    ],
)
def test_a_damaged_shard_is_diagnosed_and_repair_rebuilds_it(
    ingested: tuple[Path, Path, Path], kind: str, names: str, survivors: int
) -> None:
    home, data_dir, source = ingested
    shard = data_dir / "entities"
    damage(shard, kind)

    called = haygate(home, data_dir, "call", "search", "--json", '{"query": "zebra"}')
    assert called.returncode == ExitCode.STORAGE, called.stderr
    assert "collection 'entities'" in called.stderr and "is damaged" in called.stderr and names in called.stderr
    assert "haygate repair entities" in called.stderr and "Traceback" not in called.stderr
    before = files_of(shard)  # as the operator finds it (Edge's failed open may have touched it)

    repaired = haygate(home, data_dir, "repair", "entities")
    assert repaired.returncode == ExitCode.OK, repaired.stderr
    kept = next((data_dir / DAMAGED_DIR).iterdir())
    assert files_of(kept) == before  # the damaged copy, whole
    assert f"kept at {kept}" in repaired.stderr

    with Loader(make_settings(data_dir, home=home)) as loader:
        recovered = loader.store("entities").meta_by_filter(None)
    assert len(recovered) == survivors, (kind, len(recovered))
    lost = survivors < 40
    assert ("points were lost" in repaired.stderr) == lost
    if kind.startswith("config"):
        assert "written anew" in repaired.stderr
    if lost:  # every survivor is marked, so the next ingest rewrites each record whole
        assert all(str(d.meta[RECORD_HASH]).startswith(STALE_PREFIX) for d in recovered)

    again = haygate(home, data_dir, "ingest", "entities", str(source), "--no-progress")
    assert again.returncode == ExitCode.OK, again.stderr
    expected = "40 new or changed, 0 unchanged" if lost else "0 new or changed, 40 unchanged"
    assert expected in again.stderr
    with Loader(make_settings(data_dir, home=home)) as loader:
        store = loader.store("entities")
        assert {d.meta[RECORD_ID] for d in store.meta_by_filter(None)} == {f"bug:{n}" for n in range(40)}
        assert store.count_documents() == 40
    assert json.loads((shard / MANIFEST).read_text())["points"] == 40
    healthy = haygate(home, data_dir, "repair", "entities")
    assert healthy.returncode == ExitCode.OK and "nothing to repair" in healthy.stderr
