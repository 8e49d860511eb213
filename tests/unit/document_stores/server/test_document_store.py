"""QdrantServerStore on qdrant-client's local mode, which speaks the server API."""

from pathlib import Path

import pytest
from haystack import Document
from haystack.dataclasses import SparseEmbedding
from haystack.utils import Secret
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore

from haygate.document_stores.payload import PASSAGE_EMBEDDINGS, PASSAGE_VECTORS_NAME
from haygate.document_stores.query import HybridQuery
from haygate.document_stores.server.document_store import QdrantServerStore

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # local mode: payload indexes have no effect


def make_store(folder: Path, api_key: Secret | None = None) -> QdrantServerStore:
    return QdrantServerStore(
        "t",
        f"local:{folder}",
        api_key,
        embedding_dim=3,
        payload_indexes={"meta.group": "keyword"},
        text_fields=["content"],
    )


def doc(i: int) -> Document:
    return Document(
        id=f"d{i}",
        content=f"text {i}",
        meta={"group": "a" if i % 2 else "b", "record_id": f"r{i}"},
        embedding=[1.0, float(i), 0.0],
        sparse_embedding=SparseEmbedding(indices=[i], values=[1.0]),
    )


class TestQdrantServerStore:
    def test_is_qdrant_haystacks_store(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        assert isinstance(store, QdrantDocumentStore) and store.index == "t"

    def test_to_dict_never_holds_a_token(self, tmp_path: Path) -> None:
        data = make_store(tmp_path, Secret.from_token("s3cret")).to_dict()
        assert data == {
            "type": "haygate.document_stores.server.document_store.QdrantServerStore",
            "init_parameters": {
                "collection": "t",
                "url": f"local:{tmp_path}",
                "api_key": {"type": "env_var", "env_vars": ["HAYGATE_QDRANT_API_KEY"], "strict": False},
                "embedding_dim": 3,
                "payload_indexes": {"meta.group": "keyword"},
                "text_fields": ["content"],
                "passages": False,
            },
        }

    def test_from_dict(self, tmp_path: Path) -> None:
        store = QdrantServerStore.from_dict(make_store(tmp_path).to_dict())
        assert (store.collection, store.payload_indexes, store.text_fields) == (
            "t",
            {"meta.group": "keyword"},
            ["content"],
        )

    def test_write_read_delete(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(i) for i in range(1, 5)])
        assert (
            store.count_documents() == 4
            and store.count_documents({"field": "meta.group", "operator": "==", "value": "a"}) == 2
        )
        [light] = store.meta_by_filter({"field": "id", "operator": "==", "value": "d1"})
        assert light.embedding is None and light.meta["record_id"] == "r1"
        assert store.delete_by_filter({"field": "meta.record_id", "operator": "in", "value": ["r1", "r2"]}) == 2
        assert sorted(d.id for d in store.filter_documents()) == ["d3", "d4"]
        store.close()

    def test_hybrid_search_runs_the_shared_plan(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(i) for i in range(1, 5)])
        hits = store.hybrid_search(
            HybridQuery(dense=[1.0, 3.0, 0.0], sparse=SparseEmbedding(indices=[3], values=[1.0]), limit=2, rrf_k=60)
        )
        assert hits[0].document.id == "d3" and hits[0].ranks == {"dense": 1, "sparse": 1}
        assert hits[0].score == pytest.approx(1.0)
        store.close()

    def test_update_by_filter_and_recreate_keep_the_layout(self, tmp_path: Path) -> None:
        """A payload update leaves the passage vectors be; a recreated collection has the multivector again."""
        store = QdrantServerStore("p", f"local:{tmp_path}", embedding_dim=3, passages=True)
        store.write_documents(
            [Document(id="a", content="a", embedding=[0.0, 1.0, 0.0], meta={PASSAGE_EMBEDDINGS: [[1.0, 0.0, 0.0]]})]
        )
        assert store.update_by_filter({"field": "id", "operator": "==", "value": "a"}, {"tag": "x"}) == 1
        [hit] = store.hybrid_search(HybridQuery(dense=[1.0, 0.0, 0.0], passage_weight=1.0))
        assert hit.document.meta == {"tag": "x"} and hit.source_scores["passages"] == pytest.approx(1.0)
        store.delete_all_documents(recreate_index=True)
        vectors = store._connected().get_collection("p").config.params.vectors
        assert store.count_documents() == 0 and vectors[PASSAGE_VECTORS_NAME].multivector_config is not None
        store.close()

    def test_passages_are_a_maxsim_multivector_on_the_server_too(self, tmp_path: Path) -> None:
        """The same passage rescoring as Qdrant Edge: the layout has the multivector, writes fill it."""
        store = QdrantServerStore("p", f"local:{tmp_path}", embedding_dim=3, passages=True)
        near, far = [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]]
        store.write_documents(
            [
                Document(id="a", content="a", embedding=[0.9, 0.44, 0.0], meta={PASSAGE_EMBEDDINGS: far}),
                Document(id="b", content="b", embedding=[0.7, 0.0, 0.71], meta={PASSAGE_EMBEDDINGS: near + far}),
            ]
        )
        vectors = store._connected().get_collection("p").config.params.vectors
        assert vectors[PASSAGE_VECTORS_NAME].multivector_config is not None
        plain = store.hybrid_search(HybridQuery(dense=[1.0, 0.0, 0.0]))
        rescored = store.hybrid_search(HybridQuery(dense=[1.0, 0.0, 0.0], passage_weight=2.0))
        assert [h.document.id for h in plain] == ["a", "b"] and [h.document.id for h in rescored] == ["b", "a"]
        assert rescored[0].source_scores["passages"] == pytest.approx(1.0)
        assert PASSAGE_EMBEDDINGS not in store.filter_documents()[0].meta
        store.close()
