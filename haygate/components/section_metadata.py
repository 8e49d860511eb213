"""`SectionMetadata`: what search_docs filters on, derived from each documentation section.

- `section_path`: the slugified heading path (`agents/whats-an-ai-agent`), and `section_path_prefixes`,
  every prefix of it, so "under agents" is an exact match on one element;
- `content_type`: code, prose or mixed, by the share of code in the text;
- `source_name`: the source without its revision (`deepset-ai/haystack@c7cb46c:docs/...` ->
  `deepset-ai/haystack`).
"""

import dataclasses
import re
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.text.content_type import content_type
from haygate.text.normalise import path_prefixes, slug_path


@component
class SectionMetadata:
    """Derives what a documentation search filters on from each section.

    Place it after `HeadingSections` (or `SectionChunks`) in a documentation indexing pipeline. It adds
    `section_path`, the slugified heading path (`agents/whats-an-ai-agent`), and `section_path_prefixes`, every
    prefix of it, so "under agents" is an exact match on one element; `content_type` (code, prose or mixed, by
    the share of code in the text); and `source_name`, the source without its revision.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.section_metadata import SectionMetadata

    section = Document(
        content="Agents use tools.",
        meta={"source": "deepset-ai/haystack@c7cb46c:docs/agents.md", "heading_path": ["Agents", "What's an AI agent"]},
    )
    print(SectionMetadata().run(documents=[section])["documents"][0].meta)
    ```
    """

    def __init__(self, source_field: str = "source", heading_field: str = "heading_path") -> None:
        """Set the meta fields the source and the heading path are read from.

        :param source_field: meta field holding the source (`repo@revision:path`).
        :param heading_field: meta field holding the heading path (a list, or "A > B"); the title when absent.
        """
        self.source_field = source_field
        self.heading_field = heading_field

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, source_field=self.source_field, heading_field=self.heading_field)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SectionMetadata":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Add the derived fields to each section's meta."""
        return {"documents": [dataclasses.replace(d, meta={**d.meta, **self.derive(d)}) for d in documents]}

    def derive(self, document: Document) -> dict[str, Any]:
        """The fields derived from one section: source name, section path and its prefixes, content type."""
        source = str(document.meta.get(self.source_field) or "")
        heading = document.meta.get(self.heading_field) or document.meta.get("title") or ""
        path = slug_path(heading) if heading else ""
        return {
            "source_name": re.split(r"[@:]", source, maxsplit=1)[0] if source else None,
            "section_path": path,
            "section_path_prefixes": path_prefixes(path),
            "content_type": content_type(document.content or ""),
        }
