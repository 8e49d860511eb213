"""Check the judged section set of `search_docs` over Redux's docs against the sections; it writes nothing.

Each query in queries.jsonl was written by hand, and every section that answers it is judged in qrels/test.tsv
(score 2 answers it, 1 partly). README.md says how the set was made. The section ids are recomputed from the
docs folder eval.yaml names (`corpus/`, checked in beside this file), by the docs indexing pipeline up to its
first embedder (no model, no store). Without that folder only the checks that do not need the sections run.
To extend the set, add the query to queries.jsonl and its sections to the qrels, update the README's counts,
then run:

    .venv/bin/python -m evaluation.redux_docs.check
"""

import re
from pathlib import Path

from evaluation import judged_sets as js
from evaluation.judged_sets import JudgedSet, Report

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
LINKS = re.compile(r"[#/]Further [Ii]nformation(#\d+)?$")  # a FAQ answer's list of links, a section of its own


def own_figures(judged: JudgedSet, known: set[str], corpus: Path) -> dict[str, object]:
    judgments = [doc for q in judged.queries for doc in q.qrels]
    figures: dict[str, object] = {
        r"([\d,]+) of the qrels lines name a section of another folder than the query's": sum(
            js.page_folder(doc) != q.metadata.get("folder") for q in judged.queries for doc in q.qrels
        ),
        r"([\d,]+) of the qrels lines name a `Further information` section": sum(
            bool(LINKS.search(doc)) for doc in judgments
        ),
    }
    if known:
        figures[r"([\d,]+) of them are `Further information` lists of links"] = sum(
            bool(LINKS.search(doc)) for doc in known
        )
    return figures


SPEC = js.SectionSet(
    prefix="r",
    kinds=("paraphrase", "task", "keyword", "option", "concept"),
    folders=("faq", "api", "understanding", "introduction", "top"),  # `top`: a page at the corpus root (FAQ.md)
    figures=own_figures,
)


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the docs folder eval.yaml names (from `folder`)."""
    return js.check_sections(SPEC, folder, corpus)


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
