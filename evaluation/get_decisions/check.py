"""Check the judged sets of `get_decisions`, `get_patterns` and `get_warnings`; it writes nothing.

One check for three sets: the tools are one declaration pattern over one pipeline, each serving one extraction
type of samples/knowledge/extractions.jsonl to the `default` project. Each query names the extraction it was
written for (`picked`, score 2); `other_project` and `unrelated` queries have no qrels and list `terms`.
../get_decisions/README.md says how the sets were made and what this checks. To extend one, edit its
queries.jsonl and qrels, then run:

    .venv/bin/python -m evaluation.get_decisions.check
"""

from pathlib import Path
from typing import Any

import yaml

from evaluation import judged_sets as js
from evaluation.judged_sets import Query, Report
from haygate.ingest.mapping import to_document
from haygate.ingest.schema import load_schema

HERE = Path(__file__).resolve().parent
TYPES = {"get_decisions": "decision", "get_patterns": "pattern", "get_warnings": "warning"}  # tool -> type
SETS = tuple(TYPES)  # the judged sets (folders of evaluation/) this check covers
TOOLS_FILE = js.PROJECT / "configs" / "tools" / "knowledge.yaml"
COLLECTION_FILE = js.PROJECT / "configs" / "collections" / "knowledge.yaml"
TENANT_FIELD = "meta.project_id"
PROJECT = "default"  # the tenant judged; every set's eval.yaml must name it as `project`
KINDS = ("paraphrase", "keyword", "question")
MIN_JUDGED, UNRELATED_COUNT = 12, range(4, 7)  # judged queries (a third paraphrases), and unrelated ones
STOPWORDS = (  # left out when counting a query's words that occur in its picked extraction
    "a an and are as at be by can do does don doesn for from get got has have how i in is it its isn of on one"
    " or our should so t that the their them then there they this to up vs was we what when where whether which"
    " why will with within without you my me but not all each into than"
)


def serving(tool: str, spec: dict[str, Any]) -> list[str]:
    """The tool serves its type, scoped by project; its result `id` is the record's `id`; eval.yaml calls it
    for the judged project."""
    declared = {t["name"]: t for t in yaml.safe_load(TOOLS_FILE.read_text())["tools"]}.get(tool)
    if declared is None:
        return [f"{TOOLS_FILE}: no tool {tool}"]
    problems = []
    if (declared.get("fixed_arguments") or {}).get("extraction_type") != TYPES.get(tool):
        problems.append(f"{tool} does not fix extraction_type {TYPES.get(tool)}")
    if declared.get("tenant_field") != TENANT_FIELD:
        problems.append(f"{tool} is not scoped by {TENANT_FIELD}: the set must judge every project")
    pipeline = yaml.safe_load((js.PROJECT / "pipelines" / declared["pipeline"]).read_text())
    if pipeline["components"]["formatter"]["init_parameters"]["fields"].get("id") != "meta.record_id":
        problems.append(f"{declared['pipeline']}: a result's id is not meta.record_id")
    if yaml.safe_load(COLLECTION_FILE.read_text())["record"].get("id") != "id":
        problems.append(f"{COLLECTION_FILE}: the record id is no longer the extraction's `id`")
    for key, value in {"tool": tool, "project": PROJECT, "results": "results", "id": "id"}.items():
        if spec.get(key) != value:
            problems.append(f"eval.yaml: `{key}` is {spec.get(key)!r}, expected {value!r}")
    if (spec.get("arguments") or {}).get("query") != "{query}":
        problems.append("eval.yaml: arguments must send the query text as `query`")
    return problems


def query_problems(q: Query, records: dict[str, dict[str, Any]], kind_of: str) -> list[str]:
    """A judged query's extractions are of the set's type and project, and carry its topic (a stored tag)."""
    topic = q.arguments.get("topic")
    problems = []
    if topic is not None and topic != topic.strip().lower():
        problems.append(f"{q.id}: topic '{topic}' is not lower-case, as tags are stored")
    for rid, record in [(rid, records[rid]) for rid in q.qrels if rid in records]:
        if (record["type"], record["project_id"]) != (kind_of, PROJECT):
            problems.append(
                f"{q.id}: {rid} is a {record['type']} of {record['project_id']}, not a {kind_of} of {PROJECT}"
            )
        if topic is not None and topic not in record["topics"]:
            problems.append(f"{q.id}: {rid} is not tagged '{topic}', so the tool cannot return it")
    return problems


def elsewhere_problems(q: Query, records: dict[str, dict[str, Any]], kind_of: str, shown: dict[str, str]) -> list[str]:
    """An `other_project` query's answer is an extraction of the type in another project; it has every term."""
    answer = records.get(q.metadata.get("answered_elsewhere_by", ""))
    if answer is None or answer["type"] != kind_of or answer["project_id"] == PROJECT:
        return [f"{q.id}: {q.metadata.get('answered_elsewhere_by')} is no {kind_of} of another project"]
    text = js.Texts({answer["id"]: shown[answer["id"]]})
    return [f"{q.id}: '{term}' is not in its answer" for term in q.metadata.get("terms", []) if not text.having(term)]


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of one of the three sets, in `folder`; `corpus` replaces the extractions eval.yaml names."""
    report = Report()
    judged = js.load(folder)
    tool, records = str(judged.spec.get("tool")), js.read_corpus(judged, "id", report, corpus)
    kind_of = TYPES.get(tool, "?")
    report.problems += js.common(judged, records, KINDS, ("other_project", "unrelated")) + serving(tool, judged.spec)
    contents = [(rid, text) for rid, r in records.items() for text in js.strings(r["content"])]
    report.problems += js.verbatim(judged, contents, "text")
    shown = {rid: " , ".join([*js.strings(r["content"]), *r.get("topics", [])]) for rid, r in records.items()}
    mine = js.Texts(
        {rid: shown[rid] for rid, r in records.items() if (r["type"], r["project_id"]) == (kind_of, PROJECT)}
    )
    elsewhere = [q for q in judged.queries if q.kind == "other_project"]
    report.problems += js.absent_terms(elsewhere, mine, f"{PROJECT}'s ")
    unrelated = [q for q in judged.queries if q.kind == "unrelated"]
    report.problems += js.absent_terms(
        unrelated, js.Texts({rid: " , ".join(js.strings(r)) for rid, r in records.items()})
    )
    for q in judged.judged:
        report.problems += query_problems(q, records, kind_of)
    for q in elsewhere if records else []:  # without the corpus (a problem already) there is no answer to read
        report.problems += elsewhere_problems(q, records, kind_of, shown)
    paraphrases = sum(q.kind == "paraphrase" for q in judged.judged)
    if len(judged.judged) < MIN_JUDGED or 3 * paraphrases < len(judged.judged) or len(unrelated) not in UNRELATED_COUNT:
        report.problems.append(
            f"{len(judged.judged)} judged queries ({paraphrases} paraphrases), {len(unrelated)} unrelated"
        )
    figures = js.basic_figures(judged)
    if records:
        in_project = sum((r["type"], r["project_id"]) == (kind_of, PROJECT) for r in records.values())
        figures[r"\((\d+) extractions of two projects"] = len(records)
        figures[rf"judges the (\d+) {kind_of}s of the project `{PROJECT}`"] = in_project
        share = js.share(judged.judged, shown, STOPWORDS)
        figures[r"(\d+)% of a paraphrase's words .*? For questions it is (\d+)%, for keywords (\d+)%"] = js.pick(
            share, "paraphrase question keyword"
        )
        schema = load_schema(COLLECTION_FILE)  # the text the tool embeds and BM25-indexes (no code_example)
        picked = {str(q.metadata.get("picked")) for q in judged.judged} & set(records)
        indexed = js.share(
            judged.judged, {rid: to_document(records[rid], schema).content or "" for rid in picked}, STOPWORDS
        )
        differs = [figure for kind, value in indexed.items() if value != share[kind] for figure in (kind, value)]
        figures |= {r"the text the tool indexes, (\w+?)s drop to (\d+)%": tuple(differs)} if differs else {}
    with_topic = {"with a topic": lambda queries: sum("topic" in q.arguments for q in queries)}
    report.problems += js.table(judged, {**js.COUNTS, **with_topic}) + js.stated(judged, figures)
    return report


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
