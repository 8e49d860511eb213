"""`FullTextQuery`: a full-text query -> filter conditions (what must match) + BM25 scoring text.

Raw mode parses FTS5-style syntax (`haygate.text.query_syntax`); simple mode takes the words, all
required (or any, with `operator: OR`). Stop words are left out of the conditions, as the text index leaves
them out of every document: "subtitles drifting after seeking" requires the three content words, where a
condition on "after" would match nothing and empty the result.

Words and phrases become `match`/`phrase` conditions on the text index; `prefix*` becomes a `prefix`
condition on a keyword-prefix index of each document's words, and is expanded into the words the matching
documents have, so BM25 can rank by them.

`relax: true`: when simple mode requires every word of three or more and no document has them all, the
retriever searches again for documents with at least half of them, and two at least (`relaxed_filters`),
ranked by BM25, and says so. A question in a user's own words rarely shares every word with the record that
answers it; one shared word alone says little ("schedule" in "sourdough starter feeding schedule"). Qdrant
evaluates "at least k of n" by its combinations, which grow past a second at 20 words (C(24, 12) took 104 s
here), so the fallback weighs the `MAX_RELAXED_WORDS` longest distinct words, the rarer ones as a rule; the
scoring text keeps every word.
"""

import math
from typing import Any

from haystack import component, default_from_dict, default_to_dict

from haygate.document_stores.hybrid import HybridDocumentStore, check_store
from haygate.errors import QuerySyntaxError
from haygate.text.bm25 import Bm25Tokenizer
from haygate.text.normalise import fold
from haygate.text.paths import document_value
from haygate.text.query_syntax import Node, parse, positive_terms, simple_terms, terms_of_tree, without

MAX_PREFIX_EXPANSIONS = 30
MAX_RELAXED_WORDS = 12  # "at least half of" these: C(12, 6) conditions is milliseconds
NO_WORDS = "No results: the query has no words (letters or digits) to find."


@component
class FullTextQuery:
    """Turns a full-text query into filter conditions (what must match) and BM25 scoring text.

    Use it in front of the retriever of a keyword tool: words and phrases become `match`/`phrase` conditions on
    the store's text index, `prefix*` a condition on a keyword-prefix index (expanded into the words the matching
    documents have), and stop words are left out, as the index leaves them out of every document.

    ### Usage example

    ```python
    from haygate.components.full_text_query import FullTextQuery
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    store = EdgeDocumentStore("issues", "data", embedding_dim=4, text_fields=["content"])
    query = FullTextQuery(document_store=store)
    result = query.run(query="subtitles drifting after seeking")
    print(result["text"], result["filters"])  # "after" is a stop word: no condition on it
    ```
    """

    stage = "query_building"  # what telemetry times its runs as (haygate.api.Stage)

    def __init__(
        self,
        document_store: HybridDocumentStore,
        text_field: str = "content",
        terms_field: str = "meta.terms",
        relax: bool = False,
    ) -> None:
        """Set the collection and the fields its text and prefix indexes cover.

        :param text_field: the text-indexed field words and phrases must match.
        :param terms_field: a keyword-prefix-indexed list of each document's folded words, for `prefix*`.
        :param relax: in simple mode with every word required, also give `relaxed_filters` (at least half
            of the words, and two), for the retriever to fall back on when no document has every word.
        """
        self.document_store = check_store(document_store, "full-text query")
        self.text_field = text_field
        self.terms_field = terms_field
        self.relax = relax
        # The text index's own analysis (haygate.document_stores.edge.document_store.text_index_params):
        # English stop words, stemming, ASCII folding. A word it reduces to no token is a stop word.
        self._tokenizer = Bm25Tokenizer("english", ascii_folding=True)

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            document_store=self.document_store,
            text_field=self.text_field,
            terms_field=self.terms_field,
            relax=self.relax,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "FullTextQuery":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(
        text=str,
        filters=dict[str, Any] | None,
        relaxed_filters=dict[str, Any] | None,
        terms=list[str],
        unmatchable=bool,
        metadata=dict[str, Any],
    )
    def run(
        self,
        query: str,
        filters: dict[str, Any] | None = None,
        match_mode: str | None = None,
        operator: str | None = None,
    ) -> dict[str, Any]:
        """Parse the query into conditions and scoring words.

        :param query: the query as the caller wrote it (syntax errors give positions in it).
        :param filters: conditions from elsewhere (entity type, tenant), ANDed with the query's.
        :param match_mode: `simple` (default) or `raw`.
        :param operator: `AND` (default) or `OR`: how simple mode joins the words.
        :returns: `text` (the scoring words), `filters`, `relaxed_filters` (half of the words, with `relax`
            in simple mode with three or more words required; else None), `terms` (the words to highlight),
            and for a query of stop words only (schema-valid, yet nothing the index holds can match it)
            `unmatchable: true` and the `metadata` message that says why there are no results.
        """
        if not str(query or "").strip():
            return self._unmatchable(filters, NO_WORDS)
        any_of = (operator or "AND") == "OR"
        if match_mode == "raw":
            written = parse(query)  # raw mode means its syntax: a mistake there is the caller's to see
        else:
            try:
                written = simple_terms(query, any_of=any_of)
            except QuerySyntaxError:
                written = None
        if written is None:
            return self._unmatchable(filters, NO_WORDS)
        tree = without(written, self._is_stopword)
        if tree is None:
            listed = ", ".join(f"'{t}'" for t in terms_of_tree(written))
            message = (
                f"No results: the query has only stop words ({listed}), which no document is indexed by; "
                "add a word to find."
            )
            return self._unmatchable(filters, message)
        combined = {"operator": "AND", "conditions": [c for c in (filters, self._condition(tree)) if c]}
        relaxed = None
        if self.relax and match_mode != "raw" and tree.kind == "and":
            distinct = list({fold(child.text): child for child in tree.children}.values())
            longest = sorted(distinct, key=lambda child: -len(child.text))[:MAX_RELAXED_WORDS]
            weighed = [child for child in distinct if child in longest]  # in the query's order
            at_least = max(2, math.ceil(len(weighed) / 2))
            if at_least < len(weighed):
                most_words = {**self._condition(Node("or", children=tuple(weighed))), "at_least": at_least}
                relaxed = {"operator": "AND", "conditions": [c for c in (filters, most_words) if c]}
        words, prefixes = positive_terms(tree)
        expanded = self._expand(prefixes, combined) if prefixes else []
        terms = list(dict.fromkeys([*words, *expanded]))
        return {
            "text": " ".join(terms),
            "filters": combined,
            "relaxed_filters": relaxed,
            "terms": terms,
            "unmatchable": False,
            "metadata": {},
        }

    @staticmethod
    def _unmatchable(filters: dict[str, Any] | None, message: str) -> dict[str, Any]:
        """A query the published schema admits but nothing indexed can match: an empty result that says why
        (never a silent one, and never an error for a valid request).
        """
        return {
            "text": "",
            "filters": filters,
            "relaxed_filters": None,
            "terms": [],
            "unmatchable": True,
            "metadata": {"message": message},
        }

    def _is_stopword(self, node: Node) -> bool:
        """A word or phrase the text index holds no token of; prefixes match the unfiltered `terms_field`."""
        return node.kind != "prefix" and not self._tokenizer.counts(node.text)

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
        """The words the matching documents have for each prefix, most frequent first."""
        folded = [fold(p) for p in prefixes]
        found: dict[str, int] = {}
        for document in self.document_store.meta_by_filter(filters):
            for term in document_value(document, self.terms_field) or []:
                if any(term.startswith(p) for p in folded):
                    found[term] = found.get(term, 0) + 1
        return sorted(found, key=lambda t: (-found[t], t))[:MAX_PREFIX_EXPANSIONS]
