"""One error tree for all of haygate, translated once at the boundary.

Every layer raises a subclass of `HaygateError`: a message the caller can act on, structured details, a
stable code and the HTTP status it maps to. Haystack wraps component errors in `PipelineRuntimeError`;
`cause_of` unwraps them. `envelope` is the only place that turns an exception into what a client sees
(MCP, REST and the CLI all call it): known codes speak for themselves, anything else is logged and masked.

`FilterError` is also Haystack's `haystack.errors.FilterError`, so a Haystack user's `except` catches it. It
is built on first use (`__getattr__` below): importing Haystack takes seconds, and the CLI's light paths
(`--help`, commands a running server answers) import this module without it.
"""

import logging
import threading
from collections.abc import Iterable
from enum import IntEnum
from typing import TYPE_CHECKING, Any

logger = logging.getLogger(__name__)

INTERNAL_MESSAGE = "internal error; the server log has the details"


class HaygateError(Exception):
    """Base class: a message the caller can act on, plus structured details."""

    code = "INTERNAL_ERROR"
    http_status = 500

    def __init__(self, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or {}


class InvalidRequestError(HaygateError):
    """The caller sent something we can name and they can fix (bad argument, filter or query syntax)."""

    code = "VALIDATION_ERROR"
    http_status = 422


if TYPE_CHECKING:
    from haystack.errors import FilterError as HaystackFilterError

    class FilterError(InvalidRequestError, HaystackFilterError):
        """A Haystack filter that cannot be translated into a Qdrant filter (either backend)."""


_filter_error_lock = threading.Lock()


def _build_filter_error() -> type[InvalidRequestError]:
    """`FilterError`, a validation error of ours and Haystack's own filter error at once."""
    from haystack.errors import FilterError as HaystackFilterError

    class FilterError(InvalidRequestError, HaystackFilterError):
        """A Haystack filter that cannot be translated into a Qdrant filter (either backend); Haystack's
        `FilterError` too, so `except haystack.errors.FilterError` catches it."""

    FilterError.__qualname__ = "FilterError"  # pickle finds it as `haygate.errors.FilterError`
    return FilterError


def __getattr__(name: str) -> Any:
    """Module attributes built on first use: `FilterError` (see the module's docstring)."""
    if name != "FilterError":
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    with _filter_error_lock:  # one class for every thread, or an `except` could miss another thread's
        if "FilterError" not in globals():
            globals()["FilterError"] = _build_filter_error()
    return globals()["FilterError"]


class QuerySyntaxError(InvalidRequestError):
    """A raw full-text query that does not parse; says where and how to fix it."""

    def __init__(self, problem: str, position: int, hint: str) -> None:
        super().__init__(f"{problem} at {position}; {hint}", {"position": position, "hint": hint})


class InvalidRecordError(InvalidRequestError):
    """An input record that cannot become a Document; the message names the field and why."""


class DatasetError(InvalidRequestError):
    """A judged dataset that cannot be evaluated; the message names the file and line."""


class UnauthorizedError(HaygateError):
    """Missing or wrong bearer token."""

    code = "UNAUTHORIZED"
    http_status = 401


class ForbiddenError(HaygateError):
    """Understood and refused: a write on a server that anyone on the network could reach without a token."""

    code = "FORBIDDEN"
    http_status = 403


class PayloadTooLargeError(HaygateError):
    """A request body over the configured limit."""

    code = "PAYLOAD_TOO_LARGE"
    http_status = 413


class UnavailableError(HaygateError):
    """Not ready yet (the server is still loading its models) or no longer: retry after `retry_after` s."""

    code = "UNAVAILABLE"
    http_status = 503


class NotFoundError(HaygateError):
    """A named thing (tool, collection, record id, HTTP path) does not exist."""

    code = "NOT_FOUND"
    http_status = 404


class UnknownToolError(NotFoundError):
    """A tool name nothing serves. `choices` (with the word that introduces them) lists the names that would
    work; the MCP envelope leaves them out, since the client has `tools/list`."""

    def __init__(self, name: str, choices: Iterable[str] | None = None, listed_as: str = "available") -> None:
        names = sorted(choices) if choices is not None else None
        listed = f"; {listed_as}: {', '.join(names)}" if names is not None else ""
        details: dict[str, Any] = {"tool": name} if names is None else {"tool": name, "available": names}
        super().__init__(f"unknown tool '{name}'{listed}", details)


class MethodNotAllowedError(HaygateError):
    """An HTTP path that exists, asked with a method it does not take; `details.allowed` lists those it does."""

    code = "METHOD_NOT_ALLOWED"
    http_status = 405


class UnsupportedMediaTypeError(HaygateError):
    """A request that changes state sent a body that is not JSON (a form, text/plain): what a web page can send
    across sites without asking first."""

    code = "UNSUPPORTED_MEDIA_TYPE"
    http_status = 415


class ServerSideError(HaygateError):
    """Something only the server's operator can fix. `message` names paths and the fix for the operator (log,
    CLI); a client hears `public_message` and `public_details`, which name no server path."""

    public_message = "the server cannot answer this right now"
    public_keys: tuple[str, ...] = ()  # the details a client may see
    retry_after: int | None = None

    def public(self) -> str:
        return self.public_message.format(collection=self.details.get("collection", "?"))

    def public_details(self) -> dict[str, Any]:
        details = {key: value for key, value in self.details.items() if key in self.public_keys}
        return {**details, "retry_after": self.retry_after} if self.retry_after is not None else details


class ConfigurationError(ServerSideError):
    """A YAML declaration, pipeline or model setting is wrong. Mostly raised at load time; one that only shows
    at a call (a model that cannot load, a judged set a tool cannot trace) reaches the client as itself."""

    code = "CONFIGURATION_ERROR"
    public_message = "the server's configuration cannot answer this; its operator must fix it (`haygate validate`)"
    public_keys = ("tool", "collection")


class OperatorError(ServerSideError):
    """A condition of the server's machine that only its operator can fix (the store is held, damaged, or its
    disk is full)."""

    public_message = "the server cannot use its data right now"
    public_keys = ("collection", "needed_bytes")


class StoreInUseError(OperatorError):
    """Another process holds the embedded shard. Qdrant Edge allows one process per shard."""

    code = "STORE_IN_USE"
    http_status = 503
    public_message = "collection '{collection}' is held by another process on the server; retry once it is released"
    retry_after = 5


class StorageFullError(OperatorError):
    """The data dir's filesystem has less free space than a write (or opening a shard) needs plus the reserve.
    Checked before Qdrant Edge touches its memory-mapped files, which would otherwise die of SIGBUS."""

    code = "STORAGE_FULL"
    http_status = 507
    public_message = "the server's disk is full: collection '{collection}' cannot be written; reads still work"


class StorageError(OperatorError):
    """The data dir cannot be written at all (read-only filesystem, permissions)."""

    code = "STORAGE_ERROR"
    http_status = 503
    public_message = "the server cannot write the data of collection '{collection}'"


class StoreDamagedError(OperatorError):
    """A shard that Qdrant Edge refuses to open or read, or that holds fewer points than were written."""

    code = "STORE_DAMAGED"
    http_status = 503
    public_message = "collection '{collection}' is damaged on the server; its operator must repair it"


class InternalError(HaygateError):
    """Anything unexpected; its text never reaches a client."""


class ExitCode(IntEnum):
    """What the `haygate` command's exit status means; the reference page says it for each."""

    OK = 0
    FAILED = 1  # the command ran, and some of its work failed
    CONFIG = 2  # nothing was done: no project, a wrong declaration or setting, arguments it cannot take
    IN_USE = 3  # another process holds a collection's embedded store
    STORAGE = 4  # the data dir is full, unwritable or damaged, or a file the command names cannot be written


# Codes a client sees as themselves; every other error reaches it as INTERNAL_ERROR.
PUBLIC_ERRORS: tuple[type[HaygateError], ...] = (
    InvalidRequestError,
    NotFoundError,
    MethodNotAllowedError,
    UnauthorizedError,
    ForbiddenError,
    PayloadTooLargeError,
    UnsupportedMediaTypeError,
    UnavailableError,
)
OPERATOR_ERRORS: tuple[type[OperatorError], ...] = (StoreInUseError, StorageFullError, StorageError, StoreDamagedError)
_SPOKEN: tuple[type[HaygateError], ...] = (*PUBLIC_ERRORS, ConfigurationError, *OPERATOR_ERRORS, InternalError)
BY_CODE: dict[str, type[HaygateError]] = {cls.code: cls for cls in _SPOKEN}
HTTP_STATUS: dict[str, int] = {code: cls.http_status for code, cls in BY_CODE.items()}


def cause_of(error: BaseException) -> HaygateError | None:
    """The first HaygateError in an exception chain (Haystack wraps component errors)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, HaygateError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def envelope(error: BaseException) -> tuple[int, dict[str, Any]]:
    """Any exception -> (HTTP status, `{"error": {code, message, details}}`). Only public errors speak."""
    known = cause_of(error)
    if isinstance(known, PUBLIC_ERRORS):
        return known.http_status, {"error": {"code": known.code, "message": known.message, "details": known.details}}
    if isinstance(known, ServerSideError):  # its message names server paths: the operator reads it in the log
        logger.error("%s", known.message)
        public = {"code": known.code, "message": known.public(), "details": known.public_details()}
        return known.http_status, {"error": public}
    logger.error("unhandled error: %r", error, exc_info=error)
    return InternalError.http_status, {
        "error": {"code": InternalError.code, "message": INTERNAL_MESSAGE, "details": {}}
    }
