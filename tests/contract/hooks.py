"""haygate's own Schemathesis check (`hooks` in schemathesis.toml): schema-valid requests to a tool are
accepted, except a malformed raw `search` query, refused with the query-syntax error (`refusals.py`).

It narrows Schemathesis' `positive_data_acceptance` on `/api/tools/search`, which schemathesis.toml widens to
2xx or 422 there: alone, that would let any 422 of any valid search pass.
"""

import sys
from pathlib import Path
from typing import Any

import schemathesis

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # loaded from its file: the project's tests package

from tests.contract.refusals import RAW_QUERY_TOOL, is_raw_query_syntax_refusal

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
