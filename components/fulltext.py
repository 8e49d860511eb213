"""Full-text search: a query parser (`FullTextQuery`) and a match highlighter (`Highlighter`).

Raw mode accepts FTS5-style syntax: words, `"exact phrases"`, `prefix*`, `AND`, `OR`, `NOT` and
parentheses, with implicit AND between neighbours. A recursive-descent parser turns it into a tree; the
tree becomes Qdrant filter conditions (what must match) plus scoring text (what BM25 ranks by). Simple
mode keeps only the words. Errors carry the position and a hint.
"""

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

import qdrant_edge as qe
from haystack import Document, component, default_from_dict, default_to_dict

from components.collections import open_collection
from components.errors import InvalidRequestError

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*", re.UNICODE)
_OPERATORS = ("AND", "OR", "NOT")
MAX_PREFIX_EXPANSIONS = 30


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


def fold(text: str) -> str:
    """Lower case without accents: what the text index and the prefix terms store."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def terms_of(text: str) -> list[str]:
    """Distinct folded words, for the prefix index (`meta.terms`)."""
    return sorted({fold(w) for w in _WORD.findall(text) if len(w) > 1})


class QuerySyntaxError(InvalidRequestError):
    def __init__(self, problem: str, position: int, hint: str) -> None:
        super().__init__(f"{problem} at {position}; {hint}", {"position": position, "hint": hint})


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
            words = _WORD.findall(query[i + 1 : end])
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
            match = _WORD.match(query, i)
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


class _Parser:
    """or := and (OR and)* ; and := unary ((AND)? unary)* ; unary := NOT unary | atom ; atom := term | ( or )"""

    def __init__(self, tokens: list[Token], length: int) -> None:
        self.tokens = tokens
        self.index = 0
        self.end = length + 1

    def parse(self) -> Node:
        if not self.tokens:
            raise QuerySyntaxError("no search terms", 1, "give at least one word")
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
            return Node("not", children=(self._unary(),))
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
            node = self._or()
            closing = self._peek()
            if closing is None or closing.kind != ")":
                raise QuerySyntaxError("unbalanced '('", token.position, "close it with ')'")
            self.index += 1
            return node
        problem = "unbalanced ')'" if token.kind == ")" else f"'{token.text}' needs a term before it"
        raise QuerySyntaxError(problem, token.position, "remove it or add the missing term")


def parse(query: str) -> Node:
    return _Parser(tokenize(query), len(query)).parse()


def simple_terms(query: str, any_of: bool = False) -> Node:
    """Simple mode: every word is required (or any, with `any_of`); quotes, stars and operators are characters."""
    words = [w for w in _WORD.findall(query)]
    if not words:
        raise QuerySyntaxError("no searchable words", 1, "use letters or digits")
    nodes = tuple(Node("word", w) for w in words)
    return nodes[0] if len(nodes) == 1 else Node("or" if any_of else "and", children=nodes)


@component
class FullTextQuery:
    """Tool arguments -> filter conditions (what must match) + scoring text and highlight terms."""

    def __init__(
        self,
        collection: str,
        text_field: str = "content",
        terms_field: str = "meta.terms",
        query_argument: str = "query",
        mode_argument: str = "match_mode",
        operator_argument: str | None = None,
    ) -> None:
        """
        :param text_field: the text-indexed field words and phrases must match.
        :param terms_field: a keyword-prefix-indexed list of each document's folded words, for `prefix*`.
        :param operator_argument: argument ("AND" or "OR") joining the words in simple mode; default AND.
        """
        self.collection = collection
        self.text_field = text_field
        self.terms_field = terms_field
        self.query_argument = query_argument
        self.mode_argument = mode_argument
        self.operator_argument = operator_argument

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            collection=self.collection,
            text_field=self.text_field,
            terms_field=self.terms_field,
            query_argument=self.query_argument,
            mode_argument=self.mode_argument,
            operator_argument=self.operator_argument,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FullTextQuery":
        return default_from_dict(cls, data)

    @component.output_types(text=str, filters=dict[str, Any] | None, terms=list[str])
    def run(self, arguments: dict[str, Any], filters: dict[str, Any] | None = None) -> dict[str, Any]:
        query = str(arguments.get(self.query_argument) or "")
        if not query.strip():
            raise InvalidRequestError(f"'{self.query_argument}' is empty", {"field": self.query_argument})
        mode = arguments.get(self.mode_argument) or "simple"
        operator = str(arguments.get(self.operator_argument) or "AND") if self.operator_argument else "AND"
        tree = parse(query) if mode == "raw" else simple_terms(query, any_of=operator == "OR")
        condition = self._condition(tree)
        combined = {"operator": "AND", "conditions": [c for c in (filters, condition) if c]}
        words, prefixes = _positive(tree)
        expanded = self._expand(prefixes, combined) if prefixes else []
        terms = list(dict.fromkeys([*words, *expanded]))
        return {"text": " ".join(terms), "filters": combined, "terms": terms}

    def _condition(self, node: Node) -> dict[str, Any]:
        if node.kind == "word":
            return {"field": self.text_field, "operator": "match", "value": node.text}
        if node.kind == "phrase":
            return {"field": self.text_field, "operator": "phrase", "value": node.text}
        if node.kind == "prefix":
            return {"field": self.terms_field, "operator": "prefix", "value": fold(node.text)}
        children = [self._condition(c) for c in node.children]
        return {"operator": node.kind.upper(), "conditions": children}

    def _expand(self, prefixes: list[str], filters: dict[str, Any]) -> list[str]:
        """The words the matching documents have for each prefix, so BM25 can rank by them."""
        store = open_collection(self.collection)
        key = self.terms_field.removeprefix("meta.")
        found: dict[str, int] = {}
        for document in store.meta_by_filter(filters):
            for term in document.meta.get(key) or []:
                if any(term.startswith(fold(p)) for p in prefixes):
                    found[term] = found.get(term, 0) + 1
        return sorted(found, key=lambda t: (-found[t], t))[:MAX_PREFIX_EXPANSIONS]


def _positive(node: Node, negated: bool = False) -> tuple[list[str], list[str]]:
    """Words (phrases split) and prefixes outside any NOT: what the results are ranked and highlighted by."""
    if node.kind == "not":
        return _positive(node.children[0], not negated)
    if node.kind in ("and", "or"):
        words: list[str] = []
        prefixes: list[str] = []
        for child in node.children:
            w, p = _positive(child, negated)
            words += w
            prefixes += p
        return words, prefixes
    if negated:
        return [], []
    if node.kind == "prefix":
        return [], [node.text]
    return node.text.split(), []


@component
class Highlighter:
    """Adds `meta.<snippet_key>`: a window of the text around the best matches, with matched words in **bold**.

    Words match by BM25 token (the store's tokenizer: stemming, stopwords, ASCII folding), so "indexing" is
    highlighted for the term "index" and "café" for "cafe".
    """

    def __init__(
        self, field: str = "content", max_chars: int = 300, snippet_key: str = "snippet", language: str = "english"
    ) -> None:
        self.field = field
        self.max_chars = max_chars
        self.snippet_key = snippet_key
        self.language = language
        self._tokens = qe.Bm25(qe.Bm25Config(k=1e9, b=0.0, avg_len=1.0, language=language, ascii_folding=True))

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self, field=self.field, max_chars=self.max_chars, snippet_key=self.snippet_key, language=self.language
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Highlighter":
        return default_from_dict(cls, data)

    def token_ids(self, text: str) -> set[int]:
        return set(self._tokens.embed_document(text).indices)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document], terms: list[str]) -> dict[str, Any]:
        wanted = self.token_ids(" ".join(terms))
        out = []
        for document in documents:
            text = (document.content if self.field == "content" else document.meta.get(self.field)) or ""
            snippet = self.snippet(str(text), wanted)
            meta = {**document.meta, self.snippet_key: snippet}
            out.append(Document(id=document.id, content=document.content, meta=meta, score=document.score))
        return {"documents": out}

    def snippet(self, text: str, wanted: set[int]) -> str:
        """At most `max_chars` characters, markers and ellipses included."""
        spans = [(m.start(), m.end()) for m in _WORD.finditer(text) if self.token_ids(m.group(0)) & wanted]
        start, end = self._window(text, spans)
        while True:
            result = self._render(text, spans, start, end)
            if len(result) <= self.max_chars or end <= start:
                return result
            end = _word_end(text, end - 1) if end - 1 > start else start

    @staticmethod
    def _render(text: str, spans: list[tuple[int, int]], start: int, end: int) -> str:
        parts, cursor = [], start
        for s, e in spans:
            if s >= start and e <= end:
                parts += [text[cursor:s], f"**{text[s:e]}**"]
                cursor = e
        parts.append(text[cursor:end])
        body = " ".join("".join(parts).split())
        return ("…" if start > 0 else "") + body + ("…" if end < len(text) else "")

    def _window(self, text: str, spans: list[tuple[int, int]]) -> tuple[int, int]:
        """The `max_chars` window holding the most matches (bold markers and ellipses included)."""
        budget = self.max_chars - 2
        if not spans:
            end = min(len(text), budget)
            return 0, _word_end(text, end) if end < len(text) else end
        best = (0, 0)
        for i, (s, _) in enumerate(spans):
            count = 0
            for _, e2 in spans[i:]:
                if e2 - s + 4 * (count + 1) > budget:
                    break
                count += 1
            if count > best[0]:
                best = (count, i)
        first = spans[best[1]][0]
        used = 4 * best[0]
        lead = max(0, min(first, (budget - used - (spans[best[1]][1] - first)) // 3))
        start = _word_start(text, first - lead)
        end = min(len(text), start + budget - used)
        return start, _word_end(text, end) if end < len(text) else end


def _word_start(text: str, index: int) -> int:
    index = max(0, index)
    while 0 < index < len(text) and not text[index - 1].isspace():
        index += 1
    return min(index, len(text))


def _word_end(text: str, index: int) -> int:
    while index > 0 and index < len(text) and not text[index].isspace():
        index -= 1
    return index
