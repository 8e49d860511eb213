"""haygate's own Schemathesis checks (`hooks` in schemathesis.toml): schema-valid requests are accepted,
except a malformed raw `search` query, refused with the query-syntax error, and a judged set whose grades,
rankings or query ids break a rule across its fields (`refusals.py`).

They narrow Schemathesis' `positive_data_acceptance` on `/api/tools/search` and
`/api/operations/save_judged_set`, which schemathesis.toml widens to 2xx or 422 there: alone, that would let any
422 of any valid request pass.
"""

import sys
from pathlib import Path
from typing import Any

import schemathesis

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # loaded from its file: the project's tests package

from tests.contract.refusals import (
    JUDGED_SET_PATH,
    RAW_QUERY_TOOL,
    is_judged_set_cross_field_refusal,
    is_raw_query_syntax_refusal,
)

SEARCH_PATH = f"/api/tools/{RAW_QUERY_TOOL}"


def refused_only_as_allowed(response: Any, case: Any, path: str, allowed: Any, why: str) -> bool | None:
    """A positive (schema-valid) request to `path` gets a 2xx, or a 422 that `allowed(answer)` accepts; anything
    else fails the check, saying `why` a 422 may come."""
    meta = case.meta
    if case.operation.path != path or meta is None or not meta.generation.mode.is_positive:
        return None
    if 200 <= response.status_code < 300:
        return None
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if response.status_code == 422 and allowed(answer):
        return None
    raise AssertionError(
        f"A schema-valid request to {path} was refused with {response.status_code}; {why}: {response.text[:300]}"
    )


@schemathesis.check
def valid_search_refused_only_for_its_syntax(ctx: Any, response: Any, case: Any) -> bool | None:
    """A positive (schema-valid) request to `search` gets a 2xx, or the raw-query syntax error."""
    return refused_only_as_allowed(
        response,
        case,
        SEARCH_PATH,
        lambda answer: is_raw_query_syntax_refusal(RAW_QUERY_TOOL, case.body, answer),
        "only a malformed raw-mode query may be (422, the query-syntax error)",
    )


@schemathesis.check
def valid_judged_set_refused_only_across_its_fields(ctx: Any, response: Any, case: Any) -> bool | None:
    """A positive (schema-valid) judged set gets a 2xx, or a refusal of a rule across its fields."""
    return refused_only_as_allowed(
        response,
        case,
        JUDGED_SET_PATH,
        is_judged_set_cross_field_refusal,
        "only a rule across its fields may refuse it (422: grades or rankings for no query, a query id twice)",
    )
