"""Query texts for the benchmark scripts: the judged sets' queries (`evaluation/*/queries.jsonl`), each once.
A benchmark sends each text at most once to a process, so no cache (haygate keeps recent query vectors) can
stand in for the work it times."""

import json
from collections.abc import Iterable

from scripts import PROJECT

EVALUATION = PROJECT / "evaluation"


def judged_texts(leaving_out: Iterable[str] = ()) -> list[str]:
    """Every distinct query text of the judged sets (cut at 500 characters), in a fixed order, without those
    of the named sets (`search_docs`: the texts a benchmark keeps for its own judged run)."""
    left_out = set(leaving_out)
    texts: dict[str, None] = {}
    for path in sorted(EVALUATION.glob("*/queries.jsonl")):
        if path.parent.name in left_out:
            continue
        for line in path.read_text().splitlines():
            if line.strip():
                texts.setdefault(json.loads(line)["text"][:500], None)
    return list(texts)
