"""Check the judged set of `memory_search` against the sample memories; it writes nothing.

Each query in queries.jsonl was written by hand after reading the memory it names as `picked` (score 2 in
qrels/test.tsv); other memories that answer it as well have score 1. `unrelated` queries have no qrels and
list `terms` that no memory may contain. README.md says how the set was made. To extend it, edit
queries.jsonl and the qrels, then run:

    .venv/bin/python -m evaluation.memory_search.check
"""

from pathlib import Path
from typing import Any

from evaluation import judged_sets as js
from evaluation.judged_sets import Report

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
TOOLS_FILE = js.PROJECT / "configs" / "tools" / "memories.yaml"
KINDS = ("paraphrase", "keyword", "question")
STOPWORDS = (  # left out when counting a query's words that occur in its picked memory
    "a an and are as at be by can do does for from get got has have how i in is it its of on one or our should"
    " that the their them then there they this to up was we what when which why with within without you"
)


def memory_text(memory: dict[str, Any]) -> str:
    """What a user may search a memory for: key, summary, content and tags."""
    return " , ".join([memory["key"], memory["summary"], memory["content"], *memory.get("tags", [])])


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the memories eval.yaml names."""
    report = Report()
    judged = js.load(folder)
    memories = js.read_corpus(judged, "key", report, corpus)
    report.problems += js.common(judged, memories, KINDS)
    report.problems += js.tenant_free(TOOLS_FILE, str(judged.spec.get("tool")), memories)
    texts = [(key, text) for key, m in memories.items() for text in (key, m["summary"])]
    report.problems += js.verbatim(judged, texts, "the summary or key")
    unrelated = [q for q in judged.queries if q.kind == "unrelated"]
    report.problems += js.absent_terms(unrelated, js.Texts({key: memory_text(m) for key, m in memories.items()}))
    sizes = [len(q.qrels) for q in judged.judged]
    figures = {**js.basic_figures(judged), r"Each judged query has (\d+) to (\d+) relevant": (min(sizes), max(sizes))}
    if memories:
        share = js.share(judged.judged, {key: memory_text(m) for key, m in memories.items()}, STOPWORDS)
        figures[r"\((\d+) memories of an agent"] = len(memories)
        figures[r"On average, (\d+)% of a paraphrase's words .*? questions it is (\d+)%, for keywords (\d+)%"] = (
            share["paraphrase"],
            share["question"],
            share["keyword"],
        )
    report.problems += js.table(judged, js.COUNTS) + js.stated(judged, figures)
    return report


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
