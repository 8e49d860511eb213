"""Precision@5 of `search_by_skills` on real, annotated CVs (../shared/data/resumes).

A returned candidate is relevant when the CV's human annotations or its text name the skill (by its name or
an alias from configs/skills.yaml). The CVs are ingested into a temporary store; prints JSON (precision@5 per
skill and overall, the ingest's seconds), then a table. Figures: docs/tools/search_by_skills.md.

    .venv/bin/python -m scripts.studies.skills_precision [--resumes PATH] [--skills Java SQL ...]
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from components.cv_profile import SkillVocabulary
from components.skills import names_skill
from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.settings import Settings
from scripts import PROJECT

DEFAULT_RESUMES = PROJECT.parent / "shared" / "data" / "resumes" / "resumes.jsonl"
DEFAULT_SKILLS = ["Java", "SQL", "Selenium", "Python", "AWS", "Docker", "Jenkins", "SAP", "Azure", "Hadoop"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resumes", type=Path, default=DEFAULT_RESUMES)
    parser.add_argument("--skills", nargs="+", default=DEFAULT_SKILLS)
    parser.add_argument("--k", type=int, default=5)
    args = parser.parse_args()
    records = {r["id"]: r for r in map(json.loads, args.resumes.read_text().splitlines())}
    rows = []
    with tempfile.TemporaryDirectory() as folder, Loader(Settings(data_dir=Path(folder), qdrant_url=None)) as loader:
        vocabulary = SkillVocabulary.load(loader.settings.home / "configs" / "skills.yaml")
        started = time.perf_counter()
        ingest_files(loader.collection("candidates"), [args.resumes], progress=False)
        ingest_seconds = time.perf_counter() - started
        gateway = Gateway.load(loader, files=[loader.settings.tools_dir / "search_by_skills.yaml"])
        gateway.warm_up()
        for skill in args.skills:
            result = gateway.call("search_by_skills", {"required_skills": [skill], "top_k": args.k})
            ids = [c["candidate_id"] for c in result["candidates"]]
            hits = [i for i in ids if names_skill(records[i], skill, vocabulary)]
            having = sum(names_skill(r, skill, vocabulary) for r in records.values())
            rows.append(
                {
                    "skill": skill,
                    f"precision@{args.k}": len(hits) / args.k,
                    "returned": len(ids),
                    "cvs_with_skill": having,
                    "misses": [i for i in ids if i not in hits],
                }
            )
    mean = statistics.mean(r[f"precision@{args.k}"] for r in rows)
    print(json.dumps({"cvs": len(records), "ingest_s": round(ingest_seconds, 1), "mean": mean, "skills": rows}))
    print(f"\n| skill | precision@{args.k} | CVs with the skill |\n|---|---|---|")
    for r in rows:
        print(f"| {r['skill']} | {r[f'precision@{args.k}']:.2f} | {r['cvs_with_skill']} |")
    print(f"| **mean** | **{mean:.2f}** | |")


if __name__ == "__main__":
    main()
