"""A judging pool (`haygate.gateway.pooling.pool`) from rankings' explained answers: each ranking's top k, each
result once, in an order none of them gives. The real rankings, through the gateway both ways, are in
tests/integration/test_operations.py; here the answers are written out, to show the rules one by one."""

from typing import Any

import pytest

from haygate.errors import InvalidRequestError
from haygate.gateway.pooling import SERVED, blind_key, pool


def answer(*ids: str, records: bool = False) -> dict[str, Any]:
    """An explained answer ranking these document ids (`<record>#<section>#chunkN`)."""
    rows = [
        {"id": i, "title": i.upper(), "score": 0.9 - n / 10, "scores": {"dense_rank": n}} for n, i in enumerate(ids)
    ]
    provenance = [{"id": i, "record_id": i.split("#")[0] if records else None} for i in ids]
    return {"result": {"results": rows}, "provenance": provenance, "collections": ["docs"]}


RANKINGS = {
    (None, None): answer("a#1", "a#1#chunk2", "b#1", "c#1"),
    ("eval/x.yaml", None): answer("d#1", "a#1", "e#1"),
    (None, "dense"): answer("b#1", "f#1"),
}


def explain_from(rankings: dict[tuple[str | None, str | None], dict[str, Any]]) -> Any:
    def explain(pipeline: str | None, source: str | None) -> dict[str, Any]:
        if (pipeline, source) not in rankings:
            msg = f"pipeline 'x.yaml' cannot run on {source} alone in place of 'search_docs': no BM25 source"
            raise InvalidRequestError(msg, {"field": "source"})
        return rankings[(pipeline, source)]

    return explain


def test_each_rankings_top_k_pooled_once_and_in_no_rankings_order() -> None:
    made = pool(explain_from(RANKINGS), "bearer token", ["eval/x.yaml"], ["dense", "bm25"], 2, "section")
    assert made.rankings == {SERVED: ["a#1", "b#1"], "eval/x.yaml": ["d#1", "a#1"], "dense only": ["b#1", "f#1"]}
    assert made.unavailable == {
        "BM25 only": "pipeline 'x.yaml' cannot run on bm25 alone in place of 'search_docs': no BM25 source"
    }
    found = {result.judged_id: result.rankings for result in made.results}
    assert found == {
        "a#1": [SERVED, "eval/x.yaml"],
        "b#1": [SERVED, "dense only"],
        "d#1": ["eval/x.yaml"],
        "f#1": ["dense only"],
    }
    order = [result.judged_id for result in made.results]
    assert order == sorted(order, key=lambda judged_id: blind_key("bearer token", judged_id))
    assert all("score" not in r.row and "scores" not in r.row for r in made.results)  # nothing tells the source
    assert made.collections == ["docs"]

    # The same pool whichever ranking is asked first: its order is the query's and the ids', no ranking's.
    reversed_first = dict(reversed(list(RANKINGS.items())))
    again = pool(explain_from(reversed_first), "bearer token", ["eval/x.yaml"], ["dense"], 2, "section")
    assert [r.judged_id for r in again.results] == order


def test_rows_that_name_no_document_are_counted_not_dropped_silently() -> None:
    served = answer("a#1", "b#1")
    served["result"]["results"].append({"title": "a row with no id"})
    served["provenance"].append(None)
    made = pool(explain_from({(None, None): served}), "q", [], [], 10, "section")
    assert [r.judged_id for r in sorted(made.results, key=lambda r: r.judged_id)] == ["a#1", "b#1"]
    assert made.unjudgeable == 1


def test_records_are_pooled_at_the_record_level() -> None:
    rankings = {(None, None): answer("a#1", "a#2", "b#1", records=True)}
    made = pool(explain_from(rankings), "q", [], [], 10, "record")
    assert made.rankings == {SERVED: ["a", "b"]} and {r.document_id for r in made.results} == {"a#1", "b#1"}


def test_a_variant_that_cannot_run_is_the_callers_to_fix() -> None:
    with pytest.raises(InvalidRequestError, match="cannot run"):
        pool(explain_from(RANKINGS), "q", ["eval/missing.yaml"], [], 10, "section")
