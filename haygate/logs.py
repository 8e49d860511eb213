"""Log lines: one format for every command and the server, each line with the request id of the call it
belongs to. Light on purpose: the CLI sets it up before it knows whether Haystack is needed at all."""

import logging
import sys
import uuid
from contextvars import ContextVar
from typing import Any

REQUEST_ID: ContextVar[str | None] = ContextVar("haygate_request_id", default=None)
REQUEST_ID_HEADER = "X-Request-ID"


def new_request_id(supplied: str | None = None) -> str:
    """The client's id when it is a sane token (printable, short), else a new one."""
    if supplied and len(supplied) <= 128 and supplied.isascii() and supplied.isprintable() and " " not in supplied:
        return supplied
    return uuid.uuid4().hex


class RequestIdFilter(logging.Filter):
    """Puts the running call's request id on every record (`-` outside a call)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = REQUEST_ID.get() or "-"
        return True


PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"


def log_handler(log_format: str | None, stream: Any = None) -> logging.Handler:
    """A handler writing plain lines or, with `HAYGATE_LOG_FORMAT=json`, one JSON object per line with a
    call's fields as keys; either way with the request id."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.addFilter(RequestIdFilter())
    if log_format == "json":
        from pythonjsonlogger.json import JsonFormatter

        handler.setFormatter(
            JsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s %(request_id)s",
                rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(logging.Formatter(PLAIN_FORMAT))
    return handler


def configure_logging(log_format: str | None, verbose: bool = False) -> None:
    """The command line's logging: to stderr, through `log_handler` (left alone where logging is set up
    already, as in a test run)."""
    logging.basicConfig(handlers=[log_handler(log_format)], level=logging.DEBUG if verbose else logging.INFO)
    for noisy in ("httpx", "sentence_transformers", "haystack", "transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
