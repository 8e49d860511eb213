from haystack import Document

from haygate.components.prefix_terms import PrefixTerms


class TestPrefixTerms:
    def test_to_dict_and_from_dict(self) -> None:
        data = PrefixTerms().to_dict()
        assert data == {
            "type": "haygate.components.prefix_terms.PrefixTerms",
            "init_parameters": {"field": "content", "meta_key": "terms"},
        }
        assert PrefixTerms.from_dict(data).meta_key == "terms"

    def test_run_lists_folded_words(self) -> None:
        [doc] = PrefixTerms().run([Document(content="Café notifications, a Café")])["documents"]
        assert doc.meta["terms"] == ["cafe", "notifications"]
