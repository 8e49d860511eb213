"""`PrefixTerms`: each document's distinct folded words in its meta, for `prefix*` queries on a
keyword-prefix index (Qdrant's text index matches whole tokens only)."""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.text.normalise import terms_of
from haygate.text.paths import check_document_path, document_text


@component
class PrefixTerms:
    def __init__(self, field: str = "content", meta_key: str = "terms") -> None:
        """
        :param field: the document path whose words are listed.
        :param meta_key: where they go: `meta.<meta_key>` (index it as `keyword_prefix`).
        """
        self.field = check_document_path(field)
        self.meta_key = meta_key

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, field=self.field, meta_key=self.meta_key)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PrefixTerms":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        return {
            "documents": [
                dataclasses.replace(d, meta={**d.meta, self.meta_key: terms_of(document_text(d, self.field))})
                for d in documents
            ]
        }
