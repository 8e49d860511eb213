"""Build the judged query sets of `get_decisions`, `get_patterns` and `get_warnings` (BEIR layout).

One script for the three sets, because the three tools are one declaration pattern over one pipeline
(configs/tools/knowledge.yaml, pipelines/tools/get_extractions.yaml): each serves one extraction type of the
sample collection samples/knowledge/extractions.jsonl (83 extractions of two projects, `default` and
`orbit-agents`), tenant-scoped by `meta.project_id`. The sets judge the `default` project's extractions only,
the tenant the server serves unless HAYGATE_PROJECT_ID says otherwise; each set's eval.yaml names it.

Each query below was written by hand, after reading one extraction of the tool's type, to find that
extraction. Kinds: "paraphrase" says the need in an AI engineer's words, avoiding the extraction's own words;
"keyword" is what one types to look something up: a method, a parameter or a library name; "question" is a
plain question the extraction answers. Some queries also send a `topic` (metadata.arguments), as a caller
narrowing to one topic tag would.

Queries with no qrels lines should come back empty: "unrelated" ones are about topics no extraction covers,
"other_project" ones are answered only by an extraction of the other project, which the tool never shows.

The extraction a query was written for has score 2. Other extractions of the same project and type that
answer the query as well, found by a word search over the file and by reading them, have score 1. With a
`topic`, only extractions carrying that topic are judged: the tool cannot return the others. Only extraction
ids are written, never text; the ids are the records' `id`, which the tool returns as each result's `id`
(the formatter maps it from meta.record_id).

    .venv/bin/python evaluation/get_decisions/build.py
    .venv/bin/python evaluation/get_decisions/build.py --extractions samples/knowledge/extractions.jsonl
"""

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from haygate.evaluation.datasets import write_judged_queries
from haygate.ingest.mapping import to_document
from haygate.ingest.schema import load_schema

HERE = Path(__file__).resolve().parent
EVALUATION = HERE.parent
PROJECT_ROOT = HERE.parents[1]
DEFAULT_EXTRACTIONS = PROJECT_ROOT / "samples" / "knowledge" / "extractions.jsonl"
TOOLS_FILE = PROJECT_ROOT / "configs" / "tools" / "knowledge.yaml"
COLLECTION_FILE = PROJECT_ROOT / "configs" / "collections" / "knowledge.yaml"
TENANT_FIELD = "meta.project_id"
PROJECT = "default"  # the tenant judged; every set's eval.yaml must name it as `project`

Kind = Literal["paraphrase", "keyword", "question"]
KINDS: tuple[Kind, ...] = ("paraphrase", "keyword", "question")
MIN_JUDGED = 12
UNRELATED_COUNT = range(4, 7)


@dataclass(frozen=True)
class Q:
    """A judged query: the extraction it was written for (score 2), and those that answer it as well (1)."""

    picked: str
    kind: Kind
    text: str
    also: tuple[str, ...] = ()
    topic: str | None = None


@dataclass(frozen=True)
class Elsewhere:
    """A query answered only by `answer`, an extraction of another project: the tool must return nothing.
    None of `terms` may occur in the judged project's extractions of the tool's type; each occurs in `answer`."""

    text: str
    answer: str
    terms: tuple[str, ...]


@dataclass(frozen=True)
class Unrelated:
    """A topic no extraction covers: none of `terms` may occur anywhere in the file (any project, any field).
    `ai` marks a machine-learning topic the knowledge base lacks: close to the tools' field, so a harder test."""

    text: str
    terms: tuple[str, ...]
    ai: bool = False


@dataclass(frozen=True)
class JudgedSet:
    tool: str
    extraction_type: str
    prefix: str  # query ids are <prefix>1, <prefix>2, ...
    queries: tuple[Q, ...]
    elsewhere: tuple[Elsewhere, ...]
    unrelated: tuple[Unrelated, ...]


DECISIONS = JudgedSet(
    tool="get_decisions",
    extraction_type="decision",
    prefix="d",
    queries=(
        # chunking
        Q("ext-dec-001", "paraphrase", "do my document splits need to share some text at the edges, and how much"),
        Q("ext-dec-001", "keyword", "chunk overlap tokens", topic="chunking"),
        Q("ext-dec-002", "question", "how many tokens should each chunk have"),
        Q("ext-dec-002", "paraphrase", "how large should the pieces I embed be: a paragraph, a page, a whole section?"),
        Q("ext-dec-002", "keyword", "chunk size and overlap", ("ext-dec-001",), topic="chunking"),
        # embeddings
        Q(
            "ext-dec-003",
            "paraphrase",
            "which model should turn our documents into vectors, a paid service or something we run ourselves",
        ),
        Q("ext-dec-003", "keyword", "MTEB leaderboard", topic="embeddings"),
        Q(
            "ext-dec-012",
            "paraphrase",
            "generic text encoders don't understand our company's abbreviations, is it worth adapting one to our data",
        ),
        # search
        Q(
            "ext-dec-004",
            "paraphrase",
            "vector search misses exact part numbers and ticket IDs, should I add keyword matching",
        ),
        Q("ext-dec-004", "keyword", "BM25 vs dense vs hybrid"),
        Q("ext-dec-006", "paraphrase", "our vector index eats too much RAM, can we store the embeddings in fewer bits"),
        Q("ext-dec-006", "keyword", "int8 scalar vs binary quantization"),
        Q("ext-dec-007", "keyword", "hnsw_ef ef_construct m", topic="vector-search"),
        Q(
            "ext-dec-007",
            "question",
            "how do I make approximate nearest neighbour search more accurate without making it slow",
        ),
        Q(
            "ext-dec-016",
            "paraphrase",
            "restrict results to one customer inside the similarity search, or drop other customers' hits afterwards?",
        ),
        Q("ext-dec-016", "keyword", "qdrant payload filter vs post-filtering", topic="vector-search"),
        # reranking and the prompt
        Q("ext-dec-005", "paraphrase", "is it worth rescoring the first-pass hits with a heavier model, and how many"),
        Q("ext-dec-005", "keyword", "cross-encoder reranker candidates", topic="reranking"),
        Q(
            "ext-dec-008",
            "paraphrase",
            "does it matter where the best passages sit in the LLM input, and how many should I pass",
        ),
        Q(
            "ext-dec-008",
            "question",
            "how many retrieved chunks should I put in the prompt",
            ("ext-dec-005",),  # its recommendation: rerank to the top 5
        ),
        Q("ext-dec-008", "question", "should the most relevant documents go first in the prompt", topic="prompting"),
        # fine-tuning
        Q(
            "ext-dec-009",
            "paraphrase",
            "answers are poor: train the LLM on our data, or work on the search step first?",
        ),
        Q(
            "ext-dec-010",
            "paraphrase",
            "we can't afford to update every weight of a 7B model on one GPU, what are the cheaper ways to train it",
        ),
        Q("ext-dec-010", "keyword", "LoRA QLoRA full fine-tuning", topic="fine-tuning"),
        # evaluation
        Q("ext-dec-011", "question", "how do I measure whether my RAG system gives good answers"),
        Q("ext-dec-011", "keyword", "RAGAS faithfulness answer relevance"),
        # caching
        Q("ext-dec-013", "paraphrase", "stop paying for the same LLM call twice when users ask the same thing again"),
        Q("ext-dec-013", "keyword", "semantic cache vs exact-match cache", topic="caching"),
        # no answer in the corpus
        Q(
            "ext-dec-014",
            "paraphrase",
            "what should the assistant do when our documents simply don't cover the question",
        ),
        Q(
            "ext-dec-014",
            "question",
            "how do I stop the bot from making up an answer when retrieval finds nothing",
            topic="hallucination",
        ),
        # query transformation
        Q("ext-dec-015", "keyword", "HyDE query rewriting"),
        Q(
            "ext-dec-015",
            "paraphrase",
            "follow-up chat messages that refer to earlier turns pull nothing useful from the vector store",
        ),
    ),
    elsewhere=(
        Elsewhere(
            "should the agent send emails without a person signing off first", "ext-dec-020", ("agent", "approval")
        ),
        Elsewhere("one agent with tools or several cooperating agents", "ext-dec-017", ("agent", "agents")),
        Elsewhere("how to sandbox code the model writes before running it", "ext-dec-021", ("sandbox",)),
    ),
    unrelated=(
        Unrelated("should I repaint the kitchen cabinets or replace them", ("kitchen", "cabinets", "repaint")),
        Unrelated("which tent to buy for winter camping", ("tent", "camping", "winter")),
        Unrelated("rent or buy a flat in Lisbon", ("rent", "flat", "lisbon", "mortgage")),
        Unrelated("what wine goes with grilled salmon", ("wine", "salmon", "grilled")),
        Unrelated(
            "which speech-to-text model should transcribe our call recordings",
            ("speech", "transcribe", "recordings", "audio"),
            ai=True,
        ),
        Unrelated("fraud detection: gradient boosting or a neural network?", ("fraud", "boosting", "neural"), ai=True),
    ),
)

PATTERNS = JudgedSet(
    tool="get_patterns",
    extraction_type="pattern",
    prefix="p",
    queries=(
        # chunking
        Q(
            "ext-pat-001",
            "paraphrase",
            "cut long text into fixed-length pieces where each one repeats the end of the previous piece",
        ),
        Q("ext-pat-001", "keyword", "sliding window chunking", topic="chunking"),
        Q(
            "ext-pat-002",
            "paraphrase",
            "a passage on its own doesn't say which manual or chapter it comes from, so it embeds badly",
        ),
        Q("ext-pat-002", "keyword", "prepend document title and section heading to chunk", topic="chunking"),
        Q("ext-pat-003", "keyword", "parent document retrieval"),
        Q(
            "ext-pat-003",
            "paraphrase",
            "find the answer with small pieces of text, but hand the model the bigger part of the document around them",
        ),
        # search
        Q(
            "ext-pat-004",
            "paraphrase",
            "do lexical and semantic lookup in a single call to the vector DB and let the server combine them",
        ),
        Q("ext-pat-004", "keyword", "qdrant prefetch dense sparse fusion", topic="vector-search"),
        Q(
            "ext-pat-005",
            "paraphrase",
            "combine two ranked lists from different search engines without comparing their scores",
            ("ext-pat-004",),  # fuses the two lists by reciprocal rank fusion, in Qdrant
        ),
        Q("ext-pat-005", "keyword", "RRF rank fusion k=60", ("ext-pat-004",)),
        Q(
            "ext-pat-007",
            "paraphrase",
            "too many vectors to keep in memory and searching them from disk is too slow",
        ),
        Q("ext-pat-007", "keyword", "int8 quantization oversampling rescore"),
        Q("ext-pat-016", "keyword", "is_tenant payload index"),
        Q(
            "ext-pat-016",
            "paraphrase",
            "make lookups limited to one customer's data fast in a collection shared by many customers",
        ),
        # reranking and the prompt
        Q(
            "ext-pat-006",
            "paraphrase",
            "the top hits are on-topic but don't answer the question; rescore each query and passage together",
        ),
        Q("ext-pat-006", "keyword", "cross-encoder ms-marco rerank", topic="reranking"),
        Q(
            "ext-pat-011",
            "question",
            "where should I put the most relevant documents in a long prompt",
            topic="prompting",
        ),
        Q("ext-pat-011", "paraphrase", "reorder retrieved passages so the model does not overlook the best ones"),
        Q(
            "ext-pat-015",
            "paraphrase",
            "instructions so the LLM points to where each statement came from, or says it can't answer",
        ),
        Q(
            "ext-pat-015",
            "question",
            "how do I stop the generator from inventing facts when the retrieved context is weak",
            topic="hallucination",
        ),
        # caching
        Q("ext-pat-008", "paraphrase", "answer a new question from an earlier answer when it means the same thing"),
        Q("ext-pat-008", "question", "how can I cache LLM answers for similar questions", topic="caching"),
        Q(
            "ext-pat-009",
            "paraphrase",
            "every reload of the docs pays the embedding API again for paragraphs nobody edited",
        ),
        Q("ext-pat-009", "keyword", "embedding cache content hash"),
        # embeddings and fine-tuning
        Q("ext-pat-010", "keyword", "e5 query passage prefix"),
        Q(
            "ext-pat-010",
            "paraphrase",
            "some embedding models expect a marker string in front of questions and in front of documents",
        ),
        Q("ext-pat-013", "keyword", "peft LoraConfig target_modules"),  # these names are only in its code example
        Q(
            "ext-pat-013",
            "paraphrase",
            "train a small add-on on top of a frozen model instead of updating all its weights",
        ),
        Q("ext-pat-014", "keyword", "MultipleNegativesRankingLoss in-batch negatives"),
        Q(
            "ext-pat-014",
            "question",
            "how do I train the retrieval model on our own question and document pairs",
            topic="embeddings",
        ),
        # evaluation
        Q("ext-pat-012", "paraphrase", "automatically catch a change to the search setup that makes results worse"),
        Q("ext-pat-012", "keyword", "recall@k MRR regression test CI", topic="evaluation"),
    ),
    elsewhere=(
        Elsewhere(
            "retry rate-limited API calls with exponential backoff", "ext-pat-021", ("retry", "backoff", "exponential")
        ),
        Elsewhere("OpenTelemetry span for every tool call", "ext-pat-022", ("opentelemetry", "tool call")),
        Elsewhere(
            "strip email addresses and card numbers before logging prompts",
            "ext-pat-023",
            ("email", "emails", "logging"),
        ),
    ),
    unrelated=(
        Unrelated("crochet pattern for a granny square blanket", ("crochet", "granny", "blanket")),
        Unrelated("sourdough starter feeding schedule", ("sourdough", "flour", "bread")),
        Unrelated("repeating wallpaper motif for a nursery", ("wallpaper", "motif", "nursery")),
        Unrelated("origami crane folding steps", ("origami", "crane", "folding")),
        Unrelated(
            "augment training photos with random crops and flips", ("augment", "photos", "crops", "flips"), ai=True
        ),
        Unrelated("export a PyTorch model to TensorRT", ("pytorch", "tensorrt"), ai=True),
    ),
)

WARNINGS = JudgedSet(
    tool="get_warnings",
    extraction_type="warning",
    prefix="w",
    queries=(
        # embeddings and the index
        Q(
            "ext-wrn-001",
            "paraphrase",
            "search results turned to nonsense after we changed the model that encodes the questions",
        ),
        Q("ext-wrn-001", "keyword", "vector dimension error after embedding model upgrade", topic="embeddings"),
        Q("ext-wrn-005", "question", "why are my similarity scores bigger than one"),
        Q("ext-wrn-005", "keyword", "Distance.COSINE vs Dot", topic="vector-search"),
        Q("ext-wrn-006", "paraphrase", "the chatbot keeps quoting a handbook page we took down last month"),
        Q(
            "ext-wrn-006",
            "question",
            "how do I keep the vector store in sync when documents are edited or deleted",
            topic="rag",
        ),
        Q("ext-wrn-013", "paraphrase", "queries scoped to one small tenant come back half empty and slow"),
        Q("ext-wrn-013", "keyword", "payload index filter cardinality HNSW"),
        Q("ext-wrn-014", "paraphrase", "recall dropped after we compressed the vectors to one bit each"),
        Q("ext-wrn-014", "keyword", "binary quantization without rescoring", topic="vector-search"),
        Q(
            "ext-wrn-015",
            "paraphrase",
            "documents are lowercased and stripped of HTML at ingestion but user questions are not",
        ),
        Q("ext-wrn-015", "keyword", "train-serving skew"),
        # chunking
        Q("ext-wrn-003", "paraphrase", "splitting our docs cuts tables apart and chops code examples in half"),
        Q("ext-wrn-003", "question", "how should I chunk documents that contain tables and code", topic="chunking"),
        Q(
            "ext-wrn-004",
            "paraphrase",
            "information late in big sections never turns up in search results",
            ("ext-wrn-007",),  # a reranker that truncates long passages never scores their tail either
        ),
        Q(
            "ext-wrn-004",
            "keyword",
            "text beyond 512 tokens silently truncated",
            ("ext-wrn-007",),  # the reranker's 512-token limit, the same failure one stage later
        ),
        # the prompt and reranking
        Q("ext-wrn-002", "paraphrase", "giving the model more search results made its answers less accurate"),
        Q("ext-wrn-002", "keyword", "lost in the middle", topic="rag"),
        Q("ext-wrn-007", "paraphrase", "the second-stage scorer pushes our lengthy pages down the list"),
        # caching
        Q("ext-wrn-008", "paraphrase", "the cache handed back an answer to a question that differed by one number"),
        Q("ext-wrn-008", "question", "what can go wrong when caching answers by embedding similarity", topic="caching"),
        # evaluation
        Q(
            "ext-wrn-009",
            "paraphrase",
            "we only score final answers, so we can't tell whether search or the LLM is at fault",
        ),
        Q("ext-wrn-009", "keyword", "end-to-end evaluation retrieval metrics", topic="evaluation"),
        Q("ext-wrn-010", "keyword", "LLM-as-judge position bias", topic="evaluation"),
        Q(
            "ext-wrn-010",
            "paraphrase",
            "the grading model prefers longer responses and whichever option is shown first",
        ),
        Q(
            "ext-wrn-016",
            "paraphrase",
            "our test scores are excellent but customers complain the answers are bad",
            # offline evaluation looks good while live queries underperform; judge scores that disagree with people
            ("ext-wrn-015", "ext-wrn-010"),
        ),
        Q("ext-wrn-016", "keyword", "data leakage synthetic evaluation questions", topic="evaluation"),
        # fine-tuning
        Q(
            "ext-wrn-011",
            "paraphrase",
            "after we tuned it on our support tickets the model forgot how to do anything else",
        ),
        Q("ext-wrn-011", "keyword", "catastrophic forgetting"),
        Q(
            "ext-wrn-012",
            "question",
            "can I teach the model new facts by fine-tuning instead of using retrieval",
            topic="fine-tuning",
        ),
        Q("ext-wrn-012", "paraphrase", "train the LLM on our product docs so it knows them without a search step"),
    ),
    elsewhere=(
        Elsewhere(
            "the agent keeps calling the same tool with the same arguments over and over",
            "ext-wrn-019",
            ("agent", "tool"),
        ),
        Elsewhere(
            "hidden instructions in a fetched web page take over the assistant", "ext-wrn-017", ("web", "hidden text")
        ),
        Elsewhere("API keys in the system prompt leak to users", "ext-wrn-022", ("api keys", "system prompt")),
    ),
    unrelated=(
        Unrelated("signs of overwatering a succulent", ("overwatering", "succulent", "watering")),
        Unrelated("frostbite warning signs when skiing", ("frostbite", "skiing", "ski")),
        Unrelated("symptoms of food poisoning from undercooked chicken", ("poisoning", "chicken", "undercooked")),
        Unrelated("dangers of hiking alone above the tree line", ("hiking", "tree line", "mountain")),
        Unrelated("reward hacking in reinforcement learning", ("reward", "reinforcement", "hacking"), ai=True),
        Unrelated(
            "class imbalance makes the classifier ignore the rare class", ("class imbalance", "classifier"), ai=True
        ),
    ),
)

SETS = (DECISIONS, PATTERNS, WARNINGS)

STOPWORDS = frozenset(  # left out when counting a query's words that occur in its picked extraction
    re.findall(
        r"\w+",
        "a an and are as at be by can do does don doesn for from get got has have how i in is it its isn of on one"
        " or our should so t that the their them then there they this to up vs was we what when where whether which"
        " why will with within without you my me but not all each into than",
    )
)


def normalize(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"\w+", text.lower()) if w not in STOPWORDS}


def strings(value: Any) -> Iterator[str]:
    """Every string in a record, at any depth."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def extraction_text(record: dict[str, Any]) -> str:
    """What a user sees of an extraction: its content fields and its topics."""
    return " , ".join([*strings(record["content"]), *record.get("topics", [])])


def mentions(text: str, term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE) is not None


def load_extractions(path: Path) -> dict[str, dict[str, Any]]:
    records: dict[str, dict[str, Any]] = {}
    with path.open() as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                if record["id"] in records:
                    sys.exit(f"{path}: id {record['id']} is there twice")
                records[record["id"]] = record
    return records


def check_serving(judged: JudgedSet) -> list[str]:
    """The tool serves this type, scoped by project; its result `id` is the record's `id`; eval.yaml calls it
    for the judged project."""
    problems = []
    tools = {t["name"]: t for t in yaml.safe_load(TOOLS_FILE.read_text())["tools"]}
    tool = tools.get(judged.tool)
    if tool is None:
        return [f"{TOOLS_FILE}: no tool {judged.tool}"]
    if (tool.get("fixed_arguments") or {}).get("extraction_type") != judged.extraction_type:
        problems.append(f"{judged.tool} does not fix extraction_type {judged.extraction_type}")
    if tool.get("tenant_field") != TENANT_FIELD:
        problems.append(f"{judged.tool} is not scoped by {TENANT_FIELD}: the set must judge every project")
    pipeline = yaml.safe_load((PROJECT_ROOT / "pipelines" / tool["pipeline"]).read_text())
    fields = pipeline["components"]["formatter"]["init_parameters"]["fields"]
    if fields.get("id") != "meta.record_id":
        problems.append(f"{tool['pipeline']}: a result's id is {fields.get('id')}, not meta.record_id")
    if yaml.safe_load(COLLECTION_FILE.read_text())["record"].get("id") != "id":
        problems.append(f"{COLLECTION_FILE}: the record id is no longer the extraction's `id`")
    spec_path = EVALUATION / judged.tool / "eval.yaml"
    spec = yaml.safe_load(spec_path.read_text()) if spec_path.is_file() else {}
    expected = {"tool": judged.tool, "project": PROJECT, "results": "results", "id": "id"}
    for key, value in expected.items():
        if spec.get(key) != value:
            problems.append(f"{spec_path}: `{key}` is {spec.get(key)!r}, expected {value!r}")
    if (spec.get("arguments") or {}).get("query") != "{query}":
        problems.append(f"{spec_path}: arguments must send the query text as `query`")
    return problems


def check(judged: JudgedSet, records: dict[str, dict[str, Any]]) -> list[str]:
    problems = check_serving(judged)
    name = judged.tool
    all_texts = (
        [q.text for q in judged.queries] + [e.text for e in judged.elsewhere] + [u.text for u in judged.unrelated]
    )
    texts = Counter(normalize(text) for text in all_texts)
    problems += [f"{name}: '{t}' is listed twice" for t, n in texts.items() if n > 1]
    verbatim = {normalize(s): rid for rid, r in records.items() for s in strings(r["content"])}
    for t in texts:
        if t in verbatim:
            problems.append(f"{name}: '{t}' is text of {verbatim[t]} verbatim")
    for q in judged.queries:
        if q.kind not in KINDS:
            problems.append(f"{name} '{q.text}': unknown kind {q.kind}")
        if q.picked in q.also or len(set(q.also)) != len(q.also):
            problems.append(f"{name} '{q.text}': an id is judged twice")
        for rid in (q.picked, *q.also):
            record = records.get(rid)
            if record is None:
                problems.append(f"{name} '{q.text}': {rid} is no extraction id")
                continue
            if record["type"] != judged.extraction_type:
                problems.append(f"{name} '{q.text}': {rid} is a {record['type']}, not a {judged.extraction_type}")
            if record["project_id"] != PROJECT:
                problems.append(f"{name} '{q.text}': {rid} is of project {record['project_id']}, not {PROJECT}")
            if q.topic is not None and q.topic not in record["topics"]:
                problems.append(f"{name} '{q.text}': {rid} is not tagged '{q.topic}', so the tool cannot return it")
        if q.topic is not None and q.topic != q.topic.strip().lower():
            problems.append(f"{name} '{q.text}': topic '{q.topic}' is not a stored (lower-case) tag")
    mine = [r for r in records.values() if r["project_id"] == PROJECT and r["type"] == judged.extraction_type]
    for e in judged.elsewhere:
        answer = records.get(e.answer)
        if answer is None:
            problems.append(f"{name} '{e.text}': {e.answer} is no extraction id")
            continue
        if answer["type"] != judged.extraction_type or answer["project_id"] == PROJECT:
            problems.append(f"{name} '{e.text}': {e.answer} is not a {judged.extraction_type} of another project")
        if not e.terms:
            problems.append(f"{name} '{e.text}': lists no terms to check")
        for term in e.terms:
            if not mentions(extraction_text(answer), term):
                problems.append(f"{name} '{e.text}': '{term}' does not occur in its answer {e.answer}")
            found = [r["id"] for r in mine if mentions(extraction_text(r), term)]
            if found:
                problems.append(f"{name} '{e.text}': '{term}' occurs in {PROJECT}'s {found[:5]}")
    everything = {rid: " , ".join(strings(r)) for rid, r in records.items()}
    for u in judged.unrelated:
        if not u.terms:
            problems.append(f"{name} unrelated '{u.text}': lists no terms to check")
        for term in u.terms:
            found = [rid for rid, text in everything.items() if mentions(text, term)]
            if found:
                problems.append(f"{name} unrelated '{u.text}': '{term}' occurs in {found[:5]}")
    judged_count = len(judged.queries)
    if judged_count < MIN_JUDGED:
        problems.append(f"{name}: {judged_count} judged queries, fewer than {MIN_JUDGED}")
    paraphrases = sum(q.kind == "paraphrase" for q in judged.queries)
    if 3 * paraphrases < judged_count:
        problems.append(f"{name}: {paraphrases} paraphrases of {judged_count} judged queries, under a third")
    if len(judged.unrelated) not in UNRELATED_COUNT:
        problems.append(f"{name}: {len(judged.unrelated)} unrelated queries, not 4 to 6")
    return problems


def build(judged: JudgedSet) -> list[dict[str, Any]]:
    """The query objects, with their judged extractions (id -> score) under `_relevant` (empty: none)."""
    queries: list[dict[str, Any]] = []
    for q in judged.queries:
        metadata: dict[str, Any] = {"kind": q.kind, "picked": q.picked}
        if q.topic is not None:
            metadata["arguments"] = {"topic": q.topic}
        queries.append({"text": q.text, "metadata": metadata, "_relevant": {q.picked: 2, **dict.fromkeys(q.also, 1)}})
    for e in judged.elsewhere:
        metadata = {"kind": "other_project", "picked": None, "answered_elsewhere_by": e.answer}
        queries.append({"text": e.text, "metadata": metadata, "_relevant": {}})
    for u in judged.unrelated:
        metadata = {"kind": "unrelated", "picked": None} | ({"ai_topic": True} if u.ai else {})
        queries.append({"text": u.text, "metadata": metadata, "_relevant": {}})
    for number, entry in enumerate(queries, start=1):
        entry["_id"] = f"{judged.prefix}{number}"
    return queries


def word_share(queries: list[dict[str, Any]], text_of: dict[str, str]) -> dict[str, float]:
    """Per kind, the average share of a query's words (stopwords left out) that occur in its picked extraction."""
    overlap: dict[str, list[float]] = {}
    for q in queries:
        own = words(q["text"])
        shared = own & words(text_of[q["metadata"]["picked"]])
        overlap.setdefault(q["metadata"]["kind"], []).append(len(shared) / len(own) if own else 0.0)
    return {kind: round(sum(v) / len(v), 2) for kind, v in overlap.items()}


def summary(judged: JudgedSet, queries: list[dict[str, Any]], records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    scored = [q for q in queries if q["_relevant"]]
    picked = {q["metadata"]["picked"] for q in scored}
    schema = load_schema(COLLECTION_FILE)  # the text the tool embeds and BM25-indexes (no code_example)
    indexed = {rid: to_document(records[rid], schema).content or "" for rid in picked}
    of_type = [r for r in records.values() if r["type"] == judged.extraction_type]
    return {
        "tool": judged.tool,
        "extractions_of_type_in_project": sum(r["project_id"] == PROJECT for r in of_type),
        "extractions_of_type_elsewhere": sum(r["project_id"] != PROJECT for r in of_type),
        "queries": len(queries),
        "by_kind": dict(Counter(q["metadata"]["kind"] for q in queries)),
        "with_topic": dict(Counter(q["metadata"]["kind"] for q in scored if "arguments" in q["metadata"])),
        "picked_extractions": len(picked),
        "qrels": sum(len(q["_relevant"]) for q in queries),
        "qrels_score_1": sum(1 for q in queries for score in q["_relevant"].values() if score == 1),
        "queries_with_more_than_one_relevant": sum(len(q["_relevant"]) > 1 for q in queries),
        "share_of_query_words_in_picked_extraction": word_share(
            scored, {r: extraction_text(records[r]) for r in picked}
        ),
        "share_of_query_words_in_its_indexed_text": word_share(scored, indexed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--extractions", type=Path, default=DEFAULT_EXTRACTIONS)
    parser.add_argument("--out", type=Path, default=EVALUATION, help="writes <out>/<tool>/ (default: evaluation/)")
    args = parser.parse_args()
    records = load_extractions(args.extractions)
    problems = [p for judged in SETS for p in check(judged, records)]
    if problems:
        sys.exit("the judged sets are not consistent:\n  " + "\n  ".join(problems))
    for judged in SETS:
        queries = build(judged)
        qrels = {q["_id"]: q["_relevant"] for q in queries if q["_relevant"]}
        write_judged_queries(args.out / judged.tool, queries, qrels)
        print(json.dumps(summary(judged, queries, records), indent=1))


if __name__ == "__main__":
    main()
