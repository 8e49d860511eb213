"""One error tree, one envelope."""

from haystack import Pipeline, component

from haygate.errors import (
    HTTP_STATUS,
    ConfigurationError,
    FilterError,
    InvalidRequestError,
    QuerySyntaxError,
    StorageFullError,
    StoreInUseError,
    cause_of,
    envelope,
)


@component
class Failing:
    @component.output_types(out=int)
    def run(self, value: int) -> dict[str, int]:
        raise FilterError("unknown filter field 'yaer'; filterable: year", {"fields": ["yaer"]})


def test_cause_is_found_inside_haystacks_wrapper() -> None:
    pipeline = Pipeline()
    pipeline.add_component("failing", Failing())
    try:
        pipeline.run({"failing": {"value": 1}})
    except Exception as error:
        known = cause_of(error)
    assert isinstance(known, FilterError) and known.details == {"fields": ["yaer"]}


def test_public_errors_speak_and_the_rest_is_masked() -> None:
    assert envelope(QuerySyntaxError("unbalanced quote", 7, "close it")) == (
        422,
        {
            "error": {
                "code": "VALIDATION_ERROR",
                "message": "unbalanced quote at 7; close it",
                "details": {"position": 7, "hint": "close it"},
            }
        },
    )
    status, body = envelope(KeyError("/srv/secret"))
    assert status == 500 and body["error"]["code"] == "INTERNAL_ERROR" and "secret" not in str(body)
    status, body = envelope(ConfigurationError("/etc/secret.yaml: bad model", {"tool": "docs", "path": "/etc/secret"}))
    assert status == 500 and body["error"]["code"] == "CONFIGURATION_ERROR" and "secret" not in str(body)
    assert "operator must fix it" in body["error"]["message"] and body["error"]["details"] == {"tool": "docs"}
    held = StoreInUseError("collection 'docs' is open in another process (/srv/secret/docs)", {"collection": "docs"})
    status, body = envelope(held)  # a store in use: retry later, without the server's paths
    assert status == 503 and body["error"]["code"] == "STORE_IN_USE" and "secret" not in str(body)
    assert body["error"]["details"] == {"collection": "docs", "retry_after": 5}
    full = StorageFullError("no room in /srv/secret/docs", {"collection": "docs", "directory": "/srv/secret/docs"})
    status, body = envelope(full)  # the operator reads the path in the log; the client hears what happened
    assert status == 507 and body["error"]["code"] == "STORAGE_FULL" and "secret" not in str(body)
    assert "collection 'docs'" in body["error"]["message"] and "reads still work" in body["error"]["message"]
    assert HTTP_STATUS == {
        "VALIDATION_ERROR": 422,
        "NOT_FOUND": 404,
        "METHOD_NOT_ALLOWED": 405,
        "UNAUTHORIZED": 401,
        "FORBIDDEN": 403,
        "PAYLOAD_TOO_LARGE": 413,
        "UNSUPPORTED_MEDIA_TYPE": 415,
        "UNAVAILABLE": 503,
        "CONFIGURATION_ERROR": 500,
        "STORE_IN_USE": 503,
        "STORAGE_FULL": 507,
        "STORAGE_ERROR": 503,
        "STORE_DAMAGED": 503,
        "INTERNAL_ERROR": 500,
    }
    assert issubclass(FilterError, InvalidRequestError)
