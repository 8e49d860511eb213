"""`DocumentFetcher`: whole documents for the few a pipeline returns, not for every candidate it ranked.

A search over-fetches: 50 candidates for a ranker that keeps 10. Reading and decoding all 50 payloads was
most of a call's store time (`scripts/bench/store_stage.py`), so the retriever can read only what its ranker
reads (`payload_fields`: nothing at all for the fused order, the content and title for a cross-encoder),
and this component, placed after the ranker, reads the rest of each kept document in one lookup by id.
Scores and the retriever's provenance (`meta.scores`) are kept as the ranker left them.
"""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.document_stores.hybrid import HybridDocumentStore, check_store


@component
class DocumentFetcher:
    """Reads the whole of each document a pipeline returns, after its ranker has kept the few it returns.

    A search over-fetches (50 candidates for a ranker that keeps 10), and reading every candidate's payload was
    most of a call's store time, so the retriever can read only what its ranker reads (`payload_fields`), and
    this component, placed after the ranker, reads the rest of each kept document in one lookup by id. Scores
    and the retriever's provenance (`meta.scores`) stay as the ranker left them.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.document_fetcher import DocumentFetcher
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    store = EdgeDocumentStore("docs", "data", embedding_dim=4)
    store.write_documents([Document(id="install", content="pip install haygate", embedding=[1.0, 0.0, 0.0, 0.0])])
    fetcher = DocumentFetcher(document_store=store)
    result = fetcher.run(documents=[Document(id="install", score=0.9)])  # as the ranker left it: no content
    print(result["documents"][0].content, result["documents"][0].score)
    ```
    """

    def __init__(self, document_store: HybridDocumentStore) -> None:
        """Set the collection the documents are read from.

        :param document_store: the collection the retriever searched (`{collection: name}`).
        """
        self.document_store = check_store(document_store, "document fetcher")

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, document_store=self.document_store)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DocumentFetcher":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Read the whole of each ranked document, in one lookup by id.

        :param documents: ranked documents, as much of each as the retriever read.
        :returns: `documents`: the same, in the same order and with the same scores, each whole: its stored
            content and meta, under the meta the pipeline added (`scores`). A document deleted since the
            search is left out, as a search run now would leave it out.
        """
        found = self.document_store.get_documents_by_id([document.id for document in documents])
        stored = {document.id: document for document in found}
        return {
            "documents": [
                dataclasses.replace(whole, meta={**whole.meta, **document.meta}, score=document.score)
                for document in documents
                if (whole := stored.get(document.id)) is not None
            ]
        }
