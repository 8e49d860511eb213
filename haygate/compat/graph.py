"""A built pipeline's connections, read (and one instance swapped) on Haystack's graph: `Pipeline.graph` and its
node and edge data are not Haystack's documented API, so every read outside the schedule goes through here, and
`haygate.compat.PRIVATE_NAMES` lists what it reads (the node's `instance`, the edges' sockets)."""

from typing import Any

from haystack import Pipeline


def feeder(pipeline: Pipeline, component: str, socket: str) -> tuple[str, str] | None:
    """The (component, output socket) connected to `component.socket`, if one is."""
    for sender, _, data in pipeline.graph.in_edges(component, data=True):
        if data["to_socket"].name == socket:
            return sender, data["from_socket"].name
    return None


def senders_into(pipeline: Pipeline, receives: Any) -> tuple[tuple[str, str], ...]:
    """Each (component, output socket) connected to a component `receives(instance)` says yes to."""
    return tuple(
        (sender, edge["from_socket"].name)
        for sender, receiver, edge in pipeline.graph.edges(data=True)
        if receives(pipeline.get_component(receiver))
    )


def swap_instance(pipeline: Pipeline, name: str, instance: Any) -> None:
    """`instance` runs as component `name` from now on, with the same connections (before a schedule is made,
    which holds the instances)."""
    pipeline.graph.nodes[name]["instance"] = instance
