"""haygate's reach into Haystack's internals (`haygate.compat`): every part of Haystack it reads that is not
Haystack's documented API is declared (`PRIVATE_NAMES`) and there in the installed Haystack, whose version is
the one compat was checked against; the patches act when installed at start-up, never on import; the fast
copy equals Haystack's own, which stays Haystack's (so `Pipeline.run` judges the schedule with its own
copying). On any other version of Haystack these tests fail, and say what to do."""

import ast
import copy
import dataclasses
import functools
import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import haystack.core.pipeline.base
import haystack.core.pipeline.pipeline
import haystack.core.pipeline.utils
import pytest
from haystack import Document, Pipeline, component
from haystack.core.component.types import Variadic
from haystack.dataclasses import SparseEmbedding

from haygate import compat
from haygate.compat import copying

PACKAGE = Path(compat.__file__).resolve().parents[1]
COMPAT = Path(compat.__file__).resolve().parent
NODE, EDGE = "Pipeline.graph node", "Pipeline.graph edge"
UPGRADE = "Read those parts in the new version, adjust haygate.compat (and PRIVATE_NAMES), then raise HAYSTACK_TESTED."
DECLARED = [(owner, name) for owner, names in compat.PRIVATE_NAMES.items() for name in names]


def test_haystack_is_the_version_compat_was_checked_against() -> None:
    installed = ".".join(compat.haystack_version().split(".")[:2])
    read = "; ".join(f"{owner}: {', '.join(names)}" for owner, names in compat.PRIVATE_NAMES.items())
    assert installed == compat.HAYSTACK_TESTED, (
        f"haystack-ai {installed} is installed; haygate.compat reads these parts of Haystack as they were in "
        f"{compat.HAYSTACK_TESTED}: {read}. {UPGRADE}"
    )


@component
class Sender:
    @component.output_types(numbers=list[int])
    def run(self, count: int) -> dict[str, Any]:
        return {"numbers": list(range(count))}


@component
class Gatherer:
    @component.output_types(total=int)
    def run(self, numbers: Variadic[list[int]], extra: int = 0) -> dict[str, Any]:
        return {"total": sum(sum(n) for n in numbers) + extra}


@functools.cache
def samples() -> dict[str, Any]:
    """A built pipeline's parts, one of each kind compat reads, by the `PRIVATE_NAMES` key they answer for."""
    pipeline = Pipeline()
    pipeline.add_component("sender", Sender())
    pipeline.add_component("gatherer", Gatherer())
    pipeline.connect("sender.numbers", "gatherer.numbers")
    node = pipeline.graph.nodes["gatherer"]
    [(_, _, edge)] = pipeline.graph.edges(data=True)
    return {
        NODE: node,
        EDGE: edge,
        "haystack.core.pipeline.pipeline.Pipeline": pipeline,
        "haystack.core.component.types.InputSocket": node["input_sockets"]["numbers"],
        "haystack.core.component.types.OutputSocket": edge["from_socket"],
        "haystack.core.component.sockets.Sockets": node["instance"].__haystack_input__,
        "haystack.core.component.Component": node["instance"],
    }


def owner_of(key: str) -> Any:
    """What a `PRIVATE_NAMES` key names: graph data, an instance of a class, a module or a class."""
    if key in samples():
        return samples()[key]
    try:
        return importlib.import_module(key)
    except ModuleNotFoundError:
        module, _, name = key.rpartition(".")
        return getattr(importlib.import_module(module), name)


def has(owner: Any, name: str) -> bool:
    return name in owner if isinstance(owner, dict) else hasattr(owner, name)


@pytest.mark.parametrize(("owner", "name"), DECLARED, ids=[f"{o}:{n}" for o, n in DECLARED])
def test_every_private_name_compat_reads_is_in_haystack(owner: str, name: str) -> None:
    assert has(owner_of(owner), name), f"{owner} has no {name} in haystack-ai {compat.haystack_version()}. {UPGRADE}"


def test_the_samples_are_what_their_keys_name() -> None:
    for key, sample in samples().items():
        if key not in (NODE, EDGE):
            module, _, name = key.rpartition(".")
            assert isinstance(sample, getattr(importlib.import_module(module), name)), key


def names_read(*, keys_only: bool = False) -> set[str]:
    """Every name compat's code could read from Haystack: identifier-like strings (graph data keys, `getattr`
    names) and, unless `keys_only`, attributes and the names it imports."""
    found: set[str] = set()
    for path in COMPAT.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                found.add(node.value)
            elif keys_only:
                continue
            elif isinstance(node, ast.Attribute):
                found.add(node.attr)
            elif isinstance(node, ast.ImportFrom):
                found.update(alias.name for alias in node.names)
    return found


def haystacks_names(owner: Any) -> set[str]:
    """The names an owner has that compat could read: data keys, a module's private names, a class's
    attributes, an instance's attributes, fields and properties; none of Python's own dunders."""
    if isinstance(owner, dict):
        names = set(owner)
    elif isinstance(owner, ModuleType):
        names = {n for n in vars(owner) if n.startswith("_")}
    elif isinstance(owner, type):
        names = set(vars(owner))
    else:
        names = set(vars(owner)) | {n for n, v in vars(type(owner)).items() if isinstance(v, property)}
        if dataclasses.is_dataclass(owner):
            names |= {f.name for f in dataclasses.fields(owner)}
    return {n for n in names if not (n.startswith("__") and n.endswith("__")) or n.startswith("__haystack")}


@pytest.mark.parametrize("owner", list(compat.PRIVATE_NAMES))
def test_what_compat_reads_from_haystack_is_declared(owner: str) -> None:
    """A name compat's code uses that its owner in Haystack has is in `PRIVATE_NAMES`: a new read of a graph
    key, a socket's field or a private function cannot slip past the tripwire."""
    found = owner_of(owner)
    read = names_read(keys_only=isinstance(found, dict))
    undeclared = (read & haystacks_names(found)) - set(compat.PRIVATE_NAMES[owner])
    assert not undeclared, f"haygate.compat reads {sorted(undeclared)} of {owner}: add them to PRIVATE_NAMES"


def test_the_private_names_compat_reads_are_declared() -> None:
    """Every private Haystack, FastMCP or SDK name compat's code names (`_x`, `__haystack_x__`) is declared
    somewhere."""
    from haygate.compat.fastmcp import PRIVATE_NAMES

    declared = {name for _, name in DECLARED} | {name for names in PRIVATE_NAMES.values() for name in names}
    own = set()
    for path in COMPAT.glob("*.py"):
        tree = ast.parse(path.read_text())
        own |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.ClassDef)}
        assigned = [n for n in ast.walk(tree) if isinstance(n, ast.Assign)]
        own |= {t.id for n in assigned for t in n.targets if isinstance(t, ast.Name)}
        own |= {n.value.value for n in assigned if isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}
        own |= {
            n.attr
            for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")
        }
    private = {n for n in names_read() if (n.startswith("_") and not n.endswith("__")) or n.startswith("__haystack")}
    assert private - own - declared == set()


def imports_of(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_compat_is_the_lowest_floor_and_the_schedule_needs_only_haystack() -> None:
    """compat imports nothing else of haygate, and the schedule nothing of haygate at all: it could be offered
    to Haystack as it is."""
    for path in COMPAT.glob("*.py"):
        haygates = {name for name in imports_of(path) if name.split(".")[0] == "haygate"}
        assert all(name.startswith("haygate.compat") for name in haygates), (path.name, haygates)
    third_party = {name.split(".")[0] for name in imports_of(COMPAT / "schedule.py")} - set(sys.stdlib_module_names)
    assert third_party == {"haystack", "networkx"}


def installs_at_import(path: Path) -> list[str]:
    """Calls of `install` or `defer_torch` a module makes when it is imported (outside any function)."""
    found = []
    pending: list[ast.AST] = [ast.parse(path.read_text())]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Call):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("install", "defer_torch"):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
        pending.extend(ast.iter_child_nodes(node))
    return found


def test_nothing_installs_the_patches_on_import() -> None:
    """Each entry point (the `haygate` command, the server, the tests) installs them at start-up."""
    assert [hit for path in sorted(PACKAGE.rglob("*.py")) for hit in installs_at_import(path)] == []


def test_install_acts_once_and_only_when_called() -> None:
    probe = (
        "import sys\n"
        "import haygate, haygate._env, haygate.cli, haygate.compat\n"
        "from haygate.compat.patches import _HaystackWithoutTorch\n"
        "count = lambda: sum(isinstance(f, _HaystackWithoutTorch) for f in sys.meta_path)\n"
        "before = count()\n"
        "haygate.compat.install()\n"
        "haygate.compat.install()\n"
        "print(before, count(), 'haystack' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["0", "1", "False"]


TORCH_PROBE = """
import haygate.compat
haygate.compat.install()
import haystack
from haygate.gateway.loader import Loader
print("before", haygate.compat.torch_loaded())
from haystack.utils import ComponentDevice
device = ComponentDevice.resolve_device(None)
print("device", device.to_torch())
print("after", haygate.compat.torch_loaded())
"""


@pytest.mark.slow  # a process of its own that imports Haystack and torch
def test_haystack_loads_torch_only_when_something_uses_it() -> None:
    run = subprocess.run([sys.executable, "-c", TORCH_PROBE], capture_output=True, text=True, check=True)
    assert run.stdout.split("\n")[:3] == ["before False", "device cpu", "after True"]


UNUSED_PROBE = """
import sys
import haygate.compat
haygate.compat.install()
import haystack, httpx
from haystack.telemetry import _telemetry
print("loaded", "posthog.client" in sys.modules, "rich" in sys.modules, "click" in sys.modules)
print("telemetry", _telemetry.telemetry is not None)
from posthog import Posthog
print("on use", "posthog.client" in sys.modules, callable(httpx.main))
"""


@pytest.mark.parametrize(("telemetry", "loaded"), [("False", "False"), ("True", "True")])
def test_posthog_and_httpxs_command_line_load_only_when_used(telemetry: str, loaded: str) -> None:
    """With Haystack's telemetry off (haygate's default) its client is not imported, nor httpx's command line
    (rich, click); with telemetry on, posthog is Haystack's as ever."""
    env = {**os.environ, "HAYSTACK_TELEMETRY_ENABLED": telemetry}
    run = subprocess.run([sys.executable, "-c", UNUSED_PROBE], capture_output=True, text=True, check=True, env=env)
    assert run.stdout.splitlines() == [f"loaded {loaded} False False", f"telemetry {telemetry}", "on use True True"]


def test_haystack_copies_inputs_with_its_own_function() -> None:
    """The schedule copies with `fast_deepcopy` where haygate hands it over; nothing puts it into Haystack,
    whose `Pipeline.run` is the schedule's judge in the tests and a user's own code elsewhere."""
    own = haystack.core.pipeline.utils._deepcopy_with_exceptions
    assert own.__module__ == copying.DEEPCOPY_MODULE and own is not compat.fast_deepcopy
    for module in (haystack.core.pipeline.pipeline, haystack.core.pipeline.base):
        assert getattr(module, copying.DEEPCOPY) is own, module.__name__


def test_the_fast_copy_equals_a_deep_copy_and_shares_nothing_mutable() -> None:
    documents = [
        Document(
            id="d1",
            content="text",
            meta={"tags": ["a", "b"], "nested": {"k": [1, 2]}, "n": 3},
            embedding=[0.1, 0.2],
            sparse_embedding=SparseEmbedding(indices=[1, 4], values=[0.5, 0.25]),
            score=0.7,
        )
    ]
    data: dict[str, Any] = {
        "documents": documents,
        "query": "q",
        "filters": {"operator": "AND", "conditions": []},
        "top_k": 5,
    }
    copied = compat.fast_deepcopy(data)
    assert copied == copy.deepcopy(data)
    [original], [clone] = data["documents"], copied["documents"]
    assert clone is not original and clone.meta is not original.meta
    assert clone.meta["nested"]["k"] is not original.meta["nested"]["k"] and clone.embedding is not original.embedding
    assert clone.sparse_embedding is not original.sparse_embedding


# FastMCP's and the MCP SDK's internals: haygate.compat.fastmcp, checked as the Haystack ones are.


def fastmcp_owners() -> dict[str, Any]:
    """What each of `compat.fastmcp.PRIVATE_NAMES`' keys names: a FastMCP server, its SDK server (class and
    instance), and the names a session's own methods read and store (its code's names)."""
    from fastmcp import FastMCP
    from mcp.server.session import ServerSession

    from haygate.compat.fastmcp import sdk_server

    server = FastMCP("tripwire")
    return {
        "fastmcp.FastMCP": server,
        "mcp.server.lowlevel.server.Server": type(sdk_server(server)),
        "mcp.server.lowlevel.server.Server instance": sdk_server(server),
        "mcp.server.session.ServerSession instance": dict.fromkeys(
            name for f in vars(ServerSession).values() if hasattr(f, "__code__") for name in f.__code__.co_names
        ),
    }


def test_fastmcp_and_the_sdk_are_the_versions_compat_was_checked_against() -> None:
    from haygate.compat import fastmcp

    installed = {
        "fastmcp": ".".join(fastmcp.fastmcp_version().split(".")[:2]),
        "mcp": ".".join(fastmcp.mcp_version().split(".")[:2]),
    }
    assert installed == {"fastmcp": fastmcp.FASTMCP_TESTED, "mcp": fastmcp.MCP_TESTED}, (
        f"{installed} installed; haygate.compat.fastmcp reads {fastmcp.PRIVATE_NAMES} as they were in fastmcp "
        f"{fastmcp.FASTMCP_TESTED} and mcp {fastmcp.MCP_TESTED}: read them in the new versions, then raise those."
    )


def test_every_private_name_compat_reads_is_in_fastmcp_and_the_sdk() -> None:
    from haygate.compat.fastmcp import PRIVATE_NAMES

    owners = fastmcp_owners()
    missing = [f"{key}: {name}" for key, names in PRIVATE_NAMES.items() for name in names if not has(owners[key], name)]
    assert missing == [], missing


@functools.cache
def nodes_of(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a module, parsed once for the scans below."""
    return tuple(ast.walk(ast.parse(path.read_text())))


def private_reaches(path: Path, names: set[str]) -> list[str]:
    """Where a module reads one of `names` off anything but itself (`self.x`, `cls.x`, `super().x`)."""
    found = []
    for node in nodes_of(path):
        if not isinstance(node, ast.Attribute) or node.attr not in names:
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if node.attr == "graph" and "pipeline" not in ast.unparse(owner).lower():
            continue  # another graph (an ONNX model's), not a Haystack pipeline's
        found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_compat_reaches_into_fastmcp_the_sdk_or_a_pipelines_graph() -> None:
    """Outside `haygate.compat`, no module reads FastMCP's or the SDK's private names, nor Haystack's pipeline
    graph (`Pipeline.graph`): a new reach fails here, and goes into compat with its tripwire."""
    from haygate.compat.fastmcp import PRIVATE_NAMES

    watched = {name for names in PRIVATE_NAMES.values() for name in names if name.startswith("_")} | {"graph"}
    outside = [p for p in sorted(PACKAGE.rglob("*.py")) if COMPAT not in p.parents]
    assert [hit for path in outside for hit in private_reaches(path, watched)] == []


def test_qdrant_haystack_is_the_version_its_hooks_were_read_in() -> None:
    from haygate.compat import qdrant

    installed = ".".join(qdrant.qdrant_haystack_version().split(".")[:2])
    assert installed == qdrant.QDRANT_HAYSTACK_TESTED, (
        f"qdrant-haystack {installed} is installed; haygate.compat.qdrant was read in {qdrant.QDRANT_HAYSTACK_TESTED}: "
        "check its hooks in the new version, then raise QDRANT_HAYSTACK_TESTED."
    )


def test_the_qdrant_haystack_hooks_are_where_compat_reaches_for_them() -> None:
    """Each private name `QdrantHooks` forwards is still qdrant-haystack's, called as compat calls it."""
    import inspect

    from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

    from haygate.compat.qdrant import PRIVATE_NAMES

    [(owner, names)] = PRIVATE_NAMES.items()
    assert owner.endswith(QdrantDocumentStore.__name__)
    methods = [name for name in names if name != "_client"]
    assert all(callable(getattr(QdrantDocumentStore, name, None)) for name in methods), methods
    set_up = list(inspect.signature(QdrantDocumentStore._set_up_collection).parameters)
    assert set_up[1:] == [
        "collection_name",
        "embedding_dim",
        "recreate_collection",
        "similarity",
        "use_sparse_embeddings",
        "sparse_idf",
        "on_disk",
        "payload_fields_to_index",
    ]
    assert "self._client = " in inspect.getsource(QdrantDocumentStore._initialize_client)
    store = QdrantDocumentStore(location=":memory:", index="hooks", embedding_dim=4, use_sparse_embeddings=True)
    vectors, sparse = store._prepare_collection_config(4, "Cosine", use_sparse_embeddings=True)  # type: ignore[arg-type]
    assert isinstance(vectors, dict) and sparse is not None  # named vectors: what `collection_config` extends


def test_only_compat_names_qdrant_haystacks_private_hooks() -> None:
    """No module outside compat reads, sets or overrides one of qdrant-haystack's private hooks, on itself or not:
    a subclass reaches them through `QdrantHooks`' public names."""
    from haygate.compat.qdrant import PRIVATE_NAMES

    hooks = {name for names in PRIVATE_NAMES.values() for name in names}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if COMPAT in path.parents:
            continue
        for node in nodes_of(path):
            named = node.attr if isinstance(node, ast.Attribute) else getattr(node, "name", None)
            if named in hooks and isinstance(node, ast.Attribute | ast.FunctionDef):
                found.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: {named}")
    assert found == []
