"""The one envelope (`haygate.server.routes.envelope`): a handler's answer becomes JSON, and whatever it
raises becomes `{"error": {code, message, details}}` with its status; on a tiny Starlette app."""

from typing import Any

import pytest
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from haygate.errors import InvalidRequestError, UnavailableError
from haygate.server.routes.envelope import ERROR_HANDLERS, answers, with_method_refusals


class Answer(BaseModel):
    count: int


@answers
async def as_dict(request: Request) -> dict[str, Any]:
    return {"answer": 42}


@answers
async def as_model(request: Request) -> Answer:
    return Answer(count=3)


@answers
async def as_response(request: Request) -> PlainTextResponse:
    return PlainTextResponse("own", status_code=202)


@answers
async def refused(request: Request) -> dict[str, Any]:
    raise InvalidRequestError("'limit' is a whole number", {"field": "limit"})


@answers
async def busy(request: Request) -> dict[str, Any]:
    raise UnavailableError("still starting", {"retry_after": 5})


@answers
async def broken(request: Request) -> dict[str, Any]:
    raise RuntimeError("/srv/secret/path exploded")


@pytest.fixture(scope="module")
def client() -> TestClient:
    routes = [
        Route("/dict", as_dict, methods=["GET"]),
        Route("/model", as_model, methods=["GET"]),
        Route("/response", as_response, methods=["GET"]),
        Route("/refused", refused, methods=["GET"]),
        Route("/busy", busy, methods=["GET"]),
        Route("/broken", broken, methods=["POST"]),
    ]
    app = Starlette(routes=with_method_refusals(routes), exception_handlers=ERROR_HANDLERS)
    return TestClient(app, raise_server_exceptions=False)


def test_an_answer_is_json_whether_a_dict_or_a_model(client: TestClient) -> None:
    assert client.get("/dict").json() == {"answer": 42}
    assert client.get("/model").json() == {"count": 3}


def test_a_response_of_its_own_goes_out_as_it_is(client: TestClient) -> None:
    answer = client.get("/response")
    assert (answer.status_code, answer.text) == (202, "own")


def test_a_haygate_error_is_the_envelope_with_its_status(client: TestClient) -> None:
    answer = client.get("/refused")
    assert answer.status_code == 422
    assert answer.json() == {
        "error": {"code": "VALIDATION_ERROR", "message": "'limit' is a whole number", "details": {"field": "limit"}}
    }


def test_an_error_that_says_when_to_retry_sets_retry_after(client: TestClient) -> None:
    answer = client.get("/busy")
    assert (answer.status_code, answer.headers["retry-after"]) == (503, "5")


def test_anything_else_is_an_internal_error_that_shows_nothing_of_it(client: TestClient) -> None:
    answer = client.post("/broken")
    assert answer.status_code == 500 and answer.json()["error"]["code"] == "INTERNAL_ERROR"
    assert "secret" not in answer.text


def test_a_method_a_path_does_not_take_is_refused_with_allow(client: TestClient) -> None:
    answer = client.request("TRACE", "/broken")
    assert (answer.status_code, answer.headers["allow"]) == (405, "POST")
    assert answer.json()["error"]["details"] == {"allowed": ["POST"]}


def test_a_path_nothing_serves_is_the_envelope_too(client: TestClient) -> None:
    answer = client.get("/nowhere")
    assert answer.status_code == 404
    assert answer.json()["error"] == {
        "code": "NOT_FOUND",
        "message": "no such path: /nowhere",
        "details": {"path": "/nowhere"},
    }
