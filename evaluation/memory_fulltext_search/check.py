"""Check the judged set of `memory_fulltext_search` against the sample memories; it writes nothing.

Each query in queries.jsonl was written by hand after reading the memory it names as `picked` (score 2 in
qrels/test.tsv) to find it with a keyword search box; other memories that answer it as well have score 1.
A query's kind says how its words relate to the picked memory's indexed text, and this check holds it to
that: `keyword` (every stem there), `variant` (every stem there, some word only in another form),
`paraphrase` (some stem missing). `unrelated` queries have no qrels and list `terms` no memory contains.
README.md says how the set was made. To extend it, edit queries.jsonl and the qrels, then run:

    .venv/bin/python -m evaluation.memory_fulltext_search.check
"""

import re
from pathlib import Path

import yaml

from evaluation import judged_sets as js
from evaluation.judged_sets import JudgedSet, Query, Report
from evaluation.memory_search.check import STOPWORDS, memory_text
from haygate.text.bm25 import Bm25Tokenizer
from haygate.text.normalise import WORD
from haygate.text.templates import render_line

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
TOOLS_FILE = js.PROJECT / "configs" / "tools" / "memories.yaml"
COLLECTION_FILE = js.PROJECT / "configs" / "collections" / "memories.yaml"
PIPELINE_FILE = js.PROJECT / "pipelines" / "tools" / "memory_fulltext_search.yaml"
KINDS = ("keyword", "variant", "paraphrase")
# The text index's own analysis: English Snowball stems, stop words, ASCII folding (FullTextQuery's tokenizer).
TOKENIZER = Bm25Tokenizer("english", ascii_folding=True)


def setup_problems(judged: JudgedSet) -> list[str]:
    """What the judgments assume of the tool: it returns memory keys, indexes `content`, reads `keywords`,
    and a query adds only an `operator` the tool allows."""
    problems = []
    collection = yaml.safe_load(COLLECTION_FILE.read_text())
    if collection["record"].get("id") != "key" or collection.get("text_index") != ["content"]:
        problems.append(f"{COLLECTION_FILE}: the record id is not `key` or the text index not [content]")
    fields = yaml.safe_load(PIPELINE_FILE.read_text())["components"]["formatter"]["init_parameters"]["fields"]
    if fields.get("key") != "meta.record_id":
        problems.append(f"{PIPELINE_FILE}: results' `key` is {fields.get('key')}, not the record id")
    tool = {t["name"]: t for t in yaml.safe_load(TOOLS_FILE.read_text())["tools"]}.get(judged.spec.get("tool"))
    parameters = (tool or {}).get("parameters", {})
    if (judged.spec.get("arguments") or {}).get("keywords") != "{query}" or "keywords" not in parameters:
        problems.append("eval.yaml must send the query as `keywords`, a parameter of the tool")
    operators = parameters.get("operator", {}).get("enum", [])
    for q in judged.queries:
        if set(q.arguments) - {"operator"} or q.arguments.get("operator", operators[0]) not in operators:
            problems.append(f"{q.id}: arguments {q.arguments}: only an operator among {operators}")
    return problems


def stem_problems(q: Query, stems: set[int], text: str) -> list[str]:
    """A query's kind agrees with its stems and words against its picked memory's indexed `text`."""
    missing, picked = TOKENIZER.token_ids(q.text) - stems, q.metadata["picked"]
    as_written = [re.search(rf"(?<![^\W_]){re.escape(w)}(?![^\W_])", text, re.I) for w in WORD.findall(q.text)]
    if q.kind in ("keyword", "variant") and missing:
        return [f"{q.kind} {q.id} '{q.text}': {len(missing)} of its stems are not in {picked}"]
    if q.kind == "variant" and all(as_written):
        return [f"variant {q.id} '{q.text}': every word is in {picked} as written; no stemming needed"]
    if q.kind == "paraphrase" and not missing:
        return [f"paraphrase {q.id} '{q.text}': every stem is in {picked}; it is a keyword query"]
    return []


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the memories eval.yaml names."""
    report = Report()
    judged = js.load(folder)
    memories = js.read_corpus(judged, "key", report, corpus)
    report.problems += js.common(judged, memories, KINDS) + setup_problems(judged)
    report.problems += js.tenant_free(TOOLS_FILE, str(judged.spec.get("tool")), memories)
    report.problems += js.verbatim(
        judged, [(key, t) for key, m in memories.items() for t in (key, m["summary"])], "the summary or key"
    )
    unrelated = [q for q in judged.queries if q.kind == "unrelated"]
    report.problems += js.absent_terms(unrelated, js.Texts({key: memory_text(m) for key, m in memories.items()}))
    template = yaml.safe_load(COLLECTION_FILE.read_text())["record"]["content_template"]
    indexed = {key: render_line(template, memory) for key, memory in memories.items()}
    stems = {key: TOKENIZER.token_ids(text) for key, text in indexed.items()}
    for q in judged.queries:
        own = TOKENIZER.token_ids(q.text)
        found = [key for key, indexed_stems in stems.items() if own & indexed_stems] if q.kind == "unrelated" else []
        if not own:
            report.problems.append(f"{q.id} '{q.text}' has only stop words: the tool rejects it")
        elif q.kind == "unrelated" and found:
            report.problems.append(f"unrelated {q.id} '{q.text}': a stem of it is indexed in {found[:5]}")
        elif q.metadata.get("picked") in memories:
            report.problems += stem_problems(q, stems[q.metadata["picked"]], indexed[q.metadata["picked"]])
    with_or = {"with OR": lambda queries: sum(q.arguments.get("operator") == "OR" for q in queries)}
    figures = js.basic_figures(judged)
    if memories:
        words = js.share(judged.judged, {key: memory_text(m) for key, m in memories.items()}, STOPWORDS)
        shares: dict[str, list[float]] = {}
        for q in [q for q in judged.judged if q.metadata.get("picked") in memories]:
            own = TOKENIZER.token_ids(q.text)
            shares.setdefault(q.kind, []).append(len(own & stems[q.metadata["picked"]]) / len(own))
        stem = {kind: round(100 * sum(values) / len(values)) for kind, values in shares.items()}
        whole = {kind: sum(value == 1 for value in values) for kind, values in shares.items()}
        figures[
            r"On average, (\d+)% of a paraphrase's words .*?; for variants (\d+)% .*?, for keywords (\d+)% .*?"
            r"stems of the indexed text: paraphrases (\d+)%, variants and keywords (\d+)%"
        ] = (
            words["paraphrase"],
            words["variant"],
            words["keyword"],
            stem["paraphrase"],
            min(stem["variant"], stem["keyword"]),
        )
        figures[r"variant query is in its picked memory \((\d+) of (\d+)\); for paraphrases it is (\d+) of (\d+)"] = (
            whole["keyword"] + whole["variant"],
            len(shares["keyword"]) + len(shares["variant"]),
            whole["paraphrase"],
            len(shares["paraphrase"]),
        )
    report.problems += js.table(judged, {**js.COUNTS, **with_or}) + js.stated(judged, figures)
    return report


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
