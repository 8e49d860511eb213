"""A known-item set from a collection's headings: one query per section whose heading is its own, written in the
judged-set format, with its limits said."""

from pathlib import Path

import pytest
from haystack import Document

from haygate.document_stores.memory import MemoryDocumentStore
from haygate.errors import DatasetError
from haygate.evaluation.datasets import load_judged_queries
from haygate.gateway.judged_sets import read_spec
from haygate.gateway.known_items import LIMITS, TAG, known_items, write_known_items


@pytest.fixture
def store(tmp_path: Path) -> MemoryDocumentStore:
    opened = MemoryDocumentStore("docs", str(tmp_path / "data"), 4)
    pages = [
        ("file:a.md#install", ["Guide", "Install  the  package"]),
        ("file:a.md#install#chunk1", ["Guide", "Install  the  package"]),
        ("file:a.md#examples", ["Guide", "Examples"]),
        ("file:b.md#examples", ["Reference", "Examples"]),
        ("file:b.md#filters", ["Reference", "Filter by metadata"]),
        ("file:b.md#x", ["Reference", "X"]),
    ]
    opened.write_documents(
        [
            Document(id=i, content=f"text of {i}", meta={"record_id": i.split("#")[0], "heading_path": p})
            for i, p in pages
        ]
    )
    return opened


def test_each_heading_no_other_section_shares_is_a_query(store: MemoryDocumentStore, tmp_path: Path) -> None:
    made = known_items(store)
    assert sorted(q["text"] for q in made.queries.values()) == ["Filter by metadata", "Install the package"]
    assert (made.sections, made.shared_headings) == (4, 1)  # `X` is too short; `Examples` is two sections' heading
    [query_id] = [q for q, entry in made.queries.items() if entry["text"] == "Install the package"]
    assert made.grades[query_id] == {"file:a.md#install": 2}
    assert known_items(store).queries.keys() == made.queries.keys()  # the same sections, the same ids
    folder = tmp_path / "evaluation" / "docs-known"
    write_known_items(folder, made, "search_docs")
    dataset, queries = load_judged_queries(folder, "test")
    assert dataset.qrels[query_id] == {"file:a.md#install": 2} and dataset.tags[query_id] == [TAG]
    assert read_spec(folder).tool == "search_docs" and set(queries) == set(made.queries)
    assert "headings" in LIMITS and "Limits:" in made.summary(folder)
    with pytest.raises(DatasetError, match="a judged set is there already"):
        write_known_items(folder, made, "search_docs")


def test_a_sample_is_seeded_and_an_empty_collection_is_named(store: MemoryDocumentStore, tmp_path: Path) -> None:
    assert known_items(store, limit=1, seed=3).queries == known_items(store, limit=1, seed=3).queries
    assert len(known_items(store, limit=1).queries) == 1
    empty = MemoryDocumentStore("empty", str(tmp_path / "data"), 4)
    with pytest.raises(DatasetError, match="holds no section with a heading"):
        known_items(empty)
