"""Every place haygate reaches into Haystack's internals, in one module, each behind a version guard.

One patch and one stand-in, both for speed, neither for behaviour:

- **torch on first use** (`defer_torch`, a patch): `haystack.utils.device` imports torch when Haystack starts,
  2 s of every process, though it uses it only inside functions. It is loaded with torch deferred to its first
  use, so processes that never embed with torch (the ONNX runtime, BM25-only tools) never load it.
- **a faster deep copy of component inputs** (`fast_deepcopy`, used by haygate's own executor, never patched
  into Haystack): Haystack deep-copies every input, element by element, behind a Protocol `isinstance` check
  of ~45 us per element (a 384-d embedding alone ~15 ms a query). Plain data (scalars, lists, dicts,
  Documents) is copied directly, with the same result; anything else goes through Haystack's own function.
  Haystack's `Pipeline.run` keeps its own copying, so it stays an independent judge of the executor.

The patch checks that what it replaces is there in the shape it expects, and otherwise leaves Haystack alone
and says so in the log. `HAYSTACK_TESTED` is the version they were written against: a test fails on any
other, so an upgrade is a deliberate step (read the functions named here in the new version, then raise it).
"""

import functools
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import sys
import types
from typing import Any

logger = logging.getLogger(__name__)

HAYSTACK_TESTED = "3.4"  # major.minor of haystack-ai these patches were checked against
DEVICE_MODULE = "haystack.utils.device"
DEEPCOPY = "_deepcopy_with_exceptions"
DEEPCOPY_MODULE = "haystack.core.pipeline.utils"


# -- torch on first use -------------------------------------------------------------------------------------


class _TorchOnFirstUse(types.ModuleType):
    """Stands in for `torch` inside `haystack.utils.device` until something there uses it."""

    def __getattr__(self, name: str) -> Any:
        import torch

        device = sys.modules[DEVICE_MODULE]
        device.torch = torch  # type: ignore[attr-defined]
        return getattr(torch, name)


class _DeviceLoader(importlib.abc.Loader):
    def __init__(self, inner: importlib.abc.Loader) -> None:
        self.inner = inner

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.inner.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` there fails fast, and is deferred
        try:
            self.inner.exec_module(module)
        finally:
            if sys.modules.get("torch", ...) is None:
                del sys.modules["torch"]
        if not hasattr(module, "torch_import"):  # not the module this was written for: torch loads on use anyway
            logger.warning("%s has changed shape (no torch_import): torch is not deferred", DEVICE_MODULE)
            return
        from haystack.lazy_imports import LazyImport

        with LazyImport() as ready:  # nothing failed: `torch_import.check()` passes, as with torch imported
            pass
        module.torch_import = ready  # type: ignore[attr-defined]
        module.torch = _TorchOnFirstUse("torch")  # type: ignore[attr-defined]


class _HaystackWithoutTorch(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != DEVICE_MODULE:
            return None
        sys.meta_path.remove(self)  # once, and the real finders do the finding
        if "torch" in sys.modules or importlib.util.find_spec("torch") is None:
            return None
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _DeviceLoader(spec.loader)
        return spec


def defer_torch() -> None:
    """Before Haystack is imported: its device module will load torch on first use, not at import."""
    if DEVICE_MODULE not in sys.modules and not any(isinstance(f, _HaystackWithoutTorch) for f in sys.meta_path):
        sys.meta_path.insert(0, _HaystackWithoutTorch())


def torch_loaded() -> bool:
    """Whether torch has really been imported (a torch backend, a cross-encoder or an export ran)."""
    return sys.modules.get("torch") is not None


# -- a faster deep copy of component inputs -----------------------------------------------------------------

_IMMUTABLE = frozenset((str, int, float, bool, bytes, type(None)))


@functools.cache
def _haystack_deepcopy() -> Any:
    """Haystack's own copy of component inputs, for what `fast_deepcopy` does not copy itself (imported on
    first use: this module is imported before Haystack, to defer torch)."""
    return getattr(importlib.import_module(DEEPCOPY_MODULE), DEEPCOPY)


def fast_deepcopy(obj: Any) -> Any:
    """Haystack's `_deepcopy_with_exceptions`, the same result, for the plain data pipelines carry; anything
    else still goes through Haystack's own function."""
    kind = type(obj)
    if kind in _IMMUTABLE:
        return obj
    # Scalars inside containers are taken as they are, without a call each: most of a Document's meta.
    if kind is list:
        return [v if type(v) in _IMMUTABLE else fast_deepcopy(v) for v in obj]
    if kind is dict:
        return {k: v if type(v) in _IMMUTABLE else fast_deepcopy(v) for k, v in obj.items()}
    if kind is _document_class():
        # A new instance with a copied __dict__ skips Document.__init__ and Haystack's attribute tracking;
        # the mutable parts are then replaced with copies of their own.
        clone = object.__new__(kind)
        state = dict(obj.__dict__)
        state.update(
            meta=fast_deepcopy(obj.meta),
            embedding=None if obj.embedding is None else list(obj.embedding),
            sparse_embedding=None if obj.sparse_embedding is None else _haystack_deepcopy()(obj.sparse_embedding),
            blob=None if obj.blob is None else _haystack_deepcopy()(obj.blob),
        )
        clone.__dict__ = state
        return clone
    return _haystack_deepcopy()(obj)


@functools.cache
def _document_class() -> type:
    from haystack import Document

    return Document


def haystack_version() -> str:
    from importlib.metadata import version

    return version("haystack-ai")
