"""`LinkedPage`: one page of a ranked list of memories, with each memory's links scored and sorted.

Pagination slices one deterministic ranking, so the pages of a query, concatenated, equal one large page:
no duplicates, no gaps. A link's score is `link weight x memory score`, where the memory score is the linked
memory's relevance to the same query: its score in the ranking, or, when the ranking does not hold it (it
failed an AND, say), its BM25 score for the query's words, computed for exactly those memories.
"""

import dataclasses
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.api import HybridDocumentStore, HybridQuery, Stage, check_store

RECORD_ID = "meta.record_id"


@component
class LinkedPage:
    """Gives one page of a ranked list of memories, with each memory's links scored and sorted.

    Use it after the ranker of a memory search that pages. Pagination slices one deterministic ranking, so the
    pages of a query, concatenated, equal one large page: no duplicates, no gaps. A link's score is
    `link weight x memory score`, where the memory score is the linked memory's relevance to the same query:
    its score in the ranking, or, when the ranking does not hold it (it failed an AND, say), its BM25 score for
    the query's words, computed for exactly those memories.

    ### Usage example

    ```python
    from haystack import Document

    from components.linked_page import LinkedPage
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    store = EdgeDocumentStore("memories", "data", embedding_dim=4)
    ranking = [
        Document(id="m1", score=0.9, meta={"record_id": "m1", "links": [{"target_key": "m2", "weight": 0.5}]}),
        Document(id="m2", score=0.4, meta={"record_id": "m2", "links": []}),
    ]
    page = LinkedPage(document_store=store)
    result = page.run(documents=ranking, query="backups", offset=0, limit=1, sort_links=True)
    print(result["documents"][0].meta["links"], result["metadata"])  # m2's link scores 0.5 x 0.4
    ```
    """

    stage: Stage = "store"  # what telemetry times its runs as (haygate.api.Stage)

    def __init__(
        self, document_store: HybridDocumentStore, links_field: str = "links", text_field: str = "content"
    ) -> None:
        """Set the collection the linked memories are read from.

        :param links_field: meta field with `[{target_key, weight}]`.
        :param text_field: text-indexed field used to score linked memories the ranking does not hold.
        """
        self.document_store = check_store(document_store, "linked page")
        self.links_field = links_field
        self.text_field = text_field

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self, document_store=self.document_store, links_field=self.links_field, text_field=self.text_field
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LinkedPage":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document], metadata=dict[str, Any])
    def run(
        self,
        documents: list[Document],
        query: str,
        offset: int,
        limit: int,
        sort_links: bool,
        text: str | None = None,
    ) -> dict[str, Any]:
        """Cut one page of the ranking and score each of its memories' links.

        :param documents: the whole ranking, best first.
        :param query: the query, as the envelope reports it (for the past-the-end message).
        :param offset: where the page starts; `limit`, how long it is; `sort_links`, whether each memory's
            links are sorted by score (stable: ties keep the stored order). No defaults: the tool owns them.
        :param text: the query's scoring words, to score linked memories that are not in the ranking.
        :returns: the page's `documents`, and `metadata` with `total`, `offset` and `limit`.
        """
        page = documents[offset : offset + limit]
        scores = {self._key(d): float(d.score or 0.0) for d in documents}
        targets = {
            str(link.get("target_key"))
            for d in page
            for link in d.meta.get(self.links_field) or []
            if isinstance(link, dict)
        }
        existing = self._existing(sorted(targets - set(scores)))
        if text and existing:
            scores.update(self._text_scores(sorted(existing), text))
        out = [
            dataclasses.replace(d, meta={**d.meta, self.links_field: self._links(d, scores, existing, sort_links)})
            for d in page
        ]
        metadata: dict[str, Any] = {"total": len(documents), "offset": offset, "limit": limit}
        if not page and documents and offset >= len(documents):
            metadata["message"] = f"offset {offset} is past the end: '{query}' has {len(documents)} result(s) in total."
        return {"documents": out, "metadata": metadata}

    def _links(
        self, document: Document, scores: dict[str, float], existing: set[str], sort_links: bool
    ) -> list[dict[str, Any]]:
        links: list[dict[str, Any]] = []
        for link in document.meta.get(self.links_field) or []:
            target = str(link.get("target_key"))
            weight = float(link.get("weight") or 0.0)
            memory_score = scores.get(target, 0.0)
            links.append(
                {
                    "target_key": target,
                    "weight": weight,
                    "memory_score": round(memory_score, 6),
                    "link_score": round(weight * memory_score, 6),
                    "dangling": target not in scores and target not in existing,
                }
            )
        if sort_links:
            links.sort(key=lambda link: -link["link_score"])
        return links

    @staticmethod
    def _key(document: Document) -> str:
        return str(document.meta.get("record_id", document.id))

    def _existing(self, keys: list[str]) -> set[str]:
        if not keys:
            return set()
        found = self.document_store.meta_by_filter({"field": RECORD_ID, "operator": "in", "value": keys})
        return {self._key(d) for d in found}

    def _text_scores(self, keys: list[str], text: str) -> dict[str, float]:
        """BM25 of the query words for exactly these memories (same index, so comparable with the ranking)."""
        request = HybridQuery(
            text=text,
            text_fields=(self.text_field,),
            filters={"field": RECORD_ID, "operator": "in", "value": keys},
            limit=len(keys),
            prefetch_limit=len(keys),
            payload_fields=(RECORD_ID,),
        )
        return {
            str(hit.payload.get("meta", {}).get("record_id")): hit.score
            for hit in self.document_store.hybrid_search(request)
        }
