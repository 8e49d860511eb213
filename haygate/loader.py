"""Load pipeline YAML the way every caller must: allow-listed types only, with errors that name the
file and the component."""

import logging
from pathlib import Path

import yaml
from haystack import Pipeline
from haystack.core.errors import DeserializationError, PipelineError

from components.errors import ConfigurationError, HaygateError

logger = logging.getLogger(__name__)

# Haystack's own allowlist already admits `haystack` and `haystack_integrations`; we add our components.
ALLOWED_MODULES = ["haystack", "haystack_integrations", "components"]
ROLE_NAMES = ("query_builder", "dense_embedder", "sparse_embedder", "retriever", "ranker", "formatter")


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
