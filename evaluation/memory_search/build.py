"""Build the judged query set for `memory_search` (BEIR layout: queries.jsonl, qrels/test.tsv).

Each query below was written by hand, after reading one memory of the bundled sample collection
samples/memories/memories.jsonl (231 memories of an agent working on "Ledgerly", an invoicing SaaS), to find
that memory. Kinds: "paraphrase" says the need in an agent's or developer's words, avoiding the memory's own
words; "keyword" is what one types to look something up: an error string, a config or tool name;
"question" is a plain question the memory answers. "unrelated" queries are topics no memory covers: they have
no relevant memory and no qrels lines, and the tool should return nothing for them.

The memory a query was written for has score 2. Other memories that answer the query as well, found with a
word search over the file and by reading them, have score 1. Only memory keys are written, never text.

    .venv/bin/python evaluation/memory_search/build.py
    .venv/bin/python evaluation/memory_search/build.py --memories samples/memories/memories.jsonl
"""

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Literal

import yaml

from haygate.evaluation.datasets import write_judged_queries

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
DEFAULT_MEMORIES = PROJECT / "samples" / "memories" / "memories.jsonl"
TOOLS_FILE = PROJECT / "configs" / "tools" / "memories.yaml"
TOOL = "memory_search"
TENANT_FIELDS = ("project_id", "project", "tenant", "org_id")  # a record with one of these is tenant data

Kind = Literal["paraphrase", "keyword", "question"]
KINDS: tuple[Kind, ...] = ("paraphrase", "keyword", "question")

# (picked memory key, kind, query, other memories that answer the query as well: score 1).
QUERIES: list[tuple[str, Kind, str, tuple[str, ...]]] = [
    # keyword: error strings, config and tool names
    (
        "arch-decision-celery-redis-broker",
        "keyword",
        "celery broker",
        # the overview and the Redis database map name the broker; the cutover note names today's instance
        ("redis-usage-map", "redis-broker-cutover-done", "project-overview-ledgerly"),
    ),
    (
        "bug-stripe-signature-raw-body",
        "keyword",
        "SignatureVerificationError No signatures found matching the expected signature for payload",
        (),
    ),
    ("incident-2026-03-redis-oom", "keyword", "OOM command not allowed when used memory > 'maxmemory'", ()),
    (
        "bug-asyncpg-prepared-statement-pgbouncer",
        "keyword",
        'prepared statement "__asyncpg_stmt_1a__" already exists',
        (),
    ),
    (
        "migration-create-index-concurrently",
        "keyword",
        "CREATE INDEX CONCURRENTLY cannot run inside a transaction block",
        (),
    ),
    ("redis-lua-script-noscript", "keyword", "redis NoScriptError No matching script", ()),
    ("redis-socket-timeout-config", "keyword", "redis TimeoutError Timeout reading from socket", ()),
    ("bug-org-timezone-tzdata", "keyword", "ZoneInfoNotFoundError US/Pacific-New", ()),
    ("testing-time-machine-over-freezegun", "keyword", "freezegun", ()),
    ("incident-2026-07-gcs-signed-url-expiry", "keyword", "GCS ExpiredToken signed URL", ()),
    ("feature-einvoicing-zugferd", "keyword", "ZUGFeRD Factur-X PDF/A-3", ()),
    (
        "bug-alembic-multiple-heads-ci",
        "keyword",
        "Multiple head revisions are present for given argument 'head'",
        ("command-alembic-heads-merge",),  # how to merge the heads
    ),
    # question
    (
        "arch-decision-celery-redis-broker",
        "question",
        "which broker do the celery workers use",
        ("redis-usage-map", "redis-broker-cutover-done", "project-overview-ledgerly"),
    ),
    ("convention-money-as-integer-cents", "question", "how should amounts of money be stored in the database", ()),
    ("convention-uuid7-primary-keys", "question", "what kind of ids do our tables use as primary keys", ()),
    (
        "arch-decision-tenant-id-column",
        "question",
        "how is one customer org's data kept apart from another's in postgres",
        ("db-rls-policies",),  # the row-level security policy itself
    ),
    (
        "user-pref-ask-before-prod",
        "question",
        "am I allowed to run kubectl against the production cluster",
        ("command-port-forward-staging-db",),  # production access only after the user confirms
    ),
    ("invoice-pdf-weasyprint-vs-chromium", "question", "why not render invoices with a headless browser", ()),
    (
        "auth-session-cookies-redis",
        "question",
        "why do we use a session cookie instead of JWTs for browser login",
        (),
    ),
    ("deploy-rollback-procedure", "question", "how do I roll back a bad release in production", ()),
    (
        "db-index-payments-invoice-id",
        "question",
        "which foreign keys are missing an index",
        ("migration-payments-table",),  # the migration that left payments.invoice_id without one
    ),
    (
        "k8s-celery-keda-scaling",
        "question",
        "how does the pdf worker deployment scale up when its queue grows",
        (),
    ),
    ("rate-limiter-redis-sliding-window", "question", "what are the API request limits per key", ()),
    # paraphrase
    (
        "celery-visibility-timeout-duplicate-pdfs",
        "paraphrase",
        "a long end-of-month job was executed by two workers and people got duplicate emails",
        ("arch-decision-celery-redis-broker",),  # the known caveat: long unacked tasks are redelivered
    ),
    (
        "invoice-pdf-font-embedding-bug",
        "paraphrase",
        "accented and Asian letters come out as blank squares in generated invoices",
        (),
    ),
    ("invoice-pdf-render-perf", "paraphrase", "producing a single invoice document took almost three seconds", ()),
    (
        "bug-reminder-dst-double-send",
        "paraphrase",
        "dunning emails went out two times right after the spring clock change",
        (),
    ),
    (
        "incident-2026-04-launch-db-connections",
        "paraphrase",
        "on go-live day the API kept restarting because postgres refused new clients",
        (),
    ),
    ("invoice-number-sequence-design", "paraphrase", "keep invoice numbering free of holes within a year", ()),
    (
        "incident-2026-02-migration-locked-invoices",
        "paraphrase",
        "a schema change froze every read of the billing documents table for almost a minute",
        (),
    ),
    (
        "bug-alembic-autogenerate-enum",
        "paraphrase",
        "alembic generated an empty upgrade when I added a new invoice state",
        # autogenerate misses enum changes; the hand-written migration for that value
        ("command-alembic-upgrade", "migration-add-uncollectible-status"),
    ),
    (
        "bug-migration-job-never-completes",
        "paraphrase",
        "helm upgrade hangs because the database upgrade pod never finishes",
        ("cloud-sql-proxy-native-sidecar",),  # native sidecars do not keep Jobs alive
    ),
    (
        "bug-session-expiry-redis-timeout",
        "paraphrase",
        "people get kicked out after half an hour without activity",
        (),
    ),
    (
        "bug-rls-missing-org-setting",
        "paraphrase",
        "background job cannot find a row that definitely exists in the database",
        (),
    ),
    (
        "incident-2026-08-redis-failover",
        "paraphrase",
        "workers went silent after the managed cache had a maintenance switchover",
        ("dependency-celery-5-4-upgrade",),  # the upgrade that fixed reconnection
    ),
    (
        "bug-celery-result-backend-timeout",
        "paraphrase",
        "asking for an old job's outcome blocks for sixty seconds and then fails with a gateway error",
        (),
    ),
    (
        "invoice-pdf-worker-memory-leak",
        "paraphrase",
        "the document rendering workers keep growing in RAM until they get killed",
        (),
    ),
    (
        "incident-2026-10-pdf-queue-backlog",
        "paraphrase",
        "on the first of the month tens of thousands of invoices waited hours to be rendered",
        ("perf-month-end-pdf-prerender",),  # how the peak was flattened afterwards
    ),
    ("bug-recurring-month-end", "paraphrase", "a schedule set up on the 31st moves to the 28th and stays there", ()),
    (
        "bug-frontend-date-timezone",
        "paraphrase",
        "customers in California see every due date shifted back by a day",
        (),
    ),
    (
        "search-tenant-tokens",
        "paraphrase",
        "let the browser query the search engine directly without seeing other companies' invoices",
        (),
    ),
    (
        "bug-outbound-webhook-retry-storm",
        "paraphrase",
        "one client's sluggish endpoint held up event deliveries for everyone else",
        (),
    ),
    (
        "redis-migration-plan",
        "paraphrase",
        "move the task queues to a new cache server without losing queued jobs",
        ("redis-broker-cutover-done", "todo-split-redis-instances"),  # the plan carried out, and its outline
    ),
    (
        "user-pref-explain-before-large-refactor",
        "paraphrase",
        "should I check with the user before a big rename across many files",
        (),
    ),
]

# Topics no memory covers: (query, terms that must occur in no memory's key, summary, content or tags).
UNRELATED: list[tuple[str, list[str]]] = [
    ("knitting patterns for socks", ["knitting", "knit", "socks", "sock", "yarn"]),
    ("sourdough starter feeding schedule", ["sourdough", "bread", "flour", "baking"]),
    ("how often to water and repot an orchid", ["orchid", "repot", "houseplant"]),
    ("easy guitar chords for beginners", ["guitar", "chord", "chords"]),
    ("chess openings against the Sicilian defence", ["chess", "sicilian"]),
    ("marathon training plan for a first race", ["marathon", "jogging", "runner"]),
]

STOPWORDS = frozenset(  # left out when counting a query's words that occur in its picked memory
    re.findall(
        r"\w+",
        "a an and are as at be by can do does for from get got has have how i in is it its of on one or our should"
        " that the their them then there they this to up was we what when which why with within without you",
    )
)


def normalize(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS}


def memory_text(memory: dict[str, Any]) -> str:
    return " , ".join([memory["key"], memory["summary"], memory["content"], *memory.get("tags", [])])


def mentions(memory: dict[str, Any], term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", memory_text(memory), re.IGNORECASE) is not None


def load_memories(path: Path) -> dict[str, dict[str, Any]]:
    memories: dict[str, dict[str, Any]] = {}
    with path.open() as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                if record["key"] in memories:
                    sys.exit(f"{path}: key {record['key']} is there twice")
                memories[record["key"]] = record
    return memories


def check_tenant(memories: dict[str, dict[str, Any]]) -> list[str]:
    """The set judges every memory in the file: right only while the tool is not tenant-scoped and no record
    names a tenant. When one of these changes, the set needs a `project` in eval.yaml and a tenant check."""
    problems = []
    tools = {t["name"]: t for t in yaml.safe_load(TOOLS_FILE.read_text())["tools"]}
    if TOOL not in tools:
        problems.append(f"{TOOLS_FILE}: no tool {TOOL}")
    elif tools[TOOL].get("tenant_field"):
        problems.append(f"{TOOL} is tenant-scoped ({tools[TOOL]['tenant_field']}): judge only the tenant's memories")
    tenanted = sorted(key for key, m in memories.items() if any(field in m for field in TENANT_FIELDS))
    if tenanted:
        problems.append(f"{len(tenanted)} memories name a tenant, e.g. {tenanted[:3]}: judge only one tenant's")
    return problems


def check(memories: dict[str, dict[str, Any]]) -> list[str]:
    problems = check_tenant(memories)
    texts = Counter(normalize(query) for _, _, query, _ in QUERIES) + Counter(normalize(q) for q, _ in UNRELATED)
    problems += [f"'{t}' is listed twice" for t, n in texts.items() if n > 1]
    summaries = {normalize(m["summary"]): key for key, m in memories.items()}
    for picked, kind, query, also in QUERIES:
        if kind not in KINDS:
            problems.append(f"'{query}': unknown kind {kind}")
        if not query.strip():
            problems.append(f"{picked}: empty query")
        for key in (picked, *also):
            if key not in memories:
                problems.append(f"'{query}': {key} is no memory key")
        if picked in also:
            problems.append(f"'{query}': {picked} is both picked and also relevant")
        if len(set(also)) != len(also):
            problems.append(f"'{query}': an also-relevant key is listed twice")
        if normalize(query) in summaries:
            problems.append(f"'{query}' is the summary of {summaries[normalize(query)]} verbatim")
        if normalize(query) in {normalize(key) for key in memories}:
            problems.append(f"'{query}' is a memory key verbatim")
    for query, terms in UNRELATED:
        if normalize(query) in summaries:
            problems.append(f"unrelated '{query}' is a memory summary")
        if not terms:
            problems.append(f"unrelated '{query}' lists no terms to check")
        for term in terms:
            found = [key for key, memory in memories.items() if mentions(memory, term)]
            if found:
                problems.append(f"unrelated '{query}': '{term}' occurs in {found[:5]}")
    return problems


def build() -> list[dict[str, Any]]:
    """The query objects, with their judged memories (key -> score) under `_relevant` (empty: unrelated)."""
    queries: list[dict[str, Any]] = []
    for picked, kind, query, also in QUERIES:
        relevant = {picked: 2, **dict.fromkeys(also, 1)}
        queries.append({"text": query, "metadata": {"kind": kind, "picked": picked}, "_relevant": relevant})
    for query, _ in UNRELATED:
        queries.append({"text": query, "metadata": {"kind": "unrelated", "picked": None}, "_relevant": {}})
    for number, entry in enumerate(queries, start=1):
        entry["_id"] = f"m{number}"
    return queries


def summary(queries: list[dict[str, Any]], memories: dict[str, dict[str, Any]]) -> dict[str, Any]:
    judged = [q for q in queries if q["_relevant"]]
    overlap: dict[str, list[float]] = {}
    for q in judged:
        mine = words(q["text"])
        shared = mine & words(memory_text(memories[q["metadata"]["picked"]]))
        overlap.setdefault(q["metadata"]["kind"], []).append(len(shared) / len(mine) if mine else 0.0)
    return {
        "memories": len(memories),
        "queries": len(queries),
        "by_kind": dict(Counter(q["metadata"]["kind"] for q in queries)),
        "picked_memories": len({q["metadata"]["picked"] for q in judged}),
        "qrels": sum(len(q["_relevant"]) for q in queries),
        "qrels_score_1": sum(1 for q in queries for score in q["_relevant"].values() if score == 1),
        "queries_with_more_than_one_relevant": sum(len(q["_relevant"]) > 1 for q in queries),
        "share_of_query_words_in_picked_memory": {k: round(sum(v) / len(v), 2) for k, v in overlap.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=Path, default=DEFAULT_MEMORIES)
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    memories = load_memories(args.memories)
    problems = check(memories)
    if problems:
        sys.exit("the judged set is not consistent:\n  " + "\n  ".join(problems))
    queries = build()
    qrels = {q["_id"]: q["_relevant"] for q in queries if q["_relevant"]}
    write_judged_queries(args.out, queries, qrels)
    print(json.dumps(summary(queries, memories), indent=1))


if __name__ == "__main__":
    main()
