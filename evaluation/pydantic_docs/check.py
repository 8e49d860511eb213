"""Check the judged section set of `search_docs` over Pydantic's docs against the sections; it writes nothing.

Each query in queries.jsonl was written by hand, and every section that answers it is judged in qrels/test.tsv
(score 2 answers it, 1 partly). README.md says how the set was made. The section ids are recomputed from the
docs folder eval.yaml names (`corpus/`, checked in beside this file), by the docs indexing pipeline up to its
first embedder (no model, no store). Without that folder only the checks that do not need the sections run.
To extend the set, add the query to queries.jsonl and its sections to the qrels, update the README's counts,
then run:

    .venv/bin/python -m evaluation.pydantic_docs.check
"""

import re
from pathlib import Path

from evaluation import judged_sets as js
from evaluation.judged_sets import JudgedSet, Report

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers


def old_anchors(corpus: Path) -> set[str]:
    """The section ids a page's backwards-compatibility anchors could give: `file:<page>#<name>` for each
    `[](){#name}` empty link in it (none, now that such an anchor names no section: the README says so)."""
    return {
        f"file:{page.relative_to(corpus).as_posix()}#{name}"
        for page in corpus.rglob("*.md")
        for name in re.findall(r"\[\]\(\)\{#([\w-]+)\}", page.read_text())
    }


def own_figures(judged: JudgedSet, known: set[str], corpus: Path) -> dict[str, object]:
    judgments = [doc for q in judged.queries for doc in q.qrels]
    figures: dict[str, object] = {
        r"([\d,]+) of the qrels lines name a section of another folder than the query's": sum(
            js.page_folder(doc) != q.metadata.get("folder") for q in judged.queries for doc in q.qrels
        ),
    }
    if known:
        anchored = known & old_anchors(corpus)
        figures[r"([\d,]+) sections are named by such an anchor"] = len(anchored)
        figures[r"([\d,]+) of the judged sections are among them"] = len(anchored & set(judgments))
    return figures


SPEC = js.SectionSet(
    prefix="p",
    kinds=("paraphrase", "task", "keyword", "option", "concept"),
    folders=("concepts", "errors", "top"),  # `top`: a page at the corpus root
    figures=own_figures,
)


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the docs folder eval.yaml names (from `folder`)."""
    return js.check_sections(SPEC, folder, corpus)


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
