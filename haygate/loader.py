"""Load pipeline YAML the way every caller must: allow-listed types only, with errors that name the
file and the component."""

import logging
from pathlib import Path
from typing import Any

import yaml
from haystack import Document, Pipeline
from haystack.core.errors import DeserializationError, PipelineError
from haystack.core.pipeline import base as _pipeline_base
from haystack.core.pipeline import pipeline as _pipeline_module
from haystack.core.pipeline import utils as _pipeline_utils

from components.errors import ConfigurationError, HaygateError

logger = logging.getLogger(__name__)

# Haystack's own allowlist already admits `haystack` and `haystack_integrations`; we add our components.
ALLOWED_MODULES = ["haystack", "haystack_integrations", "components"]
ROLE_NAMES = ("query_builder", "dense_embedder", "sparse_embedder", "retriever", "ranker", "formatter")

_IMMUTABLE = (str, int, float, bool, bytes, type(None))
_haystack_deepcopy = _pipeline_utils._deepcopy_with_exceptions


def _fast_deepcopy(obj: Any) -> Any:
    """Haystack deep-copies every component input, element by element, behind a Protocol `isinstance`
    check that costs ~45 us per element: a 384-d embedding alone cost ~15 ms per query, and 50 candidate
    Documents a few more. This copies the plain data pipelines carry (scalars, lists, dicts, Documents)
    directly, with the same result; anything else still goes through Haystack's own function.
    """
    kind = type(obj)
    if kind in _IMMUTABLE:
        return obj
    if kind is list:
        return [_fast_deepcopy(v) for v in obj]
    if kind is dict:
        return {k: _fast_deepcopy(v) for k, v in obj.items()}
    if kind is Document:
        # A new instance with a copied __dict__ skips Document.__init__ and Haystack's attribute tracking;
        # the mutable parts are then replaced with copies of their own.
        clone = object.__new__(Document)
        state = dict(obj.__dict__)
        state.update(
            meta=_fast_deepcopy(obj.meta),
            embedding=None if obj.embedding is None else list(obj.embedding),
            sparse_embedding=None if obj.sparse_embedding is None else _haystack_deepcopy(obj.sparse_embedding),
            blob=None if obj.blob is None else _haystack_deepcopy(obj.blob),
        )
        clone.__dict__ = state
        return clone
    return _haystack_deepcopy(obj)


for _module in (_pipeline_utils, _pipeline_module, _pipeline_base):
    _module._deepcopy_with_exceptions = _fast_deepcopy  # type: ignore[attr-defined]


def load_pipeline(path: Path) -> Pipeline:
    """Parse, allow-list and build a pipeline, or raise ConfigurationError naming file and component."""
    try:
        text = path.read_text()
    except OSError as error:
        msg = f"{path}: cannot read pipeline: {error.strerror}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as error:
        msg = f"{path}: invalid YAML: {error}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    if not isinstance(raw, dict) or not isinstance(raw.get("components"), dict):
        msg = f"{path}: a pipeline needs a 'components' mapping"
        raise ConfigurationError(msg, {"file": str(path)})
    for name, spec in raw["components"].items():
        kind = spec.get("type", "") if isinstance(spec, dict) else ""
        if not any(kind == m or kind.startswith(m + ".") for m in ALLOWED_MODULES):
            msg = (
                f"{path}: component '{name}': type '{kind}' is not allow-listed; "
                f"allowed modules: {', '.join(ALLOWED_MODULES)}"
            )
            raise ConfigurationError(msg, {"file": str(path), "component": name})
    try:
        return Pipeline.loads(text, allowed_modules=ALLOWED_MODULES)
    except (DeserializationError, PipelineError, HaygateError, TypeError, ValueError, ImportError) as error:
        component = _failing_component(error, raw)
        cause = error.__cause__ or error
        where = f"component '{component}': " if component else ""
        msg = f"{path}: {where}{_first_line(cause)}"
        raise ConfigurationError(msg, {"file": str(path), "component": component}) from error


def _failing_component(error: BaseException, raw: dict) -> str | None:
    text = f"{error} {error.__cause__ or ''}"
    for name in raw.get("components", {}):
        if f"'{name}'" in text or f"{name}." in text:
            return str(name)
    return None


def _first_line(error: BaseException) -> str:
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
