"""The writer: upserts and deletes through the collection's own ingest, optimized once writes pause."""

import threading
import time
from typing import Any

import pytest

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.gateway.writer import Writer
from haygate.ingest.indexer import ingest_records
from haygate.ingest.readers import as_source_record
from haygate.settings import Settings

ENTITY = {"entity_type": "bug", "entity_id": "bug:1", "product_id": "product:1", "title": "Zebra tooltip"}


def bug(n: int) -> dict[str, Any]:
    return {**ENTITY, "entity_id": f"bug:{n}"}


@pytest.fixture
def optimized(loader: Loader, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """When the entities store was optimized (the real build, aside, still runs)."""
    store = loader.store("entities")
    real = store.optimize_aside
    times: list[float] = []

    def counted(stop: threading.Event | None = None) -> bool:
        times.append(time.monotonic())
        return real(stop)

    monkeypatch.setattr(store, "optimize_aside", counted)
    return times


@pytest.mark.slow  # the build runs in a child process
def test_a_collection_is_optimized_once_its_writes_pause(loader: Loader, optimized: list[float]) -> None:
    writer = Writer(loader, optimize_after=0.3)
    for n in range(5):
        last_write = time.monotonic()  # taken before the call: the writer's own clock starts inside it
        assert writer.upsert("entities", [bug(n)])["added"] == 1
    assert optimized == []  # not after each request
    deadline = time.monotonic() + 10
    while not optimized and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(optimized) == 1 and optimized[0] - last_write >= 0.3
    assert writer.upsert("entities", [bug(0)])["unchanged"] == 1
    time.sleep(0.5)
    assert len(optimized) == 1  # nothing written, nothing to optimize
    writer.close()


def test_closing_leaves_the_build_to_the_next_server(loader: Loader, optimized: list[float]) -> None:
    writer = Writer(loader, optimize_after=60)
    writer.upsert("entities", [bug(1), bug(2)])
    writer.close()  # stopping does not wait for an index build
    assert optimized == []
    store = loader.store("entities")
    assert store.count_documents() == 2 and store.needs_optimizing()
    store.optimize()
    assert not store.needs_optimizing()


@pytest.mark.slow  # the build runs in a child process
def test_a_server_builds_the_indexes_an_ingest_left_to_it(settings: Settings) -> None:
    with Loader(settings) as loader:
        report = ingest_records(loader.collection("entities"), [as_source_record("t", 1, bug(3))], optimize=False)
        assert report.written == 1 and loader.store("entities").needs_optimizing()
    with Loader(settings) as loader:
        gateway = Gateway.load(loader, only="search")
        gateway.writer.optimize_after = 0.1
        gateway.warm_up()
        deadline = time.monotonic() + 20
        while loader.store("entities").needs_optimizing() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not loader.store("entities").needs_optimizing()
        gateway.writer.close()


@pytest.mark.slow  # the build runs in a child process
def test_closing_stops_a_build_under_way_and_leaves_it_to_the_next_server(loader: Loader) -> None:
    """A server that stops does not wait out an index build: the child building aside is stopped, the shard
    is left as it was (whole, still to be built), and the stores close after it, not under it."""
    store = loader.store("entities")
    writer = Writer(loader, optimize_after=0.05)
    writer.upsert("entities", [bug(9)])
    deadline = time.monotonic() + 20
    while not writer.building() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert writer.building() == ["entities"]
    started = time.monotonic()
    writer.close()
    assert time.monotonic() - started < 5 and writer.building() == []
    assert store.needs_optimizing() and store.count_documents() == 1
