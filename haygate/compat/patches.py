"""Torch on first use: Haystack's import does not load torch until something in Haystack uses it.

`haystack.utils.device` imports torch when Haystack starts, seconds of every process ("The live service" in
docs/results/benchmarks.md), though it uses torch only inside functions. `defer_torch` has it loaded with
torch deferred to its first use, so a process that never embeds with torch (the ONNX runtime, BM25-only
tools) never loads it. It acts only on an import of Haystack that comes after it: `haygate.compat.install()`
calls it first thing at start-up.

The loader checks that the module is in the shape it expects (a `torch_import` guard), and otherwise leaves
Haystack alone and says so in the log.

`defer_unused` does the same, more simply, for two modules every process imports and none uses: posthog,
Haystack's telemetry client, while telemetry is off (haygate's default: a `Telemetry` is made only when it is
on), and httpx's command line (`httpx._main`, which brings rich and click), which haygate never runs. Each
is a stand-in in `sys.modules` that imports the real module on first use: a tenth of a second apiece of every
`haygate` command's start.
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import sys
import types
from typing import Any

logger = logging.getLogger(__name__)

DEVICE_MODULE = "haystack.utils.device"
TORCH_GUARD = "torch_import"  # the device module's `LazyImport` around `import torch`

POSTHOG = "posthog"  # Haystack's telemetry client, used only when telemetry is on
HTTPX_CLI = "httpx._main"  # httpx's command line: `httpx.main`, which haygate never runs

__all__ = ["DEVICE_MODULE", "HTTPX_CLI", "POSTHOG", "TORCH_GUARD", "defer_torch", "defer_unused", "torch_loaded"]


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


class _OnFirstUse(types.ModuleType):
    """Stands in for a module in `sys.modules` until something reads from it; then the real module is
    imported in its place, and answers. The import system's own looks (`hasattr(module, "__path__")`, made for
    every `from module import name`) import nothing for a module that is not a package."""

    def __init__(self, name: str, package: bool) -> None:
        super().__init__(name)
        self._package = package

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and not (name == "__path__" and self._package):
            raise AttributeError(name)
        return getattr(_real(self.__name__), name)


def _real(name: str) -> types.ModuleType:
    if isinstance(sys.modules.get(name), _OnFirstUse):
        del sys.modules[name]
    return importlib.import_module(name)


def _httpx_main(*args: Any, **kwargs: Any) -> Any:
    """`httpx.main`, the real one imported when it is called."""
    return _real(HTTPX_CLI).main(*args, **kwargs)


def defer_unused() -> None:
    """Before Haystack and httpx are imported: posthog (while Haystack's telemetry is off) and httpx's
    command line load on first use, not at import."""
    telemetry = os.environ.get("HAYSTACK_TELEMETRY_ENABLED", "true").lower() in ("true", "1")
    if not telemetry and POSTHOG not in sys.modules:
        sys.modules[POSTHOG] = _OnFirstUse(POSTHOG, package=True)
    if HTTPX_CLI not in sys.modules and "httpx" not in sys.modules:
        cli = _OnFirstUse(HTTPX_CLI, package=False)
        cli.main = _httpx_main  # type: ignore[attr-defined]  # what httpx's package reads at import
        sys.modules[HTTPX_CLI] = cli
