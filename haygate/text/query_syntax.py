"""FTS5-style query syntax: words, `"exact phrases"`, `prefix*`, `AND`, `OR`, `NOT` and parentheses.

A recursive-descent parser turns a raw query into a tree of `Node`s, with implicit AND between neighbours.
Simple mode keeps only the words. Errors carry the 1-based position and a hint.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from haygate.errors import QuerySyntaxError
from haygate.text.normalise import WORD

_OPERATORS = ("AND", "OR", "NOT")


@dataclass(frozen=True)
class Token:
    kind: Literal["word", "phrase", "prefix", "and", "or", "not", "(", ")"]
    text: str
    position: int  # 1-based character position, as a person counts


@dataclass(frozen=True)
class Node:
    kind: Literal["word", "phrase", "prefix", "and", "or", "not"]
    text: str = ""
    children: tuple["Node", ...] = ()


def tokenize(query: str) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    while i < len(query):
        char = query[i]
        if char.isspace():
            i += 1
        elif char == '"':
            end = query.find('"', i + 1)
            if end < 0:
                raise QuerySyntaxError("unbalanced quote", i + 1, "close the phrase or use match_mode=simple")
            words = WORD.findall(query[i + 1 : end])
            if not words:
                raise QuerySyntaxError("empty phrase", i + 1, "put words between the quotes")
            tokens.append(Token("phrase", " ".join(words), i + 1))
            i = end + 1
        elif char in "()":
            tokens.append(Token(char, char, i + 1))  # type: ignore[arg-type]
            i += 1
        elif char == "*":
            raise QuerySyntaxError("'*' without a word before it", i + 1, "write a prefix such as notif*")
        else:
            match = WORD.match(query, i)
            if match is None:
                i += 1  # punctuation separates words, as in FTS5's unicode61 tokenizer
                continue
            word, i = match.group(0), match.end()
            if i < len(query) and query[i] == "*":
                tokens.append(Token("prefix", word, match.start() + 1))
                i += 1
            elif word in _OPERATORS:
                tokens.append(Token(word.lower(), word, match.start() + 1))  # type: ignore[arg-type]
            else:
                tokens.append(Token("word", word, match.start() + 1))
    return tokens


MAX_DEPTH = 32  # nested parentheses and NOTs: far past any real query, far below Python's recursion limit


class _Parser:
    """or := and (OR and)* ; and := unary ((AND)? unary)* ; unary := NOT unary | atom ; atom := term | ( or )"""

    def __init__(self, tokens: list[Token], length: int) -> None:
        self.tokens = tokens
        self.index = 0
        self.end = length + 1
        self.depth = 0

    def _deeper(self, token: Token) -> None:
        """Each '(' and NOT nests once; the tree, and everything that walks it, stays shallow."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise QuerySyntaxError(
                f"more than {MAX_DEPTH} nested parentheses or NOTs", token.position, "flatten the query"
            )

    def parse(self) -> Node | None:
        if not self.tokens:
            return None  # nothing to search for is not a mistake in the syntax
        node = self._or()
        if self.index < len(self.tokens):
            token = self.tokens[self.index]
            hint = "remove it or add the missing '('" if token.kind == ")" else "join terms with AND or OR"
            raise QuerySyntaxError(f"unexpected '{token.text}'", token.position, hint)
        return node

    def _peek(self) -> Token | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def _or(self) -> Node:
        children = [self._and()]
        while (token := self._peek()) is not None and token.kind == "or":
            self.index += 1
            children.append(self._and())
        return children[0] if len(children) == 1 else Node("or", children=tuple(children))

    def _and(self) -> Node:
        children = [self._unary()]
        while (token := self._peek()) is not None and token.kind not in ("or", ")"):
            if token.kind == "and":
                self.index += 1
            children.append(self._unary())
        return children[0] if len(children) == 1 else Node("and", children=tuple(children))

    def _unary(self) -> Node:
        token = self._peek()
        if token is not None and token.kind == "not":
            self.index += 1
            self._deeper(token)
            node = Node("not", children=(self._unary(),))
            self.depth -= 1
            return node
        return self._atom()

    def _atom(self) -> Node:
        token = self._peek()
        if token is None:
            previous = self.tokens[self.index - 1]
            raise QuerySyntaxError(
                f"'{previous.text}' needs a term after it", previous.position, "add a term or remove the operator"
            )
        self.index += 1
        if token.kind in ("word", "phrase", "prefix"):
            return Node(token.kind, token.text)
        if token.kind == "(":
            if (inner := self._peek()) is not None and inner.kind == ")":
                raise QuerySyntaxError("empty parentheses", token.position, "put terms inside or remove them")
            self._deeper(token)
            node = self._or()
            closing = self._peek()
            if closing is None or closing.kind != ")":
                raise QuerySyntaxError("unbalanced '('", token.position, "close it with ')'")
            self.index += 1
            self.depth -= 1
            return node
        problem = "unbalanced ')'" if token.kind == ")" else f"'{token.text}' needs a term before it"
        raise QuerySyntaxError(problem, token.position, "remove it or add the missing term")


def parse(query: str) -> Node | None:
    """The raw query's tree; None for a query with no terms at all (symbols only), which finds nothing."""
    return _Parser(tokenize(query), len(query)).parse()


def simple_terms(query: str, any_of: bool = False) -> Node:
    """Simple mode: every word is required (or any, with `any_of`); quotes, stars and operators are characters."""
    words = [w for w in WORD.findall(query)]
    if not words:
        raise QuerySyntaxError("no searchable words", 1, "use letters or digits")
    nodes = tuple(Node("word", w) for w in words)
    return nodes[0] if len(nodes) == 1 else Node("or" if any_of else "and", children=nodes)


def without(node: Node, ignored: Callable[[Node], bool]) -> Node | None:
    """The tree with the terms `ignored` says the index does not hold (stop words) left out, as PostgreSQL's
    `to_tsquery` leaves them out: `a AND the` is `a`, `the OR b` is `b`, `NOT the` and `(the)` are nothing.
    Such a term cannot match any document, so keeping it would empty every conjunction it is part of. None
    when nothing is left."""
    if node.kind in ("word", "phrase", "prefix"):
        return None if ignored(node) else node
    children = tuple(kept for child in node.children if (kept := without(child, ignored)) is not None)
    if not children:
        return None
    if node.kind == "not":
        return Node("not", children=children)
    return children[0] if len(children) == 1 else Node(node.kind, children=children)


def terms_of_tree(node: Node) -> list[str]:
    """Every word and phrase of the tree, negated or not, in order (what the caller wrote)."""
    if node.kind in ("word", "phrase", "prefix"):
        return [node.text]
    return [text for child in node.children for text in terms_of_tree(child)]


def positive_terms(node: Node, negated: bool = False) -> tuple[list[str], list[str]]:
    """Words (phrases split) and prefixes outside any NOT: what the results are ranked and highlighted by."""
    if node.kind == "not":
        return positive_terms(node.children[0], not negated)
    if node.kind in ("and", "or"):
        words: list[str] = []
        prefixes: list[str] = []
        for child in node.children:
            w, p = positive_terms(child, negated)
            words += w
            prefixes += p
        return words, prefixes
    if negated:
        return [], []
    if node.kind == "prefix":
        return [], [node.text]
    return node.text.split(), []
