"""What an ingest tells: the chunks it wrote and at what rate, and a warning for a long record embedded whole.
On real stores in temp dirs; `memories` (dense embedder, no splitter) embeds with the real model, a few short
texts and one of 256 word pieces, so each test stays well under a second of model time."""

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from haygate.gateway.loader import Loader
from haygate.ingest.indexer import LONG_RECORD_WORDS, IndexingPlan, ingest_files, long_records_warning
from tests.support.project import copy_project, make_settings


def write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def entity(n: int) -> dict[str, Any]:
    return {"entity_type": "bug", "entity_id": f"bug:{n}", "product_id": "product:1", "title": f"Bug {n}"}


def memory(key: str, words: int) -> dict[str, Any]:
    """A memory whose text (summary, then content) is `words` words long."""
    return {"key": key, "summary": f"About {key}", "content": " ".join(f"w{i}" for i in range(words - 2))}


def test_the_summary_counts_the_chunks_written_and_their_rate(loader: Loader, tmp_path: Path) -> None:
    collection = loader.collection("entities")
    source = write(tmp_path / "e.jsonl", [entity(i) for i in range(5)])
    first = ingest_files(collection, [source], progress=False)
    assert (first.chunks, first.seconds > 0) == (5, True)
    summary = first.summary()
    assert summary.startswith("entities: 5 records read, 5 new or changed, 0 unchanged, 0 rejected, 5 chunks written (")
    assert re.search(r", 5 chunks written \(\d+\.\d chunks/s\)$", summary), summary
    again = ingest_files(collection, [source], progress=False)
    assert again.chunks == 0 and again.summary().endswith("5 unchanged, 0 rejected, 0 chunks written")


def test_rejected_records_write_no_chunks(loader: Loader, tmp_path: Path) -> None:
    source = write(tmp_path / "e.jsonl", [entity(1), {"entity_type": "bug", "title": "no id"}, entity(2)])
    report = ingest_files(loader.collection("entities"), [source], progress=False)
    assert "3 records read, 2 new or changed, 0 unchanged, 1 rejected, 2 chunks written (" in report.summary()


def test_the_progress_bar_shows_the_chunks(loader: Loader, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "e.jsonl", [entity(i) for i in range(4)])
    ingest_files(loader.collection("entities"), [source], progress=True)
    bar = capsys.readouterr().err
    assert "4/4" in bar and re.search(r"4 chunks, \d+\.\d chunks/s", bar), bar


def test_a_long_record_embedded_whole_is_warned_about_once(loader: Loader, tmp_path: Path) -> None:
    collection = loader.collection("memories")
    short = ingest_files(collection, [write(tmp_path / "s.jsonl", [memory("a", 40), memory("b", 12)])], progress=False)
    assert short.warnings == [] and short.chunks == 2
    source = write(tmp_path / "m.jsonl", [memory("a", 40), memory("long", 1840), memory("c", 30)])
    report = ingest_files(collection, [source], progress=False)
    assert (report.written, report.unchanged, report.chunks) == (2, 1, 2)  # `long` is one document
    [warning] = report.warnings
    assert warning.startswith(
        "record 'long' is 1,840 words and became one document: the embedder reads its first ~200 words; "
        "add a splitter to pipelines/indexing/memories.yaml"
    )
    assert "DocumentSplitter" in warning and report.summary().endswith(", 1 warning(s)")


def test_no_warning_when_the_pipeline_splits(tmp_path: Path) -> None:
    """The same long memory, with a DocumentSplitter and ChunkIds before the embedder: chunks, no warning."""
    home = copy_project(tmp_path / "home", tools=False)
    path = home / "pipelines" / "indexing" / "memories.yaml"
    pipeline = yaml.safe_load(path.read_text())
    pipeline["components"] = {
        "splitter": {
            "type": "haystack.components.preprocessors.document_splitter.DocumentSplitter",
            "init_parameters": {"split_by": "word", "split_length": 200, "split_overlap": 0},
        },
        "chunk_ids": {"type": "haygate.components.chunk_ids.ChunkIds"},
        **pipeline["components"],
    }
    pipeline["connections"] = [
        {"sender": "splitter.documents", "receiver": "chunk_ids.documents"},
        {"sender": "chunk_ids.documents", "receiver": "dense_embedder.documents"},
        *pipeline["connections"],
    ]
    pipeline["inputs"] = {"documents": "splitter.documents"}
    path.write_text(yaml.safe_dump(pipeline))
    with Loader(make_settings(tmp_path / "data", home=home)) as loader:
        source = write(tmp_path / "m.jsonl", [memory("long", 600), memory("short", 20)])
        report = ingest_files(loader.collection("memories"), [source], progress=False)
        assert (report.written, report.chunks, report.warnings) == (2, 4, [])  # 3 windows of 200 words, and one
        assert ", 4 chunks written (" in report.summary()


def test_which_bundled_pipelines_embed_a_long_record_whole(loader: Loader) -> None:
    """memories and knowledge embed each record whole; docs and candidates split, entities embeds nothing
    (BM25 reads every word), beir embeds every passage as well."""
    truncating = {
        name: IndexingPlan.of(collection.indexing, collection.entry).truncates_long_records
        for name in ("beir", "candidates", "docs", "entities", "knowledge", "memories")
        for collection in [loader.collection(name)]
    }
    assert truncating == {
        "beir": False,
        "candidates": False,
        "docs": False,
        "entities": False,
        "knowledge": True,
        "memories": True,
    }


def test_many_long_records_make_one_warning_with_a_count() -> None:
    long = [(f"r{i}", LONG_RECORD_WORDS + 1 + i) for i in range(1000)]
    warning = long_records_warning(long, "indexing/knowledge.yaml")
    assert warning.startswith(
        "1,000 records of more than 512 words became one document each "
        "('r999' (1,512 words), 'r998' (1,511 words), 'r997' (1,510 words) and 997 more): "
        "the embedder reads the first ~200 words of each; add a splitter to pipelines/indexing/knowledge.yaml"
    )
    assert "\n" not in warning
