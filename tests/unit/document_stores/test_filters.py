"""Every filter operator on both backends, checked against Haystack's own filter semantics.

Qdrant Edge runs in a temp dir; the server backend runs on qdrant-client's local mode, which speaks the
server API. Both translate through one `FilterConverter`, so they must agree with Haystack and each other.
"""

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import haystack.errors
import pytest
from haystack import Document
from haystack.utils.filters import document_matches_filter
from qdrant_client.http import models as rest

from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.edge.filters import convert_filters as edge_filters
from haygate.document_stores.filters import filter_fields
from haygate.document_stores.hybrid import HybridDocumentStore
from haygate.document_stores.server.document_store import QdrantServerStore
from haygate.document_stores.server.filters import convert_filters as server_filters
from haygate.errors import FilterError, envelope

DOCS = [
    Document(
        id="a", content="alpha", meta={"lang": "en", "year": 2019, "score": 0.5, "tags": "x", "date": "2024-01-10"}
    ),
    Document(
        id="b",
        content="beta",
        meta={"lang": "de", "year": 2021, "score": 1.5, "tags": "y", "date": "2024-06-01", "authors": ["ann", "bob"]},
    ),
    Document(
        id="c",
        content="gamma",
        meta={"lang": "en", "year": 2023, "score": 2.5, "date": "2025-02-01T09:30:00", "authors": ["bob", "ann"]},
    ),
    Document(id="d", content="delta", meta={"lang": "fr", "year": 2021, "flag": True, "source": {"kind": "wiki"}}),
    Document(id="e", content="epsilon", meta={"year": 2025, "flag": False}),
]
INDEXES = {
    "meta.lang": "keyword",
    "meta.year": "integer",
    "meta.score": "float",
    "meta.flag": "bool",
    "meta.date": "datetime",
}

FILTERS: list[dict[str, Any]] = [
    {"field": "meta.lang", "operator": "==", "value": "en"},
    {"field": "meta.year", "operator": "==", "value": 2021},
    {"field": "meta.flag", "operator": "==", "value": True},
    {"field": "meta.lang", "operator": "!=", "value": "en"},
    {"field": "meta.year", "operator": ">", "value": 2021},
    {"field": "meta.year", "operator": ">=", "value": 2021},
    {"field": "meta.score", "operator": "<", "value": 1.5},
    {"field": "meta.score", "operator": "<=", "value": 1.5},
    {"field": "meta.score", "operator": "==", "value": 2.5},
    {"field": "meta.date", "operator": ">=", "value": "2024-06-01"},
    {"field": "meta.date", "operator": "<", "value": "2025-01-01"},
    {"field": "meta.lang", "operator": "in", "value": ["en", "fr"]},
    {"field": "meta.year", "operator": "in", "value": [2019, 2025]},
    {"field": "meta.lang", "operator": "in", "value": []},
    {"field": "meta.lang", "operator": "not in", "value": ["en"]},
    {"field": "id", "operator": "in", "value": ["a", "e"]},
    # None: == and != test for a missing field, an order never holds
    {"field": "meta.lang", "operator": "==", "value": None},
    {"field": "meta.lang", "operator": "!=", "value": None},
    {"field": "meta.year", "operator": ">", "value": None},
    {"field": "meta.date", "operator": "<=", "value": None},
    {"field": "meta.lang", "operator": "in", "value": [None, "fr"]},
    {"field": "meta.lang", "operator": "not in", "value": [None, "en"]},
    # dates: the same instant however it is written; an aware bound against naive payloads (read as UTC)
    {"field": "meta.date", "operator": "==", "value": "2024-01-10T00:00:00"},
    {"field": "meta.date", "operator": "!=", "value": "2025-02-01T09:30:00+00:00"},
    {"field": "meta.date", "operator": "in", "value": ["2024-06-01T00:00", "2025-02-01 09:30:00"]},
    {"field": "meta.date", "operator": ">", "value": "2024-06-01T00:00:00+00:00"},
    {"field": "meta.date", "operator": ">=", "value": datetime(2024, 6, 1)},
    {"field": "meta.date", "operator": "<", "value": "2024-06-01T12"},
    # a list or an object: that exact value, in that order
    {"field": "meta.authors", "operator": "==", "value": ["ann", "bob"]},
    {"field": "meta.authors", "operator": "!=", "value": ["ann", "bob"]},
    {"field": "meta.authors", "operator": "in", "value": [["bob", "ann"], ["carl"]]},
    {"field": "meta.source", "operator": "==", "value": {"kind": "wiki"}},
    {"field": "meta.flag", "operator": "!=", "value": True},
    {
        "operator": "AND",
        "conditions": [
            {"field": "meta.lang", "operator": "==", "value": "en"},
            {"field": "meta.year", "operator": ">", "value": 2020},
        ],
    },
    {
        "operator": "OR",
        "conditions": [
            {"field": "meta.lang", "operator": "==", "value": "de"},
            {"field": "meta.year", "operator": "==", "value": 2025},
        ],
    },
    {
        "operator": "NOT",
        "conditions": [
            {"field": "meta.lang", "operator": "==", "value": "en"},
            {"field": "meta.year", "operator": "<", "value": 2022},
        ],
    },
    {
        "operator": "AND",
        "conditions": [
            {
                "operator": "OR",
                "conditions": [
                    {"field": "meta.lang", "operator": "==", "value": "en"},
                    {"field": "meta.flag", "operator": "==", "value": True},
                ],
            },
            {"operator": "NOT", "conditions": [{"field": "meta.year", "operator": "==", "value": 2023}]},
        ],
    },
]


@pytest.fixture(scope="module", params=["edge", "server"])
def store(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HybridDocumentStore]:
    folder: Path = tmp_path_factory.mktemp(f"filters-{request.param}")
    built: HybridDocumentStore
    if request.param == "edge":
        built = EdgeDocumentStore("filters", str(folder), embedding_dim=3, payload_indexes=INDEXES)
    else:
        built = QdrantServerStore("filters", f"local:{folder}", embedding_dim=3, payload_indexes=INDEXES)
    built.write_documents([Document(id=d.id, content=d.content, meta=d.meta, embedding=[1.0, 0.0, 0.0]) for d in DOCS])
    yield built
    built.close()


@pytest.mark.filterwarnings("ignore::UserWarning")  # local mode: "payload indexes have no effect"
@pytest.mark.parametrize("filters", FILTERS, ids=lambda f: str(f)[:60])
def test_filter_matches_haystack_semantics(store: HybridDocumentStore, filters: dict[str, Any]) -> None:
    expected = sorted(d.id for d in DOCS if document_matches_filter(filters, d))
    assert sorted(d.id for d in store.filter_documents(filters)) == expected
    assert store.count_documents(filters) == len(expected)


AT_LEAST_TWO = {
    "operator": "OR",
    "at_least": 2,
    "conditions": [
        {"field": "meta.lang", "operator": "==", "value": "en"},
        {"field": "meta.year", "operator": ">=", "value": 2021},
        {"field": "meta.flag", "operator": "==", "value": True},
    ],
}


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_at_least_k_of_the_conditions(store: HybridDocumentStore) -> None:
    """c is English and of 2023; d is of 2021 and flagged; every other document meets one condition only."""
    assert sorted(d.id for d in store.filter_documents(AT_LEAST_TWO)) == ["c", "d"]
    assert store.count_documents({**AT_LEAST_TWO, "at_least": 3}) == 0
    assert store.count_documents({**AT_LEAST_TWO, "at_least": 1}) == 5  # plain OR: e is of 2025


def test_no_filter_is_none() -> None:
    assert edge_filters(None) is None and server_filters({}) is None


@pytest.mark.parametrize("convert", [edge_filters, server_filters], ids=["edge", "server"])
@pytest.mark.parametrize(
    ("filters", "fragment"),
    [
        ({"field": "meta.lang", "operator": "~=", "value": "en"}, "unknown comparison operator '~='"),
        ({"operator": "XOR", "conditions": [{"field": "a", "operator": "==", "value": 1}]}, "unknown logical"),
        ({"field": "meta.lang", "operator": "in", "value": "en"}, "needs a list"),
        ({"field": "meta.year", "operator": ">", "value": "soon"}, "ISO 8601"),
        ({"field": "meta.year", "operator": ">", "value": "2025"}, "ISO 8601"),
        ({"field": "meta.year", "operator": ">", "value": [2025]}, "needs a number"),
        ({"field": "meta.year", "operator": ">=", "value": True}, "needs a number"),
        ({"field": "meta.lang", "operator": "not in", "value": ("en",)}, "needs a list"),
        ({"operator": "AND", "conditions": []}, "non-empty list"),
        ({"field": "meta.lang", "value": "en"}, "without 'operator'"),
        ({"field": "content", "operator": "match", "value": "  "}, "non-empty string"),
        ({"field": "meta.x", "operator": "==", "value": ("a", 1)}, "needs a string, number, boolean, date, list"),
        ({"field": "meta.x", "operator": "==", "value": ["a"]}, "needs the store to scan it"),
        ({**AT_LEAST_TWO, "operator": "AND"}, "'at_least' goes on an OR node"),
        ({**AT_LEAST_TWO, "at_least": 4}, "'at_least: 4' needs at least 4 conditions"),
        ({**AT_LEAST_TWO, "at_least": "2"}, "a whole number of 1 or more"),
    ],
)
def test_bad_filters_raise_one_filter_error(convert: Any, filters: dict[str, Any], fragment: str) -> None:
    with pytest.raises(FilterError, match=fragment.replace("(", r"\(").replace("[", r"\[")):
        convert(filters)


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_list_field_is_compared_by_its_elements(store: HybridDocumentStore) -> None:
    """Qdrant's semantics, on purpose (haygate's `meta.skills in [...]` relies on them): Haystack would compare
    the whole list with "ann" and match nothing."""
    with_ann = store.filter_documents({"field": "meta.authors", "operator": "==", "value": "ann"})
    assert sorted(d.id for d in with_ann) == ["b", "c"]
    assert store.count_documents({"field": "meta.authors", "operator": "in", "value": ["carl", "bob"]}) == 2


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_a_bad_filter_is_haystacks_filter_error_and_a_validation_error(store: HybridDocumentStore) -> None:
    """A Haystack user's `except FilterError` catches ours; the gateway still answers VALIDATION_ERROR."""
    with pytest.raises(haystack.errors.FilterError) as raised:
        store.filter_documents({"field": "meta.year", "operator": "in", "value": 2021})
    status, body = envelope(raised.value)
    assert status == 422 and body["error"]["code"] == "VALIDATION_ERROR"
    assert body["error"]["details"] == {"field": "meta.year", "operator": "in"}


def test_a_bad_filter_is_named_before_anything_is_written(tmp_path: Path) -> None:
    store = EdgeDocumentStore("empty", str(tmp_path), embedding_dim=3)
    with pytest.raises(FilterError, match="needs a list"):
        store.count_documents({"field": "meta.year", "operator": "not in", "value": 2021})
    assert not store.exists()


def test_filter_fields_lists_every_leaf() -> None:
    assert filter_fields(FILTERS[-1]) == {"meta.lang", "meta.flag", "meta.year"}


def test_full_text_operators_on_a_qdrant_server() -> None:
    filters = {
        "operator": "AND",
        "conditions": [
            {"field": "meta.entity_type", "operator": "==", "value": "bug"},
            {"operator": "NOT", "conditions": [{"field": "content", "operator": "phrase", "value": "ios keyboard"}]},
            {"field": "meta.terms", "operator": "prefix", "value": "notif"},
            {"field": "content", "operator": "match", "value": "crash"},
        ],
    }
    assert edge_filters(filters) is not None
    server = server_filters(filters)
    assert server is not None and server.must is not None
    _, negated, prefix, match = server.must
    assert isinstance(negated, rest.Filter) and negated.must_not is not None
    assert negated.must_not[0].must[0].match == rest.MatchPhrase(phrase="ios keyboard")  # type: ignore[index, union-attr]
    assert prefix.match == rest.MatchPrefix(prefix="notif")  # type: ignore[union-attr]
    assert match.match == rest.MatchText(text="crash")  # type: ignore[union-attr]


@pytest.mark.filterwarnings("ignore::UserWarning")
def test_pages_hold_every_document_once_and_follow_the_filter(store: HybridDocumentStore) -> None:
    """`page` (the console's browser) walks a collection by cursor, on both backends, filtered or not."""
    seen, cursor, pages = [], None, 0
    while True:
        documents, cursor = store.page(2, after=cursor)
        seen += [d.id for d in documents]
        pages += 1
        assert all(d.embedding is None for d in documents)  # no vectors for a browser
        if cursor is None:
            break
    assert sorted(seen) == [d.id for d in DOCS] and pages == 3
    english, cursor = store.page(10, filters={"field": "meta.lang", "operator": "==", "value": "en"})
    assert sorted(d.id for d in english) == ["a", "c"] and cursor is None


def test_a_boolean_filters_scan_is_kept_until_the_points_change(tmp_path: Path) -> None:
    """Edge reads a boolean condition from one scan of the shard (`EdgeFilterConverter`): kept, so a tool's
    switch (search_docs' `changelogs`) costs one scan, not one per call; any write, delete or update drops it."""
    store = EdgeDocumentStore("flags", str(tmp_path), embedding_dim=3)
    flagged = {"field": "meta.changelog", "operator": "!=", "value": True}
    store.write_documents([Document(id=f"d{i}", content="x", meta={"changelog": i == 0}) for i in range(3)])
    assert sorted(d.id for d in store.filter_documents(flagged)) == ["d1", "d2"]
    kept = store._open_shard.scans  # the store's own cache, looked at
    assert list(kept) == [("meta.changelog", ("bool", True))]
    assert store.filter_documents(flagged) and kept  # read again: the scan kept
    store.write_documents([Document(id="d3", content="x", meta={"changelog": True})])
    assert not kept and sorted(d.id for d in store.filter_documents(flagged)) == ["d1", "d2"]
    store.update_by_filter({"field": "id", "operator": "==", "value": "d1"}, {"changelog": True})
    assert [d.id for d in store.filter_documents(flagged)] == ["d2"]
    store.delete_documents(["d2"])
    assert store.filter_documents(flagged) == []
    store.close()
