"""Years of experience and level of real, annotated CVs (../shared/data/resumes), under the current rule for
"to Present" and under the rule it replaced.

"before" is the old rule: a range "to Present" ends today (`as_of` = the day this runs, as the old code
took it). "after" is the current rule for a record without `as_of`, as the resumes are: "Present" ends at
the latest date the CV's work history states, and the profile is marked open-ended (the years are a lower
bound). Truth is the human-annotated `years_of_experience` span where it reads as a duration ("6.8 years",
"15 Months"); levels use the code's own thresholds. Prints JSON (errors in years, levels as shares of the
CVs); the figures are in docs/tools/search_by_skills.md.

    .venv/bin/python -m scripts.studies.cv_experience_accuracy [--resumes PATH]

- `annotated`: the whole profile (a stated total wins over work history) on the annotated CVs.
- `work_history`: the work-history estimate alone, on annotated CVs with a range "to Present": isolates
  the open-range rule, which the whole profile uses only when a CV states no total. `alternatives` are
  the rules considered and not taken: "Present" at the latest date anywhere in the text, or open ranges
  left out.
- `corpus`: levels and bases over all CVs ("before" reports its today-measured ranges as basis "as_of").
"""

import argparse
import datetime as dt
import json
import re
import statistics
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from components.cv_profile import (
    CvProfile,
    SkillVocabulary,
    cv_profile,
    experience_level,
    merged_years,
    work_history,
    work_ranges,
)
from scripts import PROJECT

DEFAULT_RESUMES = PROJECT.parent / "shared" / "data" / "resumes" / "resumes.jsonl"
LEVEL_RANK = {"unknown": -1, "junior": 0, "mid": 1, "senior": 2}
_ANNOTATED_YEARS = re.compile(r"(\d+(?:\.\d+)?)\s*\+?\s*-?\s*(?:years?|yrs?|yr)", re.IGNORECASE)
_ANNOTATED_MONTHS = re.compile(r"(\d+)\s*months?", re.IGNORECASE)
_MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
_ANY_DATE = re.compile(rf"(?:\b({'|'.join(_MONTHS)})[a-z]*\.?\s+)?(?<!\d)((?:19|20)\d\d)(?!\d)", re.IGNORECASE)

Estimate = Callable[[str], float | None]


def annotated_years(spans: list[str]) -> float | None:
    """The first annotated span that reads as a duration; "2004" (a start year) or "6+" say no duration."""
    for span in spans:
        years, months = _ANNOTATED_YEARS.search(span), _ANNOTATED_MONTHS.search(span)
        if years:
            return float(years.group(1)) + (int(months.group(1)) / 12 if months else 0)
        if months:
            return int(months.group(1)) / 12
    return None


def scores(pairs: list[tuple[float | None, float]]) -> dict[str, Any]:
    """Estimated vs annotated years: MAE where there is an estimate, and the level each gives."""
    errors = [abs(estimate - truth) for estimate, truth in pairs if estimate is not None]
    levels = [
        (LEVEL_RANK[experience_level(estimate)], LEVEL_RANK[experience_level(truth)]) for estimate, truth in pairs
    ]
    return {
        "cvs": len(pairs),
        "estimated": len(errors),
        "mae_years": round(statistics.mean(errors), 2) if errors else None,
        "median_abs_error_years": round(statistics.median(errors), 2) if errors else None,
        "level_accuracy": round(sum(p == t for p, t in levels) / len(levels), 3) if levels else None,
        "level_correct": sum(p == t for p, t in levels),
        "level_overclaimed": sum(p > t for p, t in levels),
        "level_underclaimed": sum(0 <= p < t for p, t in levels),
        "level_unknown": sum(p < 0 for p, _ in levels),
    }


def latest_date_in_text(text: str) -> dt.date | None:
    """The alternative not taken: the latest month or year anywhere in the CV, as the date it was written."""
    found = []
    for month, year in _ANY_DATE.findall(text):
        found.append(dt.date(int(year), _MONTHS.index(month[:3].lower()) + 1 if month else 12, 1))
    return max(found, default=None)


def closed_ranges_only(text: str) -> float | None:
    """The other alternative not taken: open ranges left out of the years."""
    latest = dt.date.today().year * 12 + dt.date.today().month
    return merged_years([(s, e) for s, e in work_ranges(text) if e is not None and s <= e <= latest])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resumes", type=Path, default=DEFAULT_RESUMES)
    args = parser.parse_args()
    records = [json.loads(line) for line in args.resumes.read_text().splitlines() if line.strip()]
    vocabulary = SkillVocabulary.load(PROJECT / "configs" / "skills.yaml")
    today = dt.date.today()
    rules: dict[str, dt.date | None] = {"before": today, "after": None}
    profiles: dict[str, list[CvProfile]] = {
        rule: [cv_profile(r["text"], vocabulary, as_of) for r in records] for rule, as_of in rules.items()
    }
    truth = {i: years for i, r in enumerate(records) if (years := annotated_years(r.get("years_of_experience") or []))}
    with_open_range = [i for i in truth if any(end is None for _, end in work_ranges(records[i]["text"]))]

    def history_scores(estimate: Estimate) -> dict[str, Any]:
        return scores([(estimate(records[i]["text"]), truth[i]) for i in with_open_range])

    report = {
        "resumes": str(args.resumes),
        "before_measured_to": today.isoformat(),
        "annotated": {
            rule: scores([(found[i].years_of_experience, years) for i, years in truth.items()])
            for rule, found in profiles.items()
        },
        "work_history": {
            "before": history_scores(lambda text: merged_years(work_history(text, today).periods)),
            "after": history_scores(lambda text: merged_years(work_history(text, None).periods)),
            "alternatives": {
                "latest_date_in_text": history_scores(
                    lambda text: merged_years(work_history(text, latest_date_in_text(text)).periods)
                ),
                "closed_ranges_only": history_scores(closed_ranges_only),
            },
        },
        "corpus": {
            rule: {
                "cvs": len(found),
                "levels": dict(sorted(Counter(p.experience_level for p in found).items())),
                "basis": dict(sorted(Counter(p.experience_basis for p in found).items())),
                "open_ended": sum(p.experience_open_ended for p in found),
            }
            for rule, found in profiles.items()
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
