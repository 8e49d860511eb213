from haystack import Document

from components.linked_page import LinkedPage
from haygate.document_stores.edge.document_store import EdgeDocumentStore


def memory(key: str, score: float | None, links: list[dict[str, object]]) -> Document:
    return Document(id=key, content=f"memory {key} about redis", meta={"record_id": key, "links": links}, score=score)


class TestLinkedPage:
    def test_to_dict_and_from_dict(self, tiny_store: EdgeDocumentStore) -> None:
        data = LinkedPage(tiny_store).to_dict()
        assert data["init_parameters"] == {
            "document_store": tiny_store.to_dict(),
            "links_field": "links",
            "text_field": "content",
        }
        assert LinkedPage.from_dict(data).links_field == "links"

    def test_run_pages_and_sorts_links_by_weight_times_score(self, tiny_store: EdgeDocumentStore) -> None:
        ranking = [
            memory(
                "a",
                0.9,
                [
                    {"target_key": "c", "weight": 0.5},
                    {"target_key": "b", "weight": 1.0},
                    {"target_key": "gone", "weight": 1.0},
                ],
            ),
            memory("b", 0.6, []),
            memory("c", 0.3, []),
        ]
        tiny_store.write_documents([memory(k, None, []) for k in "abc"])
        out = LinkedPage(tiny_store).run(ranking, query="redis", offset=0, limit=1, sort_links=True)
        [page] = out["documents"]
        assert [(link["target_key"], link["link_score"], link["dangling"]) for link in page.meta["links"]] == [
            ("b", 0.6, False),
            ("c", 0.15, False),
            ("gone", 0.0, True),
        ]
        assert out["metadata"] == {"total": 3, "offset": 0, "limit": 1}

    def test_run_past_the_end_says_so(self, tiny_store: EdgeDocumentStore) -> None:
        out = LinkedPage(tiny_store).run([memory("a", 0.9, [])], query="redis", offset=5, limit=10, sort_links=True)
        assert out["documents"] == [] and "offset 5 is past the end" in out["metadata"]["message"]

    def test_run_scores_linked_memories_outside_the_ranking_by_bm25(self, tiny_store: EdgeDocumentStore) -> None:
        tiny_store.write_documents([memory("a", None, []), memory("z", None, [])])
        ranking = [memory("a", 0.9, [{"target_key": "z", "weight": 1.0}])]
        [page] = LinkedPage(tiny_store).run(ranking, query="redis", offset=0, limit=10, sort_links=False, text="redis")[
            "documents"
        ]
        assert page.meta["links"][0]["memory_score"] > 0  # z is not in the ranking but matches the words
