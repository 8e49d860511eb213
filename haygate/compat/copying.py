"""A faster deep copy of component inputs, the same result as Haystack's own.

Haystack deep-copies every input element by element, behind a Protocol `isinstance` check per element, so
an embedding costs one check per dimension (docs/results/benchmarks.md, "Where a call's time goes").
`fast_deepcopy` copies plain data (scalars, lists, dicts, Documents) directly, with the same result; anything
else goes through Haystack's own function. It is handed
to haygate's schedule (`haygate.compat.schedule`) and never patched into Haystack: `Pipeline.run` keeps its
own copying, so it stays an independent judge of the schedule.

Nothing here imports Haystack at import time: `haygate.compat` is imported before Haystack, to defer torch.
"""

import functools
import importlib
from typing import Any

DEEPCOPY_MODULE = "haystack.core.pipeline.utils"
DEEPCOPY = "_deepcopy_with_exceptions"

__all__ = ["DEEPCOPY", "DEEPCOPY_MODULE", "fast_deepcopy"]

_IMMUTABLE = frozenset((str, int, float, bool, bytes, type(None)))


@functools.cache
def _haystack_deepcopy() -> Any:
    """Haystack's own copy of component inputs, for what `fast_deepcopy` does not copy itself."""
    return getattr(importlib.import_module(DEEPCOPY_MODULE), DEEPCOPY)


@functools.cache
def _document_class() -> type:
    from haystack import Document

    return Document


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
