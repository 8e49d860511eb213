"""The third backend (`HAYGATE_STORE=memory`) serves the example project's tools as Qdrant Edge does: the behaviour
snapshot's calls, each tool with the same results, over the same points. The points are carried over from the
ingested samples through the store contract (vectors and all), so no model runs here.

Dense, sparse and fused scores equal Edge's to four decimals. A text index's BM25 does not quite: the memory backend
counts a document's length with Qdrant's BM25 tokenizer (`qdrant_edge.Bm25`), and Qdrant's text index with its
Word tokenizer, which qdrant-edge-py does not expose; lengths differ by a token here and there, scores by under
1%. A tool that ranks by the text index alone must find the same results, the same first, in an order that may
swap near-ties."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.memory import MemoryDocumentStore
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.settings import Settings
from tests.integration.test_behaviour_snapshot import EXPECTED, canonical, close, run
from tests.support.project import SAMPLES_PROJECT, make_settings

pytestmark = pytest.mark.integration
TEXT_INDEX_ONLY = {"memory_fulltext_search"}  # ranks by the text index's BM25 alone


@pytest.fixture(scope="module")
def memory_settings(samples_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The ingested samples, every point of every collection copied into the memory backend."""
    data = tmp_path_factory.mktemp("memory") / "data"
    settings = make_settings(data, project_id=SAMPLES_PROJECT, store="memory")
    with Loader(samples_settings) as edge, Loader(settings) as memory:
        for name in sorted(path.stem for path in settings.collections_dir.glob("*.yaml")):
            source = edge.store(name)
            assert isinstance(source, EdgeDocumentStore)
            if source.exists():
                target = memory.store(name)
                assert isinstance(target, MemoryDocumentStore)
                target.write_documents(source.filter_documents(), DuplicatePolicy.OVERWRITE)
                assert target.count_documents() == source.count_documents() > 0
    return settings


@pytest.fixture(scope="module")
def memory_gateway(memory_settings: Settings) -> Iterator[Gateway]:
    with Loader(memory_settings) as loader:
        yield Gateway.load(loader)


def test_the_stores_are_the_memory_backend_kept_in_files(memory_gateway: Gateway, memory_settings: Settings) -> None:
    stores = memory_gateway.loader.stores()
    assert stores and all(isinstance(store, MemoryDocumentStore) for store in stores.values())
    assert all((Path(memory_settings.data_dir) / name / "documents.json").is_file() for name in stores)


@pytest.mark.parametrize("case", range(len(EXPECTED["calls"])), ids=lambda i: f"{EXPECTED['calls'][i]['tool']}-{i}")
def test_every_example_tool_answers_as_on_edge(memory_gateway: Gateway, case: int) -> None:
    expected: dict[str, Any] = EXPECTED["calls"][case]
    result = run(memory_gateway, expected["tool"], expected["arguments"])
    if expected["tool"] in TEXT_INDEX_ONLY:
        keys, wanted = [r["key"] for r in result["results"]], [r["key"] for r in expected["result"]["results"]]
        assert keys[:1] == wanted[:1] and sorted(keys) == sorted(wanted)
        return
    assert close(canonical(result), canonical(expected["result"])) == []


def test_the_commands_that_mend_edge_shards_say_what_a_memory_collection_needs(
    memory_settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`optimize` has nothing to build and `repair` nothing to mend on the memory backend: each says so, where
    `repair` stopped on an assertion (a stack trace) and `optimize` claimed to have optimized."""
    from haygate.cli import main

    for name, value in {"STORE": "memory", "DATA_DIR": str(memory_settings.data_dir)}.items():
        monkeypatch.setenv(f"HAYGATE_{name}", value)
    assert main(["optimize", "memories"]) == 0
    assert "nothing to build: the memory store backend indexes as it writes" in capsys.readouterr().err
    assert main(["repair", "memories"]) == 2
    err = capsys.readouterr().err
    assert "a memory collection is one file, written whole: restore it, or delete it and ingest" in err
    assert "Traceback" not in err
