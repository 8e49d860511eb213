"""Relevance for skill search on annotated CVs: one rule for every script and judged set that needs it."""

import re
from typing import Any

from components.cv_profile import SkillVocabulary


def names_skill(record: dict[str, Any], skill: str, vocabulary: SkillVocabulary) -> bool:
    """A CV is relevant to a skill when its human annotations or its text name it, by the skill's own name
    or a vocabulary alias (whole words, so "C" is not found in "C++").
    """
    canonical = vocabulary.canonical(skill) or skill
    annotations = " , ".join(record.get("annotated_skills") or [])
    for text in (annotations, record["text"]):
        if canonical in vocabulary.find(text):
            return True
        if re.search(rf"(?<![\w+#.]){re.escape(skill)}(?![\w+#])", text, re.IGNORECASE):
            return True
    return False
