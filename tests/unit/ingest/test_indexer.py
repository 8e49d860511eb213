"""Ingest: idempotent, change-aware, precise about bad records. On the `entities` collection, whose
indexing pipeline runs no model, so these tests take milliseconds."""

import json
from pathlib import Path
from typing import Any

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import delete_records, ingest_files, sample_files


def entity(n: int, title: str = "Zebra striped tooltip") -> dict[str, Any]:
    return {
        "entity_type": "bug",
        "entity_id": f"bug:{n}",
        "product_id": "product:1",
        "title": title,
        "actual_result": "The page stays blank " + "and blank " * (n % 3),
        "expected_result": "The page loads.",
    }


def write(path: Path, records: list[Any]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return path


def test_reingest_skips_unchanged_and_replaces_changed(loader: Loader, tmp_path: Path) -> None:
    collection = loader.collection("entities")
    source = write(tmp_path / "e.jsonl", [entity(i) for i in range(5)])
    first = ingest_files(collection, [source], progress=False)
    assert (first.records, first.written, first.unchanged) == (5, 5, 0)
    again = ingest_files(collection, [source], progress=False)
    assert (again.written, again.unchanged) == (0, 5)
    write(source, [entity(i, "Turquoise banner" if i == 2 else "Zebra striped tooltip") for i in range(5)])
    changed = ingest_files(collection, [source], progress=False)
    assert (changed.written, changed.unchanged) == (1, 4)
    [stored] = collection.store.meta_by_filter({"field": "meta.record_id", "operator": "==", "value": "bug:2"})
    assert stored.meta["title"] == "Turquoise banner" and "turquoise" in stored.meta["terms"]
    assert collection.store.count_documents() == 5


def test_bad_records_are_named_and_good_ones_land(loader: Loader, tmp_path: Path) -> None:
    source = write(
        tmp_path / "e.jsonl", [entity(1), "{broken json", {"entity_type": "bug", "title": "no id"}, entity(2)]
    )
    report = ingest_files(loader.collection("entities"), [source], progress=False)
    assert report.errors == [
        f"{source}:2: invalid JSON: Expecting property name enclosed in double quotes at column 2",
        f"{source}:3: missing id field(s) entity_id",
    ]
    assert loader.store("entities").count_documents() == 2
    assert "2 new or changed, 0 unchanged, 2 rejected" in report.summary()


def test_a_record_the_pipeline_refuses_is_reported_and_the_rest_land(loader: Loader, tmp_path: Path) -> None:
    cvs = [
        {"id": "a", "text": "Python developer, 3 years of experience."},
        {"id": "b", "text": "Java", "as_of": "someday"},
    ]
    source = write(tmp_path / "cvs.jsonl", cvs)
    report = ingest_files(loader.collection("candidates"), [source], progress=False)
    assert report.errors == [f"{source}:2: b: as_of must be an ISO date, got 'someday'"]
    assert report.written == 1 and loader.store("candidates").count_documents() == 1


def test_delete_records(loader: Loader, tmp_path: Path) -> None:
    ingest_files(
        loader.collection("entities"), [write(tmp_path / "e.jsonl", [entity(i) for i in range(3)])], progress=False
    )
    assert delete_records(loader.store("entities"), ["bug:1", "bug:9"]) == (1, ["bug:9"])
    assert loader.store("entities").count_documents() == 2


def test_samples_are_found_per_collection() -> None:
    home = Path(__file__).resolve().parents[3]
    samples = sample_files(home / "samples", home / "configs" / "collections")
    assert set(samples) == {"candidates", "docs", "entities", "knowledge", "memories"}
    assert all(p.suffix in (".md", ".jsonl") for files in samples.values() for p in files)
