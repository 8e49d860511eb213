"""Every tool's schema and a few calls per tool, against a snapshot taken before the package was laid out
anew (`tests/fixtures/behaviour_snapshot.json`): a change of layout must not change behaviour.

Scores are compared with a small tolerance, and results whose scores tie may come in either order: with
reciprocal rank fusion, Qdrant places tied points by their position in the shard, which a rebuilt index
may change. To record a deliberate change:
`HAYGATE_UPDATE_SNAPSHOT=1 pytest tests/integration/test_behaviour_snapshot.py`.
"""

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from haygate.errors import envelope
from haygate.gateway.runtime import Gateway
from tests.support.serving import mcp_for

pytestmark = pytest.mark.integration
SNAPSHOT = Path(__file__).resolve().parents[1] / "fixtures" / "behaviour_snapshot.json"
EXPECTED = json.loads(SNAPSHOT.read_text())
SCORE_KEYS = ("score", "match_score")


def close(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, floats compared with a tolerance; empty when they agree."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in close(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items, expected {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in close(x, y, f"{path}[{i}]")]
    if isinstance(a, float) or isinstance(b, float):
        ok = (
            isinstance(a, int | float) and isinstance(b, int | float) and math.isclose(a, b, rel_tol=1e-2, abs_tol=5e-3)
        )
        return [] if ok else [f"{path}: {a} != {b}"]
    return [] if a == b else [f"{path}: {str(a)[:60]!r} != {str(b)[:60]!r}"]


def canonical(result: dict[str, Any]) -> dict[str, Any]:
    """Results ordered by rounded score, then by content: tied results compare in any order."""
    out = dict(result)
    for key in ("results", "candidates"):
        items = out.get(key)
        if isinstance(items, list) and items and any(k in items[0] for k in SCORE_KEYS):
            score = next(k for k in SCORE_KEYS if k in items[0])
            out[key] = sorted(
                items,
                key=lambda r: (
                    -round(r[score] or 0.0, 2),
                    json.dumps({k: v for k, v in r.items() if not isinstance(v, float | list)}, sort_keys=True),
                ),
            )
    return out


def run(gateway: Gateway, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        return gateway.call(tool, arguments)
    except Exception as error:
        return envelope(error)[1]


async def test_tools_list_is_unchanged(gateway: Gateway) -> None:
    async with Client(mcp_for(gateway)) as client:
        listed = [t.model_dump(mode="json", exclude_none=True) for t in await client.list_tools()]
    if os.environ.get("HAYGATE_UPDATE_SNAPSHOT"):
        EXPECTED["tools"] = listed
        SNAPSHOT.write_text(json.dumps(EXPECTED, indent=1, sort_keys=True, default=str) + "\n")
    assert sorted(listed, key=lambda t: t["name"]) == sorted(EXPECTED["tools"], key=lambda t: t["name"])


@pytest.mark.parametrize("case", range(len(EXPECTED["calls"])), ids=lambda i: f"{EXPECTED['calls'][i]['tool']}-{i}")
def test_calls_answer_as_before(gateway: Gateway, case: int) -> None:
    expected = EXPECTED["calls"][case]
    result = run(gateway, expected["tool"], expected["arguments"])
    if os.environ.get("HAYGATE_UPDATE_SNAPSHOT"):
        EXPECTED["calls"][case]["result"] = result
        SNAPSHOT.write_text(json.dumps(EXPECTED, indent=1, sort_keys=True, default=str) + "\n")
    assert close(canonical(result), canonical(expected["result"])) == []
