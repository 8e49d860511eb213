"""`repair`: rebuild a damaged Qdrant Edge shard from whatever of it can still be read.

Nothing is thrown away: the damaged folder is moved aside whole (`<data dir>/.damaged/<collection>-<time>`)
and the salvage works on a copy of it. Salvage takes what Edge can still open and read:
- a missing or unreadable `edge_config.json` is written anew from the collection's YAML;
- a segment that Edge cannot load is left out (its points may still come back from the WAL);
- points are read back one page at a time, and one at a time where a page fails.
The points that were read, vectors and payload as they were, go into a fresh shard at the collection's
path, so nothing is embedded again and the collection serves what survived at once. What was lost is
counted. A lost point may be one chunk of a record whose other chunks survived, and nothing says which:
so when anything was lost, every salvaged point's change-detection key (`stale_key`, a meta field) is
marked, and the next ingest of the collection's files rewrites each record once, whole.
"""

import json
import logging
import shutil
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.edge.faults import CONFIG, MANIFEST, check_space, folder_bytes
from haygate.errors import StoreDamagedError

logger = logging.getLogger(__name__)

DAMAGED_DIR = ".damaged"
_PAGE = 256
_MAX_SEGMENT_DROPS = 1000


@dataclass
class RepairReport:
    collection: str
    kept_at: Path | None = None
    recovered: int = 0
    expected: int | None = None
    unreadable: int = 0
    dropped_segments: list[str] = field(default_factory=list)
    config_rewritten: bool = False
    healthy: bool = False

    @property
    def lost(self) -> bool:
        """Whether points may be missing (then records may be incomplete). A dropped segment whose points all
        came back from the WAL lost nothing, where the manifest can tell."""
        if self.expected is not None:
            return self.recovered < self.expected or bool(self.unreadable)
        return bool(self.unreadable or self.dropped_segments)

    def summary(self) -> str:
        if self.healthy:
            return f"collection '{self.collection}' opened cleanly with {self.recovered} points: nothing to repair"
        lines = [f"collection '{self.collection}' rebuilt with {self.recovered} recovered points"]
        if self.expected is not None:
            lines.append(f"  the manifest of its last durable write counted {self.expected} points")
        if self.config_rewritten:
            lines.append(f"  {CONFIG} was written anew from the collection's YAML")
        if self.dropped_segments:
            lines.append(f"  segments Qdrant Edge could not load: {', '.join(self.dropped_segments)}")
        if self.unreadable:
            lines.append(f"  points that could not be read back: {self.unreadable}")
        lines.append(f"  the damaged folder is kept at {self.kept_at} (delete it once you are satisfied)")
        if self.lost:
            lines.append(
                f"  points were lost: re-ingest the collection's files (`haygate ingest {self.collection} FILE...`); "
                "each record that survived is rewritten once, whole, since a lost point may be one of its chunks"
            )
        return "\n".join(lines)


STALE_PREFIX = "repaired:"


def repair(store: EdgeDocumentStore, force: bool = False, stale_key: str | None = None) -> RepairReport:
    """Rebuild `store`'s shard from what can be read of it; a shard that opens cleanly is left alone unless
    `force`. The store must not be open in this process (nor, Edge makes sure, in another). `stale_key`:
    the meta field that change detection compares, marked on every salvaged point when anything was lost."""
    report = RepairReport(store.collection)
    if not store.exists():
        msg = f"collection '{store.collection}' has no shard at {store.path}: nothing to repair; ingest it"
        raise StoreDamagedError(msg, {"collection": store.collection})
    if not force:
        try:
            report.recovered = len(store.filter_documents())  # every point read back, vectors and all
            report.healthy = True
            return report
        except StoreDamagedError as error:
            logger.info("%s", error.message)
        finally:
            store.close()
    check_space(store.path, store.collection, "repairing", 2 * folder_bytes(store.path), store.disk_reserve_bytes)
    manifest = store.manifest()
    report.expected = manifest.get("points") if manifest and manifest.get("clean") else None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    report.kept_at = store.path.parent / DAMAGED_DIR / f"{store.collection}-{stamp}"
    report.kept_at.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(store.path, report.kept_at)
    work = store.path.parent / DAMAGED_DIR / f".salvage-{store.collection}-{stamp}"
    try:
        shutil.copytree(report.kept_at, work)
        points = _salvage(work, store.edge_config(), report)
        report.recovered = len(points)
        if stale_key and report.lost:
            points = [_marked_stale(point, stale_key) for point in points]
        store.restore_points(points)
    except BaseException:
        if store.path.exists():
            shutil.rmtree(store.path)
        shutil.move(report.kept_at, store.path)  # as it was: nothing lost, nothing half-built
        raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    logger.info("repaired '%s': %d points recovered", store.collection, report.recovered)
    return report


def _salvage(work: Path, config: qe.EdgeConfig, report: RepairReport) -> list[qe.Point]:
    """Every point of the copy at `work` that Edge can still give back."""
    config_file = work / CONFIG
    try:
        readable = isinstance(json.loads(config_file.read_text()), dict)
    except (OSError, ValueError):
        readable = False
    if not readable:
        config_file.unlink(missing_ok=True)
        report.config_rewritten = True
    (work / MANIFEST).unlink(missing_ok=True)
    shard = _load_dropping_segments(work, config, report)
    try:
        return _read_points(shard, report)
    finally:
        shard.close()


def _load_dropping_segments(work: Path, config: qe.EdgeConfig, report: RepairReport) -> qe.EdgeShard:
    for _ in range(_MAX_SEGMENT_DROPS):
        try:
            return qe.EdgeShard.load(str(work), config)
        except Exception as error:
            segment = _failing_segment(work, str(error))
            if segment is None:
                msg = f"Qdrant Edge cannot open even a salvage copy of '{report.collection}': {error}"
                raise StoreDamagedError(msg, {"collection": report.collection}) from error
            logger.warning("leaving out segment %s: %s", segment.name, error)
            report.dropped_segments.append(segment.name)
            shutil.rmtree(segment)
    msg = f"too many damaged segments in '{report.collection}'"
    raise StoreDamagedError(msg, {"collection": report.collection})


def _failing_segment(work: Path, message: str) -> Path | None:
    segments = work / "segments"
    if not segments.is_dir():
        return None
    for segment in segments.iterdir():
        if segment.name in message:
            return segment
    return None


def _read_points(shard: qe.EdgeShard, report: RepairReport) -> list[qe.Point]:
    ids: list[Any] = []
    offset: Any = None
    while True:
        request = qe.ScrollRequest(offset=offset, limit=_PAGE, with_payload=False, with_vector=False)
        records, offset = shard.scroll(request)
        ids.extend(record.id for record in records)
        if offset is None:
            break
    points: list[qe.Point] = []
    for start in range(0, len(ids), _PAGE):
        page = ids[start : start + _PAGE]
        try:
            records = shard.retrieve(page, with_payload=True, with_vector=True)
        except Exception:
            records = []
            for point_id in page:
                try:
                    records.extend(shard.retrieve([point_id], with_payload=True, with_vector=True))
                except Exception:
                    report.unreadable += 1
        points.extend(qe.Point(record.id, _vectors(record.vector), record.payload or {}) for record in records)
    return points


def _marked_stale(point: qe.Point, key: str) -> qe.Point:
    payload = dict(point.payload or {})
    meta = dict(payload.get("meta") or {})
    meta[key] = f"{STALE_PREFIX}{meta.get(key, '')}"
    payload["meta"] = meta
    return qe.Point(point.id, point.vector, payload)


def _vectors(vector: Any) -> dict[str, Any]:
    """A retrieved record's vectors as a Point takes them (sparse ones rebuilt as `SparseVector`)."""
    if not isinstance(vector, dict):
        return {}
    vectors: dict[str, Any] = {}
    for name, value in vector.items():
        if hasattr(value, "indices"):
            vectors[name] = qe.SparseVector(list(value.indices), list(value.values))
        else:
            vectors[name] = list(value)
    return vectors
