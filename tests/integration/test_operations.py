"""Every operation of the gateway's table (`haygate.gateway.operations.OPERATIONS`) run both ways: in this process
(`LocalWorkspace`, as the `haygate` command runs it when no server holds the data) and by a running `haygate
serve` over its owner's socket (`ServerClient.operate`, as the command sends it when one does), on two copies
of the same data: the same answers. A new operation needs a request here, and fails this test until it has
one, so no operation has a door the other lacks."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from haygate.errors import HaygateError, NotFoundError
from haygate.gateway.operations import OPERATIONS, operation
from haygate.gateway.workspace import LocalWorkspace
from haygate.server.client import ServerClient, local_server
from tests.support.cache import copy_tree
from tests.support.project import PROJECT, make_settings
from tests.support.serving import served_process

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REQUESTS: dict[str, list[dict[str, Any]]] = {  # each operation, with the requests both doors answer
    "call": [
        {"tool": "search_docs", "arguments": {"query": "bearer token", "max_results": 3}},
        {"tool": "get_decisions", "arguments": {"topic": "rag"}},
    ],
    "delete": [{"collection": "memories", "ids": ["repo-layout-monorepo", "no-such-memory"]}],
    "health": [{"verbose": True}],
    "validate": [{"files": [str(PROJECT / "configs" / "tools" / "search_docs.yaml")]}],
    "examples": [{"tool": "search_docs"}],
}
REFUSED = [  # and requests both refuse, with the same error
    ("call", {"tool": "no_such_tool"}),
    ("call", {"tool": "search_docs", "arguments": {"query": ""}}),
    ("delete", {"collection": "memories", "ids": []}),
    ("health", {"verbose": "yes"}),
    ("validate", {"files": ["configs/tools/nothing.yaml"]}),
]


def comparable(name: str, reply: dict[str, Any]) -> dict[str, Any]:
    """What both doors must agree on: all of it but a server's own state (`health`: status, uptime, calls)."""
    if name == "health":
        return {c: figures["documents"] for c, figures in (reply.get("collections") or {}).items()}
    return reply


@pytest.fixture(scope="module")
def doors(ingested_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """This process's workspace on one copy of the samples, and a served one's client on another."""
    root = tmp_path_factory.mktemp("operations")
    here, served = (
        copy_tree(ingested_samples, root / "here" / "data"),
        copy_tree(ingested_samples, root / "served" / "data"),
    )
    with served_process(served):
        client = local_server(served)
        assert client is not None, "the server writes its socket's address into its data dir"
        try:
            yield {"here": LocalWorkspace(make_settings(here)), "served": client}
        finally:
            client.close()


def answer(doors: dict[str, Any], door: str, name: str, request: dict[str, Any]) -> dict[str, Any]:
    if door == "here":
        return dict(operation(name)(doors["here"], request).model_dump(mode="json"))
    served: ServerClient = doors["served"]
    return served.operate(name, request)


def test_every_operation_has_requests_here() -> None:
    assert sorted(REQUESTS) == sorted(OPERATIONS)


@pytest.mark.budget(120, "a server started, and every operation run both ways (validate and examples call tools)")
def test_both_doors_give_the_same_answers(doors: dict[str, Any]) -> None:
    for name, requests in REQUESTS.items():
        for request in requests:
            here, served = answer(doors, "here", name, request), answer(doors, "served", name, request)
            assert comparable(name, here) == comparable(name, served), (name, request)
    deleted = answer(doors, "here", "delete", {"collection": "memories", "ids": ["repo-layout-monorepo"]})
    assert deleted["missing"] == ["repo-layout-monorepo"]  # the first delete did delete it


@pytest.mark.parametrize(("name", "request_body"), REFUSED, ids=[f"{n}:{r}" for n, r in REFUSED])
def test_both_doors_refuse_alike(doors: dict[str, Any], name: str, request_body: dict[str, Any]) -> None:
    refusals = []
    for door in ("here", "served"):
        with pytest.raises(HaygateError) as refused:
            answer(doors, door, name, request_body)
        refusals.append((refused.value.code, refused.value.message))
    assert refusals[0] == refusals[1], refusals


def test_an_unknown_operation_is_not_found(doors: dict[str, Any]) -> None:
    with pytest.raises(NotFoundError, match="no operation 'rename'; operations: call, delete"):
        doors["served"].operate("rename", {})
