"""Build the judged query set for `memory_fulltext_search` (BEIR layout: queries.jsonl, qrels/test.tsv).

Each query below was written by hand, after reading one memory of the bundled sample collection
samples/memories/memories.jsonl (231 memories of an agent working on "Ledgerly", an invoicing SaaS), to find
that memory with a keyword search box. Kinds:
- "keyword": what one types into a full-text search: an error string, an identifier or config name, or two to
  four of the memory's own words. Every word stem of it is in the picked memory's indexed text.
- "variant": the memory's words in another inflection ("rotating" for "rotated"), so only stemming finds it.
  Every stem is in the picked memory, but at least one word is not there as written.
- "paraphrase": the need in the user's own words, not the memory's. At least one stem is missing from the
  picked memory, so a search that requires every word (the default, operator AND) cannot find it. That gap
  is what they measure.
"unrelated" queries are topics no memory covers: no relevant memory, no qrels lines; the tool should return
nothing for them. A few queries add `operator: OR` (metadata.arguments), as a user listing alternatives would.

The memory a query was written for has score 2. Other memories that answer the query as well, found with a
word search over the file and by reading them, have score 1. Only memory keys are written, never text.

The helpers that read the memories and count words come from ../memory_search/build.py (imported, not copied),
so both sets count the same way.

    .venv/bin/python evaluation/memory_fulltext_search/build.py
    .venv/bin/python evaluation/memory_fulltext_search/build.py --memories samples/memories/memories.jsonl
"""

import argparse
import importlib.util
import json
import re
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import yaml

from haygate.evaluation.datasets import write_judged_queries
from haygate.text.bm25 import Bm25Tokenizer
from haygate.text.normalise import WORD
from haygate.text.templates import render_line

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
DEFAULT_MEMORIES = PROJECT / "samples" / "memories" / "memories.jsonl"
TOOLS_FILE = PROJECT / "configs" / "tools" / "memories.yaml"
COLLECTION_FILE = PROJECT / "configs" / "collections" / "memories.yaml"
PIPELINE_FILE = PROJECT / "pipelines" / "tools" / "memory_fulltext_search.yaml"
TOOL = "memory_fulltext_search"
QUERY_PARAMETER = "keywords"  # the tool's query parameter; eval.yaml puts "{query}" there


def _sibling(name: str) -> ModuleType:
    """The build module of a sibling judged set, loaded from its path (evaluation/ is not a package)."""
    path = HERE.parent / name / "build.py"
    spec = importlib.util.spec_from_file_location(f"judged_{name}_build", path)
    if spec is None or spec.loader is None:
        sys.exit(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    writes, sys.dont_write_bytecode = sys.dont_write_bytecode, True  # leave no __pycache__ in the sibling's folder
    try:
        spec.loader.exec_module(module)
    finally:
        sys.dont_write_bytecode = writes
    return module


memory_search = _sibling("memory_search")  # load_memories, normalize, words, memory_text, mentions, TENANT_FIELDS

Kind = Literal["keyword", "variant", "paraphrase"]
KINDS: tuple[Kind, ...] = ("keyword", "variant", "paraphrase")
OR = {"operator": "OR"}

# (picked memory key, kind, query, other memories that answer the query as well: score 1, own arguments).
QUERIES: list[tuple[str, Kind, str, tuple[str, ...], dict[str, Any]]] = [
    # keyword: error strings, identifiers, config names, a few of the memory's words
    (
        "incident-2026-04-launch-db-connections",
        "keyword",
        "remaining connection slots are reserved for non-replication superuser connections",
        (),
        {},
    ),
    ("migration-citext-extension", "keyword", "permission denied to create extension citext", (), {}),
    # postgres-statement-timeout-roles has the same words but is about statement_timeout, not lock_timeout
    ("migration-lock-timeout-env", "keyword", "canceling statement due to lock timeout", (), {}),
    ("bug-migration-downgrade-enum", "keyword", "enum label partially_refunded already exists", (), {}),
    (
        "bug-migration-job-never-completes",
        "keyword",
        "job failed: DeadlineExceeded",
        ("cloud-sql-proxy-native-sidecar",),  # the fix: a native sidecar does not keep the Job alive
        {},
    ),
    ("arch-decision-sqlalchemy-async", "keyword", "MissingGreenlet", (), {}),
    ("xero-token-refresh-race", "keyword", "invalid_grant xero", (), {}),
    ("invoice-pdf-worker-memory-leak", "keyword", "worker_max_tasks_per_child", (), {}),
    (
        "dependency-celery-5-4-upgrade",
        "keyword",
        "broker_connection_retry_on_startup",
        ("incident-2026-08-redis-failover",),  # the failover whose fix set it
        {},
    ),
    ("perf-dashboard-materialized-view", "keyword", "REFRESH MATERIALIZED VIEW CONCURRENTLY", (), {}),
    (
        "tax-rates-table-design",
        "keyword",
        "btree_gist exclusion constraint",
        ("migration-tax-rates-exclusion",),  # the migration that creates the constraint
        {},
    ),
    ("invoice-pdf-snapshot-tests", "keyword", "pdftoppm pixelmatch", (), {}),
    ("perf-gin-index-fastupdate", "keyword", "fastupdate gin_pending_list_limit", (), {}),
    ("secrets-management", "keyword", "stakater reloader", (), {}),
    # the launch readiness meeting and the retro only say a drill is missing or due
    ("backup-restore-drill", "keyword", "restore drill", (), {}),
    ("perf-explain-analyze-reports", "keyword", "work_mem reports role", (), {}),
    ("perf-line-items-bulk-insert", "keyword", "insertmanyvalues", (), {}),
    (
        "pgbouncer-transaction-mode",
        "keyword",
        "pgbouncer pool size",
        # the load test found PgBouncer's default_pool_size to be the bottleneck; the launch memories are
        # about SQLAlchemy's pool_size, not PgBouncer's
        ("perf-locust-baseline",),
        {},
    ),
    (
        "todo-peppol-access-point",
        "keyword",
        "Peppol Storecove ecosio",
        ("meeting-2026-11-planning-2027",),  # decided: Peppol through an access point provider
        OR,
    ),
    # variant: the memory's words in another form; stemming has to find them
    ("stripe-webhook-dedup", "variant", "deduplicating stripe events", (), {}),
    # migration-0001-initial-schema and migration-portal-tokens only mention the squash
    ("migration-squash-baseline-2026-09", "variant", "squashing migrations baseline", (), {}),
    # auth-oauth-google says why rotation matters, not that or when it happens
    ("bug-session-fixation-login", "variant", "rotating session id after login", (), {}),
    ("auth-api-keys-hashing", "variant", "throttled last_used_at updates", (), {}),
    ("migration-audit-log-partitioning", "variant", "partitioned audit logs", (), {}),
    (
        "feature-webhooks-outbound",
        "variant",
        "retried webhook deliveries",
        ("bug-outbound-webhook-retry-storm",),  # how the retries snowballed, and the circuit breaker since
        {},
    ),
    ("cache-customer-list-redis", "variant", "invalidating cached customer lists", (), {}),
    (
        "email-invoice-attachment-size",
        "variant",
        "subset font embedding",
        ("invoice-pdf-font-embedding-bug",),  # whole CJK fonts embedded, "fixed later by subsetting"
        {},
    ),
    ("bug-org-timezone-tzdata", "variant", "normalizing deprecated timezone names", (), {}),
    ("bug-search-stale-after-void", "variant", "voiding invoices stale search", (), {}),
    # paraphrase: the user's words, not the memory's
    (
        "incident-2026-05-stripe-webhook-backlog",
        "paraphrase",
        "card payments went through but invoices still showed as owed for hours",
        (),
        {},
    ),
    (
        "incident-2026-06-duplicate-invoice-numbers",
        "paraphrase",
        "two different bills ended up with the same number",
        (),
        {},
    ),
    ("frontend-bundle-size", "paraphrase", "the single-page app downloads too much javascript on first visit", (), {}),
    (
        "bug-feature-flag-stale-cache",
        "paraphrase",
        "turning a flag off took ages to reach the background workers",
        (),
        {},
    ),
    (
        "dependency-python-3-13-trial",
        "paraphrase",
        "staying on the older python release because some packages have no prebuilt binaries",
        (),
        OR,
    ),
    (
        "feature-multi-currency-reports",
        "paraphrase",
        "accountants want totals in one currency using the central bank daily numbers",
        ("currency-exchange-rates-ecb",),  # where the daily ECB rates come from
        OR,
    ),
    (
        "perf-csv-export-streaming",
        "paraphrase",
        "huge spreadsheet download crashed the server by running out of memory",
        (),
        {},
    ),
    (
        "redbeat-lock-timeout-double-beat",
        "paraphrase",
        "two schedulers both fired the same jobs during a deploy",
        (),
        {},
    ),
    (
        "convention-expand-contract-migrations",
        "paraphrase",
        "change a column name without downtime while old pods still run",
        ("migration-rename-customer-name",),  # the rename done that way, release by release
        {},
    ),
    (
        "meeting-2026-10-db-capacity",
        "paraphrase",
        "how quickly is the production database disk filling up each month",
        (),
        OR,
    ),
    (
        "auth-oauth-google",
        "paraphrase",
        "new staff signing in with their employer's Gmail get added to the team automatically",
        (),
        {},
    ),
    ("k8s-readiness-probe-timeout", "paraphrase", "pods drop out of the load balancer when the CPU is busy", (), {}),
    (
        "bug-stripe-partial-refund-total",
        "paraphrase",
        "giving a client some money back a second time left their bill in the minus",
        (),
        {},
    ),
    ("postmortem-template", "paraphrase", "what should a write-up after an outage contain", (), {}),
    # the shorthand a user types; the memory spells out HorizontalPodAutoscaler
    ("k8s-hpa-api", "paraphrase", "HPA max replicas", (), {}),
]

# Topics no memory covers: (query, terms that must occur in no memory's key, summary, content or tags,
# own arguments). Besides, no stem of the query may be in any memory's indexed text.
UNRELATED: list[tuple[str, list[str], dict[str, Any]]] = [
    ("volcano lava eruption", ["volcano", "volcanic", "lava", "eruption", "magma"], {}),
    ("tomato seedlings greenhouse", ["tomato", "tomatoes", "seedling", "seedlings", "greenhouse"], {}),
    ("saxophone reed", ["saxophone", "reed", "reeds", "clarinet"], {}),
    ("penguin colony antarctica", ["penguin", "penguins", "antarctica", "antarctic", "colony"], {}),
    ("wedding cake frosting", ["wedding", "cake", "frosting", "icing"], {}),
    ("telescope eyepiece astronomy", ["telescope", "eyepiece", "astronomy", "astronomer"], OR),
]


class Index:
    """Each memory's text as the collection indexes it (`content_template`, the only text-indexed field) and
    its stems, by the text index's own analysis: English Snowball stemming, stop words, ASCII folding (the
    tokenizer FullTextQuery uses)."""

    def __init__(self, memories: dict[str, dict[str, Any]]) -> None:
        collection = yaml.safe_load(COLLECTION_FILE.read_text())
        self.tokenizer = Bm25Tokenizer("english", ascii_folding=True)
        template = collection["record"]["content_template"]
        self.text = {key: render_line(template, memory) for key, memory in memories.items()}
        self.stems = {key: self.tokenizer.token_ids(text) for key, text in self.text.items()}

    def query_stems(self, query: str) -> set[int]:
        return self.tokenizer.token_ids(query)

    def verbatim(self, key: str, word: str) -> bool:
        """The word occurs as written (any case) in the memory's indexed text."""
        return re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", self.text[key], re.IGNORECASE) is not None


def check_setup(memories: dict[str, dict[str, Any]]) -> list[str]:
    """What the judgments assume about the tool: the ids it returns are memory keys, its query parameter and
    operators are the ones used here, and it is not tenant-scoped (the whole file is judged)."""
    problems = []
    collection = yaml.safe_load(COLLECTION_FILE.read_text())
    if collection["record"].get("id") != "key":
        problems.append(f"{COLLECTION_FILE}: the record id is not `key`; qrels hold memory keys")
    if collection.get("text_index") != ["content"]:
        problems.append(f"{COLLECTION_FILE}: text_index is not [content]: the stem checks read the wrong text")
    fields = yaml.safe_load(PIPELINE_FILE.read_text())["components"]["formatter"]["init_parameters"]["fields"]
    if fields.get("key") != "meta.record_id":
        problems.append(f"{PIPELINE_FILE}: results' `key` is {fields.get('key')}, not the record id")
    tools = {t["name"]: t for t in yaml.safe_load(TOOLS_FILE.read_text())["tools"]}
    tool = tools.get(TOOL)
    if tool is None:
        return [*problems, f"{TOOLS_FILE}: no tool {TOOL}"]
    if tool.get("tenant_field"):
        problems.append(f"{TOOL} is tenant-scoped ({tool['tenant_field']}): judge only the tenant's memories")
    if QUERY_PARAMETER not in tool["parameters"]:
        problems.append(f"{TOOL} has no parameter {QUERY_PARAMETER}")
    operators = tool["parameters"].get("operator", {}).get("enum", [])
    for query, arguments in [(q[2], q[4]) for q in QUERIES] + [(u[0], u[2]) for u in UNRELATED]:
        if set(arguments) - {"operator"}:
            problems.append(f"'{query}': arguments other than operator: {sorted(set(arguments) - {'operator'})}")
        if "operator" in arguments and arguments["operator"] not in operators:
            problems.append(f"'{query}': operator {arguments['operator']} is not one of {operators}")
    tenanted = sorted(k for k, m in memories.items() if any(f in m for f in memory_search.TENANT_FIELDS))
    if tenanted:
        problems.append(f"{len(tenanted)} memories name a tenant, e.g. {tenanted[:3]}: judge only one tenant's")
    return problems


def check(memories: dict[str, dict[str, Any]], index: Index) -> list[str]:
    normalize = memory_search.normalize
    problems = check_setup(memories)
    texts = Counter(normalize(q[2]) for q in QUERIES) + Counter(normalize(u[0]) for u in UNRELATED)
    problems += [f"'{t}' is listed twice" for t, n in texts.items() if n > 1]
    summaries = {normalize(m["summary"]): key for key, m in memories.items()}
    keys = {normalize(key): key for key in memories}
    for picked, kind, query, also, _ in QUERIES:
        if kind not in KINDS:
            problems.append(f"'{query}': unknown kind {kind}")
        for key in (picked, *also):
            if key not in memories:
                problems.append(f"'{query}': {key} is no memory key")
        if picked in also or len(set(also)) != len(also):
            problems.append(f"'{query}': a judged key is listed twice")
        if normalize(query) in summaries:
            problems.append(f"'{query}' is the summary of {summaries[normalize(query)]} verbatim")
        if normalize(query) in keys:
            problems.append(f"'{query}' is the memory key {keys[normalize(query)]} verbatim")
        stems = index.query_stems(query)
        if not stems:
            problems.append(f"'{query}' has only stop words: the tool rejects it")
        if picked not in memories:
            continue
        missing = stems - index.stems[picked]
        if kind in ("keyword", "variant") and missing:
            problems.append(f"{kind} '{query}': {len(missing)} of its stems are not in {picked}")
        if kind == "variant" and all(index.verbatim(picked, w) for w in WORD.findall(query)):
            problems.append(f"variant '{query}': every word is in {picked} as written; no stemming needed")
        if kind == "paraphrase" and not missing:
            problems.append(f"paraphrase '{query}': every stem is in {picked}; it is a keyword query")
    for query, terms, _ in UNRELATED:
        if normalize(query) in summaries or normalize(query) in keys:
            problems.append(f"unrelated '{query}' is a memory summary or key")
        if not terms:
            problems.append(f"unrelated '{query}' lists no terms to check")
        for term in terms:
            found = [key for key, memory in memories.items() if memory_search.mentions(memory, term)]
            if found:
                problems.append(f"unrelated '{query}': '{term}' occurs in {found[:5]}")
        stems = index.query_stems(query)
        if not stems:
            problems.append(f"unrelated '{query}' has only stop words")
        found = [key for key, memory_stems in index.stems.items() if stems & memory_stems]
        if found:
            problems.append(f"unrelated '{query}': a stem of it is indexed in {found[:5]}")
    return problems


def build() -> list[dict[str, Any]]:
    """The query objects, with their judged memories (key -> score) under `_relevant` (empty: unrelated)."""
    queries: list[dict[str, Any]] = []
    for picked, kind, query, also, arguments in QUERIES:
        metadata: dict[str, Any] = {"kind": kind, "picked": picked}
        if arguments:
            metadata["arguments"] = arguments
        queries.append({"text": query, "metadata": metadata, "_relevant": {picked: 2, **dict.fromkeys(also, 1)}})
    for query, _, arguments in UNRELATED:
        metadata = {"kind": "unrelated", "picked": None}
        if arguments:
            metadata["arguments"] = arguments
        queries.append({"text": query, "metadata": metadata, "_relevant": {}})
    for number, entry in enumerate(queries, start=1):
        entry["_id"] = f"f{number}"
    return queries


def summary(queries: list[dict[str, Any]], memories: dict[str, dict[str, Any]], index: Index) -> dict[str, Any]:
    judged = [q for q in queries if q["_relevant"]]
    word_share: dict[str, list[float]] = {}
    stem_share: dict[str, list[float]] = {}
    every_stem: dict[str, list[bool]] = {}
    for q in judged:
        kind, picked = q["metadata"]["kind"], q["metadata"]["picked"]
        mine = memory_search.words(q["text"])
        shared = mine & memory_search.words(memory_search.memory_text(memories[picked]))
        word_share.setdefault(kind, []).append(len(shared) / len(mine) if mine else 0.0)
        stems = index.query_stems(q["text"])
        stem_share.setdefault(kind, []).append(len(stems & index.stems[picked]) / len(stems))
        every_stem.setdefault(kind, []).append(stems <= index.stems[picked])
    operators = Counter(
        (q["metadata"]["kind"], (q["metadata"].get("arguments") or {}).get("operator", "AND")) for q in queries
    )
    return {
        "memories": len(memories),
        "queries": len(queries),
        "by_kind": dict(Counter(q["metadata"]["kind"] for q in queries)),
        "by_kind_and_operator": {f"{kind} {op}": n for (kind, op), n in sorted(operators.items())},
        "paraphrase_share": round(sum(q["metadata"]["kind"] == "paraphrase" for q in queries) / len(queries), 2),
        "picked_memories": len({q["metadata"]["picked"] for q in judged}),
        "qrels": sum(len(q["_relevant"]) for q in queries),
        "qrels_score_1": sum(1 for q in queries for score in q["_relevant"].values() if score == 1),
        "queries_with_more_than_one_relevant": sum(len(q["_relevant"]) > 1 for q in queries),
        # memory_search's measure: words (no stopwords) found in the picked memory's key, summary, content, tags
        "share_of_query_words_in_picked_memory": {k: round(sum(v) / len(v), 2) for k, v in word_share.items()},
        # what a keyword search sees: stems found in the picked memory's indexed text (summary and content)
        "share_of_query_stems_in_picked_indexed_text": {k: round(sum(v) / len(v), 2) for k, v in stem_share.items()},
        "every_query_stem_in_picked_memory": {k: f"{sum(v)} of {len(v)}" for k, v in every_stem.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=Path, default=DEFAULT_MEMORIES)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    memories = memory_search.load_memories(args.memories)
    index = Index(memories)
    problems = check(memories, index)
    if problems:
        sys.exit("the judged set is not consistent:\n  " + "\n  ".join(problems))
    queries = build()
    qrels = {q["_id"]: q["_relevant"] for q in queries if q["_relevant"]}
    write_judged_queries(args.out, queries, qrels)
    print(json.dumps(summary(queries, memories, index), indent=1))


if __name__ == "__main__":
    main()
