"""The writer: upserts and deletes through the collection's own ingest, optimized once writes pause."""

import time
from typing import Any

import pytest

from haygate.gateway.loader import Loader
from haygate.gateway.writer import Writer

ENTITY = {"entity_type": "bug", "entity_id": "bug:1", "product_id": "product:1", "title": "Zebra tooltip"}


def bug(n: int) -> dict[str, Any]:
    return {**ENTITY, "entity_id": f"bug:{n}"}


@pytest.fixture
def optimized(loader: Loader, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """When the entities store was optimized (the real optimize still runs)."""
    store = loader.store("entities")
    real = store.optimize
    times: list[float] = []

    def counted() -> bool:
        times.append(time.monotonic())
        return real()

    monkeypatch.setattr(store, "optimize", counted)
    return times


def test_a_collection_is_optimized_once_its_writes_pause(loader: Loader, optimized: list[float]) -> None:
    writer = Writer(loader, optimize_after=0.3)
    for n in range(5):
        assert writer.upsert("entities", [bug(n)])["added"] == 1
    last_write = time.monotonic()
    assert optimized == []  # not after each request
    deadline = time.monotonic() + 10
    while not optimized and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(optimized) == 1 and optimized[0] - last_write >= 0.3
    assert writer.upsert("entities", [bug(0)])["unchanged"] == 1
    time.sleep(0.5)
    assert len(optimized) == 1  # nothing written, nothing to optimize
    writer.close()


def test_closing_optimizes_what_is_waiting(loader: Loader, optimized: list[float]) -> None:
    writer = Writer(loader, optimize_after=60)
    writer.upsert("entities", [bug(1), bug(2)])
    assert optimized == []
    writer.close()
    assert len(optimized) == 1
    assert loader.store("entities").count_documents() == 2
