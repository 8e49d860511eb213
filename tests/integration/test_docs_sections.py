"""Documentation sections as an agent reads them from `search_docs`, on the bundled samples: the file each
comes from, an excerpt with the query's words marked, tables with their header, and pieces no longer than
the model reads; and the indexing that makes them runs through haygate's fixed schedule."""

import pytest

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.settings import Settings
from haygate.text.dialects import anchor_slug

pytestmark = pytest.mark.integration


def test_a_result_names_its_file_and_marks_the_query_in_its_excerpt(gateway: Gateway) -> None:
    answer = gateway.call("search_docs", {"query": "declare a tool's arguments in YAML", "max_results": 3})
    [first, *_] = answer["results"]
    assert first["path"] and first["path"].endswith(".md") and first["id"].split("#")[0].endswith(first["path"])
    assert "<mark>" in first["snippet"] and len(first["snippet"]) <= 300
    marked = [w.split("</mark>")[0].lower() for w in first["snippet"].split("<mark>")[1:]]
    assert all(w.startswith(("declar", "tool", "argument", "yaml")) for w in marked), marked
    assert first["anchor"] == anchor_slug(first["title"].split(" > ")[-1]), first  # `path#anchor` links to it


def test_a_table_keeps_its_header_row_and_loses_its_padding(gateway: Gateway, samples_settings: Settings) -> None:
    store = gateway.loader.store("docs")
    tables = [d for d in store.meta_by_filter(None) if "\n|---" in (d.content or "")]
    assert tables, "the samples hold tables"
    for document in tables:
        for table in (part for part in document.content.split("\n\n") if part.startswith("|")):
            header, separator, *_ = table.splitlines()
            assert separator.startswith("|---") and header.startswith("| ") and "  " not in table
    assert not [d.id for d in store.meta_by_filter(None) if "<!--" in (d.content or "").split("```")[0]]


def test_the_docs_indexing_runs_through_the_fixed_schedule(samples_settings: Settings) -> None:
    """Haystack's planner deep-copies every input of every component (every embedding of every batch): the
    indexing of a loop-free pipeline runs through haygate's schedule, which does not."""
    with Loader(samples_settings) as loader:
        for name in ("docs", "candidates", "memories"):
            collection = loader.collection(name)
            assert collection.runner is not None, name
