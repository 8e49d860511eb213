"""Check the judged known-item set of `search_docs` against the Haystack docs sections; it writes nothing.

Each query in queries.jsonl names the section it was written for (`section`, score 2) and, in `also`, others
that answer it as well (score 1). The rest of the qrels follow a rule that this check recomputes (README.md,
"Relevance"). Without ../shared/data only the checks that do not read the sections run. To extend the set,
edit queries.jsonl, run this check, and write the qrels lines it names as missing:

    .venv/bin/python -m evaluation.search_docs.check
"""

import difflib
import re
from collections import Counter
from pathlib import Path
from typing import Any

from evaluation import judged_sets as js
from evaluation.judged_sets import Query, Report, normalise

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
NEAR_IDENTICAL = 0.9  # difflib ratio from which a section in another version counts as the same section
MIN_TEXT = 300  # characters a picked section must have
GENERIC_HEADINGS = {"overview", "usage", "parameters", "on its own", "in a pipeline", "installation", "example"}
KINDS = ("paraphrase", "heading", "error_or_task")
VERSIONS = "3.0 2.31 2.25 2.18"  # in the order the README lists them

Place = tuple[str, tuple[str, ...]]  # a section's page and heading path, the same in every version


def relevant(
    q: Query, sections: dict[str, dict[str, Any]], places: dict[Place, list[dict[str, Any]]]
) -> dict[str, int]:
    """The qrels the rule gives a query: its section 2, its `also` 1, and without a version the near-identical
    copies of both in the other versions (`places`: the sections at each place) 1."""
    judged = {q.metadata["section"]: 2} | dict.fromkeys(q.metadata.get("also", []), 1)
    if "version" in q.arguments:
        return judged
    for section in [sections[key] for key in list(judged) if key in sections]:
        for other in places[(section["path"], tuple(section["heading_path"]))]:
            if other["version"] != section["version"] and near_identical(section["text"], other["text"]):
                judged.setdefault(other["_id"], 1)
    return judged


def near_identical(text: str, other: str) -> bool:
    """difflib's ratio >= NEAR_IDENTICAL, autojunk off. Equal texts and the ratio's cheap upper bounds answer
    first: the ratio itself is quadratic on long texts."""
    if text == other:
        return True
    matcher = difflib.SequenceMatcher(None, text, other, autojunk=False)
    bounds = (matcher.real_quick_ratio, matcher.quick_ratio, matcher.ratio)  # each bounds the next from above
    return all(bound() >= NEAR_IDENTICAL for bound in bounds)


def text_key(text: str) -> str:
    """A section's text without case or punctuation: what "the same text" means here (cheap on 9,144)."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def section_problems(
    q: Query, sections: dict[str, dict[str, Any]], twins: dict[tuple[str, str], list[str]]
) -> list[str]:
    """The picked section is specific and long enough, of the query's version, not its heading verbatim (for a
    paraphrase); `also` sections exist, share the version, and include every page with the same text."""
    section, version, also = sections[q.metadata["section"]], q.arguments.get("version"), q.metadata.get("also", [])
    problems = [f"{q.id}: {key} in `also` is no section" for key in also if key not in sections]
    if version is not None:
        problems += [
            f"{q.id}: {key} is outside version {version}"
            for key in [q.metadata["section"], *also]
            if sections.get(key, {}).get("version", version) != version
        ]
    if len(section["text"]) < MIN_TEXT:
        problems.append(f"{q.id}: the section's text has {len(section['text'])} characters (< {MIN_TEXT})")
    if not section["heading_path"] or normalise(section["heading_path"][-1]) in GENERIC_HEADINGS:
        problems.append(f"{q.id}: the section's heading is not specific")
    headings = {normalise(section["title"]), normalise(" ".join(section["heading_path"]))}
    if q.kind == "paraphrase" and normalise(q.text) in headings | {normalise(h) for h in section["heading_path"]}:
        problems.append(f"{q.id} '{q.text}' is a paraphrase but is the heading verbatim")
    missing = [
        key
        for key in twins[(section["version"], text_key(section["text"]))]
        if key != section["_id"] and key not in also
    ]
    return problems + ([f"{q.id}: the same text is also in {missing}, not in `also`"] if missing else [])


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the sections eval.yaml names."""
    report = Report()
    judged = js.load(folder)
    sections = js.read_corpus(judged, "_id", report, corpus)
    report.problems += js.common(judged, sections, KINDS, empty=(), picked="section")
    picked = Counter(q.metadata.get("section") for q in judged.queries)
    report.problems += [f"{key} is picked {n} times" for key, n in picked.items() if n > 1]
    report.problems += [
        f"{q.id}: sends {q.arguments.get('query')!r}" for q in judged.queries if q.arguments.get("query") != q.text
    ]
    twins: dict[tuple[str, str], list[str]] = {}
    places: dict[Place, list[dict[str, Any]]] = {}
    for record in sections.values():
        twins.setdefault((record["version"], text_key(record["text"])), []).append(record["_id"])
        places.setdefault((record["path"], tuple(record["heading_path"])), []).append(record)
    for q in [q for q in judged.queries if q.metadata.get("section") in sections]:
        report.problems += section_problems(q, sections, twins)
        rule = relevant(q, sections, places)
        if rule != q.qrels:
            extra, missing = sorted(set(q.qrels) - set(rule)), sorted(set(rule) - set(q.qrels))
            report.problems.append(f"{q.id}: qrels are not the rule's: not judged by it {extra}, missing {missing}")
    sizes, versions = (
        [len(q.qrels) for q in judged.queries],
        Counter(q.arguments.get("version") for q in judged.queries),
    )
    figures = {
        **js.basic_figures(judged),
        r"(\d+) queries have one relevant section\. (\d+) have more, up to (\d+)": (
            sizes.count(1),
            len(sizes) - sizes.count(1),
            max(sizes),
        ),
        r"`also` adds sections .*? There are (\d+) of them": sum(bool(q.metadata.get("also")) for q in judged.queries),
        r"Queries fixing a version: (\d+) for 3.0, (\d+) for 2.31, (\d+) for 2.25, (\d+) for 2.18": js.pick(
            versions, VERSIONS
        ),
    }
    if sections:
        of = [sections[q.metadata["section"]] for q in judged.queries if q.metadata.get("section") in sections]
        figures[r"\(([\d,]+) sections, versions"] = len(sections)
        by_version = Counter(s["version"] for s in of)
        figures[r"Most come from 3.0 \((\d+)\)\. .*? 2.31 \((\d+)\), 2.25 \((\d+)\) and 2.18 \((\d+)\)"] = js.pick(
            by_version, VERSIONS
        )
        areas = Counter(s["path"].split("/")[0] for s in of).most_common()
        figures[r"Picked sections by area: ([a-z\- \d,]+)\."] = ", ".join(f"{area} {n}" for area, n in areas)
    fixing = {"fix a version": lambda queries: sum("version" in q.arguments for q in queries)}
    report.problems += js.table(judged, {"queries": len, **fixing}) + js.stated(judged, figures)
    return report


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
