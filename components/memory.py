"""`LinkedPage`: one page of a ranked list of memories, with each memory's links scored and sorted.

Pagination slices one deterministic ranking, so the pages of a query, concatenated, equal one large page:
no duplicates, no gaps. A link's score is `link weight x memory score`, where the memory score is the linked
memory's relevance to the same query: its score in the ranking, or, when the ranking does not hold it (it
failed an AND, say), its BM25 score for the query's words, computed for exactly those memories.
"""

from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from components.collections import open_collection
from components.hybrid import HybridQuery


@component
class LinkedPage:
    def __init__(
        self,
        collection: str,
        links_field: str = "links",
        offset_argument: str = "offset",
        limit_argument: str = "limit",
        sort_argument: str = "sortLinks",
        text_field: str = "content",
    ) -> None:
        """
        :param links_field: meta field with `[{target_key, weight}]`.
        :param text_field: text-indexed field used to score linked memories the ranking does not hold.
        """
        self.collection = collection
        self.links_field = links_field
        self.offset_argument = offset_argument
        self.limit_argument = limit_argument
        self.sort_argument = sort_argument
        self.text_field = text_field

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            collection=self.collection,
            links_field=self.links_field,
            offset_argument=self.offset_argument,
            limit_argument=self.limit_argument,
            sort_argument=self.sort_argument,
            text_field=self.text_field,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LinkedPage":
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document], page=dict[str, Any])
    def run(self, documents: list[Document], arguments: dict[str, Any], text: str | None = None) -> dict[str, Any]:
        """
        :param documents: the whole ranking, best first.
        :param text: the query's scoring words, to score linked memories that are not in the ranking.
        """
        offset = int(arguments.get(self.offset_argument) or 0)
        limit = int(arguments.get(self.limit_argument) or 10)
        sort_links = arguments.get(self.sort_argument, True) is not False
        page = documents[offset : offset + limit]
        scores = {self._key(d): float(d.score or 0.0) for d in documents}
        targets = {
            str(link.get("target_key"))
            for d in page
            for link in d.meta.get(self.links_field) or []
            if isinstance(link, dict)
        }
        missing = sorted(targets - set(scores))
        existing = self._existing(missing)
        if text and existing:
            scores.update(self._text_scores(sorted(existing), text))
        out = []
        for document in page:
            links: list[dict[str, Any]] = []
            for link in document.meta.get(self.links_field) or []:
                target = str(link.get("target_key"))
                weight = float(link.get("weight") or 0.0)
                dangling = target not in scores and target not in existing
                memory_score = scores.get(target, 0.0)
                links.append(
                    {
                        "target_key": target,
                        "weight": weight,
                        "memory_score": round(memory_score, 6),
                        "link_score": round(weight * memory_score, 6),
                        "dangling": dangling,
                    }
                )
            if sort_links:
                # Ties keep the stored order (a stable sort), so the result is deterministic.
                links.sort(key=lambda link: -link["link_score"])
            out.append(
                Document(
                    id=document.id,
                    content=document.content,
                    meta={**document.meta, self.links_field: links},
                    score=document.score,
                )
            )
        return {"documents": out, "page": {"total": len(documents), "offset": offset, "limit": limit}}

    @staticmethod
    def _key(document: Document) -> str:
        return str(document.meta.get("record_id", document.id))

    def _existing(self, keys: list[str]) -> set[str]:
        if not keys:
            return set()
        store = open_collection(self.collection)
        found = store.meta_by_filter({"field": "meta.record_id", "operator": "in", "value": keys})
        return {self._key(d) for d in found}

    def _text_scores(self, keys: list[str], text: str) -> dict[str, float]:
        """BM25 of the query words for exactly these memories (same index, so comparable with the ranking)."""
        store = open_collection(self.collection)
        request = HybridQuery(
            text=text,
            text_fields=(self.text_field,),
            filters={"field": "meta.record_id", "operator": "in", "value": keys},
            limit=len(keys),
            prefetch_limit=len(keys),
            payload_fields=("meta.record_id",),
        )
        return {str(hit.payload.get("meta", {}).get("record_id")): hit.score for hit in store.hybrid_search(request)}
