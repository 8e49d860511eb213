"""Runs a loop-free Haystack pipeline as `Pipeline.run` does, in an order fixed once, when it is built.

`Pipeline.run` plans every run afresh: it refills a priority queue and checks every socket of every component
before each step, and deep-copies every input of every component. A pipeline without loops needs none of
that: each component runs at most once, after its senders. `Schedule` is that order, computed once:

- components run in Haystack's own order: in waves (those whose senders have all run), by name within one;
- a component runs when its mandatory sockets all hold a value and something triggered it (a sender's output,
  a caller's input, or, for a component nothing sends to, the run itself). One a router left without input is
  skipped, as `Pipeline.run` leaves it blocked;
- a lazy variadic socket (a `DocumentJoiner`'s `documents`, a `ListJoiner`'s `values`) collects every value sent to it,
  a caller's first, then its senders' in the order they ran, and is wrapped or flattened as Haystack does;
- a value goes to its first consumer as it is and to every other consumer (a second receiver, or the outputs
  the caller asked to keep) as a copy, so a component that changes its input changes no one else's;
- the run and every component in it get `Pipeline.run`'s spans, `haystack.pipeline.run` and
  `haystack.component.run`, with the same tags, and a failure is the same `PipelineRuntimeError`;
- the result is `Pipeline.run`'s: the outputs of the components in `include_outputs_from` and the unconsumed
  outputs of the others.

A pipeline with a loop, a greedy variadic socket or a connection that converts types is left to
`Pipeline.run` (`Schedule.of` returns None for it), and so is a call that fills a socket a sender also fills
(`Pipeline.run` then makes the socket variadic, where it can).

It depends on Haystack only, and reads these parts of a built pipeline that are not Haystack's documented
API: the graph's node data (`instance`, `input_sockets`, `output_sockets`) and edge data (`from_socket`,
`to_socket`, `conversion_strategy`), the sockets' fields, a component's `__haystack_input__` and
`__haystack_output__`, and `Pipeline._max_runs_per_component` (a span tag).

Usage::

    schedule = Schedule.of(pipeline)  # None: a loop or a greedy join, so Pipeline.run plans each run
    result = schedule.run({"retriever": {"query": "..."}}, include_outputs_from={"retriever"})
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import networkx as nx
from haystack import Pipeline, tracing
from haystack.core.errors import PipelineRuntimeError
from haystack.core.pipeline.utils import _deepcopy_with_exceptions
from haystack.core.serialization import generate_qualified_class_name

__all__ = ["Schedule", "Step"]

Receiver = tuple[str, str, bool]  # component, input socket, whether that socket collects values (variadic)
Copy = Callable[[Any], Any]


@dataclass(frozen=True)
class Step:
    """One component of a schedule and everything about its wiring a run needs, read from the graph once."""

    name: str
    instance: Any
    sockets: frozenset[str]  # input sockets
    defaults: dict[str, Any]  # optional sockets' default values (a variadic one's in a list, as Haystack gives it)
    mandatory: frozenset[str]
    connected: frozenset[str]  # sockets a sender feeds (a caller may not)
    unconnected_mandatory: tuple[str, ...]  # sockets only a caller can fill, and must
    collecting: dict[str, bool]  # lazy variadic sockets -> whether each value is one item (else a list to extend)
    has_senders: bool
    receivers: dict[str, tuple[Receiver, ...]]  # output socket -> where it goes
    outputs: frozenset[str]  # declared output sockets
    span_tags: dict[str, Any]

    @classmethod
    def of(cls, graph: Any, name: str) -> "Step":
        """The step of component `name` in a pipeline's graph."""
        node = graph.nodes[name]
        sockets = node["input_sockets"]
        receivers: dict[str, list[Receiver]] = {}
        for _, receiver, connection in graph.out_edges(name, data=True):
            to_socket = connection["to_socket"]
            receivers.setdefault(connection["from_socket"].name, []).append(
                (receiver, to_socket.name, to_socket.is_variadic)
            )
        instance = node["instance"]
        connected = frozenset(n for n, socket in sockets.items() if socket.senders)
        mandatory = frozenset(n for n, socket in sockets.items() if socket.is_mandatory)
        return cls(
            name=name,
            instance=instance,
            sockets=frozenset(sockets),
            defaults={
                n: [s.default_value] if s.is_variadic else s.default_value
                for n, s in sockets.items()
                if not s.is_mandatory
            },
            mandatory=mandatory,
            connected=connected,
            unconnected_mandatory=tuple(sorted(mandatory - connected)),
            collecting={n: s.wrap_input_in_list for n, s in sockets.items() if s.is_variadic},
            has_senders=bool(connected),
            receivers={socket: tuple(targets) for socket, targets in receivers.items()},
            outputs=frozenset(node["output_sockets"]),
            span_tags=component_span_tags(name, instance),
        )


def component_span_tags(name: str, instance: Any) -> dict[str, Any]:
    """The tags of `Pipeline.run`'s span around a component (`PipelineBase._create_component_span`) that do
    not change from run to run; a run adds the input types."""

    def spec(sockets: Any, peers: str) -> dict[str, Any]:
        return {
            key: {
                "type": value.type.__name__ if type(value.type) is type else str(value.type),
                peers: getattr(value, peers),
            }
            for key, value in sockets._sockets_dict.items()
        }

    return {
        "haystack.component.name": name,
        "haystack.component.type": instance.__class__.__name__,
        "haystack.component.fully_qualified_type": generate_qualified_class_name(type(instance)),
        "haystack.component.input_spec": spec(instance.__haystack_input__, "senders"),
        "haystack.component.output_spec": spec(instance.__haystack_output__, "receivers"),
    }


class Schedule:
    """A loop-free pipeline's fixed order of components; `run` is `Pipeline.run` without planning each run."""

    def __init__(self, pipeline: Pipeline, steps: list[Step], deepcopy: Copy = _deepcopy_with_exceptions) -> None:
        self.pipeline = pipeline
        self.steps = steps
        self.deepcopy = deepcopy
        self._by_name = {step.name: step for step in steps}
        self._warm = False

    @classmethod
    def of(cls, pipeline: Pipeline, deepcopy: Copy = _deepcopy_with_exceptions) -> "Schedule | None":
        """The schedule of `pipeline`, or None where `Pipeline.run` has to plan each run (loops, greedy joins,
        converting connections).

        :param deepcopy: copies a caller's input and a value for each consumer after the first; Haystack's own
            copy of component inputs unless a faster one with the same result is given.
        """
        graph = pipeline.graph
        if not nx.is_directed_acyclic_graph(graph):
            return None
        for _, _, connection in graph.edges(data=True):
            if connection.get("conversion_strategy") is not None:
                return None
        steps = []
        for wave in nx.topological_generations(graph):
            for name in sorted(wave):
                sockets = graph.nodes[name]["input_sockets"]
                if any(socket.is_variadic and socket.is_greedy for socket in sockets.values()):
                    return None
                steps.append(Step.of(graph, name))
        return cls(pipeline, steps, deepcopy)

    def run(self, data: dict[str, dict[str, Any]], include_outputs_from: set[str]) -> dict[str, Any]:
        """`Pipeline.run(data, include_outputs_from=...)` for data keyed by component, then socket."""
        if not self._warm:  # Pipeline.run warms every component on every run; once is enough
            self.pipeline.warm_up()
            self._warm = True
        given = self._checked(data)
        if given is None:
            return self.pipeline.run(data, include_outputs_from=include_outputs_from)
        results: dict[str, Any] = {}
        with tracing.tracer.trace(
            "haystack.pipeline.run",
            tags={
                "haystack.pipeline.input_data": data,
                "haystack.pipeline.metadata": self.pipeline.metadata,
                "haystack.pipeline.max_runs_per_component": self.pipeline._max_runs_per_component,
                "haystack.pipeline.execution_mode": "sync",
            },
        ) as pipeline_span:
            for step in self.steps:
                inputs = given.pop(step.name, None)
                if inputs is None:
                    if step.has_senders or step.mandatory:
                        continue  # nothing triggered it, or a router sent its branch elsewhere
                    inputs = {}
                elif not step.mandatory <= inputs.keys():
                    continue
                for socket, wrapped in step.collecting.items():
                    if socket in inputs and not wrapped:  # each value is a list: one list of their items
                        inputs[socket] = [item for value in inputs[socket] for item in value]
                outputs = self._run_step(step, {**step.defaults, **inputs}, pipeline_span)
                self._deliver(step, outputs, given, results, include_outputs_from)
            pipeline_span.set_content_tag("haystack.pipeline.output_data", results)
        return results

    def _checked(self, data: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]] | None:
        """`PipelineBase.validate_input`: known components and sockets, every caller-only mandatory socket
        filled. Each socket gets its own copy of what the caller gave; a variadic socket a list of values.
        None: the call fills a socket a sender fills too, which `Pipeline.run` decides about."""
        given: dict[str, dict[str, Any]] = {}
        for name, values in data.items():
            step = self._by_name.get(name)
            if step is None:
                raise ValueError(f"Component named '{name}' not found in the pipeline.")
            for socket, value in values.items():
                if socket not in step.sockets:
                    raise ValueError(f"Input '{socket}' not found in component '{name}'.")
                if socket in step.connected:
                    return None
                copied = self.deepcopy(value)  # as Pipeline.run copies them: the caller's objects stay the caller's
                given.setdefault(name, {})[socket] = [copied] if socket in step.collecting else copied
        for step in self.steps:
            for socket in step.unconnected_mandatory:
                if socket not in given.get(step.name, {}):
                    raise ValueError(f"Missing mandatory input '{socket}' for component '{step.name}'.")
        return given

    @staticmethod
    def _run_step(step: Step, inputs: dict[str, Any], parent: Any) -> Mapping[str, Any]:
        tags = {**step.span_tags, "haystack.component.input_types": {k: type(v).__name__ for k, v in inputs.items()}}
        with tracing.tracer.trace("haystack.component.run", tags=tags, parent_span=parent) as span:
            span.set_content_tag("haystack.component.input", inputs)
            try:
                outputs = step.instance.run(**inputs)
            except PipelineRuntimeError:
                raise
            except Exception as error:
                raise PipelineRuntimeError.from_exception(step.name, step.instance.__class__, error) from error
            if not isinstance(outputs, Mapping):
                raise PipelineRuntimeError.from_invalid_output(step.name, step.instance.__class__, outputs)
            unknown = outputs.keys() - step.outputs
            if unknown:
                msg = f"Component '{step.name}' returned outputs it does not declare: {sorted(unknown)}"
                raise PipelineRuntimeError(step.name, step.instance.__class__, msg)
            span.set_tag("haystack.component.visits", 1)
            span.set_content_tag("haystack.component.output", outputs)
            return outputs

    def _deliver(
        self,
        step: Step,
        outputs: Mapping[str, Any],
        given: dict[str, dict[str, Any]],
        results: dict[str, Any],
        include_outputs_from: set[str],
    ) -> None:
        kept = step.name in include_outputs_from
        for socket, value in outputs.items():
            for number, (receiver, to_socket, collects) in enumerate(step.receivers.get(socket, ())):
                first = number == 0 and not kept  # a kept output stays as the component returned it
                delivered = value if first else self.deepcopy(value)
                inputs = given.setdefault(receiver, {})
                if collects:
                    inputs.setdefault(to_socket, []).append(delivered)
                else:
                    inputs[to_socket] = delivered
        if kept:
            results[step.name] = dict(outputs)
        else:
            unconsumed = {socket: value for socket, value in outputs.items() if socket not in step.receivers}
            if unconsumed:
                results[step.name] = unconsumed
