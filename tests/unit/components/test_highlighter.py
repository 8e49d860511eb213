import pytest
from haystack import Document

from haygate.components import highlighter as highlighter_module
from haygate.components.highlighter import Highlighter


class TestHighlighter:
    def test_to_dict_and_from_dict(self) -> None:
        data = Highlighter(max_chars=80, snippet_key="excerpt").to_dict()
        assert data == {
            "type": "haygate.components.highlighter.Highlighter",
            "init_parameters": {"field": "content", "max_chars": 80, "snippet_key": "excerpt", "language": "english"},
        }
        assert Highlighter.from_dict(data).max_chars == 80

    def test_snippets_highlight_stems_and_stay_short(self) -> None:
        highlighter = Highlighter(max_chars=80)
        text = (
            "Setup notes. " * 20 + "We rebuilt the indexes after indexing, then indexed again. " + "Tail words. " * 20
        )
        snippet = highlighter.snippet(text, highlighter.token_ids("index"))
        assert len(snippet) <= 80
        assert "<mark>indexes</mark>" in snippet and "<mark>indexing</mark>" in snippet
        assert snippet.startswith("…") and snippet.endswith("…")

    def test_words_are_tokenized_once_and_the_memory_stays_bounded(self, monkeypatch: pytest.MonkeyPatch) -> None:
        highlighter = Highlighter(max_chars=80)
        text = "Indexes and indexing. " * 3 + "Tail words."
        first = highlighter.snippet(text, highlighter.token_ids("index"))
        assert set(highlighter._words) == {"Indexes", "and", "indexing", "Tail", "words"}
        assert highlighter.snippet(text, highlighter.token_ids("index")) == first  # from the kept words
        monkeypatch.setattr(highlighter_module, "WORDS_KEPT", 3)
        bounded = Highlighter(max_chars=80)
        assert bounded.snippet(text, bounded.token_ids("index")) == first
        assert len(bounded._words) <= 3

    def test_run_adds_a_snippet_without_touching_inputs(self) -> None:
        document = Document(id="x", content="The café opens", meta={"a": 1}, score=2.0)
        [out] = Highlighter().run([document], terms=["cafe"])["documents"]
        assert out.meta == {"a": 1, "snippet": "The <mark>café</mark> opens"} and out.score == 2.0
        assert document.meta == {"a": 1}

    def test_a_query_marks_its_words_and_the_text_s_own_bold_stays_bold(self) -> None:
        text = "**Default:** the cache is verified. Caching tarballs saves downloads."
        [out] = Highlighter(max_chars=200).run([Document(content=text)], query="verify caches")["documents"]
        marked = "the <mark>cache</mark> is <mark>verified</mark>. <mark>Caching</mark> tarballs saves downloads."
        assert out.meta["snippet"] == f"**Default:** {marked}"
