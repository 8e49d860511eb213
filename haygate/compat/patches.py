"""Torch on first use: Haystack's import does not load torch until something in Haystack uses it.

`haystack.utils.device` imports torch when Haystack starts, seconds of every process ("The live service" in
docs/results/benchmarks.md), though it uses torch only inside functions. `defer_torch` has it loaded with
torch deferred to its first use, so a process that never embeds with torch (the ONNX runtime, BM25-only
tools) never loads it. It acts only on an import of Haystack that comes after it: `haygate.compat.install()`
calls it first thing at start-up.

The loader checks that the module is in the shape it expects (a `torch_import` guard), and otherwise leaves
Haystack alone and says so in the log.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import sys
import types
from typing import Any

logger = logging.getLogger(__name__)

DEVICE_MODULE = "haystack.utils.device"
TORCH_GUARD = "torch_import"  # the device module's `LazyImport` around `import torch`

__all__ = ["DEVICE_MODULE", "TORCH_GUARD", "defer_torch", "torch_loaded"]


class _TorchOnFirstUse(types.ModuleType):
    """Stands in for `torch` inside `haystack.utils.device` until something there uses it."""

    def __getattr__(self, name: str) -> Any:
        import torch

        device = sys.modules[DEVICE_MODULE]
        device.torch = torch  # type: ignore[attr-defined]
        return getattr(torch, name)


class _DeviceLoader(importlib.abc.Loader):
    """Runs the device module with `import torch` failing fast, then puts the stand-in in its place."""

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
        if not hasattr(module, TORCH_GUARD):  # not the module this was written for: torch loads on use anyway
            logger.warning("%s has changed shape (no %s): torch is not deferred", DEVICE_MODULE, TORCH_GUARD)
            return
        from haystack.lazy_imports import LazyImport

        with LazyImport() as ready:  # nothing failed: `torch_import.check()` passes, as with torch imported
            pass
        setattr(module, TORCH_GUARD, ready)
        module.torch = _TorchOnFirstUse("torch")  # type: ignore[attr-defined]


class _HaystackWithoutTorch(importlib.abc.MetaPathFinder):
    """Finds the device module once, with `_DeviceLoader` around its real loader."""

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
    """Before Haystack is imported: its device module will load torch on first use, not at import. Once is
    enough; after Haystack's import it is too late, and nothing changes."""
    if DEVICE_MODULE in sys.modules:
        logger.debug("%s was imported before defer_torch(): torch is not deferred", DEVICE_MODULE)
        return
    if not any(isinstance(finder, _HaystackWithoutTorch) for finder in sys.meta_path):
        sys.meta_path.insert(0, _HaystackWithoutTorch())


def torch_loaded() -> bool:
    """Whether torch has really been imported (a torch backend, a cross-encoder or an export ran)."""
    return sys.modules.get("torch") is not None
