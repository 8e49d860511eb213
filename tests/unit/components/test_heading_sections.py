from haystack import Document
from haystack.components.preprocessors.markdown_header_splitter import MarkdownHeaderSplitter

from haygate.components.heading_sections import HeadingSections

PAGE = (
    "Preamble text.\n# Guide\nIntro.\n\n## Install\nRun it.\n```bash\n# not a heading\npip install x\n```\n"
    "### Empty\n### Extras\nMore.\n## Install\nAgain.\n"
)


def split(text: str) -> list[Document]:
    page = Document(id="my-docs:guide.md", content=text, meta={"doc_title": "Guide", "record_id": "my-docs:guide.md"})
    return MarkdownHeaderSplitter(keep_headers=False).run([page])["documents"]


class TestHeadingSections:
    def test_to_dict_and_from_dict(self) -> None:
        data = HeadingSections().to_dict()
        assert data == {
            "type": "haygate.components.heading_sections.HeadingSections",
            "init_parameters": {"title_field": "doc_title"},
        }
        assert HeadingSections.from_dict(data).title_field == "doc_title"

    def test_run_names_sections_by_heading_path(self) -> None:
        sections = HeadingSections().run(split(PAGE))["documents"]
        assert [(s.id, s.meta["title"], s.content) for s in sections] == [
            ("my-docs:guide.md#Guide", "Guide", "Preamble text."),
            ("my-docs:guide.md#Guide#2", "Guide", "Intro."),
            (
                "my-docs:guide.md#Guide/Install",
                "Guide > Install",
                "Run it.\n```bash\n# not a heading\npip install x\n```",
            ),
            ("my-docs:guide.md#Guide/Install/Extras", "Guide > Install > Extras", "More."),
            ("my-docs:guide.md#Guide/Install#2", "Guide > Install", "Again."),
        ]
        assert sections[3].meta["heading_path"] == ["Guide", "Install", "Extras"]
        assert sections[0].meta["heading_path"] == ["Guide"] and sections[0].meta["record_id"] == "my-docs:guide.md"
        assert not {"header", "parent_headers", "source_id", "split_id", "page_number"} & set(sections[1].meta)


def test_sections_take_the_authors_anchors_and_a_stray_header_moves_nothing() -> None:
    """The reader's `anchors` give each section its anchor, and its id where the author wrote one; a header
    the reader did not list (here planted by hand) matches nothing and leaves the later headings matched."""
    from haygate.text.dialects import read

    page = read("# Guide { #guide }\nIntro.\n\n## Install it\nRun it.\n\n## Extras { #more }\nMore.\n")
    anchors = [[h.text, h.anchor, h.explicit] for h in page.headings]
    assert anchors == [["Guide", "guide", True], ["Install it", "install-it", False], ["Extras", "more", True]]
    text = page.body.replace("## Install it", "## Stray\nStray text.\n\n## Install it")
    document = Document(id="d:guide.md", content=text, meta={"doc_title": "Guide", "anchors": anchors})
    parts = MarkdownHeaderSplitter(keep_headers=False).run([document])["documents"]
    sections = HeadingSections().run(parts)["documents"]
    assert [(s.id, s.meta.get("anchor")) for s in sections] == [
        ("d:guide.md#guide", "guide"),
        ("d:guide.md#Guide/Stray", None),
        ("d:guide.md#Guide/Install it", "install-it"),
        ("d:guide.md#more", "more"),
    ]
    assert all("anchors" not in s.meta for s in sections)
