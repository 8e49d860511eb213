"""What every HTTP route shares: a request body read as JSON (what JSON has no room for is a 422 too), and
any error answered as the envelope with its status (and `Retry-After` where the error says when)."""

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse

from haygate.errors import InvalidRequestError, envelope

WRITE_OPEN_REFUSAL = (
    "writes are refused on a server that listens beyond this machine without a token: set HAYGATE_TOKEN"
)


def error_response(error: BaseException) -> JSONResponse:
    status, body = envelope(error)
    headers = (
        {"Retry-After": str(body["error"]["details"]["retry_after"])}
        if status == 503 and "retry_after" in body["error"]["details"]
        else None
    )
    return JSONResponse(body, status_code=status, headers=headers)


def no_json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


async def json_body(request: Request) -> Any:
    """The body as JSON. What Python's parser would take but JSON has no room for (NaN, Infinity), or
    cannot take (an integer of thousands of digits, nesting past the recursion limit), is a 422 too."""
    try:
        return json.loads(await request.body(), parse_constant=no_json_constant)
    except RecursionError:
        raise InvalidRequestError("request body is nested too deeply to be read") from None
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        msg = f"request body must be JSON: {error}"
        raise InvalidRequestError(msg) from None
