"""Deterministic knowledge extractions from Haystack's documentation sections (`sections.jsonl`).

- warnings: `:::warning` and `:::caution` admonitions;
- patterns: fenced code examples, named by their heading, with the problem taken from the prose before;
- decisions: sections that compare options ("X vs Y", "Choosing ...", "When to use ...").

Rules, not a model: the same input always gives the same extractions, each attributed to its doc path,
version and section. Output records follow the `knowledge` collection's extraction structure.
"""

import hashlib
import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_ADMONITION = re.compile(r"^:::(warning|caution)[^\n]*\n(.*?)^:::\s*$", re.M | re.S)
_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```\s*$", re.M | re.S)
_COMPARISON = re.compile(
    r"\b(vs\.?|versus)\b|^(choosing|comparing)\b|\bwhen to use\b|\bwhich .+ to use\b|\bdifference between\b", re.I
)
_LIST_ITEM = re.compile(
    r"^\s*(?:[-*\u2022]|\d+\.)\s+(?:\*\*|`)?([^*`:\n]{2,80}?)(?:\*\*|`)?\s*(?::|\s[-\u2013]\s|$)", re.M
)
_CONSIDERATION = re.compile(r"\b(if|when|because|faster|slower|cheaper|cost|memory|latency|however|but|trade)\b", re.I)
_RECOMMENDATION = re.compile(r"\b(recommend|we suggest|best choice|should use|prefer|go with)\w*", re.I)
_PREVENTION = re.compile(r"\b(make sure|ensure|use |set |avoid|do not|don't|instead)\b", re.I)
MIN_CODE_LINES = 3
MAX_CODE_LINES = 60


def extract_sections(path: Path, project_id: str) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield from extract_section(json.loads(line), project_id)


def extract_section(section: dict[str, Any], project_id: str) -> Iterator[dict[str, Any]]:
    text: str = section.get("text") or ""
    for number, match in enumerate(_ADMONITION.finditer(text)):
        yield _record(section, project_id, "warning", number, _warning(section, match.group(2)))
    code_blocks = [m for m in _FENCE.finditer(text) if len(m.group(2).strip().splitlines()) >= MIN_CODE_LINES]
    for number, match in enumerate(code_blocks):
        pattern = _pattern(section, text, match, number, len(code_blocks))
        if pattern is not None:
            yield _record(section, project_id, "pattern", number, pattern)
    if _COMPARISON.search(_last_heading(section)):
        decision = _decision(section, text)
        if decision is not None:
            yield _record(section, project_id, "decision", 0, decision)


def _record(
    section: dict[str, Any], project_id: str, kind: str, number: int, content: dict[str, Any]
) -> dict[str, Any]:
    section_id = str(section["_id"])
    digest = hashlib.sha1(f"{section_id}|{kind}|{number}".encode()).hexdigest()[:12]
    path, version = section.get("path", ""), section.get("version", "")
    return {
        "id": f"hs-{kind[:3]}-{digest}",
        "type": kind,
        "project_id": project_id,
        "source_id": f"haystack-docs/{version}/{path}",
        "source_title": f"{section.get('doc_title') or path} (Haystack {version} docs)",
        "source_type": "documentation",
        "chunk_id": section_id,
        "section": " > ".join(section.get("heading_path") or []),
        "topics": _topics(path),
        "schema_version": "1.0",
        "content": content,
    }


def _topics(path: str) -> list[str]:
    """Documentation folders are the topics: concepts/document-store/x.mdx -> [concepts, document-store]."""
    parts = [p for p in path.split("/")[:-1] if p]
    return [re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts][:3] or ["docs"]


def _last_heading(section: dict[str, Any]) -> str:
    headings = section.get("heading_path") or [section.get("title") or ""]
    return str(headings[-1])


def _sentences(text: str) -> list[str]:
    prose = _FENCE.sub(" ", _ADMONITION.sub(" ", text))
    prose = re.sub(r"[#>*_`|]+", " ", prose)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n{2,}", prose) if len(s.strip()) > 20]


def _warning(section: dict[str, Any], body: str) -> dict[str, Any]:
    lines = [line.strip() for line in body.strip().splitlines() if line.strip()]
    # A short first line without a full stop is the admonition's own title ("In progress").
    if len(lines) > 1 and len(lines[0]) <= 80 and not lines[0].endswith("."):
        title, rest = lines[0], lines[1:]
    else:
        title, rest = _last_heading(section), lines
    description = " ".join(rest)
    prevention = [s for s in _sentences(description) if _PREVENTION.search(s)]
    return {
        "title": title,
        "description": description,
        "symptoms": None,
        "consequences": None,
        "prevention": " ".join(prevention) or None,
    }


def _pattern(
    section: dict[str, Any], text: str, match: re.Match[str], number: int, total: int
) -> dict[str, Any] | None:
    before = [p.strip() for p in re.split(r"\n{2,}", text[: match.start()]) if p.strip()]
    prose_before = [p for p in before if not p.startswith(("```", ":::", "#", "|"))]
    if not prose_before:
        return None  # a code block with no words before it states no problem
    after = [p.strip() for p in re.split(r"\n{2,}", text[match.end() :]) if p.strip()]
    prose_after = [p for p in after if not p.startswith(("```", ":::", "#", "|"))]
    code_lines = match.group(2).rstrip().splitlines()
    name = _last_heading(section) + (f" ({number + 1})" if total > 1 else "")
    return {
        "name": name,
        # A lead-in ("With multimodal inputs:") needs its heading to state a problem.
        "problem": prose_before[-1] if len(prose_before[-1]) >= 60 else f"{name}: {prose_before[-1]}",
        "solution": prose_after[0] if prose_after else f"The {match.group(1) or 'code'} example below.",
        "code_example": "\n".join(code_lines[:MAX_CODE_LINES]),
        "context": " > ".join(section.get("heading_path") or []),
        "trade_offs": None,
    }


def _decision(section: dict[str, Any], text: str) -> dict[str, Any] | None:
    heading = _last_heading(section)
    versus = re.split(r"\s+(?:vs\.?|versus)\s+", heading, flags=re.I)
    options = [o.strip() for o in versus] if len(versus) > 1 else []
    options += [m.group(1).strip() for m in _LIST_ITEM.finditer(text)]
    # Options are names, not sentences: list items of at most six words.
    options = list(dict.fromkeys(o for o in options if o and len(o.split()) <= 6 and not o.endswith(".")))[:8]
    if len(options) < 2:
        return None
    sentences = _sentences(text)
    if len(versus) > 1:
        question = f"Should you use {' or '.join(options[: len(versus)])}?"
    else:
        subject = re.sub(r"^(choosing|comparing|when to use)\s+(the right\s+|an?\s+|the\s+)?", "", heading, flags=re.I)
        if subject.lower() in ("it", "this", "them", ""):
            subject = str(section.get("doc_title") or subject)
        question = f"Which {subject.rstrip('?')} should you choose?"
    recommended = [s for s in sentences if _RECOMMENDATION.search(s)]
    return {
        "question": question,
        "options": options,
        "considerations": [s for s in sentences if _CONSIDERATION.search(s)][:6],
        "recommended_approach": recommended[0] if recommended else None,
    }


def write_extractions(source: Path, target: Path, project_id: str) -> Counter[str]:
    counts: Counter[str] = Counter()
    with target.open("w", encoding="utf-8") as out:
        for record in extract_sections(source, project_id):
            counts[record["type"]] += 1
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return counts
