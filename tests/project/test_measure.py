"""`scripts/measure.py`, what every benchmark measures with: percentiles in one unit, and a served process that
is stopped however the block that uses it ends."""

import socket
import sys

import pytest

from scripts.measure import free_port, load_average, percentiles, rss_mb, served


def test_percentiles_are_nearest_rank_in_milliseconds() -> None:
    samples = [0.004, 0.001, 0.003, 0.002]  # seconds, unsorted
    assert percentiles(samples) == {"n": 4, "p50_ms": 2.0, "p95_ms": 4.0, "p99_ms": 4.0, "max_ms": 4.0}


def test_percentiles_of_nothing_say_so() -> None:
    assert percentiles([]) == {"n": 0}


def test_free_port_can_be_bound() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", free_port()))


def test_load_and_memory_are_read() -> None:
    assert len(load_average()) == 3
    assert rss_mb() > 0


def test_served_stops_the_process_when_the_block_raises() -> None:
    command = [sys.executable, "-c", "import time; time.sleep(60)"]
    with pytest.raises(RuntimeError), served(command, port=free_port(), health=None) as server:
        assert server.process.poll() is None
        raise RuntimeError("the benchmark failed")
    assert server.process.poll() is not None


def test_served_names_a_server_that_exits_before_it_is_ready() -> None:
    command = [sys.executable, "-c", "raise SystemExit(3)"]
    with pytest.raises(SystemExit, match="exited with 3"), served(command, port=free_port(), timeout=30):
        pass
