"""The raw query parser and the highlighter."""

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from components.fulltext import FullTextQuery, Highlighter, Node, QuerySyntaxError, fold, parse, terms_of


def test_precedence_not_binds_tightest_then_and_then_or() -> None:
    tree = parse('a OR b c NOT "d e" f*')
    assert tree == Node(
        "or",
        children=(
            Node("word", "a"),
            Node(
                "and",
                children=(
                    Node("word", "b"),
                    Node("word", "c"),
                    Node("not", children=(Node("phrase", "d e"),)),
                    Node("prefix", "f"),
                ),
            ),
        ),
    )
    assert parse("(a OR b) AND c").children[0].kind == "or"


@pytest.mark.parametrize(
    ("query", "position", "problem"),
    [
        ('crash "open', 7, "unbalanced quote"),
        ("(a OR b", 1, "unbalanced '('"),
        ("a OR b)", 7, "unexpected ')'"),
        ("a AND", 3, "needs a term after it"),
        ("OR a", 1, "needs a term before it"),
        ("a * b", 3, "'*' without a word"),
        ("()", 1, "empty parentheses"),
        ('""', 1, "empty phrase"),
    ],
)
def test_syntax_errors_name_the_position(query: str, position: int, problem: str) -> None:
    with pytest.raises(QuerySyntaxError) as caught:
        parse(query)
    assert caught.value.details["position"] == position and problem in caught.value.message
    assert caught.value.code == "VALIDATION_ERROR"


@given(st.text(max_size=40))
def test_the_parser_never_fails_other_than_with_a_syntax_error(query: str) -> None:
    with contextlib.suppress(QuerySyntaxError):
        parse(query)


def test_conditions_and_scoring_terms() -> None:
    query = FullTextQuery(collection="entities")
    condition = query._condition(parse('"a b" NOT c'))
    assert condition == {
        "operator": "AND",
        "conditions": [
            {"field": "content", "operator": "phrase", "value": "a b"},
            {"operator": "NOT", "conditions": [{"field": "content", "operator": "match", "value": "c"}]},
        ],
    }


def test_fold_and_terms() -> None:
    assert fold("Crème Brûlée") == "creme brulee"
    assert terms_of("Café café, notifications!") == ["cafe", "notifications"]


def test_snippets_highlight_stems_and_stay_short() -> None:
    highlighter = Highlighter(max_chars=80)
    text = "Setup notes. " * 20 + "We rebuilt the indexes after indexing, then indexed again. " + "Tail words. " * 20
    snippet = highlighter.snippet(text, highlighter.token_ids("index"))
    assert len(snippet) <= 80
    assert "**indexes**" in snippet and "**indexing**" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
