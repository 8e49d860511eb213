"""Check the judged paraphrase set of `search_by_skills` against the annotated CVs; it writes nothing.

queries.jsonl holds recruiter-style requests for one vocabulary skill each (`metadata.skill`), in a `dev` and a
held-out `test` split. Their qrels follow a rule that this check recomputes: a CV is relevant (score 1) to every
request for a skill when its annotations or its text name the skill (`components.skills.names_skill`). Without
../shared/data only the checks that do not read the CVs run. README.md says how the set was made. To extend
it, edit queries.jsonl, run this check, and write the qrels lines and `relevant_cvs` it names:

    .venv/bin/python -m evaluation.search_by_skills.check
"""

import json
from collections import Counter
from pathlib import Path
from typing import Any

from components.cv_profile import SkillVocabulary
from components.skills import names_skill
from evaluation import judged_sets as js
from evaluation.judged_sets import JudgedSet, Query, Report

HERE = Path(__file__).resolve().parent
SETS = (HERE.name,)  # the judged sets (folders of evaluation/) this check covers
SKILLS_FILE = js.PROJECT / "configs" / "skills.yaml"
MIN_CVS = 3  # a skill gets requests when at least this many CVs are relevant to it
MAX_WORDS = {"dev": 6, "test": 8}  # the held-out requests were written to "2 to 8 words"
# Skills the relevance rule gets mostly wrong on these CVs, so their qrels would judge the tool on noise.
EXCLUDED: dict[str, str] = {
    "Go": "14 CVs by the rule, 13 of them 'go-live' / 'at one go' / 'go-to-market'; only cv-21 lists Go Lang",
    "R": "16 CVs by the rule, mostly 'SAP R/3', 'R&D', 'FI-A/R' and initials; about 2 CVs list the R language",
}
FOUND: dict[tuple[str, str], dict[str, set[str]]] = {}  # (vocabulary fingerprint, text) -> what `find` found


class RememberingVocabulary(SkillVocabulary):
    """The vocabulary, remembering what `find` found in a text: the rule reads each CV once per skill, and
    finding the vocabulary in a CV is most of the rule's time."""

    def find(self, text: str) -> dict[str, set[str]]:
        if (self.fingerprint, text) not in FOUND:
            FOUND[(self.fingerprint, text)] = super().find(text)
        return FOUND[(self.fingerprint, text)]


def hitting(queries: list[Query]) -> int:
    """How many of the requests name a vocabulary skill."""
    return sum(q.metadata.get("hits_vocabulary") is True for q in queries)


def request_problems(q: Query, vocabulary: SkillVocabulary) -> list[str]:
    """A request has 1 to MAX_WORDS words, is no vocabulary form verbatim, and names no skill but its own (a
    dev descriptive or a nonsense request names none); `hits_vocabulary` says whether it names any."""
    split, skill, hits = str(q.metadata.get("split")), q.metadata.get("skill"), set(vocabulary.find(q.text))
    words = len(q.text.split())
    problems = [] if 1 <= words <= MAX_WORDS.get(split, 0) else [f"{q.id}: {words} words in split {split}"]
    problems += [f"{q.id} '{q.text}' is a vocabulary name or alias verbatim"] if vocabulary.canonical(q.text) else []
    problems += [f"{q.id}: a score other than 1 in {q.qrels}"] if set(q.qrels.values()) - {1} else []
    if hits - {skill} or (hits and (q.kind == "nonsense" or (q.kind == "descriptive" and split == "dev"))):
        problems.append(f"{q.id} '{q.text}' (a {q.kind} request for {skill}) names {sorted(hits)}")
    if q.metadata.get("hits_vocabulary") != bool(hits) or (q.kind == "nonsense") != (skill is None):
        problems.append(f"{q.id}: skill {skill}, hits_vocabulary {q.metadata.get('hits_vocabulary')}: not so")
    return problems


def rule_problems(judged: JudgedSet, cvs: dict[str, dict[str, Any]], vocabulary: SkillVocabulary) -> list[str]:
    """The qrels and `relevant_cvs` are the rule's; the skills with requests are the ones it keeps, and every
    kept skill has dev requests. Nonsense terms occur in no CV."""
    remembering = RememberingVocabulary(**{name: getattr(vocabulary, name) for name in vocabulary.__dataclass_fields__})
    having = {
        skill: {key for key, cv in cvs.items() if names_skill(cv, skill, remembering)} for skill in vocabulary.skills
    }
    kept = {skill for skill, keys in having.items() if len(keys) >= MIN_CVS and skill not in EXCLUDED}
    asked = {q.metadata.get("skill") for q in judged.queries if q.metadata.get("split") == "dev"}
    problems = [f"{skill}: held by >= {MIN_CVS} CVs but has no dev requests" for skill in sorted(kept - asked)]
    problems += [
        f"{q.id}: its skill {q.metadata.get('skill')} is not kept"
        for q in judged.judged
        if q.metadata.get("skill") not in kept
    ]
    for q in judged.queries:
        rule = having.get(str(q.metadata.get("skill")), set())
        if set(q.qrels) != rule or q.metadata.get("relevant_cvs") != len(rule):
            extra, missing = sorted(set(q.qrels) - rule), sorted(rule - set(q.qrels))
            problems.append(
                f"{q.id}: qrels are not the rule's ({len(rule)} CVs): not judged by it {extra}, missing {missing}"
            )
    texts = js.Texts(
        {key: cv["text"] + " , " + " , ".join(cv.get("annotated_skills") or []) for key, cv in cvs.items()}
    )
    problems += js.absent_terms([q for q in judged.queries if q.kind == "nonsense"], texts, "CVs ")
    counts = [len(having[skill]) for skill in kept]
    return problems + js.stated(
        judged,
        {
            r"Skills held by at least 3 CVs are kept: (\d+) skills": len(kept) + len(EXCLUDED),
            r"That leaves (\d+) skills": len(kept),
            r"Relevant CVs per skill go from (\d+) .*? to (\d+)": (min(counts), max(counts)),
        },
    )


def check(folder: Path = HERE, corpus: Path | None = None) -> Report:
    """Every problem of the set in `folder`; `corpus` replaces the CVs eval.yaml names."""
    report = Report()
    judged = js.load(folder)
    cvs = js.read_corpus(judged, "id", report, corpus)
    vocabulary = SkillVocabulary.load(SKILLS_FILE)
    report.problems += js.common(judged, cvs, ("descriptive", "contains_name"), ("nonsense",), picked=None)
    for split in MAX_WORDS:
        per_skill = Counter(q.metadata.get("skill") for q in judged.judged if q.metadata.get("split") == split)
        report.problems += [
            f"{split} {skill}: {n} requests (1 to 3)" for skill, n in per_skill.items() if not 1 <= n <= 3
        ]
    for q in judged.queries:
        report.problems += request_problems(q, vocabulary)
    left_out = [json.loads(line) for line in (folder / "heldout_left_out.jsonl").read_text().splitlines() if line]
    for request in left_out:
        others = sorted(set(vocabulary.find(request["text"])) - {request["metadata"]["skill"]})
        if not others or others != request["metadata"].get("names_other_skills"):
            report.problems.append(f"heldout_left_out.jsonl: '{request['text']}' names {others}, not as listed")
    report.problems += rule_problems(judged, cvs, vocabulary) if cvs else []
    dev = [q for q in judged.queries if q.metadata.get("split") == "dev"]
    test = [q for q in judged.queries if q.metadata.get("split") == "test"]
    report.problems += js.table(judged, {"requests": len, "hit the vocabulary": hitting}, dev)
    kinds, aliased = Counter(q.kind for q in test), hitting([q for q in test if q.kind == "descriptive"])
    figures = {
        r"ids `q1`..`q(\d+)`.*?ids `h1`..`h(\d+)`": (len(dev), len(test)),
        r"There are ([\d,]+) qrels lines": sum(len(q.qrels) for q in dev),
        r"(\d+) of the (\d+) skill requests hit no vocabulary entry": (
            sum(not q.metadata.get("hits_vocabulary") for q in dev if q.qrels),
            sum(bool(q.qrels) for q in dev),
        ),
        r"the (\d+) that name a second vocabulary skill": len(left_out),
        r"That leaves (\d+) requests, (\d+) of them descriptive": (len([q for q in test if q.qrels]), aliased),
        r"held-out split: (\d+) descriptive \((\d+) hit .*?\), (\d+) contains_name, (\d+) nonsense, ([\d,]+)": (
            *js.pick(kinds, "descriptive"),
            aliased,
            *js.pick(kinds, "contains_name nonsense"),
            sum(len(q.qrels) for q in test),
        ),
    }
    report.problems += js.stated(judged, figures)
    return report


if __name__ == "__main__":
    js.main(check, SETS, __doc__.splitlines()[0])
