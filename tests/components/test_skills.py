"""The relevance rule of the skill judged sets (`components.skills`)."""

from components.cv_profile import SkillVocabulary
from components.skills import names_skill
from tests.support.project import PROJECT

VOCABULARY = SkillVocabulary.load(PROJECT / "configs" / "skills.yaml")


def test_annotations_text_and_aliases_name_a_skill() -> None:
    assert names_skill({"text": "nothing here", "annotated_skills": ["Python, SQL"]}, "SQL", VOCABULARY)
    assert names_skill({"text": "Deployed with K8s and Helm"}, "Kubernetes", VOCABULARY)
    assert not names_skill({"text": "Deployed with Docker", "annotated_skills": []}, "Kubernetes", VOCABULARY)


def test_a_short_name_must_be_a_whole_word() -> None:
    assert not names_skill({"text": "Ten years of C++ and C#"}, "C", VOCABULARY)
    assert names_skill({"text": "Ten years of C++"}, "C++", VOCABULARY)
