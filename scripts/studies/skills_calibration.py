"""Calibrate `search_by_skills`' thresholds on the judged paraphrase set (evaluation/search_by_skills, split dev).

The real CVs (../shared/data/resumes) are ingested once into a temporary store by the candidates collection's
own pipeline; then every judged query is sent as the one required skill of a real tool call. For each pair of
thresholds (the request mapped to a vocabulary skill; a CV phrase matching the request) it reports
precision@5 over the paraphrases, the paraphrases of a skill held by >= 3 CVs that came back empty, and the
nonsense requests that did not (each should be empty, with the tool's broadening message). Prints JSON, one
row per pair of thresholds; the chosen pair and its figures are in docs/tools/search_by_skills.md.

    .venv/bin/python -m scripts.studies.skills_calibration [--vocabulary-thresholds 0.5 ...] [--thresholds 0.6 ...]
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from haygate.gateway.loader import Loader
from haygate.gateway.runtime import Gateway
from haygate.ingest.indexer import ingest_files
from haygate.settings import Settings
from scripts import PROJECT

DEFAULT_RESUMES = PROJECT.parent / "shared" / "data" / "resumes" / "resumes.jsonl"
JUDGED = PROJECT / "evaluation" / "search_by_skills"
K = 5


def judged_set(folder: Path, split: str) -> tuple[list[dict[str, Any]], dict[str, set[str]]]:
    """The split's requests (judged and nonsense) and their relevant CVs."""
    queries = [json.loads(line) for line in (folder / "queries.jsonl").read_text().splitlines() if line.strip()]
    queries = [q for q in queries if q["metadata"].get("split", "test") == split]
    qrels: dict[str, set[str]] = {}
    for line in (folder / "qrels" / f"{split}.tsv").read_text().splitlines()[1:]:
        query_id, cv_id, score = line.split("\t")
        if int(score) > 0:
            qrels.setdefault(query_id, set()).add(cv_id)
    return queries, qrels


def measure(gateway: Gateway, queries: list[dict[str, Any]], qrels: dict[str, set[str]]) -> dict[str, Any]:
    precision, empty_paraphrases, answered_nonsense = [], [], []
    kinds: dict[str, list[float]] = {}
    for query in queries:
        result = gateway.call("search_by_skills", {"required_skills": [query["text"]], "top_k": K})
        ids = [c["candidate_id"] for c in result["candidates"]]
        relevant = qrels.get(query["_id"], set())
        kind = query["metadata"]["kind"]
        if kind == "nonsense":
            if ids:
                answered_nonsense.append(query["text"])
            continue
        value = sum(i in relevant for i in ids) / K
        precision.append(value)
        kinds.setdefault(kind, []).append(value)
        if not ids and len(relevant) >= 3:
            empty_paraphrases.append(query["text"])
    return {
        f"precision@{K}": round(statistics.fmean(precision), 4),
        **{f"precision@{K} {kind}": round(statistics.fmean(v), 4) for kind, v in kinds.items()},
        "empty_paraphrases": empty_paraphrases,
        "answered_nonsense": answered_nonsense,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resumes", type=Path, default=DEFAULT_RESUMES)
    parser.add_argument("--judged", type=Path, default=JUDGED)
    parser.add_argument("--split", default="dev", help="dev: calibrate on it; test: the held-out requests")
    parser.add_argument("--thresholds", type=float, nargs="*", default=[0.5, 0.55, 0.6, 0.65, 0.7])
    parser.add_argument("--vocabulary-thresholds", type=float, nargs="*", default=[0.5, 0.55, 0.6, 0.7])
    parser.add_argument("--data-dir", type=Path, default=None, help="keep the ingested CVs here (reused)")
    args = parser.parse_args()
    queries, qrels = judged_set(args.judged, args.split)
    folder = args.data_dir or Path(tempfile.mkdtemp(prefix="haygate-skills-"))
    report: dict[str, Any] = {"queries": len(queries)}
    with Loader(Settings(data_dir=folder, qdrant_url=None, watch=False)) as loader:
        started = time.perf_counter()
        ingested = ingest_files(loader.collection("candidates"), [args.resumes], progress=False)
        if ingested.refused:
            raise SystemExit(f"{len(ingested.refused)} CVs were refused, first: {ingested.refused[0]}")
        report["ingest_s"] = round(time.perf_counter() - started, 1)
        gateway = Gateway.load(loader, files=[loader.settings.tools_dir / "search_by_skills.yaml"])
        gateway.warm_up()
        pipeline = gateway.tools["search_by_skills"].pipeline
        assert pipeline is not None
        ranker = pipeline.pipeline.get_component("skill_ranker")
        for vocabulary in args.vocabulary_thresholds:
            for threshold in [None, *args.thresholds]:
                ranker.phrase_threshold = threshold  # type: ignore[attr-defined]
                ranker.vocabulary_threshold = vocabulary  # type: ignore[attr-defined]
                key = f"vocabulary_threshold={vocabulary} phrase_threshold={threshold}"
                report[key] = measure(gateway, queries, qrels)
                print(json.dumps({key: report[key]}), flush=True)
        gateway.writer.close()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
