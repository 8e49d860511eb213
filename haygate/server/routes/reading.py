"""What the routes read from a request: a body as JSON (what JSON has no room for is a 422 too), and query
parameters as the OpenAPI document types them."""

import json
from typing import Any

from starlette.requests import Request

from haygate.errors import InvalidRequestError

FLAGS = {"true": True, "1": True, "false": False, "0": False}


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


async def json_object(request: Request) -> dict[str, Any]:
    body = await json_body(request)
    if not isinstance(body, dict):
        raise InvalidRequestError("request body must be a JSON object")
    return body


def query_flag(request: Request, name: str) -> bool:
    """A boolean query parameter, as the OpenAPI document types it: true or false (1 or 0); absent is false."""
    values = request.query_params.getlist(name)
    if not values:
        return False
    if len(values) > 1 or values[0].lower() not in FLAGS:
        msg = f"query parameter '{name}' is a boolean: true or false, got {values if len(values) > 1 else values[0]!r}"
        raise InvalidRequestError(msg, {"field": name})
    return FLAGS[values[0].lower()]


def bounded_int(request: Request, name: str, default: int, lowest: int, highest: int) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not lowest <= int(raw) <= highest:
        msg = f"'{name}' is a whole number from {lowest} to {highest}, got {raw!r}"
        raise InvalidRequestError(msg, {"field": name})
    return int(raw)
