"""EdgeDocumentStore on a real Qdrant Edge shard in a temp dir."""

import copy
import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from haystack import Document
from haystack.dataclasses import SparseEmbedding
from haystack.document_stores.errors import DuplicateDocumentError
from haystack.document_stores.types import DuplicatePolicy

from haygate.document_stores.edge.document_store import EdgeDocumentStore
from haygate.document_stores.edge.faults import MANIFEST, appendable_bytes, human, translate
from haygate.document_stores.payload import DENSE_VECTORS_NAME, PASSAGE_EMBEDDINGS, convert_id, payload_from_document
from haygate.document_stores.query import HybridQuery
from haygate.errors import ConfigurationError, InvalidRequestError, StorageFullError, StoreDamagedError, envelope

PROJECT = Path(__file__).resolve().parents[4]


def make_store(folder: Path, name: str = "t") -> EdgeDocumentStore:
    return EdgeDocumentStore(
        name, str(folder), embedding_dim=3, payload_indexes={"meta.group": "keyword"}, text_fields=["content"]
    )


def doc(i: int, group: str = "a", text: str | None = None) -> Document:
    return Document(
        id=f"d{i}",
        content=text or f"document number {i}",
        meta={"group": group, "n": i},
        embedding=[1.0, float(i), 0.0],
        sparse_embedding=SparseEmbedding(indices=[i, 100], values=[1.0, 0.5]),
    )


class TestEdgeDocumentStore:
    def test_init_is_lazy(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        assert not store.exists()
        assert store.count_documents() == 0 and store.meta_by_filter(None) == []
        assert not (tmp_path / "t").exists()

    def test_init_rejects_unknown_index_type(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="unknown payload index types"):
            EdgeDocumentStore("t", str(tmp_path), payload_indexes={"meta.x": "vector"})

    def test_to_dict(self, tmp_path: Path) -> None:
        assert make_store(tmp_path).to_dict() == {
            "type": "haygate.document_stores.edge.document_store.EdgeDocumentStore",
            "init_parameters": {
                "collection": "t",
                "data_dir": str(tmp_path),
                "embedding_dim": 3,
                "payload_indexes": {"meta.group": "keyword"},
                "text_fields": ["content"],
                "disk_reserve_bytes": 64 * 1024 * 1024,
                "storage": {},
                "passages": False,
            },
        }

    def test_from_dict(self, tmp_path: Path) -> None:
        store = EdgeDocumentStore.from_dict(make_store(tmp_path).to_dict())
        assert (store.collection, store.embedding_dim, store.text_fields) == ("t", 3, ["content"])
        assert store.filterable_fields == {"id", "meta.group", "content"}

    def test_a_copy_is_the_same_handle(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        assert copy.deepcopy(store) is store

    def test_write_count_and_roundtrip(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        assert store.write_documents([doc(1), doc(2)]) == 2
        assert store.count_documents() == 2
        [back] = store.filter_documents({"field": "id", "operator": "==", "value": "d1"})
        assert back.content == "document number 1"
        assert back.meta == {"group": "a", "n": 1}
        assert back.embedding == pytest.approx([2**-0.5, 2**-0.5, 0.0])  # cosine vectors are stored normalised
        assert back.sparse_embedding is not None and sorted(back.sparse_embedding.indices) == [1, 100]
        [light] = store.meta_by_filter({"field": "id", "operator": "==", "value": "d1"})
        assert light.embedding is None and light.meta == back.meta
        store.close()

    def test_write_policy_fail_skip_overwrite(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(1)])
        with pytest.raises(DuplicateDocumentError):
            store.write_documents([doc(1)], policy=DuplicatePolicy.FAIL)
        with pytest.raises(DuplicateDocumentError):
            store.write_documents([doc(1)])  # NONE means FAIL, as in qdrant-haystack
        assert store.write_documents([doc(1, text="changed"), doc(2)], policy=DuplicatePolicy.SKIP) == 1
        assert store.filter_documents({"field": "id", "operator": "==", "value": "d1"})[0].content != "changed"
        assert store.write_documents([doc(1, text="changed")], policy=DuplicatePolicy.OVERWRITE) == 1
        assert store.filter_documents({"field": "id", "operator": "==", "value": "d1"})[0].content == "changed"
        assert store.count_documents() == 2
        store.close()

    def test_write_rejects_non_documents(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="expects Documents"):
            make_store(tmp_path).write_documents(["not a document"])  # type: ignore[list-item]

    def test_delete_documents_and_by_filter(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(1), doc(2), doc(3, group="b")])
        store.delete_documents(["d1", "unknown"])
        assert sorted(d.id for d in store.filter_documents()) == ["d2", "d3"]
        assert store.delete_by_filter({"field": "meta.group", "operator": "==", "value": "b"}) == 1
        assert [d.id for d in store.filter_documents()] == ["d2"]
        with pytest.raises(ValueError, match="needs a filter"):
            store.delete_by_filter({})
        store.close()

    def test_update_by_filter_merges_meta_in_place_and_keeps_every_vector(self, tmp_path: Path) -> None:
        """A payload update, not a rewrite: the dense, sparse and passage vectors stay as they were."""
        store = EdgeDocumentStore("p", str(tmp_path), embedding_dim=3, passages=True)
        store.write_documents(
            [dataclasses.replace(doc(1), meta={"n": 1, PASSAGE_EMBEDDINGS: [[1.0, 0.0, 0.0]]}), doc(2)]
        )
        assert store.update_by_filter({"field": "meta.n", "operator": "==", "value": 1}, {"n": 10, "new": True}) == 1
        [updated] = store.filter_documents({"field": "meta.new", "operator": "==", "value": True})
        assert updated.id == "d1" and updated.meta == {"n": 10, "new": True}
        assert updated.embedding is not None and updated.sparse_embedding is not None
        [hit, _] = store.hybrid_search(HybridQuery(dense=[1.0, 0.0, 0.0], passage_weight=1.0))
        assert hit.document.id == "d1" and hit.source_scores["passages"] == pytest.approx(1.0)
        store.close()

    def test_writes_by_filter_need_a_filter_and_create_nothing_on_an_empty_store(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        with pytest.raises(ValueError, match="needs a filter"):
            store.update_by_filter({}, {"n": 1})
        assert store.update_by_filter({"field": "id", "operator": "==", "value": "d1"}, {"n": 1}) == 0
        store.delete_all_documents()
        store.delete_all_documents(recreate_index=True)
        assert not store.exists()

    def test_delete_all_documents_recreate_gives_every_holder_the_new_shard(self, tmp_path: Path) -> None:
        first, second = make_store(tmp_path), make_store(tmp_path)
        first.write_documents([doc(1), doc(2)])
        second.delete_all_documents(recreate_index=True)
        indexes = set(first.shard.info().payload_schema)
        assert first.count_documents() == 0 and indexes == {"id", "meta.group", "content"}
        first.write_documents([doc(3)])
        assert [d.id for d in second.filter_documents()] == ["d3"]
        first.close()
        second.close()
        assert make_store(tmp_path).count_documents() == 1  # the manifest counts the new shard's points

    def test_point_layout_matches_qdrant_haystack(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(7)])
        [record] = store.shard.retrieve([convert_id("d7")], with_payload=True, with_vector=True)
        assert set(record.vector) == {"text-dense", "text-sparse"}
        assert set(record.payload) == {"id", "content", "blob", "meta", "score"}
        assert record.payload["meta"] == {"group": "a", "n": 7}
        expected = doc(7).to_dict(flatten=False)
        del expected["embedding"], expected["sparse_embedding"]
        assert payload_from_document(doc(7)) == expected  # the fast path writes what to_dict would
        store.close()

    def test_stores_of_one_collection_share_the_shard(self, tmp_path: Path) -> None:
        first, second = make_store(tmp_path), make_store(tmp_path)
        first.write_documents([doc(1)])
        assert second.count_documents() == 1  # same process, same shard: no "in use"
        first.close()
        second.write_documents([doc(2)])  # still open for the store that holds it
        second.close()
        assert make_store(tmp_path).count_documents() == 2

    @pytest.mark.slow  # a second process
    def test_second_process_gets_clear_error(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(1)])
        code = (
            "import sys\n"
            "from haygate.document_stores.edge.document_store import EdgeDocumentStore\n"
            "from haygate.errors import StoreInUseError\n"
            f"s = EdgeDocumentStore('t', {str(tmp_path)!r}, embedding_dim=3)\n"
            "try:\n    s.count_documents()\nexcept StoreInUseError as e:\n    print(e.message); sys.exit(7)\n"
        )
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PROJECT, timeout=120)
        assert result.returncode == 7, result.stderr
        assert "open in another process" in result.stdout
        assert store.count_documents() == 1  # the owner's shard is untouched
        store.write_documents([doc(2)])
        store.close()
        assert make_store(tmp_path).count_documents() == 2

    def test_hybrid_search_fuses_and_records_provenance(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents(
            [doc(i, group="a" if i < 4 else "b", text=f"text {i} border" if i == 2 else None) for i in range(1, 7)]
        )
        query = HybridQuery(
            dense=[1.0, 2.0, 0.0],
            sparse=SparseEmbedding(indices=[2], values=[1.0]),
            text="borders",
            text_fields=("content",),
            filters={"field": "meta.group", "operator": "==", "value": "a"},
            limit=3,
            rrf_k=60,
        )
        hits = store.hybrid_search(query)
        assert hits[0].document.id == "d2"
        assert {h.document.meta["group"] for h in hits} == {"a"}
        top = hits[0]
        assert top.ranks["sparse"] == 1 and top.ranks["text:content"] == 1
        # RRF with 0-based ranks: rank r (1-based) contributes 1/(k + r - 1).
        expected = sum(1 / (60 + r - 1) for r in top.ranks.values() if r is not None)
        assert top.fused_score == pytest.approx(expected, rel=1e-5)
        assert top.score == pytest.approx(expected / (3 / 60), rel=1e-5)
        store.close()

    def test_hybrid_search_rejects_bad_settings(self, tmp_path: Path) -> None:
        with pytest.raises(InvalidRequestError, match="rrf_k"):
            make_store(tmp_path).hybrid_search(HybridQuery(dense=[1.0, 0.0, 0.0], rrf_k=0))
        with pytest.raises(ConfigurationError, match="no text index"):
            make_store(tmp_path).hybrid_search(HybridQuery(text="x", text_fields=("meta.group",)))

    def test_dbsf_and_weighted_sum(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(i, text=f"border {'border ' * i}") for i in range(1, 5)])
        hits = store.hybrid_search(
            HybridQuery(
                dense=[1.0, 1.0, 0.0], sparse=SparseEmbedding(indices=[1], values=[1.0]), fusion="dbsf", limit=4
            )
        )
        assert hits and all(0.0 <= h.score <= 1.0 for h in hits)
        summed = store.hybrid_search(
            HybridQuery(
                sparse=SparseEmbedding(indices=[4], values=[1.0]),
                text="border",
                text_fields=("content",),
                fusion="sum",
                weights={"sparse": 5.0},
                limit=4,
            )
        )
        assert summed[0].document.id == "d4" and summed[0].fused_score > 5.0  # 5 x sparse + text
        store.close()


class TestBatches:
    def test_a_batch_becomes_visible_at_once_when_it_ends(self, tmp_path: Path) -> None:
        store, reader = make_store(tmp_path), make_store(tmp_path)
        store.write_documents([doc(1)])
        with store.batch():
            store.delete_by_filter({"field": "id", "operator": "==", "value": "d1"})
            store.write_documents([doc(2), doc(3)])
            seen = sorted(d.id for d in reader.filter_documents())  # another reader, mid-batch
            assert seen == ["d1"]
        assert sorted(d.id for d in reader.filter_documents()) == ["d2", "d3"]
        store.close()
        reader.close()

    def test_writes_by_filter_in_a_batch_count_now_and_apply_at_its_end(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(1), doc(2), doc(3, group="b")])
        with store.batch():
            assert store.update_by_filter({"field": "meta.group", "operator": "==", "value": "a"}, {"seen": True}) == 2
            assert store.delete_by_filter({"field": "meta.group", "operator": "==", "value": "b"}) == 1
            assert store.count_documents({"field": "meta.seen", "operator": "==", "value": True}) == 0
        seen = store.filter_documents({"field": "meta.seen", "operator": "==", "value": True})
        assert sorted(d.id for d in seen) == ["d1", "d2"]
        assert store.count_documents() == 2
        store.close()

    def test_a_failed_batch_writes_nothing(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        with pytest.raises(RuntimeError), store.batch():
            store.write_documents([doc(1)])
            raise RuntimeError("the pipeline failed")
        assert store.count_documents() == 0
        store.close()

    def test_readers_wait_for_a_writer_not_the_other_way(self, tmp_path: Path) -> None:
        import threading

        store = make_store(tmp_path)
        store.write_documents([doc(1)])
        counts: list[int] = []
        with store._lock.writing():  # a batch being applied
            reader = threading.Thread(target=lambda: counts.append(store.count_documents()))
            reader.start()
            reader.join(timeout=0.2)
            assert reader.is_alive() and counts == []  # it waits...
            store._write([doc(2)], DuplicatePolicy.OVERWRITE)
        reader.join(timeout=5)
        assert counts == [2]  # ...and sees the whole write
        store.close()


class TestStorageFaults:
    """The manifest, the space checks and Edge's errors read as operator errors, on real shards."""

    def test_the_manifest_counts_the_points_of_every_durable_write(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        with store.batch():
            store.write_documents([doc(1), doc(2)])
        assert store.manifest() is not None and store.manifest()["points"] == 2  # type: ignore[index]
        store.write_documents([doc(3)])  # outside a batch: not yet durable, so no longer a clean count
        assert store.manifest()["clean"] is False  # type: ignore[index]
        store.close()
        assert store.manifest() == {**store.manifest(), "points": 3, "clean": True}  # type: ignore[dict-item]

    def test_a_shard_with_fewer_points_than_its_manifest_is_damaged(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(1), doc(2)])
        store.close()
        manifest = tmp_path / "t" / MANIFEST
        manifest.write_text(json.dumps({**json.loads(manifest.read_text()), "points": 5}))
        with pytest.raises(StoreDamagedError, match="holds 2 points where 5 were written") as caught:
            make_store(tmp_path).count_documents()
        assert "haygate repair t" in caught.value.message
        status, body = envelope(caught.value)
        assert status == 503 and str(tmp_path) not in json.dumps(body)  # the client hears no server path

    def test_a_missing_config_is_damage_not_a_new_shard(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(1)])
        store.close()
        (tmp_path / "t" / "edge_config.json").unlink()
        with pytest.raises(StoreDamagedError, match=r"edge_config\.json is missing"):
            make_store(tmp_path).write_documents([doc(2)])

    def test_no_room_for_the_reserve_refuses_before_edge_writes(self, tmp_path: Path) -> None:
        store = make_store(tmp_path)
        store.write_documents([doc(1)])
        greedy = EdgeDocumentStore("t", str(tmp_path), embedding_dim=3, disk_reserve_bytes=2**62)
        with pytest.raises(StorageFullError, match=r"not enough disk space for collection 't'") as caught:
            greedy.write_documents([doc(2)])  # the shard is open here already: only the write is checked
        assert caught.value.details["directory"] == str(tmp_path / "t")
        assert envelope(caught.value)[0] == 507
        assert store.count_documents() == 1  # reads go on
        store.close()
        greedy.close()
        with pytest.raises(StorageFullError, match="opening the shard needs"):
            greedy.count_documents()


class TestFaults:
    def test_translate_reads_edges_words(self, tmp_path: Path) -> None:
        def code(text: str) -> str:
            translated = translate(Exception(text), "t", tmp_path, "writing")
            return getattr(translated, "code", "unchanged")

        assert code("Can't init WAL: Kind(WouldBlock)") == "STORE_IN_USE"
        assert code("Service runtime error: No space left on device (os error 28)") == "STORAGE_FULL"
        assert code("failed to create directory `/x`: Read-only file system (os error 30)") == "STORAGE_ERROR"
        assert code("Gridstore IO error: elements range 1..2 is out of bounds") == "STORE_DAMAGED"
        assert code("Wrong input: vector dimension error: expected dim: 3, got 4") == "unchanged"

    def test_the_damaged_file_is_named_relative_to_the_shard(self, tmp_path: Path) -> None:
        error = translate(Exception(f"failed to load segment {tmp_path}/segments/abc: gone"), "t", tmp_path, "opening")
        assert isinstance(error, StoreDamagedError) and "damaged (segments/abc)" in error.message

    def test_the_need_grows_with_the_layout_as_edge_allocates(self, tmp_path: Path) -> None:
        """What each text index and payload index adds to a freshly opened shard, measured on Qdrant Edge's
        own files (their apparent size: the space they may come to fill), is what the estimate adds."""

        def opened_bytes(text_fields: int, payload_indexes: int) -> int:
            folder = tmp_path / f"layout-{text_fields}-{payload_indexes}"
            store = EdgeDocumentStore(
                "t",
                str(folder),
                embedding_dim=3,
                payload_indexes={f"meta.k{i}": "keyword" for i in range(payload_indexes)},
                text_fields=["content", *(f"meta.t{i}" for i in range(text_fields - 1))][:text_fields],
            )
            store.write_documents([doc(1)])
            store.close()
            return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())

        smallest = opened_bytes(0, 0)
        for text_fields, payload_indexes in ((1, 2), (2, 6)):
            measured = opened_bytes(text_fields, payload_indexes) - smallest
            estimated = appendable_bytes(text_fields, payload_indexes) - appendable_bytes(0, 0)
            assert abs(measured - estimated) <= 4 * 1024 * 1024, (text_fields, payload_indexes, measured, estimated)
        assert human(512) == "512 B" and human(3 * 1024 * 1024) == "3.0 MiB"


def test_indexing_settings_from_yaml_reach_the_shard_and_survive_reopening(tmp_path: Path) -> None:
    storage = {
        "hnsw_m": 8,
        "hnsw_ef_construct": 64,
        "hnsw_payload_m": 0,
        "indexing_threshold_kb": 1,
        "full_scan_threshold_kb": 1,
    }
    store = EdgeDocumentStore("tuned", str(tmp_path), embedding_dim=4, storage=storage)
    store.write_documents([Document(id=str(i), content=f"doc {i}", embedding=[1.0, i, 0.5, 0.1]) for i in range(50)])
    assert store.needs_optimizing()
    store.optimize()
    assert not store.needs_optimizing()
    store.close()
    config = json.loads((tmp_path / "tuned" / "edge_config.json").read_text())
    assert config["hnsw_config"]["m"] == 8 and config["hnsw_config"]["ef_construct"] == 64
    assert config["hnsw_config"]["payload_m"] == 0
    reopened = EdgeDocumentStore("tuned", str(tmp_path), embedding_dim=4, storage={**storage, "hnsw_m": 12})
    assert reopened.count_documents() == 50
    reopened.close()
    assert json.loads((tmp_path / "tuned" / "edge_config.json").read_text())["hnsw_config"]["m"] == 12


def test_vectors_on_disk_with_an_int8_copy_in_ram_still_find_the_nearest(tmp_path: Path) -> None:
    storage: dict[str, int | str] = {"vector_memory": "cold", "quantization": "int8", "indexing_threshold_kb": 1}
    store = EdgeDocumentStore("large", str(tmp_path), embedding_dim=4, storage=storage)
    vectors = {str(i): [1.0, i / 50, 0.5, 0.1] for i in range(50)}
    store.write_documents([Document(id=key, content=f"doc {key}", embedding=v) for key, v in vectors.items()])
    store.optimize()
    hits = store.hybrid_search(HybridQuery(dense=vectors["17"], limit=1))
    assert hits[0].document.id == "17"
    store.close()
    dense = json.loads((tmp_path / "large" / "edge_config.json").read_text())["vectors"][DENSE_VECTORS_NAME]
    assert dense["memory"] == "cold" and dense["quantization_config"]["scalar"] == {"type": "int8", "memory": "pinned"}


def test_the_point_layout_is_qdrant_haystacks() -> None:
    """The names and id scheme are copied to spare the embedded path qdrant-client's import; they must agree."""
    from haystack_integrations.document_stores.qdrant import converters

    from haygate.document_stores import payload

    assert payload.DENSE_VECTORS_NAME == converters.DENSE_VECTORS_NAME
    assert payload.SPARSE_VECTORS_NAME == converters.SPARSE_VECTORS_NAME
    assert payload.convert_id("docs:a.md#Intro") == converters.convert_id("docs:a.md#Intro")


def test_a_shard_keeps_the_passage_vectors_its_collection_declares(tmp_path: Path) -> None:
    """Edge fixes a shard's vectors when it is created: a changed `passages` is named, with the fix."""
    without = EdgeDocumentStore("c", str(tmp_path), embedding_dim=3)
    with pytest.raises(ConfigurationError, match="stores none: set `passages: true`"):
        without.write_documents(
            [Document(id="a", content="a", embedding=[1.0, 0, 0], meta={PASSAGE_EMBEDDINGS: [[1.0, 0, 0]]})]
        )
    without.write_documents([Document(id="a", content="a", embedding=[1.0, 0.0, 0.0])])
    without.close()
    with pytest.raises(ConfigurationError, match=r"created without passage vectors.*ingest the collection again"):
        EdgeDocumentStore("c", str(tmp_path), embedding_dim=3, passages=True).count_documents()
    kept = EdgeDocumentStore("k", str(tmp_path), embedding_dim=3, passages=True)
    kept.write_documents(
        [Document(id="a", content="a", embedding=[1.0, 0, 0], meta={PASSAGE_EMBEDDINGS: [[1.0, 0, 0]]})]
    )
    assert kept.filter_documents()[0].meta == {}  # the vectors are not payload
    kept.close()
    with pytest.raises(ConfigurationError, match="no longer declares `passages`"):
        EdgeDocumentStore("k", str(tmp_path), embedding_dim=3).count_documents()
