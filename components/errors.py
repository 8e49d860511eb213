"""One exception class per failure kind. The gateway maps each to an error code, once, at the boundary."""

from typing import Any


class HaygateError(Exception):
    """Base class: a message the caller can act on, plus structured details."""

    code = "INTERNAL_ERROR"

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class InvalidRequestError(HaygateError):
    """The caller sent something we can name and they can fix (bad argument, filter or query syntax)."""

    code = "VALIDATION_ERROR"


class FilterError(InvalidRequestError):
    """A Haystack filter that cannot be translated into a Qdrant filter."""


class NotFoundError(HaygateError):
    """A named thing (tool, collection, record id) does not exist."""

    code = "NOT_FOUND"


class ConfigurationError(HaygateError):
    """A YAML declaration, pipeline or model setting is wrong. Raised at load time, never per request."""

    code = "CONFIGURATION_ERROR"


class StoreInUseError(HaygateError):
    """Another process holds the embedded shard. Qdrant Edge allows one writer process per shard."""

    code = "STORE_IN_USE"
