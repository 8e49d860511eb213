"""Build the judged paraphrase set for `search_by_skills` (BEIR layout: queries.jsonl, qrels/dev.tsv, test.tsv).

Two splits. `dev` holds the requests written by hand below: recruiter-style requests for a vocabulary skill
that mostly do not name it ("relational database querying" for SQL), some that name it inside a longer phrase
("SQL querying"), and nonsense or absent skills that no CV has. The thresholds and the vocabulary's `means`
descriptions were tuned on it. `test` is held out: `heldout_requests.py`, written later by someone who saw
neither the dev requests nor the vocabulary's descriptions; nothing is tuned on it. Relevance is computed from
the real annotated CVs by `haygate.evaluation.skills.names_skill`: a CV is relevant to a query when its
annotations or its text name the query's skill by its canonical name or an alias from configs/skills.yaml.
Only CV ids are written.

    .venv/bin/python evaluation/search_by_skills/build.py --resumes ../shared/data/resumes/resumes.jsonl
"""

import argparse
import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from heldout_requests import HELDOUT, HELDOUT_NONSENSE  # beside this file: the held-out split

from haygate.evaluation.datasets import write_judged_queries
from haygate.evaluation.skills import names_skill
from haygate.text.cv_profile import SkillVocabulary

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parents[1]
DEFAULT_RESUMES = PROJECT.parent / "shared" / "data" / "resumes" / "resumes.jsonl"
DEFAULT_SKILLS = PROJECT / "configs" / "skills.yaml"
MIN_CVS = 3  # a skill gets queries when at least this many CVs are relevant to it
MAX_WORDS = {"dev": 6, "test": 8}  # the held-out requests were written to "2 to 8 words"

Kind = Literal["descriptive", "contains_name", "nonsense"]

# Skills the relevance rule gets mostly wrong on these CVs, so their qrels would judge the tool on noise.
EXCLUDED: dict[str, str] = {
    "Go": "14 CVs by the rule, 13 of them 'go-live' / 'at one go' / 'go-to-market'; only cv-21 lists Go Lang",
    "R": "16 CVs by the rule, mostly 'SAP R/3', 'R&D', 'FI-A/R' and initials; about 2 CVs list the R language",
}

# (canonical skill, kind, request). "descriptive" never names the skill; "contains_name" names it, or a
# common variant of it, inside a longer phrase. Each request may mention no other vocabulary skill.
PARAPHRASES: list[tuple[str, Kind, str]] = [
    ("AWS", "descriptive", "Amazon cloud services"),
    ("AWS", "contains_name", "AWS cloud infrastructure"),
    ("Agile", "descriptive", "iterative sprint-based delivery"),
    ("Agile", "descriptive", "sprint planning and daily standups"),
    ("Agile", "contains_name", "Agile project methodology"),
    ("Angular", "descriptive", "Google's single-page app framework"),
    ("Angular", "contains_name", "Angular front-end development"),
    ("Ansible", "descriptive", "agentless configuration management"),
    ("Ansible", "descriptive", "server provisioning playbooks"),
    ("Ansible", "contains_name", "Ansible playbook automation"),
    ("Azure", "descriptive", "Microsoft cloud platform"),
    ("Azure", "contains_name", "Azure cloud development"),
    ("C#", "descriptive", "Microsoft .NET programming language"),
    ("C#", "contains_name", "C# .NET development"),
    ("C++", "descriptive", "object-oriented programming with templates and STL"),
    ("C++", "contains_name", "C plus plus programming"),
    ("C++", "contains_name", "C/C++ software development"),
    ("CI/CD", "descriptive", "automated build and release pipelines"),
    ("CI/CD", "descriptive", "build and deployment automation"),
    ("CI/CD", "contains_name", "CI-CD pipeline setup"),
    ("CSS", "descriptive", "web page styling and layout"),
    ("CSS", "descriptive", "cascading style sheets"),
    ("CSS", "contains_name", "responsive CSS layouts"),
    ("Data Analysis", "descriptive", "analysing data to find insights"),
    ("Data Analysis", "descriptive", "exploratory analysis of business data"),
    ("Data Analysis", "contains_name", "data analysis and reporting"),
    ("Deep Learning", "descriptive", "neural network modelling"),
    ("Deep Learning", "descriptive", "training deep neural nets"),
    ("Deep Learning", "contains_name", "deep learning models"),
    ("Django", "contains_name", "Django REST framework"),
    ("Django", "contains_name", "Django-based web backends"),
    ("Docker", "descriptive", "software containerization"),
    ("Docker", "descriptive", "packaging applications as containers"),
    ("Docker", "contains_name", "Dockerizing applications"),
    ("ETL", "descriptive", "extract transform load processes"),
    ("ETL", "descriptive", "data warehouse loading jobs"),
    ("ETL", "contains_name", "ETL job development"),
    ("Excel", "descriptive", "spreadsheets and pivot tables"),
    ("Excel", "descriptive", "VLOOKUP and spreadsheet formulas"),
    ("Excel", "contains_name", "advanced Excel reporting"),
    ("GCP", "descriptive", "Google's public cloud"),
    ("GCP", "contains_name", "GCP cloud deployments"),
    ("Git", "descriptive", "distributed version control"),
    ("Git", "descriptive", "branching and merging with pull requests"),
    ("Git", "contains_name", "Git version control"),
    ("HTML", "descriptive", "web page markup"),
    ("HTML", "descriptive", "front-end markup and page structure"),
    ("HTML", "contains_name", "semantic HTML markup"),
    ("Hadoop", "descriptive", "big data cluster processing"),
    ("Hadoop", "contains_name", "Hadoop big data ecosystem"),
    ("JUnit", "descriptive", "JVM unit test framework"),
    ("JUnit", "contains_name", "JUnit test cases"),
    ("Java", "descriptive", "enterprise backend development on the JVM"),
    ("Java", "contains_name", "Java backend development"),
    ("Java", "contains_name", "JEE enterprise applications"),
    ("JavaScript", "descriptive", "client-side browser scripting"),
    ("JavaScript", "descriptive", "interactive web page scripting"),
    ("JavaScript", "contains_name", "JavaScript with jQuery"),
    ("Jenkins", "descriptive", "automated build server"),
    ("Jenkins", "contains_name", "Jenkinsfile pipelines"),
    ("Jenkins", "contains_name", "Jenkins build jobs"),
    ("Linux", "descriptive", "Unix-like operating systems"),
    ("Linux", "descriptive", "open-source server operating system administration"),
    ("Linux", "contains_name", "Linux shell administration"),
    ("Machine Learning", "descriptive", "building predictive models"),
    ("Machine Learning", "descriptive", "supervised learning algorithms"),
    ("Machine Learning", "contains_name", "ML model development"),
    ("MongoDB", "descriptive", "document-oriented NoSQL database"),
    ("MongoDB", "contains_name", "MongoDB NoSQL store"),
    ("MySQL", "descriptive", "LAMP stack database"),
    ("MySQL", "contains_name", "MySQL database administration"),
    ("Natural Language Processing", "descriptive", "text mining and language understanding"),
    ("Natural Language Processing", "contains_name", "NLP text analytics"),
    ("Oracle Database", "contains_name", "Oracle RDBMS administration"),
    ("Oracle Database", "contains_name", "Oracle relational database"),
    ("Power BI", "descriptive", "Microsoft business intelligence dashboards"),
    ("Power BI", "contains_name", "Power BI report development"),
    ("Python", "contains_name", "Python automation scripts"),
    ("Python", "contains_name", "Python developer"),
    ("REST APIs", "descriptive", "HTTP web service APIs"),
    ("REST APIs", "descriptive", "JSON over HTTP APIs"),
    ("REST APIs", "contains_name", "RESTful web services"),
    ("Redis", "descriptive", "in-memory key-value cache"),
    ("Redis", "contains_name", "Redis caching"),
    ("SAP", "descriptive", "ERP implementation consulting"),
    ("SAP", "contains_name", "enterprise resource planning (SAP)"),
    ("SAP", "contains_name", "SAP functional consultant"),
    ("SQL", "descriptive", "relational database querying"),
    ("SQL", "descriptive", "writing complex database queries"),
    ("SQL", "contains_name", "SQL querying"),
    ("Salesforce", "descriptive", "Apex and Visualforce development"),
    ("Salesforce", "contains_name", "Salesforce CRM administration"),
    ("Scala", "descriptive", "functional programming on the JVM"),
    ("Scala", "contains_name", "Scala programming"),
    ("Selenium", "descriptive", "automated browser testing"),
    ("Selenium", "descriptive", "web UI test automation"),
    ("Selenium", "contains_name", "test automation with Selenium WebDriver"),
    ("Spark", "descriptive", "in-memory distributed data processing"),
    ("Spark", "contains_name", "Spark big data processing"),
    ("Spring", "descriptive", "JVM dependency injection framework"),
    ("Spring", "contains_name", "Spring Framework applications"),
    ("Tableau", "descriptive", "interactive data visualization dashboards"),
    ("Tableau", "contains_name", "Tableau dashboard development"),
]

# Requests no CV here has: (request, terms that must occur in no CV's text or annotations).
NONSENSE: list[tuple[str, list[str]]] = [
    ("underwater basket weaving", ["underwater", "weaving", "basket weaving"]),
    ("veterinary dentistry", ["veterinary", "dentistry", "dental"]),
    ("glassblowing", ["glassblowing", "glass"]),
    ("beekeeping", ["beekeeping", "beekeeper", "apiary", "honey"]),
    ("taxidermy", ["taxidermy"]),
    ("wine sommelier certification", ["sommelier", "wine"]),
    ("circus trapeze performance", ["circus", "trapeze"]),
    ("scuba diving instruction", ["scuba"]),
    ("Haskell functional programming", ["haskell"]),
    ("Ruby on Rails", ["ruby", "rails"]),
    ("Kotlin mobile development", ["kotlin"]),
    ("Solidity smart contracts", ["solidity", "smart contract", "blockchain"]),
]


def mentions(record: dict[str, Any], term: str) -> bool:
    text = record["text"] + " , " + " , ".join(record.get("annotated_skills") or [])
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, re.IGNORECASE) is not None


def sort_key(cv_id: str) -> tuple[int, str]:
    number = cv_id.rsplit("-", 1)[-1]
    return (int(number), cv_id) if number.isdigit() else (sys.maxsize, cv_id)


def check_text(text: str, vocabulary: SkillVocabulary, split: str) -> list[str]:
    problems = []
    if not 1 <= len(text.split()) <= MAX_WORDS[split]:
        problems.append(f"'{text}' has {len(text.split())} words (1 to {MAX_WORDS[split]})")
    if vocabulary.canonical(text):
        problems.append(f"'{text}' is a vocabulary name or alias verbatim")
    return problems


def requests(vocabulary: SkillVocabulary) -> tuple[list[tuple[str, str, str, str]], list[tuple[str, list[str], str]]]:
    """(skill, kind, request, split) and (nonsense request, its terms, split): dev first, so its ids stay.

    A held-out request that names another vocabulary skill ("Spring Boot microservices") is left out, not
    edited: its relevant CVs would be those of two skills, and the text stays as its blind author wrote it."""
    heldout = [(*r, "test") for r in HELDOUT if not set(vocabulary.find(r[2])) - {r[0]}]
    paraphrases = [(*r, "dev") for r in PARAPHRASES] + heldout
    nonsense = [(t, terms, "dev") for t, terms in NONSENSE]
    nonsense += [(t, list(terms), "test") for t, terms in HELDOUT_NONSENSE]
    return paraphrases, nonsense


def build(records: list[dict[str, Any]], vocabulary: SkillVocabulary) -> tuple[list[dict[str, Any]], list[str]]:
    """The query objects (with their relevant CV ids under `_relevant`), or the problems found."""
    having = {
        skill: sorted((r["id"] for r in records if names_skill(r, skill, vocabulary)), key=sort_key)
        for skill in vocabulary.skills
    }
    kept = {skill for skill, ids in having.items() if len(ids) >= MIN_CVS and skill not in EXCLUDED}
    paraphrases, nonsense = requests(vocabulary)
    problems: list[str] = []
    for split in MAX_WORDS:
        per_skill = Counter(skill for skill, _, _, s in paraphrases if s == split)
        problems += [f"{split} {s}: {n} requests (1 to 3)" for s, n in per_skill.items() if not 1 <= n <= 3]
        if split == "dev":  # held out: a skill may have lost its requests that named other skills
            problems += [f"{s}: held by >= {MIN_CVS} CVs but has no requests" for s in sorted(kept - set(per_skill))]
        problems += [f"{split} {s}: has requests but is not kept" for s in sorted(set(per_skill) - kept)]
    texts = Counter(text.lower() for _, _, text, _ in paraphrases) + Counter(t.lower() for t, _, _ in nonsense)
    problems += [f"'{t}' is listed twice" for t, n in texts.items() if n > 1]
    queries: list[dict[str, Any]] = []
    for skill, kind, text, split in paraphrases:
        problems += check_text(text, vocabulary, split)
        hits = set(vocabulary.find(text))
        if hits - {skill}:
            problems.append(f"'{text}' (for {skill}) names other skills: {sorted(hits - {skill})}")
        if kind == "descriptive" and hits and split == "dev":  # held out: as written, an alias and all
            problems.append(f"'{text}' is descriptive but names {sorted(hits)}")
        metadata = {
            "skill": skill,
            "kind": kind,
            "hits_vocabulary": bool(hits),
            "relevant_cvs": len(having[skill]),
            "split": split,
        }
        queries.append({"text": text, "metadata": metadata, "_relevant": having[skill]})
    for text, terms, split in nonsense:
        problems += check_text(text, vocabulary, split)
        hits = set(vocabulary.find(text))
        if hits:
            problems.append(f"nonsense '{text}' names {sorted(hits)}")
        for term in terms:
            found = [r["id"] for r in records if mentions(r, term)]
            if found:
                problems.append(f"nonsense '{text}': '{term}' occurs in {found[:5]}")
        metadata = {"skill": None, "kind": "nonsense", "hits_vocabulary": bool(hits), "relevant_cvs": 0, "split": split}
        queries.append({"text": text, "metadata": metadata, "_relevant": []})
    numbers = Counter[str]()
    for query in queries:
        split = query["metadata"]["split"]
        numbers[split] += 1
        query["_id"] = f"{'q' if split == 'dev' else 'h'}{numbers[split]}"
    return queries, problems


def summary(queries: list[dict[str, Any]]) -> dict[str, Any]:
    kinds = Counter(q["metadata"]["kind"] for q in queries)
    hits = Counter(q["metadata"]["kind"] for q in queries if q["metadata"]["hits_vocabulary"])
    return {
        "skills": len({q["metadata"]["skill"] for q in queries if q["metadata"]["skill"]}),
        "queries": len(queries),
        "by_kind": dict(kinds),
        "hits_vocabulary_by_kind": {kind: hits.get(kind, 0) for kind in kinds},
        "qrels": sum(len(q["_relevant"]) for q in queries),
        "excluded": EXCLUDED,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resumes", type=Path, default=DEFAULT_RESUMES)
    parser.add_argument("--skills", type=Path, default=DEFAULT_SKILLS, help="the skill vocabulary")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args()
    records = [json.loads(line) for line in args.resumes.read_text().splitlines() if line.strip()]
    vocabulary = SkillVocabulary.load(args.skills)
    queries, problems = build(records, vocabulary)
    if problems:
        sys.exit("the judged set is not consistent:\n  " + "\n  ".join(problems))
    qrels = {q["_id"]: dict.fromkeys(q["_relevant"], 1) for q in queries if q["_relevant"]}
    write_judged_queries(args.out, queries, qrels)
    print(json.dumps(summary(queries), indent=1))


if __name__ == "__main__":
    main()
