"""Slugs, heading paths, folding and words."""

from haygate.text.normalise import fold, path_prefixes, slug_path, slugify, terms_of


def test_slugify_and_section_path() -> None:
    assert slugify("What\u2019s an AI Agent?") == "whats-an-ai-agent"
    assert slug_path(["Agents", "What\u2019s an AI Agent?"]) == "agents/whats-an-ai-agent"
    assert slug_path("Pipelines > Serialization") == "pipelines/serialization"
    assert path_prefixes("a/b/c") == ["a", "a/b", "a/b/c"]


def test_fold_and_terms() -> None:
    assert fold("Crème Brûlée") == "creme brulee"
    assert terms_of("Café café, notifications! a") == ["cafe", "notifications"]
