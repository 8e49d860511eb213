from haystack import Document

from haygate.components.section_metadata import SectionMetadata


class TestSectionMetadata:
    def test_to_dict_and_from_dict(self) -> None:
        data = SectionMetadata().to_dict()
        assert data["init_parameters"] == {"source_field": "source", "heading_field": "heading_path"}
        assert SectionMetadata.from_dict(data).source_field == "source"

    def test_run_derives_what_search_docs_filters_on(self) -> None:
        section = Document(
            content="```python\nfrom haystack import Pipeline\n```",
            meta={
                "source": "deepset-ai/haystack@c7cb46c:docs/agents.mdx",
                "heading_path": ["Agents", "What\u2019s an AI Agent?"],
            },
        )
        [out] = SectionMetadata().run([section])["documents"]
        assert out.meta["section_path"] == "agents/whats-an-ai-agent"
        assert out.meta["section_path_prefixes"] == ["agents", "agents/whats-an-ai-agent"]
        assert (out.meta["content_type"], out.meta["source_name"]) == ("code", "deepset-ai/haystack")
        [titled] = SectionMetadata().run([Document(content="Plain words here.", meta={"title": "Filters > NOT"})])[
            "documents"
        ]
        assert titled.meta["section_path"] == "filters/not" and titled.meta["source_name"] is None
