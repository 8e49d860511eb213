"""Build the judged query set for `search` (BEIR layout: queries.jsonl, qrels/test.tsv).

Each query below was written by hand, after reading one entity of the bundled sample corpus
samples/entities/entities.jsonl (6 products, 60 features, 120 tests and 330 bugs of a crowd-testing platform),
to find that entity. Kinds: "keyword" is the words a user types, taken from the entity but not its title
verbatim, often in another inflection ("crashes" for "crashing"); "paraphrase" says the need in a tester's
or a product manager's words and shares no word stem with the entity's title; "syntax" uses the raw mode
("phrases", prefix*, AND, OR, NOT, parentheses). Some queries pass `entities` or `product_ids` as well.
"unrelated" queries are topics no entity covers: they have no qrels lines, and the tool should return
nothing for them.

The entity a query was written for has score 2. Other entities that answer the query as well, found with a
word search over the file (stems and variants of the query's main terms) and by reading them, have score 1.
Only entity ids ("bug:3018", as the tool's `entity_id`) and the query texts are written, never corpus text.

    .venv/bin/python evaluation/search/build.py
    .venv/bin/python evaluation/search/build.py --entities samples/entities/entities.jsonl
"""

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Literal, NamedTuple

import yaml

from haygate.errors import QuerySyntaxError
from haygate.evaluation.datasets import write_judged_queries
from haygate.text.bm25 import Bm25Tokenizer
from haygate.text.normalise import WORD, fold, terms_of
from haygate.text.query_syntax import Node, parse
from haygate.text.templates import render_line

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
DEFAULT_ENTITIES = PROJECT / "samples" / "entities" / "entities.jsonl"
TOOL_FILE = PROJECT / "configs" / "tools" / "search.yaml"
COLLECTION_FILE = PROJECT / "configs" / "collections" / "entities.yaml"
TOOL = "search"
TENANT_FIELDS = ("project_id", "project", "tenant", "org_id")  # a record with one of these is tenant data
ENTITY_TYPES = ("product", "feature", "test", "bug")
CALL_ARGUMENTS = ("entities", "product_ids", "match_mode")  # what a query may add to eval.yaml's call

Kind = Literal["keyword", "paraphrase", "syntax"]
KINDS: tuple[Kind, ...] = ("keyword", "paraphrase", "syntax")


class Query(NamedTuple):
    picked: str  # the entity the query was written for: score 2
    kind: Kind
    text: str
    also: tuple[str, ...] = ()  # other entities that answer the query as well: score 1
    arguments: dict[str, Any] | None = None  # added to the call: entities, product_ids, match_mode


RAW = {"match_mode": "raw"}
BUGS = {"entities": ["bug"]}
FEATURES = {"entities": ["feature"]}
TESTS = {"entities": ["test"]}

QUERIES: list[Query] = [
    # keyword: the entity's words as one types them, often in another inflection than the title's
    Query("bug:3201", "keyword", "camera crash rotating tablet"),
    Query("bug:3102", "keyword", "WELCOME5 applied twice"),
    Query("bug:3162", "keyword", "belgian iban rejected"),
    Query("bug:3164", "keyword", "nonstop flights via Madrid"),
    Query("bug:3312", "keyword", "oat milk surcharges"),
    Query("feature:1033", "keyword", "heating schedule", (), FEATURES),
    Query("bug:3026", "keyword", "capuccino typo"),
    Query("bug:3266", "keyword", "zooming hotel map crashes"),
    Query("bug:3195", "keyword", "A321neo seat map"),
    Query("bug:3214", "keyword", "scanning gift cards twice"),
    Query("product:599", "keyword", "northbank banking"),
    Query("product:603", "keyword", "cafe lumiere"),  # the title is "Café Lumière Kiosk": accent folding
    Query("test:2002", "keyword", "flight search smoke tests"),
    Query(
        "test:2048",
        "keyword",
        "camera view accessibility reviews",
        ("test:2120",),  # the same review of the camera view, another cycle
        TESTS,
    ),
    Query("feature:1050", "keyword", "SAML OpenID"),
    Query("bug:3008", "keyword", "CSV export missing learner"),
    Query("bug:3190", "keyword", "subtitles drifting after seeking"),
    Query(
        "bug:3120",
        "keyword",
        "partial word search",
        ("bug:3170",),  # Wayfarer's other "finds nothing for a partial word" bug ("Barc")
        {"product_ids": [600]},
    ),
    Query("test:2114", "keyword", "usability tests household sharing"),
    # paraphrase: the need in a tester's or PM's words; no word stem of the entity's title
    Query("bug:3018", "paraphrase", "itinerary with three destinations only prices the first two flights"),
    Query("bug:3033", "paraphrase", "driver icon on the live map resets to the pickup location every half minute"),
    Query("bug:3052", "paraphrase", "completed all the lessons yet the certificate stays locked"),
    Query("bug:3099", "paraphrase", "dietary restriction for peanut allergy ignored on the Thai Garden menu"),
    Query("bug:3100", "paraphrase", "reimbursed purchase treated as an outgoing payment in the category graph"),
    Query("bug:3104", "paraphrase", "frozen status lost on refresh although purchases are still declined"),
    Query("bug:3116", "paraphrase", "kiosk summary still lists the abandoned basket of the last person"),
    Query("bug:3118", "paraphrase", "room rate charged for each person instead of the room when a couple books"),
    Query("bug:3127", "paraphrase", "payment in dollars turns into euros after I change it"),
    Query("bug:3161", "paraphrase", "booking for two parents and a baby searches for just a single traveller"),
    Query("bug:3207", "paraphrase", "kiosk refuses to sell anything when the receipt roll is nearly empty"),
    Query("bug:3228", "paraphrase", "bedtime routine leaves the last two lamps on"),
    Query("bug:3250", "paraphrase", "socket still reported as connected after I pulled it out of the wall"),
    Query("bug:3281", "paraphrase", "visitor account is able to delete the whole home setup"),
    Query("bug:3294", "paraphrase", "teacher gets no email when a student hands in homework"),
    Query("bug:3324", "paraphrase", "staff using their employer's identity provider get signed out within seconds"),
    Query("feature:1015", "paraphrase", "lost my wallet, how do I stop purchases with it"),
    Query("feature:1049", "paraphrase", "accessibility option for people with poor eyesight"),
    Query("feature:1058", "paraphrase", "buy nine coffees and get one on the house", (), FEATURES),
    Query("feature:1007", "paraphrase", "book a meal delivery for tomorrow evening"),
    Query("feature:1036", "paraphrase", "if-this-then-that rules for home gadgets"),
    Query("product:602", "paraphrase", "online course platform"),
    Query("product:601", "paraphrase", "app that runs the connected thermostats and cameras"),
    Query("test:2037", "paraphrase", "re-check that customers can get in again after their account was blocked"),
    Query("test:2012", "paraphrase", "blind user walkthrough of the online banking login", (), TESTS),
    Query("test:2006", "paraphrase", "are the saved delivery places shown fully in Dutch", (), TESTS),
    Query("test:2091", "paraphrase", "check the pastry of the day can be bought quickly during the lunch rush"),
    # syntax: raw mode
    Query(
        "feature:1003",
        "syntax",
        '"group order"',
        # split checkouts of group orders; the bug of a group basket counting a member's dish twice
        ("feature:1004", "bug:3254"),
        RAW,
    ),
    Query("bug:3182", "syntax", '"payment confirmation screen" AND tip', (), RAW),
    Query(
        "bug:3075",
        "syntax",
        "(iOS OR iPhone) AND keyboard",
        ("bug:3045", "bug:3227", "bug:3232"),  # the other iOS keyboard bugs: a hidden button, autocorrect, focus
        RAW | BUGS,
    ),
    Query("bug:3192", "syntax", '"creme brulee"', (), RAW | BUGS),  # written "Crème brûlée": accent folding
    Query(
        "bug:3147",
        "syntax",
        "crash* AND (iPhone OR Safari)",
        ("bug:3266",),  # the hotel map crashing in Safari 17.5
        RAW,
    ),
    Query(
        "feature:1042",
        "syntax",
        "subtitle* NOT toggle",
        ("bug:3190",),  # subtitles drifting out of sync; the two subtitle-toggle bugs are excluded
        RAW,
    ),
    Query(
        "feature:1011",
        "syntax",
        '"two-factor" OR "one-time code"',
        ("feature:1017", "feature:1020"),  # a one-time code confirms new payees and a new phone number
        RAW | FEATURES,
    ),
    Query("feature:1052", "syntax", '"extra shots"', (), RAW | FEATURES),
    Query("bug:3197", "syntax", '"clock change" OR "daylight saving"', (), RAW),
    Query("bug:3131", "syntax", '"off by one" AND booking*', (), RAW),
    Query(
        "bug:3260",
        "syntax",
        "PDF AND (statement* OR export*)",
        ("bug:3244",),  # the browser tab crashing on a 24-month PDF export
        RAW | BUGS,
    ),
    Query("test:2101", "syntax", '"screen reader" AND kiosk*', (), RAW | TESTS),
    Query(
        "feature:1053",
        "syntax",
        "pastr* AND stock",
        ("bug:3192",),  # the crème brûlée missing from the dessert tab while in stock
        RAW,
    ),
]

# Topics no entity covers: (query, terms that must occur, as whole words in any case, in no field of any entity).
UNRELATED: list[tuple[str, list[str]]] = [
    ("knitting pattern for wool socks", ["knitting", "knit", "wool", "socks", "sock", "yarn"]),
    ("sourdough starter feeding schedule", ["sourdough", "starter", "bread", "flour", "baking"]),
    ("chess openings against the sicilian", ["chess", "sicilian", "gambit"]),
    ("easy guitar chords for beginners", ["guitar", "chord", "chords"]),
    ("volcano eruption lava flow", ["volcano", "eruption", "lava", "magma"]),
    ("when to prune tomato plants", ["prune", "pruning", "tomato", "tomatoes", "plant", "plants"]),
]

STOPWORDS = frozenset(  # left out when counting a query's words that occur in its picked entity
    re.findall(
        r"\w+",
        "a after all although an and are as at be by can do does during each for from get gets how i in is it its"
        " my no not of on one or out re still that the their them then there they this to up was we what when"
        " which why with within without yet you",
    )
)


def normalize(text: str) -> str:
    return " ".join(re.findall(r"\w+", fold(text)))


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", fold(text)) if w not in STOPWORDS}


def load_entities(path: Path) -> dict[str, dict[str, Any]]:
    entities: dict[str, dict[str, Any]] = {}
    with path.open() as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                if record["entity_id"] in entities:
                    sys.exit(f"{path}: entity_id {record['entity_id']} is there twice")
                entities[record["entity_id"]] = record
    return entities


class Index:
    """Each entity's text as the collection indexes it (`content_template`), its stems and its prefix terms.

    Used for the checks only: whether a raw query's judged entities satisfy its syntax, whether a paraphrase
    shares a stem with its entity's title, whether an unrelated term occurs anywhere."""

    def __init__(self, entities: dict[str, dict[str, Any]]) -> None:
        template = yaml.safe_load(COLLECTION_FILE.read_text())["record"]["content_template"]
        self.tokenizer = Bm25Tokenizer(capitalised_stopwords=False)  # the store's: stems, stop words, folding
        self.content = {key: render_line(template, record) for key, record in entities.items()}
        self.stream = {key: self._stream(text) for key, text in self.content.items()}
        self.terms = {key: terms_of(text) for key, text in self.content.items()}

    def _stream(self, text: str) -> list[int]:
        """Stems in text order (stop words dropped), for phrases."""
        return [token for word in WORD.findall(text) for token in sorted(self.tokenizer.token_ids(word))]

    def stems(self, text: str) -> set[int]:
        return self.tokenizer.token_ids(text)

    def satisfies(self, key: str, node: Node) -> bool:
        """Whether an entity's indexed text fulfils a raw query: words by stem, phrases as consecutive stems,
        prefixes against its folded words."""
        if node.kind == "word":
            return bool(self.stems(node.text)) and self.stems(node.text) <= set(self.stream[key])
        if node.kind == "phrase":
            phrase = self._stream(node.text)
            stream = self.stream[key]
            return any(stream[i : i + len(phrase)] == phrase for i in range(len(stream) - len(phrase) + 1))
        if node.kind == "prefix":
            return any(term.startswith(fold(node.text)) for term in self.terms[key])
        if node.kind == "not":
            return not self.satisfies(key, node.children[0])
        results = [self.satisfies(key, child) for child in node.children]
        return all(results) if node.kind == "and" else any(results)


def check_tenant(entities: dict[str, dict[str, Any]]) -> list[str]:
    """The set judges every entity in the file: right only while `search` is not tenant-scoped and no record
    names a tenant. When one of these changes, the set needs a `project` in eval.yaml and a tenant check."""
    problems = []
    declared = yaml.safe_load(TOOL_FILE.read_text())
    tools = declared.get("tools", [declared]) if isinstance(declared, dict) else declared
    tool = next((t for t in tools if t.get("name") == TOOL), None)
    if tool is None:
        problems.append(f"{TOOL_FILE}: no tool {TOOL}")
    elif tool.get("tenant_field"):
        problems.append(f"{TOOL} is tenant-scoped ({tool['tenant_field']}): judge only the tenant's entities")
    tenanted = sorted(key for key, e in entities.items() if any(field in e for field in TENANT_FIELDS))
    if tenanted:
        problems.append(f"{len(tenanted)} entities name a tenant, e.g. {tenanted[:3]}: judge only one tenant's")
    return problems


def check_arguments(query: Query, entities: dict[str, dict[str, Any]]) -> list[str]:
    """A query's own arguments are the tool's, with valid values; its judged entities pass its filters."""
    problems = []
    arguments = query.arguments or {}
    for name in arguments:
        if name not in CALL_ARGUMENTS:
            problems.append(f"'{query.text}': argument {name} is not one a query may add ({CALL_ARGUMENTS})")
    raw = arguments.get("match_mode") == "raw"
    if raw != (query.kind == "syntax"):
        problems.append(f"'{query.text}': a {query.kind} query with match_mode {arguments.get('match_mode')}")
    types = arguments.get("entities")
    if types is not None and (not types or any(t not in ENTITY_TYPES for t in types)):
        problems.append(f"'{query.text}': entities {types} are not among {ENTITY_TYPES}")
    products = arguments.get("product_ids")
    if products is not None and (not products or any(f"product:{p}" not in entities for p in products)):
        problems.append(f"'{query.text}': product_ids {products} are not all product ids")
    for key in (query.picked, *query.also):
        entity = entities.get(key)
        if entity is None:
            continue
        if types is not None and entity["entity_type"] not in types:
            problems.append(f"'{query.text}': {key} is judged but its type is filtered out")
        if products is not None and entity["product_id"] not in {f"product:{p}" for p in products}:
            problems.append(f"'{query.text}': {key} is judged but its product is filtered out")
    return problems


def check(entities: dict[str, dict[str, Any]], index: Index) -> list[str]:
    problems = check_tenant(entities)
    texts = Counter(normalize(q.text) for q in QUERIES) + Counter(normalize(q) for q, _ in UNRELATED)
    problems += [f"'{t}' is listed twice" for t, n in texts.items() if n > 1]
    titles = {normalize(e["title"]): key for key, e in entities.items()}
    for query in QUERIES:
        if query.kind not in KINDS:
            problems.append(f"'{query.text}': unknown kind {query.kind}")
        if not query.text.strip():
            problems.append(f"{query.picked}: empty query")
        for key in (query.picked, *query.also):
            if key not in entities:
                problems.append(f"'{query.text}': {key} is no entity_id")
        if query.picked in query.also:
            problems.append(f"'{query.text}': {query.picked} is both picked and also relevant")
        if len(set(query.also)) != len(query.also):
            problems.append(f"'{query.text}': an also-relevant id is listed twice")
        if normalize(query.text) in titles:
            problems.append(f"'{query.text}' is the title of {titles[normalize(query.text)]} verbatim")
        problems += check_arguments(query, entities)
        if query.picked not in entities:
            continue
        if query.kind == "paraphrase":
            shared = index.stems(query.text) & index.stems(entities[query.picked]["title"])
            if shared:
                problems.append(f"paraphrase '{query.text}' shares {len(shared)} stems with {query.picked}'s title")
        if query.kind == "syntax":
            try:
                tree = parse(query.text)
            except QuerySyntaxError as error:
                problems.append(f"syntax '{query.text}': {error}")
                continue
            for key in (query.picked, *query.also):
                if key in entities and not index.satisfies(key, tree):
                    problems.append(f"syntax '{query.text}': judged {key} does not satisfy it")
    for query, terms in UNRELATED:
        if normalize(query) in titles:
            problems.append(f"unrelated '{query}' is an entity title")
        if not terms:
            problems.append(f"unrelated '{query}' lists no terms to check")
        for term in terms:
            pattern = re.compile(rf"(?<!\w){re.escape(term)}(?!\w)", re.IGNORECASE)
            found = [
                key
                for key, entity in entities.items()
                if any(pattern.search(fold(str(value))) for value in entity.values() if value)
            ]
            if found:
                problems.append(f"unrelated '{query}': '{term}' occurs in {found[:5]}")
    return problems


def build() -> list[dict[str, Any]]:
    """The query objects, with their judged entities (id -> score) under `_relevant` (empty: unrelated)."""
    queries: list[dict[str, Any]] = []
    for query in QUERIES:
        metadata: dict[str, Any] = {"kind": query.kind, "picked": query.picked}
        if query.arguments:
            metadata["arguments"] = dict(query.arguments)
        relevant = {query.picked: 2, **dict.fromkeys(query.also, 1)}
        queries.append({"text": query.text, "metadata": metadata, "_relevant": relevant})
    for text, _ in UNRELATED:
        queries.append({"text": text, "metadata": {"kind": "unrelated", "picked": None}, "_relevant": {}})
    for number, entry in enumerate(queries, start=1):
        entry["_id"] = f"s{number}"
    return queries


def summary(queries: list[dict[str, Any]], entities: dict[str, dict[str, Any]], index: Index) -> dict[str, Any]:
    judged = [q for q in queries if q["_relevant"]]
    overlap: dict[str, list[float]] = {}
    all_stems: dict[str, list[bool]] = {}
    for q in judged:
        kind, picked = q["metadata"]["kind"], q["metadata"]["picked"]
        mine = words(q["text"])
        shared = mine & words(index.content[picked])
        overlap.setdefault(kind, []).append(len(shared) / len(mine) if mine else 0.0)
        if kind != "syntax":  # could simple mode (every word required) find the picked entity at all?
            all_stems.setdefault(kind, []).append(index.stems(q["text"]) <= set(index.stream[picked]))
    return {
        "entities": len(entities),
        "queries": len(queries),
        "by_kind": dict(Counter(q["metadata"]["kind"] for q in queries)),
        "picked_by_type": dict(Counter(entities[q["metadata"]["picked"]]["entity_type"] for q in judged)),
        "with_arguments": dict(
            Counter(k for q in judged for k in q["metadata"].get("arguments", {}) if k != "match_mode")
        ),
        "qrels": sum(len(q["_relevant"]) for q in queries),
        "qrels_score_1": sum(1 for q in queries for score in q["_relevant"].values() if score == 1),
        "queries_with_more_than_one_relevant": sum(len(q["_relevant"]) > 1 for q in queries),
        "share_of_query_words_in_picked_entity": {k: round(sum(v) / len(v), 2) for k, v in overlap.items()},
        "every_query_stem_in_picked_entity": {k: f"{sum(v)} of {len(v)}" for k, v in all_stems.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=Path, default=DEFAULT_ENTITIES)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    entities = load_entities(args.entities)
    index = Index(entities)
    problems = check(entities, index)
    if problems:
        sys.exit("the judged set is not consistent:\n  " + "\n  ".join(problems))
    queries = build()
    qrels = {q["_id"]: q["_relevant"] for q in queries if q["_relevant"]}
    write_judged_queries(args.out, queries, qrels)
    print(json.dumps(summary(queries, entities, index), indent=1))


if __name__ == "__main__":
    main()
