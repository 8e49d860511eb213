"""`HeadingSections`: Haystack's `MarkdownHeaderSplitter` output -> documentation sections.

The splitter gives each part of a Markdown file its `header` and `parent_headers`. A section gets its
heading path (`["Filters", "NOT"]`), its title ("Filters > NOT") and a stable id, `<file id>#<heading
path>`, numbered `#2`, `#3` when one path repeats in a file. Text before the first heading is the page's own
section, named by its title. Empty sections are dropped and the splitter's bookkeeping leaves the meta.

The Markdown reader (`haygate.text.dialects`) lists the page's headings with their anchors in `anchors`: a
section gets its heading's `anchor`, and where the author wrote one (`{ #files }`, MyST's `(files)=`) its id
is `<file id>#<that anchor>`, which no later change to the heading's text moves.
"""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

SPLITTER_META = ("header", "parent_headers", "source_id", "page_number", "split_id", "split_idx_start")
PAGE_META = ("anchors",)  # the page's headings and their anchors (the Markdown reader's), read here and left


@component
class HeadingSections:
    """Turns Haystack's `MarkdownHeaderSplitter` output into documentation sections.

    Place it after the splitter in a documentation indexing pipeline. A section gets its heading path
    (`["Filters", "NOT"]`), its title ("Filters > NOT") and a stable id, `<file id>#<heading path>`, numbered
    `#2`, `#3` when one path repeats in a file. Text before the first heading is the page's own section, named
    by its title. Empty sections are dropped and the splitter's bookkeeping leaves the meta.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.heading_sections import HeadingSections

    part = Document(
        content="Exclude matches with NOT.",
        meta={"header": "NOT", "parent_headers": ["Filters"], "source_id": "guide.md", "doc_title": "Guide"},
    )
    result = HeadingSections().run(documents=[part])
    print(result["documents"][0].id, result["documents"][0].meta["title"])  # guide.md#Filters/NOT Filters > NOT
    ```
    """

    def __init__(self, title_field: str = "doc_title") -> None:
        """Set the meta field that names the whole page.

        :param title_field: the meta field naming the whole page (its front-matter title or first heading).
        """
        self.title_field = title_field

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, title_field=self.title_field)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HeadingSections":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Turn the splitter's parts into sections with heading paths, titles and stable ids."""
        seen: dict[tuple[str, str], int] = {}
        headings: dict[str, tuple[list[list[Any]], list[int]]] = {}  # page -> its headings, the next to match
        sections = []
        for part in documents:
            page = str(part.meta.get("source_id") or part.id)
            if page not in headings:
                headings[page] = (list(part.meta.get("anchors") or []), [0])
            header = part.meta.get("header")
            anchor, explicit = _anchor_of(*headings[page], header) if header else (None, False)
            text = (part.content or "").strip()
            if not text:
                continue
            path = [*(part.meta.get("parent_headers") or []), header] if header else []
            page_title = str(part.meta.get(self.title_field) or part.meta.get("title") or part.id)
            key = anchor if explicit and anchor else "/".join(path) or page_title
            seen[(page, key)] = seen.get((page, key), 0) + 1
            suffix = f"#{seen[(page, key)]}" if seen[(page, key)] > 1 else ""
            meta = {k: v for k, v in part.meta.items() if k not in SPLITTER_META and k not in PAGE_META}
            meta.update(title=" > ".join(path) or page_title, heading_path=path or [page_title])
            if anchor:
                meta["anchor"] = anchor
            sections.append(dataclasses.replace(part, id=f"{page}#{key}{suffix}", content=text, meta=meta))
        return {"documents": sections}


def _anchor_of(headings: list[list[Any]], position: list[int], header: str) -> tuple[str | None, bool]:
    """The anchor of the page's next heading named `header` (headings the splitter did not cut at, such as
    empty ones, are passed over; a header the reader did not list matches nothing and moves nothing), and
    whether its author wrote it.
    """
    for index in range(position[0], len(headings)):
        text, anchor, explicit = headings[index]
        if text == header:
            position[0] = index + 1
            return str(anchor), bool(explicit)
    return None, False
