"""`Schedule` runs a loop-free pipeline as `Pipeline.run` does: the same results, the same skipped branches,
the same errors and spans, and no component sees another's changes to a shared value. Each test runs the
same pipeline both ways and compares, once with the schedule's own copy (Haystack's) and once with the faster
one haygate hands it (`fast_deepcopy`)."""

import contextlib
import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from haystack import Document, Pipeline, component, tracing
from haystack.components.joiners import DocumentJoiner
from haystack.core.component.types import GreedyVariadic, Variadic
from haystack.core.errors import PipelineRuntimeError

from haygate.compat import fast_deepcopy
from haygate.compat.schedule import Schedule

ScheduleOf = Callable[[Pipeline], Schedule | None]


@component
class Numbers:
    """Sends a fresh list of numbers to whoever is connected."""

    @component.output_types(numbers=list[int])
    def run(self, count: int) -> dict[str, Any]:
        return {"numbers": list(range(count))}


@component
class Appender:
    """Changes its input in place, as a careless component would."""

    @component.output_types(numbers=list[int])
    def run(self, numbers: list[int], extra: int = 99) -> dict[str, Any]:
        numbers.append(extra)
        return {"numbers": numbers}


@component
class Total:
    @component.output_types(total=int)
    def run(self, numbers: list[int]) -> dict[str, Any]:
        return {"total": sum(numbers)}


@component
class Router:
    """Sends its input down one branch only."""

    @component.output_types(small=list[int], large=list[int])
    def run(self, numbers: list[int]) -> dict[str, Any]:
        return {"small": numbers} if len(numbers) < 3 else {"large": numbers}


@component
class Failing:
    @component.output_types(total=int)
    def run(self, numbers: list[int]) -> dict[str, Any]:
        raise RuntimeError("no total today")


@pytest.fixture(params=["haystack's copy", "fast_deepcopy"])
def schedule_of(request: pytest.FixtureRequest) -> ScheduleOf:
    """`Schedule.of` as Haystack would use it, or as haygate does (`haygate.gateway.loader`)."""
    if request.param == "fast_deepcopy":
        return lambda pipeline: Schedule.of(pipeline, deepcopy=fast_deepcopy)
    return Schedule.of


def wired(components: dict[str, Any], connections: list[tuple[str, str]]) -> Pipeline:
    pipeline = Pipeline()
    for name, instance in components.items():
        pipeline.add_component(name, instance)
    for sender, receiver in connections:
        pipeline.connect(sender, receiver)
    return pipeline


def both_ways(
    schedule_of: ScheduleOf, pipeline: Pipeline, data: dict[str, dict[str, Any]], kept: set[str]
) -> tuple[Any, Any]:
    schedule = schedule_of(pipeline)
    assert schedule is not None
    return schedule.run(data, kept), pipeline.run(data, include_outputs_from=kept)


def fan_out() -> Pipeline:
    return wired(
        {"numbers": Numbers(), "appender": Appender(), "total": Total()},
        [("numbers.numbers", "appender.numbers"), ("numbers.numbers", "total.numbers")],
    )


def test_a_value_sent_to_two_components_is_each_ones_own(schedule_of: ScheduleOf) -> None:
    ours, haystacks = both_ways(schedule_of, fan_out(), {"numbers": {"count": 3}}, set())
    assert ours == haystacks == {"appender": {"numbers": [0, 1, 2, 99]}, "total": {"total": 3}}


def test_a_kept_output_is_what_the_component_returned(schedule_of: ScheduleOf) -> None:
    kept = {"numbers", "appender"}
    ours, haystacks = both_ways(schedule_of, fan_out(), {"numbers": {"count": 2}}, kept)
    assert ours == haystacks
    assert ours["numbers"] == {"numbers": [0, 1]} and ours["appender"] == {"numbers": [0, 1, 99]}


def test_one_value_given_to_two_sockets_is_each_ones_own(schedule_of: ScheduleOf) -> None:
    pipeline = wired({"appender": Appender(), "total": Total()}, [])
    shared = [1, 2]
    data = {"appender": {"numbers": shared}, "total": {"numbers": shared}}
    schedule = schedule_of(pipeline)
    assert schedule is not None
    assert schedule.run(data, set()) == {"appender": {"numbers": [1, 2, 99]}, "total": {"total": 3}}


def routed() -> Pipeline:
    return wired(
        {"numbers": Numbers(), "router": Router(), "small": Total(), "large": Appender()},
        [("numbers.numbers", "router.numbers"), ("router.small", "small.numbers"), ("router.large", "large.numbers")],
    )


@pytest.mark.parametrize(("count", "branch"), [(2, "small"), (5, "large")])
def test_a_branch_a_router_did_not_take_does_not_run(count: int, branch: str, schedule_of: ScheduleOf) -> None:
    ours, haystacks = both_ways(schedule_of, routed(), {"numbers": {"count": count}}, {"router"})
    assert ours == haystacks
    assert set(ours) == {"router", branch}


def test_defaults_and_caller_inputs_reach_their_sockets(schedule_of: ScheduleOf) -> None:
    pipeline = fan_out()
    ours, haystacks = both_ways(
        schedule_of, pipeline, {"numbers": {"count": 1}, "appender": {"extra": 7}}, {"appender"}
    )
    assert ours == haystacks and ours["appender"] == {"numbers": [0, 7]}


def test_a_failing_component_is_named_as_haystack_names_it(schedule_of: ScheduleOf) -> None:
    pipeline = wired({"numbers": Numbers(), "failing": Failing()}, [("numbers.numbers", "failing.numbers")])
    schedule = schedule_of(pipeline)
    assert schedule is not None
    with pytest.raises(PipelineRuntimeError) as ours:
        schedule.run({"numbers": {"count": 2}}, set())
    with pytest.raises(PipelineRuntimeError) as haystacks:
        pipeline.run({"numbers": {"count": 2}})
    assert ours.value.component_name == haystacks.value.component_name == "failing"
    assert str(ours.value) == str(haystacks.value)
    assert isinstance(ours.value.__cause__, RuntimeError)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({}, "Missing mandatory input 'count' for component 'numbers'."),
        ({"numbers": {"count": 1}, "nowhere": {"x": 1}}, "Component named 'nowhere' not found in the pipeline."),
        ({"numbers": {"count": 1, "size": 2}}, "Input 'size' not found in component 'numbers'."),
    ],
)
def test_inputs_are_checked_as_haystack_checks_them(
    data: dict[str, Any], problem: str, schedule_of: ScheduleOf
) -> None:
    pipeline = fan_out()
    schedule = schedule_of(pipeline)
    assert schedule is not None
    with pytest.raises(ValueError, match="^" + problem.replace("(", r"\(") + "$"):
        schedule.run(data, set())
    with pytest.raises(ValueError, match=problem.replace("(", r"\(")):
        pipeline.run(data)


def test_a_caller_filling_a_socket_a_sender_fills_is_left_to_haystack(schedule_of: ScheduleOf) -> None:
    pipeline = fan_out()
    schedule = schedule_of(pipeline)
    assert schedule is not None
    data: dict[str, dict[str, Any]] = {"numbers": {"count": 1}, "total": {"numbers": [5]}}
    assert schedule.run(data, {"total"}) == fan_out().run(data, include_outputs_from={"total"})


@component
class Labels:
    @component.output_types(metadata=dict[str, Any])
    def run(self, count: int) -> dict[str, Any]:
        return {"metadata": {"count": count}}


@component
class Collector:
    """A formatter's shape: one lazy variadic socket of dicts from several senders."""

    @component.output_types(merged=list[dict[str, Any]])
    def run(self, metadata: Variadic[dict[str, Any]], numbers: list[int] | None = None) -> dict[str, Any]:
        return {"merged": [*metadata, {"numbers": numbers}]}


def joined(*, with_caller_metadata: bool = False) -> tuple[Pipeline, dict[str, dict[str, Any]]]:
    pipeline = wired(
        {"numbers": Numbers(), "b_labels": Labels(), "a_labels": Labels(), "collector": Collector()},
        [
            ("numbers.numbers", "collector.numbers"),
            ("b_labels.metadata", "collector.metadata"),
            ("a_labels.metadata", "collector.metadata"),
        ],
    )
    data: dict[str, dict[str, Any]] = {"numbers": {"count": 2}, "a_labels": {"count": 1}, "b_labels": {"count": 2}}
    if with_caller_metadata:
        data["collector"] = {"metadata": {"from": "caller"}}
    return pipeline, data


@pytest.mark.parametrize("with_caller_metadata", [False, True])
def test_a_variadic_socket_collects_in_haystacks_order(with_caller_metadata: bool, schedule_of: ScheduleOf) -> None:
    pipeline, data = joined(with_caller_metadata=with_caller_metadata)
    ours, haystacks = both_ways(schedule_of, pipeline, data, set())
    assert ours == haystacks
    expected = [{"count": 1}, {"count": 2}, {"numbers": [0, 1]}]
    assert ours["collector"]["merged"] == ([{"from": "caller"}] if with_caller_metadata else []) + expected


def test_a_joiner_of_documents_gets_every_list(schedule_of: ScheduleOf) -> None:
    @component
    class Source:
        @component.output_types(documents=list[Document])
        def run(self, text: str) -> dict[str, Any]:
            return {"documents": [Document(id=text, content=text)]}

    pipeline = wired(
        {"first": Source(), "second": Source(), "joiner": DocumentJoiner()},
        [("first.documents", "joiner.documents"), ("second.documents", "joiner.documents")],
    )
    ours, haystacks = both_ways(schedule_of, pipeline, {"first": {"text": "a"}, "second": {"text": "b"}}, set())
    assert ours == haystacks and [d.id for d in ours["joiner"]["documents"]] == ["a", "b"]


def test_pipelines_with_loops_or_greedy_joins_are_left_to_haystack(schedule_of: ScheduleOf) -> None:
    @component
    class Greedy:
        @component.output_types(value=int)
        def run(self, value: GreedyVariadic[int]) -> dict[str, Any]:
            return {"value": next(iter(value))}

    pipeline = wired({"a": Numbers(), "greedy": Greedy()}, [])
    assert schedule_of(pipeline) is None  # Haystack runs it on its first input: it decides when
    assert schedule_of(fan_out()) is not None


@dataclass
class RecordedSpan:
    """A span as a tracer sees it: its name, the tags it was opened with, and every tag set on it (values
    copied when set: a component may change its input afterwards)."""

    name: str
    tags: dict[str, Any]
    set_tags: list[tuple[str, Any]] = field(default_factory=list)

    def set_tag(self, key: str, value: Any) -> None:
        self.set_tags.append((key, copy.deepcopy(value)))

    def set_content_tag(self, key: str, value: Any) -> None:
        self.set_tags.append((key, copy.deepcopy(value)))

    def raw_span(self) -> Any:
        return self


class Recording:
    """A Haystack tracer that keeps every span."""

    def __init__(self) -> None:
        self.spans: list[RecordedSpan] = []

    @contextlib.contextmanager
    def trace(self, operation_name: str, tags: dict[str, Any] | None = None, parent_span: Any = None) -> Iterator[Any]:
        span = RecordedSpan(operation_name, copy.deepcopy(dict(tags or {})))
        self.spans.append(span)
        yield span

    def current_span(self) -> None:
        return None


def traced(run: Any) -> list[RecordedSpan]:
    recording = Recording()
    tracing.enable_tracing(recording)  # type: ignore[arg-type]
    try:
        run()
    finally:
        tracing.disable_tracing()
    return recording.spans


@pytest.mark.parametrize(
    ("pipeline", "data", "kept"),
    [
        (fan_out, {"numbers": {"count": 1}}, set()),
        (fan_out, {"numbers": {"count": 2}}, {"numbers", "appender"}),
        (routed, {"numbers": {"count": 4}}, set()),
    ],
    ids=["fan-out", "kept-outputs", "router"],
)
def test_the_spans_are_haystacks_tag_for_tag(
    pipeline: Any, data: dict[str, Any], kept: set[str], schedule_of: ScheduleOf
) -> None:
    """The same spans, in the same order, with the same tags, set in the same order, as `Pipeline.run`'s."""
    built = pipeline()
    schedule = schedule_of(built)
    assert schedule is not None
    ours = traced(lambda: schedule.run(copy.deepcopy(data), kept))
    haystacks = traced(lambda: built.run(copy.deepcopy(data), include_outputs_from=kept))
    assert [span.name for span in ours] == ["haystack.pipeline.run"] + ["haystack.component.run"] * (len(ours) - 1)
    assert len(ours[0].tags) == 4 and len(ours[1].tags) == 6  # all of Haystack's: pipeline and component
    assert ours == haystacks


@pytest.mark.filterwarnings("ignore:Mutating attribute")  # the careless component this test is about
def test_documents_are_copied_for_a_second_consumer(schedule_of: ScheduleOf) -> None:
    @component
    class Scorer:
        @component.output_types(documents=list[Document])
        def run(self, documents: list[Document]) -> dict[str, Any]:
            for document in documents:
                document.score = 1.0
            return {"documents": documents}

    @component
    class Source:
        @component.output_types(documents=list[Document])
        def run(self, text: str) -> dict[str, Any]:
            return {"documents": [Document(content=text)]}

    pipeline = wired({"source": Source(), "scorer": Scorer()}, [("source.documents", "scorer.documents")])
    ours, haystacks = both_ways(schedule_of, pipeline, {"source": {"text": "hello"}}, {"source", "scorer"})
    assert ours == haystacks
    assert ours["source"]["documents"][0].score is None and ours["scorer"]["documents"][0].score == 1.0
