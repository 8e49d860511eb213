"""`DocumentFetcher`: whole documents for the few a pipeline returns, not for every candidate it ranked.

A search over-fetches: 50 candidates for a ranker that keeps 10. Reading and decoding all 50 payloads was
most of a call's store time (`scripts/store_stage.py`), so the retriever can read only what its ranker
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
    def __init__(self, document_store: HybridDocumentStore) -> None:
        """:param document_store: the collection the retriever searched (`{collection: name}`)."""
        self.document_store = check_store(document_store, "document fetcher")

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, document_store=self.document_store)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DocumentFetcher":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """
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
