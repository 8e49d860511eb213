"""`PrefixTerms`: each document's distinct folded words in its meta, for `prefix*` queries on a
keyword-prefix index (Qdrant's text index matches whole tokens only).
"""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.text.normalise import terms_of
from haygate.text.paths import check_document_path, document_text


@component
class PrefixTerms:
    """Lists each document's distinct folded words in its meta, for `prefix*` queries.

    Qdrant's text index matches whole tokens only; index the list this writes (`meta.terms`) as
    `keyword_prefix` and `FullTextQuery` turns `prefix*` into a condition on it.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.prefix_terms import PrefixTerms

    result = PrefixTerms().run(documents=[Document(content="Café filters, filters again")])
    print(result["documents"][0].meta["terms"])
    ```
    """

    def __init__(self, field: str = "content", meta_key: str = "terms") -> None:
        """Set the field whose words are listed and where they go.

        :param field: the document path whose words are listed.
        :param meta_key: where they go: `meta.<meta_key>` (index it as `keyword_prefix`).
        """
        self.field = check_document_path(field)
        self.meta_key = meta_key

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, field=self.field, meta_key=self.meta_key)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "PrefixTerms":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Write each document's distinct folded words to its meta."""
        return {
            "documents": [
                dataclasses.replace(d, meta={**d.meta, self.meta_key: terms_of(document_text(d, self.field))})
                for d in documents
            ]
        }
