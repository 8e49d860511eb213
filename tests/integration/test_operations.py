"""Every operation of the gateway's table (`haygate.gateway.operations.OPERATIONS`) run both ways: in this process
(`LocalWorkspace`, as the `haygate` command runs it when no server holds the data) and by a running `haygate
serve` over its owner's socket (`ServerClient.operate`, as the command sends it when one does), on two copies
of the same project and data: the same answers. A new operation needs a request here, and fails this test until
it has one, so no operation has a door the other lacks."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from haygate.cli import main
from haygate.errors import HaygateError, NotFoundError
from haygate.gateway.operations import NOTHING_TO_RELOAD, OPERATIONS, operation
from haygate.gateway.workspace import LocalWorkspace
from haygate.server.client import ServerClient, local_server
from tests.support.cache import copy_tree
from tests.support.project import PROJECT, copy_project, make_settings
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
    "upsert": [
        {
            "collection": "memories",
            "records": [
                {"key": "quokka-feeding", "summary": "Quokkas are fed at noon.", "tags": ["zoo"]},
                {"key": "no-summary", "content": "a memory without its summary is refused alone"},
            ],
        }
    ],
    "skill": [{}],
    "save_judged_set": [
        {
            "name": "both-doors",
            "tool": "search_docs",
            "level": "record",
            "queries": [{"id": "q1", "text": "bearer token"}, {"id": "q2", "text": "filters", "arguments": {}}],
            "grades": {"q1": {"file:auth.md": 3, "file:faq.md": 0}},
        }
    ],
    "explain": [
        {"tool": "search_docs", "arguments": {"query": "bearer token", "max_results": 3}},
        {"tool": "search_docs", "arguments": {"query": "filters"}, "pipeline": "eval/search_docs_dbsf.yaml"},
    ],
    "pool": [
        {
            "tool": "search_docs",
            "arguments": {"query": "bearer token"},
            "pipelines": ["eval/search_docs_dbsf.yaml"],
            "depth": 5,
        },
        {"tool": "search_docs", "arguments": {"query": "filters"}, "sources": [], "level": "record"},
    ],
    "judged_ids": [{"collection": "docs", "ids": ["file:auth.md", "file:auth.md#tokens", "file:no-such-page.md"]}],
    "record_ids": [{"collection": "docs", "ids": ["file:auth.md", "file:no-such-page.md"]}],
    "known_items": [{"collection": "docs", "name": "known-both", "tool": "search_docs", "limit": 5}],
    "reload": [{}],  # last: a server's tools are built anew
}
JUDGED = REQUESTS["save_judged_set"][0]
REFUSED = [  # and requests both refuse, with the same error
    ("call", {"tool": "no_such_tool"}),
    ("call", {"tool": "search_docs", "arguments": {"query": ""}}),
    ("delete", {"collection": "memories", "ids": []}),
    ("health", {"verbose": "yes"}),
    ("validate", {"files": ["configs/tools/nothing.yaml"]}),
    ("upsert", {"collection": "memories", "records": []}),
    ("upsert", {"collection": "memories", "records": ["not an object"]}),
    ("upsert", {"collection": "nowhere", "records": [{"key": "k", "summary": "s"}]}),
    ("skill", {"tool": "search_docs"}),
    ("save_judged_set", {**JUDGED, "name": "../outside"}),
    ("save_judged_set", {**JUDGED, "tool": "no_such_tool"}),
    ("save_judged_set", {**JUDGED, "grades": {"q1": {"file:auth.md": 4}}}),
    ("save_judged_set", {**JUDGED, "grades": {"q1": {"file:auth.md": "3"}}}),
    ("explain", {"tool": "no_such_tool"}),
    ("explain", {"tool": "search_docs", "pipeline": "../configs/tools/search_docs.yaml"}),
    ("explain", {"tool": "search_docs", "pipeline": "tools/memory_search.yaml"}),
    ("pool", {"tool": "search_docs", "arguments": {"query": "x"}, "depth": 0}),
    ("pool", {"tool": "search_docs", "arguments": {"query": "x"}, "sources": ["dense", "dense"]}),
    ("pool", {"tool": "search_docs", "arguments": {"query": "x"}, "pipelines": ["../configs/tools/search_docs.yaml"]}),
    ("pool", {"tool": "search_docs", "arguments": {"query": "x"}, "pipelines": ["tools/memory_search.yaml"]}),
    ("pool", {"tool": "no_such_tool", "arguments": {"query": "x"}}),
    ("judged_ids", {"collection": "nowhere", "ids": ["a"]}),
    ("record_ids", {"collection": "docs", "ids": "file:auth.md"}),
    ("known_items", {"collection": "nowhere", "name": "k", "tool": "search_docs"}),
    ("known_items", {"collection": "docs", "name": "../out", "tool": "search_docs"}),
    ("known_items", {"collection": "docs", "name": "k2", "tool": "no_such_tool"}),
    ("reload", {"force": True}),
]


def comparable(name: str, reply: dict[str, Any], home: Path) -> Any:
    """What both doors must agree on: all of it but a server's own state (`health`: status, uptime, calls; a
    write's `seconds`), with each door's own project folder as one name. A reload's answer tells the doors apart
    by nature (a server reloads; this process serves nothing to reload): both answer the same reply, and
    `test_a_reload_reloads_a_server_and_says_no_server_runs_here` says what each answers in it."""
    if name == "health":
        return {c: figures["documents"] for c, figures in (reply.get("collections") or {}).items()}
    if name == "upsert":
        reply = {key: value for key, value in reply.items() if key != "seconds"}
    if name == "reload":
        return sorted(reply)
    if name in ("explain", "pool"):
        reply = {key: value for key, value in reply.items() if key != "elapsed_ms"}
    return json.loads(json.dumps(reply).replace(str(home), "<home>"))


@pytest.fixture(scope="module")
def doors(ingested_samples: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """This process's workspace on one copy of the project and the samples, and a served one's client on another
    (an operation that writes into the project, a judged set, writes into its door's copy)."""
    root = tmp_path_factory.mktemp("operations")
    homes = {door: copy_project(root / door / "project") for door in ("here", "served")}
    here, served = (
        copy_tree(ingested_samples, root / "here" / "data"),
        copy_tree(ingested_samples, root / "served" / "data"),
    )
    with served_process(served, home=str(homes["served"])):
        client = local_server(served)
        assert client is not None, "the server writes its socket's address into its data dir"
        try:
            workspace = LocalWorkspace(make_settings(here, home=homes["here"]))
            yield {"here": workspace, "served": client, "homes": homes, "served_data": served}
        finally:
            client.close()


def answer(doors: dict[str, Any], door: str, name: str, request: dict[str, Any]) -> dict[str, Any]:
    if door == "here":
        return dict(operation(name)(doors["here"], request).model_dump(mode="json"))
    served: ServerClient = doors["served"]
    return served.operate(name, request)


def test_every_operation_has_requests_here() -> None:
    assert sorted(REQUESTS) == sorted(OPERATIONS)


@pytest.mark.budget(
    120, "a server started, and every operation run both ways (validate, examples and skill build and call tools)"
)
def test_both_doors_give_the_same_answers(doors: dict[str, Any]) -> None:
    homes, answered = doors["homes"], {}
    for name, requests in REQUESTS.items():
        for request in requests:
            here, served = answer(doors, "here", name, request), answer(doors, "served", name, request)
            assert comparable(name, here, homes["here"]) == comparable(name, served, homes["served"]), (name, request)
            answered[name] = here
    assert answered["upsert"]["added"] == 1 and [r["index"] for r in answered["upsert"]["refused"]] == [1]
    skill = answered["skill"]
    assert skill["from_data"] and {"SKILL.md", "tools/search_docs.md"} <= set(skill["files"])
    assert "## Calls that find something" in skill["files"]["SKILL.md"]
    saved = {
        "name": "both-doors",
        "folder": "evaluation/both-doors",
        "split": "test",
        "queries": 2,
        "judged": 2,
        "agreement": [],
    }
    assert answered["save_judged_set"] == saved
    pooled = answer(doors, "served", "pool", REQUESTS["pool"][0])
    assert list(pooled["rankings"]) == ["served", "eval/search_docs_dbsf.yaml", "dense only", "BM25 only"]
    assert 5 < len(pooled["results"]) <= 20 and all(len(ids) == 5 for ids in pooled["rankings"].values())
    assert list(answered["pool"]["rankings"]) == ["served"]  # sources: [] pools the tool alone
    deleted = answer(doors, "here", "delete", {"collection": "memories", "ids": ["repo-layout-monorepo"]})
    assert deleted["missing"] == ["repo-layout-monorepo"]  # the first delete did delete it
    found = answer(doors, "here", "call", {"tool": "memory_search", "arguments": {"query": "quokkas fed at noon"}})
    assert "quokka-feeding" in json.dumps(found)  # the upsert wrote it, through the collection's pipeline
    for door, home in homes.items():
        assert (home / "evaluation" / "both-doors" / "qrels" / "test.tsv").is_file(), door


def test_a_reload_reloads_a_server_and_says_no_server_runs_here(doors: dict[str, Any]) -> None:
    served = answer(doors, "served", "reload", {})
    assert served["reloaded"] and served["running"] and served["problems"] == []
    assert served["tools"] == sorted(doors["served"].operate("health", {})["tools"])
    here = answer(doors, "here", "reload", {})
    data_dir = doors["here"].settings.data_dir
    assert here == {
        "reloaded": False,
        "running": False,
        "tools": [],
        "problems": [NOTHING_TO_RELOAD.format(data_dir=data_dir)],
    }


@pytest.mark.parametrize(("name", "request_body"), REFUSED, ids=[f"{n}:{r}" for n, r in REFUSED])
def test_both_doors_refuse_alike(doors: dict[str, Any], name: str, request_body: dict[str, Any]) -> None:
    refusals = []
    for door in ("here", "served"):
        with pytest.raises(HaygateError) as refused:
            answer(doors, door, name, request_body)
        refusals.append((refused.value.code, refused.value.message.replace(str(doors["homes"][door]), "<home>")))
    assert refusals[0] == refusals[1], refusals


def test_a_command_that_is_a_row_asks_the_server_that_holds_the_data(
    doors: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`haygate skill` beside a running server: the server makes it (this process could not open the data dir
    the server holds), and the printer writes the files its reply carries."""
    monkeypatch.setenv("HAYGATE_DATA_DIR", str(doors["served_data"]))
    assert main(["skill", "--home", str(doors["homes"]["served"]), "--out", str(tmp_path / "skill")]) == 0
    written = {p.relative_to(tmp_path / "skill").as_posix(): p.read_text() for p in (tmp_path / "skill").rglob("*.md")}
    assert written == doors["served"].operate("skill", {})["files"]


def test_an_unknown_operation_is_not_found(doors: dict[str, Any]) -> None:
    with pytest.raises(NotFoundError, match="no operation 'rename'; operations: call, delete"):
        doors["served"].operate("rename", {})


def test_the_guide_lists_every_operation_as_the_table_declares_it() -> None:
    """docs/how-to/live-service.md's table names each operation once, with who may ask as the table says."""
    from tests.support.docs import table

    rows = table("## One door per operation", PROJECT / "docs" / "how-to" / "live-service.md")
    listed = {row["operation"].strip("`"): row["who may ask"] for row in rows}
    declared = {
        name: "the owner" if op.owner_only else "writes" if op.writes else "any client"
        for name, op in OPERATIONS.items()
    }
    assert listed == declared
