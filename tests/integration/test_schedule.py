"""Every tool this project ships runs through its fixed schedule (`haygate.compat.schedule`), and answers
each of its example calls, plain and explained, exactly as through Haystack's `Pipeline.run`."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from haygate.gateway.loader import LoadedPipeline
from haygate.gateway.runtime import Gateway

pytestmark = pytest.mark.integration


@contextmanager
def planned_by_haystack(loaded: LoadedPipeline) -> Iterator[None]:
    """The same loaded pipeline, run by `Pipeline.run` (its cached schedule set aside)."""
    schedule = loaded.schedule
    loaded.__dict__["schedule"] = None
    try:
        yield
    finally:
        loaded.__dict__["schedule"] = schedule


def test_every_shipped_tool_answers_as_haystack_would(gateway: Gateway) -> None:
    compared = 0
    for name, tool in gateway.tools.items():
        if tool.pipeline is None:
            continue  # a write action: no pipeline
        assert tool.pipeline.schedule is not None, f"{name}'s pipeline fell back to Pipeline.run"
        for arguments in tool.example_arguments():
            ours, explained = tool.run(arguments), tool.explain(arguments)
            with planned_by_haystack(tool.pipeline):
                assert tool.run(arguments) == ours, (name, arguments)
                assert tool.explain(arguments) == explained, (name, arguments)
            compared += 1
    assert compared >= 10
