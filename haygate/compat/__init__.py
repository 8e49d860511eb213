"""Every place haygate reaches into Haystack's internals, in one package, checked against one version.

- `patches`: torch on first use (`defer_torch`). Haystack's import does not load torch until something in
  Haystack uses it; nor posthog (its telemetry client, while telemetry is off) or httpx's command line
  (`defer_unused`);
- `copying`: a faster deep copy of component inputs (`fast_deepcopy`), handed to the schedule, never patched
  into Haystack;
- `schedule`: a loop-free pipeline run as `Pipeline.run` runs it, in an order fixed when it is built. It
  depends on Haystack only, written so that it could be offered to Haystack as it is;
- `graph`: a built pipeline's connections as the loader and the indexer read them, and the Ray ingest's swap
  of an embedder for its cluster stand-in (`Pipeline.graph` and its node and edge data);
- `fastmcp`: FastMCP's and the MCP SDK's internals the server reaches (the SDK server under FastMCP, a request's
  connection, FastMCP's session-state store and lifespan), with their own `PRIVATE_NAMES` and tested versions.

No module outside this package reads those names (`tests/unit/test_compat.py` scans them all).

Nothing here acts on import, and importing this package does not import Haystack. Each entry point calls
`install()` before Haystack is imported: the `haygate` command (`main`, which `server.py` serves through too),
the Edge build process and the tests' conftest.

`PRIVATE_NAMES` lists every part of Haystack these modules read that is not its documented API, and
`HAYSTACK_TESTED` the version they were read in: a test checks each name in the installed Haystack, and
fails on any other version, so an upgrade is a deliberate step (read those parts in the new version, adjust
the modules here, then raise it).
"""

import functools
from importlib.metadata import version

from haygate.compat.copying import DEEPCOPY, DEEPCOPY_MODULE, fast_deepcopy
from haygate.compat.patches import DEVICE_MODULE, TORCH_GUARD, defer_torch, defer_unused, torch_loaded

__all__ = [
    "HAYSTACK_TESTED",
    "PRIVATE_NAMES",
    "defer_torch",
    "defer_unused",
    "fast_deepcopy",
    "haystack_version",
    "install",
    "torch_loaded",
]

HAYSTACK_TESTED = "3.4"  # major.minor of haystack-ai the modules here were checked against

# Where each name is read -> the names. A key is a module, a class (its instances are read), or a pipeline
# graph's node or edge data.
PRIVATE_NAMES: dict[str, tuple[str, ...]] = {
    # patches: the device module's guard, and its global `torch`, which the stand-in takes the place of
    DEVICE_MODULE: (TORCH_GUARD, "torch"),
    # copying
    DEEPCOPY_MODULE: (DEEPCOPY,),
    # schedule
    "haystack.core.pipeline.pipeline.Pipeline": ("graph", "metadata", "_max_runs_per_component"),
    "Pipeline.graph node": ("instance", "input_sockets", "output_sockets"),
    "Pipeline.graph edge": ("from_socket", "to_socket", "conversion_strategy"),
    "haystack.core.component.types.InputSocket": (
        "name",
        "type",
        "default_value",
        "senders",
        "is_variadic",
        "is_greedy",
        "is_mandatory",
        "wrap_input_in_list",
    ),
    "haystack.core.component.types.OutputSocket": ("name", "type", "receivers"),
    "haystack.core.component.sockets.Sockets": ("_sockets_dict",),
    "haystack.core.component.Component": ("__haystack_input__", "__haystack_output__"),
    "haystack.core.errors.PipelineRuntimeError": ("from_exception", "from_invalid_output"),
}


@functools.cache
def install() -> None:
    """Installs the patches, once per process (later calls do nothing). Call it before Haystack is
    imported: a patch of how a Haystack module loads has no effect on one already loaded."""
    defer_torch()
    defer_unused()


def haystack_version() -> str:
    """The installed haystack-ai's version."""
    return version("haystack-ai")
