"""Deterministic extractions from documentation sections."""

import json
from pathlib import Path

import pytest

from haygate.ingest.extract import extract_section, write_extractions

SHARED_SECTIONS = Path(__file__).resolve().parents[4] / "shared" / "data" / "haystack-docs" / "sections.jsonl"
SECTION = {
    "_id": "3.0/concepts/stores.mdx#Stores/InMemory vs Qdrant#1",
    "version": "3.0",
    "path": "concepts/document-store/stores.mdx",
    "doc_title": "Document Stores",
    "heading_path": ["Document Stores", "InMemory vs Qdrant"],
    "title": "Document Stores > InMemory vs Qdrant",
    "text": (
        "Pick a store for your pipeline.\n\n- **InMemory**: fast to start\n- **Qdrant**: scales out\n\n"
        "If you need persistence, Qdrant is better. We recommend Qdrant for production.\n\n"
        ":::warning\nData loss\n\nThe in-memory store forgets everything on restart. Make sure you persist it.\n:::\n\n"
        "To write documents into the store, create it and call write_documents with your list:\n\n"
        "```python\nstore = InMemoryDocumentStore()\nstore.write_documents(docs)\nprint(store.count_documents())\n```\n"
    ),
}


def test_one_section_gives_a_warning_a_pattern_and_a_decision() -> None:
    records = {r["type"]: r for r in extract_section(SECTION, "docs-project")}
    assert set(records) == {"warning", "pattern", "decision"}
    warning = records["warning"]["content"]
    assert warning["title"] == "Data loss" and warning["prevention"] == "Make sure you persist it."
    pattern = records["pattern"]["content"]
    assert pattern["name"] == "InMemory vs Qdrant" and pattern["problem"].startswith("To write documents")
    assert pattern["code_example"].startswith("store = InMemoryDocumentStore()")
    decision = records["decision"]["content"]
    assert decision["question"] == "Should you use InMemory or Qdrant?"
    assert decision["options"] == ["InMemory", "Qdrant"]
    assert decision["recommended_approach"] == "We recommend Qdrant for production."
    for record in records.values():
        assert record["source_id"] == "haystack-docs/3.0/concepts/document-store/stores.mdx"
        assert record["chunk_id"] == SECTION["_id"] and record["project_id"] == "docs-project"
        assert record["topics"] == ["concepts", "document-store"]
    # Deterministic: the same section gives the same ids.
    assert [r["id"] for r in extract_section(SECTION, "docs-project")] == [
        r["id"] for r in extract_section(SECTION, "docs-project")
    ]


@pytest.mark.shared_data
def test_real_docs_yield_every_type(tmp_path: Path) -> None:
    out = tmp_path / "extractions.jsonl"
    counts = write_extractions(SHARED_SECTIONS, out, "haystack-docs")
    assert counts["warning"] >= 50 and counts["pattern"] >= 1000 and counts["decision"] >= 10
    first = json.loads(out.read_text().splitlines()[0])
    assert {"id", "type", "content", "topics", "source_id", "chunk_id", "project_id"} <= set(first)
