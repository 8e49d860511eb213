"""Process-wide defaults that keep haygate offline, and a Haystack import that does not load torch.

Imported before Haystack, sentence-transformers or FastMCP, because they read these variables at import
time. `setdefault` lets a user who does have network access opt back in.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types
from typing import Any

OFFLINE_DEFAULTS = {
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "HF_HUB_DISABLE_TELEMETRY": "1",
    "HAYSTACK_TELEMETRY_ENABLED": "False",
    "FASTMCP_CHECK_FOR_UPDATES": "off",
    "FASTMCP_SHOW_SERVER_BANNER": "false",
    "TOKENIZERS_PARALLELISM": "false",
}

for _name, _value in OFFLINE_DEFAULTS.items():
    os.environ.setdefault(_name, _value)


class _TorchOnFirstUse(types.ModuleType):
    """Stands in for `torch` inside `haystack.utils.device` until something there uses it."""

    def __getattr__(self, name: str) -> Any:
        import haystack.utils.device
        import torch

        haystack.utils.device.torch = torch  # type: ignore[attr-defined]
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
        from haystack.lazy_imports import LazyImport

        with LazyImport() as ready:  # nothing failed: `torch_import.check()` passes, as with torch imported
            pass
        module.torch_import = ready  # type: ignore[attr-defined]
        module.torch = _TorchOnFirstUse("torch")  # type: ignore[attr-defined]


class _HaystackWithoutTorch(importlib.abc.MetaPathFinder):
    """Haystack imports torch when it starts (`haystack/utils/device.py`), 2 s of every process, though it
    uses it only inside functions. This loads that one module with torch deferred to its first use, so
    processes that never embed with torch (the ONNX runtime, BM25-only tools) never load it."""

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != "haystack.utils.device":
            return None
        sys.meta_path.remove(self)  # once, and the real finders do the finding
        if "torch" in sys.modules or importlib.util.find_spec("torch") is None:
            return None
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _DeviceLoader(spec.loader)
        return spec


def torch_loaded() -> bool:
    """Whether torch has really been imported (a torch backend, a cross-encoder or an export ran)."""
    return sys.modules.get("torch") is not None


if "haystack.utils.device" not in sys.modules:
    sys.meta_path.insert(0, _HaystackWithoutTorch())
