"""What a relevance floor (or `min_score`) keeps and drops on a tool's own judged set, through real calls.

Each value is a variant of the tool's served pipeline with one setting replaced, `retriever.relevance_floor`
by default (`none` keeps everything: `{dense: -1}`, as a tool's formatter still reports the floor), or any
`--param component.setting` (`ranker.min_score`, `none`: null), run in the tool's place by
`haygate eval --judged`'s own machinery; `--base` runs them on another pipeline (a variant fusion). For
each it reports:

- precision: the share of the returned results that are judged relevant (judged queries, top `limit`);
- recall: the share of the judged relevant records that come back;
- judged_emptied: judged queries that got nothing back;
- unrelated_answered: queries with nothing relevant in the collection (unrelated topics, another tenant's)
  that got any result, of all such queries.

Prints one JSON document: per value, these four and nDCG@10, with the 1-minute load average. The figures
and the floors chosen from them are in docs/results/evaluation.md.

    .venv/bin/python -m scripts.studies.floor --judged evaluation/get_decisions \
        --value none --value '{dense: 0.3}' --value '{dense: 0.3, terms: 1.0}'
    .venv/bin/python -m scripts.studies.floor --judged evaluation/search_docs --param ranker.min_score \
        --value none --value 0.5 --value 0.8
"""

import haygate._env  # noqa: F401  (offline defaults first)

# isort: split
import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

import yaml

from haygate.cli import LIMIT_HELP, positive
from haygate.evaluation.tools import evaluate_tool, load_judged_set
from haygate.gateway.catalog import load_catalog
from haygate.settings import Settings
from scripts import PROJECT
from scripts.measure import load_average

FLOOR = "retriever.relevance_floor"


def variant(base: Path, param: str, value: Any, folder: Path, number: int) -> Path:
    pipeline = yaml.safe_load(base.read_text())
    component, setting = param.split(".", 1)
    parameters = pipeline["components"][component].setdefault("init_parameters", {})
    parameters[setting] = value if value is not None or param != FLOOR else {"dense": -1.0}
    path = folder / f"variant{number}.yaml"
    path.write_text(yaml.safe_dump(pipeline, sort_keys=False))
    return path


def summary(
    run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]], unjudged: dict[str, int]
) -> dict[str, Any]:
    returned = {q: [d for d in ranking if d != "__none__"] for q, ranking in run.items()}
    hits = sum(1 for q, ids in returned.items() for d in ids if qrels[q].get(d, 0) > 0)
    shown = sum(len(ids) for ids in returned.values())
    relevant = sum(sum(1 for s in judged.values() if s > 0) for judged in qrels.values())
    return {
        "precision": round(hits / shown, 4) if shown else None,
        "recall": round(hits / relevant, 4),
        "judged_emptied": sum(1 for ids in returned.values() if not ids),
        "judged_queries": len(returned),
        "unrelated_answered": sum(1 for n in unjudged.values() if n),
        "unrelated_queries": len(unjudged),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judged", type=Path, required=True)
    parser.add_argument("--split", default="test")
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--param", default=FLOOR, help="component.setting to vary (default: the floor)")
    parser.add_argument("--base", type=Path, default=None, help="the pipeline to vary (default: the served one)")
    parser.add_argument("--value", action="append", required=True, help="a YAML value, or `none`")
    parser.add_argument("--limit", type=positive, metavar="N", help=LIMIT_HELP)
    args = parser.parse_args()
    values = [None if text == "none" else yaml.safe_load(text) for text in args.value]
    judged = load_judged_set(args.judged, args.split, args.corpus, args.limit)
    settings = Settings(home=PROJECT, watch=False)
    served = settings.pipelines_dir / load_catalog(settings).declarations[judged.spec.tool].pipeline_file
    with tempfile.TemporaryDirectory(prefix="haygate-floors-") as temp:
        variants = [variant(args.base or served, args.param, v, Path(temp), n) for n, v in enumerate(values)]
        results, _ = evaluate_tool(settings, judged, variants, progress=False)
    report = {
        "judged": str(args.judged),
        "param": args.param,
        "load": load_average()[0],
        "values": [
            {
                "value": value,
                "ndcg@10": result.metrics.get("ndcg@10"),
                **summary(result.run, judged.dataset.qrels, result.unjudged),
            }
            for value, result in zip(values, results[1:], strict=True)
        ],
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
