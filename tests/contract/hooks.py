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


@schemathesis.check
def valid_search_refused_only_for_its_syntax(ctx: Any, response: Any, case: Any) -> bool | None:
    """A positive (schema-valid) request to `search` gets a 2xx, or the raw-query syntax error."""
    meta = case.meta
    if case.operation.path != SEARCH_PATH or meta is None or not meta.generation.mode.is_positive:
        return None
    if 200 <= response.status_code < 300:
        return None
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if response.status_code == 422 and is_raw_query_syntax_refusal(RAW_QUERY_TOOL, case.body, answer):
        return None
    msg = (
        f"A schema-valid search was refused with {response.status_code}; only a malformed raw-mode query may be "
        f"(422, the query-syntax error): {response.text[:300]}"
    )
    raise AssertionError(msg)


@schemathesis.check
def valid_judged_set_refused_only_across_its_fields(ctx: Any, response: Any, case: Any) -> bool | None:
    """A positive (schema-valid) judged set gets a 2xx, or a refusal of a rule across its fields."""
    meta = case.meta
    if case.operation.path != JUDGED_SET_PATH or meta is None or not meta.generation.mode.is_positive:
        return None
    if 200 <= response.status_code < 300:
        return None
    try:
        answer = response.json()
    except ValueError:
        answer = None
    if response.status_code == 422 and is_judged_set_cross_field_refusal(answer):
        return None
    msg = (
        f"A schema-valid judged set was refused with {response.status_code}; only a rule across its fields may "
        f"refuse it (422: grades or rankings for no query, a query id twice): {response.text[:300]}"
    )
    raise AssertionError(msg)
