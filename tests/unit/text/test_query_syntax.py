"""The raw full-text query parser."""

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from haygate.errors import QuerySyntaxError
from haygate.text.query_syntax import Node, parse, positive_terms, simple_terms, terms_of_tree, without


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


def test_a_query_without_terms_is_no_syntax_error() -> None:
    assert parse("") is None and parse("!? ,;") is None


@given(st.text(max_size=40))
def test_the_parser_never_fails_other_than_with_a_syntax_error(query: str) -> None:
    with contextlib.suppress(QuerySyntaxError):
        parse(query)


def test_simple_mode_keeps_words_only() -> None:
    assert simple_terms('"payment (screen') == Node("and", children=(Node("word", "payment"), Node("word", "screen")))
    assert simple_terms("a b", any_of=True).kind == "or"
    with pytest.raises(QuerySyntaxError, match="no searchable words"):
        simple_terms("*** ()")


def test_positive_terms_skip_negated_ones() -> None:
    assert positive_terms(parse('"a b" c* NOT (d OR e*)')) == (["a", "b"], ["c"])


@pytest.mark.parametrize("query", ["(" * 249 + "a" + ")" * 249, "NOT " * 300 + "a", "(" * 33 + "a" + ")" * 33])
def test_nesting_is_bounded_by_a_syntax_error_not_the_recursion_limit(query: str) -> None:
    with pytest.raises(QuerySyntaxError, match="more than 32 nested parentheses or NOTs"):
        parse(query)


def test_nesting_up_to_the_bound_parses() -> None:
    assert parse("(" * 32 + "a" + ")" * 32) == Node("word", "a")


STOPWORDS = {"the", "after", "of"}


def is_stopword(node: Node) -> bool:
    return node.kind == "word" and node.text in STOPWORDS


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        ("subtitles after seeking", "subtitles seeking"),
        ("the OR crash", "crash"),
        ("crash NOT the", "crash"),
        ("(the OR of) crash", "crash"),
        ("crash NOT (the OR screen)", "crash NOT screen"),
        ("screen*", "screen*"),
    ],
)
def test_without_leaves_out_ignored_terms_as_if_unwritten(query: str, kept: str) -> None:
    assert without(parse(query), is_stopword) == parse(kept)


def test_without_leaves_nothing_when_every_term_is_ignored() -> None:
    tree = parse("the NOT (of OR after)")
    assert without(tree, is_stopword) is None
    assert terms_of_tree(tree) == ["the", "of", "after"]
