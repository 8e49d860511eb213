"""Where a request the published schema admits may still be refused: one rule per operation, shared by
Schemathesis' checks (`hooks.py`) and the fuzz suite (`tests/integration/test_fuzz.py`).

`search` in match_mode "raw" parses a query language (phrases, prefix*, AND, OR, NOT, parentheses) that JSON
Schema has no grammar for, so a string the schema admits can be a malformed raw query. Such a request is
refused with the query-syntax error and nothing else: code VALIDATION_ERROR, details naming the position
and a hint. A raw query with no terms at all (only characters the grammar skips) is not malformed: it
answers an empty result that says why, so its refusal is a failure too, as is any other refusal of a valid
request.
"""

from typing import Any

from haygate.errors import QuerySyntaxError
from haygate.text.query_syntax import tokenize

RAW_QUERY_TOOL = "search"
SYNTAX_DETAILS = {"position", "hint"}


def is_raw_query_syntax_refusal(tool: str, arguments: Any, answer: Any) -> bool:
    """Whether `answer` (the error envelope a call got) is the raw-query syntax error, for a raw-mode call
    of `search`: the one refusal a schema-valid call may get."""
    if tool != RAW_QUERY_TOOL or not isinstance(arguments, dict):
        return False
    if str(arguments.get("match_mode", "")).lower() != "raw" or has_no_terms(str(arguments.get("query", ""))):
        return False
    error = answer.get("error") if isinstance(answer, dict) else None
    if not isinstance(error, dict) or error.get("code") != "VALIDATION_ERROR":
        return False
    details = error.get("details")
    return (
        isinstance(details, dict)
        and set(details) == SYNTAX_DETAILS
        and isinstance(details["position"], int)
        and details["position"] >= 1
        and f"at {details['position']};" in str(error.get("message", ""))
    )


def has_no_terms(query: str) -> bool:
    """A raw query that parses to nothing at all: no mistake in its syntax, an empty result."""
    try:
        return not tokenize(query)
    except QuerySyntaxError:  # a quote left open, say: the syntax error the rule allows
        return False


JUDGED_SET_PATH = "/api/operations/save_judged_set"
# What JSON Schema cannot say of a judged set: that grades, rankings, pools and raters name its queries, that no
# two queries share an id, and (a rule of the sets already saved) that a query id names one query across the set's
# splits.
JUDGED_SET_RULES = {
    "grades": ("which is no query",),
    "seen": ("which are no queries",),
    "pooled": ("which are no queries",),
    "raters": ("which are no queries",),
    "queries": ("two queries have one id", "belong to another split"),
}


def is_judged_set_cross_field_refusal(answer: Any) -> bool:
    """Whether `answer` (the error envelope a save got) refuses a judged set for one of `JUDGED_SET_RULES`: the
    only refusals a schema-valid save may get."""
    error = answer.get("error") if isinstance(answer, dict) else None
    if not isinstance(error, dict) or error.get("code") != "VALIDATION_ERROR":
        return False
    details = error.get("details")
    field = details.get("field") if isinstance(details, dict) else None
    message = str(error.get("message", ""))
    return any(rule in message for rule in JUDGED_SET_RULES.get(str(field), ()))
