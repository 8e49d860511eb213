"""haygate: YAML-declared Haystack retrieval pipelines served as typed MCP tools and REST endpoints."""

from haygate import _env  # noqa: F401  (must run before Haystack, transformers or FastMCP are imported)

__all__ = ["__version__"]
__version__ = "0.1.0"
