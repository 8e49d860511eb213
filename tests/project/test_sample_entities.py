"""The committed entities sample (spec 002): its shape, and where every search-testing hook lands.

The data is data: `samples/entities/entities.jsonl` is the source, and `tests/fixtures/entity_hooks.yaml`
says which entities carry each hook word. This scans the committed file the way FTS5's `unicode61
remove_diacritics 2` tokenizer would, and fails when a hook moves, appears in the bulk text (a leak), or sits
only in a field the spec does not index.
"""

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[2]
RECORDS = [json.loads(line) for line in (PROJECT / "samples" / "entities" / "entities.jsonl").open(encoding="utf-8")]
HOOKS: dict[str, list[str]] = yaml.safe_load((PROJECT / "tests" / "fixtures" / "entity_hooks.yaml").read_text())

# The spec's content-concatenation table: what its FTS5 index covers per entity type.
INDEXED_FIELDS = {
    "product": ("title",),
    "feature": ("title", "description", "howtofind", "user_stories"),
    "test": ("title", "goal", "instructions", "out_of_scope"),
    "bug": ("title", "actual_result", "expected_result"),
}
NON_TEXT_FIELDS = ("entity_type", "entity_id", "product_id", "feature_id", "test_id", "severity", "status")
EXACT = ("border", "borders", "bordered", "crash", "crashes", "crashing", "logging", "checkout", "checkouts")
NOTIFY = ("notification", "notifications", "notify", "notified")


def tokens(text: str) -> list[str]:
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return re.findall(r"[a-z0-9]+", folded.lower())


def text_of(record: dict[str, Any], indexed_only: bool) -> str:
    names = INDEXED_FIELDS[record["entity_type"]] if indexed_only else list(record)
    return "\n".join(
        str(record[n]) for n in names if n in record and n not in NON_TEXT_FIELDS and record[n] is not None
    )


def hooks_in(record: dict[str, Any], indexed_only: bool) -> list[str]:
    """Every hook a record's text holds; a word of a hook family that is no hook is reported as a leak."""
    raw = text_of(record, indexed_only)
    toks = tokens(raw)
    found = [w for w in (*EXACT, *NOTIFY) if w in toks]
    found += ["login"] if {"login", "logins"} & set(toks) else []
    found += ["android"] if any(t.startswith("android") for t in toks) else []
    found += ["ios"] if "ios" in toks else []
    found += ["keyboard"] if any(t.startswith("keyboard") for t in toks) else []
    found += ["café"] if re.search(r"(?i)\bcafé", raw) else []
    found += ["cafe (no accent)"] if re.search(r"(?i)\bcafe\b", raw) else []
    if {"creme", "brulee"} & set(toks):
        found.append("crème brûlée" if re.search(r"(?i)crème brûlée", raw) else "leak:creme brulee")
    if any(t.startswith("resum") for t in toks):
        found.append("résumé" if "résumé" in raw else "leak:resume")
    phrase = any(
        toks[i].startswith("payment") and toks[i + 1].startswith("confirm") and toks[i + 2].startswith("screen")
        for i in range(len(toks) - 2)
    )
    if phrase:
        found.append("payment confirmation screen")
    elif any(t.startswith("confirm") for t in toks):
        found.append("payment+confirmation+screen")
    if any(t.startswith("dropdown") for t in toks):
        found.append("dropdown (title)" if "dropdown" in tokens(record["title"]) else "dropdown (body)")
    families = {"checkout": EXACT, "notif": NOTIFY, "border": EXACT, "crash": EXACT}
    leaks = [
        t
        for t in toks
        if t in ("log", "logs", "logged", "logout", "logouts", "crashed")
        or any(t.startswith(stem) and t not in allowed for stem, allowed in families.items())
    ]
    return sorted(found + (["leak:" + ",".join(sorted(leaks))] if leaks else []))


def where_hooks_land() -> dict[str, list[str]]:
    report: dict[str, list[str]] = {}
    for record in RECORDS:
        for hook in hooks_in(record, indexed_only=False):
            report.setdefault(hook, []).append(record["entity_id"])
    tags = {r["entity_id"]: set(hooks_in(r, indexed_only=False)) for r in RECORDS if r["entity_type"] == "bug"}
    crashy = {"crash", "crashes", "crashing"}
    report["bool: android AND crash*"] = [b for b, t in tags.items() if "android" in t and t & crashy]
    report["bool: android NOT crash*"] = [b for b, t in tags.items() if "android" in t and not t & crashy]
    report["bool: crash* NOT android"] = [b for b, t in tags.items() if "android" not in t and t & crashy]
    report["bool: ios AND keyboard"] = [b for b, t in tags.items() if {"ios", "keyboard"} <= t]
    report["bool: ios NOT keyboard"] = [b for b, t in tags.items() if "ios" in t and "keyboard" not in t]
    report["bool: keyboard NOT ios"] = [b for b, t in tags.items() if "keyboard" in t and "ios" not in t]
    return {hook: sorted(ids, key=lambda e: (e.split(":")[0], int(e.split(":")[1]))) for hook, ids in report.items()}


def test_the_sample_has_the_specs_shape() -> None:
    counts = {kind: sum(r["entity_type"] == kind for r in RECORDS) for kind in INDEXED_FIELDS}
    assert counts == {"product": 6, "feature": 60, "test": 120, "bug": 330}
    assert len({r["entity_id"] for r in RECORDS}) == len(RECORDS)
    assert all(
        r["entity_id"].startswith(r["entity_type"] + ":") and r["product_id"].startswith("product:") for r in RECORDS
    )


def test_every_hook_lands_where_the_fixture_says_and_nothing_leaks() -> None:
    found = where_hooks_land()
    assert not [hook for hook in found if hook.startswith("leak:")], [h for h in found if h.startswith("leak:")]
    assert found == HOOKS


@pytest.mark.parametrize(
    "record", [r for r in RECORDS if hooks_in(r, indexed_only=False)], ids=lambda r: r["entity_id"]
)
def test_hook_words_sit_in_indexed_fields(record: dict[str, Any]) -> None:
    assert hooks_in(record, indexed_only=True) == hooks_in(record, indexed_only=False)


def test_the_title_versus_body_pair() -> None:
    [body_id] = HOOKS["dropdown (body)"]
    body = next(r for r in RECORDS if r["entity_id"] == body_id)
    assert tokens(text_of(body, indexed_only=False)).count("dropdown") == 1
    assert len(HOOKS["dropdown (title)"]) == 1
