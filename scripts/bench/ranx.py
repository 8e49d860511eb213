"""ranx's metrics compiled by numba against the same metrics run as plain Python (`NUMBA_DISABLE_JIT=1`, which
haygate sets by default in `haygate._env`): one process each, the import, the scoring and a paired comparison
of a synthetic run, timed apart, and the figures compared. Prints JSON: per side `import_s`, `evaluate_s`
and `compare_s` (seconds, one run each), the metrics' values, `same_figures` (whether both sides agree) and
the 1-minute load average. Figures: docs/results/benchmarks.md.

    .venv/bin/python -m scripts.bench.ranx --queries 1000 --depth 100
"""

import argparse
import json
import os
import subprocess
import sys

from scripts.measure import load_average

CHILD = r"""
import json, random, sys, time
started = time.perf_counter()
from ranx import Qrels, Run, compare, evaluate
imported = time.perf_counter()
queries, depth = int(sys.argv[1]), int(sys.argv[2])
rng = random.Random(0)
qrels = {f"q{i}": {f"d{rng.randrange(queries * 5)}": rng.randint(1, 3) for _ in range(3)} for i in range(queries)}
run = {f"q{i}": {f"d{rng.randrange(queries * 5)}": 1 / (k + 1) for k in range(depth)} for i in range(queries)}
other = {q: {d: s * rng.random() for d, s in ranked.items()} for q, ranked in run.items()}
metrics = ["ndcg@10", "recall@100", "mrr@10", "map@100"]
before = time.perf_counter()
scores = evaluate(Qrels(qrels), Run(run), metrics)
scored = time.perf_counter()
compare(Qrels(qrels), [Run(run, name="a"), Run(other, name="b")], metrics[:2], stat_test="student")
compared = time.perf_counter()
print(json.dumps({
    "import_s": round(imported - started, 2),
    "evaluate_s": round(scored - before, 2),
    "compare_s": round(compared - scored, 2),
    "metrics": {m: round(float(v), 6) for m, v in scores.items()},
}))
"""


def measure(jit: bool, queries: int, depth: int) -> dict:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "0" if jit else "1"}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(queries), str(depth)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=100)
    args = parser.parse_args()
    compiled = measure(True, args.queries, args.depth)
    plain = measure(False, args.queries, args.depth)
    print(
        json.dumps(
            {
                "queries": args.queries,
                "depth": args.depth,
                "load_1min": load_average()[0],
                "compiled": compiled,
                "plain_python": plain,
                "same_figures": compiled["metrics"] == plain["metrics"],
            },
            indent=1,
        )
    )


if __name__ == "__main__":
    main()
