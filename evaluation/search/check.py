"""Check the judged set of `search` against the sample entities; it writes nothing.

Each query in queries.jsonl was written by hand after reading the entity it names as `picked` (score 2 in
qrels/test.tsv); others that answer it as well have score 1. `metadata.arguments` is added to the call.
README.md says how the set was made and what this checks. To extend it, edit queries.jsonl and the qrels, run:

    .venv/bin/python -m evaluation.search.check
"""

from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from evaluation import judged_sets as js
from evaluation.judged_sets import Query, Report
from haygate.errors import QuerySyntaxError
from haygate.text.bm25 import Bm25Tokenizer
from haygate.text.normalise import WORD, fold, terms_of
from haygate.text.query_syntax import Node, parse
from haygate.text.templates import render_line

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
TOOLS_FILE = js.PROJECT / "configs" / "tools" / "search.yaml"
COLLECTION_FILE = js.PROJECT / "configs" / "collections" / "entities.yaml"
KINDS = ("keyword", "paraphrase", "syntax")
ENTITY_TYPES = ("product", "feature", "test", "bug")
CALL_ARGUMENTS = ("entities", "product_ids", "match_mode")  # what a query may add to eval.yaml's call
TOKENIZER = Bm25Tokenizer(capitalised_stopwords=False)  # the store's: stems, stop words, folding
STOPWORDS = (  # left out when counting a query's words that occur in its picked entity
    "a after all although an and are as at be by can do does during each for from get gets how i in is it its"
    " my no not of on one or out re still that the their them then there they this to up was we what when"
    " which why with within without yet you"
)


def stream(text: str) -> list[int]:
    """Stems in text order (stop words dropped), for phrases."""
    return [token for word in WORD.findall(text) for token in sorted(TOKENIZER.token_ids(word))]


def all_stems_in(q: Query, text: str) -> bool:
    """Whether simple mode (every word required) can find `text` for the query at all."""
    return TOKENIZER.token_ids(q.text) <= set(stream(text))


def satisfies(text: str, node: Node) -> bool:
    """Whether an entity's indexed text fulfils a raw query: words by stem, phrases as consecutive stems,
    prefixes against its folded words."""
    if node.kind == "word":
        return bool(TOKENIZER.token_ids(node.text)) and TOKENIZER.token_ids(node.text) <= set(stream(text))
    if node.kind == "phrase":
        phrase, stems = stream(node.text), stream(text)
        return any(stems[i : i + len(phrase)] == phrase for i in range(len(stems) - len(phrase) + 1))
    if node.kind == "prefix":
        return any(term.startswith(fold(node.text)) for term in terms_of(text))
    if node.kind == "not":
        return not satisfies(text, node.children[0])
    results = [satisfies(text, child) for child in node.children]
    return all(results) if node.kind == "and" else any(results)


def query_problems(q: Query, entities: dict[str, dict[str, Any]], indexed: dict[str, str]) -> list[str]:
    """Its arguments are the tool's (raw mode for syntax only) and its judged entities pass its filters; a
    paraphrase shares no stem with its entity's title; a syntax query's judged entities satisfy it."""
    types, products = q.arguments.get("entities"), q.arguments.get("product_ids")
    valid = (
        set(q.arguments) <= set(CALL_ARGUMENTS)
        and (q.arguments.get("match_mode") == "raw") == (q.kind == "syntax")
        and (types is None or (bool(types) and set(types) <= set(ENTITY_TYPES)))
        and (products is None or (bool(products) and all(f"product:{p}" in entities for p in products)))
    )
    problems = [] if valid else [f"{q.id}: arguments {q.arguments} are not the tool's for a {q.kind} query"]
    for key in [key for key in q.qrels if key in entities]:
        if entities[key]["entity_type"] not in (types or ENTITY_TYPES) or (
            products is not None and entities[key]["product_id"] not in {f"product:{p}" for p in products}
        ):
            problems.append(f"{q.id}: {key} is judged but the query's filters leave it out")
    picked = q.metadata.get("picked")
    if picked not in entities:
        return problems
    if q.kind == "paraphrase" and TOKENIZER.token_ids(q.text) & TOKENIZER.token_ids(entities[picked]["title"]):
        problems.append(f"paraphrase {q.id} '{q.text}' shares a stem with {picked}'s title")
    if q.kind == "syntax":
        try:
            tree = parse(q.text)
        except QuerySyntaxError as error:
            return [*problems, f"syntax {q.id} '{q.text}': {error}"]
        problems += [
            f"syntax {q.id}: judged {key} does not satisfy it"
            for key in q.qrels
            if key in indexed and not satisfies(indexed[key], tree)
        ]
    return problems


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the entities eval.yaml names."""
    report = Report()
    judged = js.load(folder)
    entities = js.read_corpus(judged, "entity_id", report, corpus)
    report.problems += js.common(judged, entities, KINDS)
    report.problems += js.tenant_free(TOOLS_FILE, str(judged.spec.get("tool")), entities)
    report.problems += js.verbatim(judged, [(key, e["title"]) for key, e in entities.items()], "the title")
    texts = js.Texts({key: " , ".join(str(value) for value in e.values() if value) for key, e in entities.items()})
    report.problems += js.absent_terms([q for q in judged.queries if q.kind == "unrelated"], texts)
    template = yaml.safe_load(COLLECTION_FILE.read_text())["record"]["content_template"]
    indexed = {key: render_line(template, entity) for key, entity in entities.items()}
    for q in judged.judged:
        report.problems += query_problems(q, entities, indexed)

    def by_type(queries: list[Query]) -> str:
        types = [entities.get(q.metadata.get("picked", ""), {}).get("entity_type") for q in queries if q.qrels]
        return " / ".join(str(types.count(t)) for t in ("bug", "feature", "test", "product")) if types else ""

    sizes = [len(q.qrels) for q in judged.judged]
    filtered = Counter(q.kind for q in judged.judged if "entities" in q.arguments)
    products = sum("product_ids" in q.arguments for q in judged.queries)
    figures = js.basic_figures(judged) | {
        r"Each judged query has (\d+) to (\d+) relevant": (min(sizes), max(sizes)),
        r"(\d+) queries are filtered: (\d+) by `entities` \((\d+) \w+, (\d+) \w+, (\d+) \w+\), (\d+) by": (
            filtered.total() + products,
            filtered.total(),
            *js.pick(filtered, "syntax keyword paraphrase"),
            products,
        ),
    }
    if entities:
        types = Counter(e["entity_type"] for e in entities.values())
        share = js.share(judged.judged, indexed, STOPWORDS)
        whole = Counter(
            q.kind for q in judged.judged if all_stems_in(q, indexed.get(str(q.metadata.get("picked")), ""))
        )
        figures |= {
            r"\((\d+) entities of .*?: (\d+) products, (\d+) features, (\d+) tests, (\d+) bugs": (
                len(entities),
                *js.pick(types, "product feature test bug"),
            ),
            r"(\d+)% of a paraphrase's .*? (\d+)%, for syntax .*? (\d+)%": js.pick(share, "paraphrase keyword syntax"),
            r"\((\d+) of \d+\)\. For paraphrases it is (\d+) of": js.pick(whole, "keyword paraphrase"),
        }
    report.problems += js.table(judged, {**js.COUNTS, "picked: bug / feature / test / product": by_type})
    report.problems += js.stated(judged, figures)
    return report


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
