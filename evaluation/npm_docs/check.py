"""Check the judged section set of `search_docs` over npm's own docs against the sections; it writes nothing.

Each query in queries.jsonl was written by hand, and every section that answers it is judged in qrels/test.tsv
(score 2 answers it, 1 partly). README.md says how the set was made. The section ids are recomputed from the
docs folder eval.yaml names, by the docs indexing pipeline up to its first embedder (no model, no store).
Without that folder only the checks that do not need the sections run. To extend the set, add the query to
queries.jsonl and its sections to the qrels, update the README's counts, then run:

    .venv/bin/python -m evaluation.npm_docs.check
"""

from pathlib import Path

from evaluation import judged_sets as js
from evaluation.judged_sets import JudgedSet, Report

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
COPY = "#Configuration/`"  # in the id of a command page's copy of a config setting


def own_figures(judged: JudgedSet, known: set[str], corpus: Path) -> dict[str, object]:
    judgments = [doc for q in judged.queries for doc in q.qrels]
    return {r"([\d,]+) of the qrels lines are such command-page copies": sum(COPY in doc for doc in judgments)}


SPEC = js.SectionSet(
    prefix="n",
    kinds=("paraphrase", "task", "keyword", "option", "concept"),
    folders=("commands", "configuring-npm", "using-npm"),  # the docs folders a query may be written for
    figures=own_figures,
)


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the docs folder eval.yaml names."""
    return js.check_sections(SPEC, folder, corpus)


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
