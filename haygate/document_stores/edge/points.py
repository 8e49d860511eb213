"""What Edge is asked and answers, as Edge's own objects: a shard's layout, a plan's ranked lists as requests,
documents as points and back, and how a search names a point. `EdgeDocumentStore` sends them; nothing here
holds a shard."""

from typing import Any
from uuid import UUID

import qdrant_edge as qe
from haystack import Document

from haygate.document_stores.payload import (
    DENSE_VECTORS_NAME,
    PASSAGE_VECTORS_NAME,
    SPARSE_VECTORS_NAME,
    convert_id,
    passage_vectors,
    payload_from_document,
)
from haygate.document_stores.query import DENSE, SPARSE, TEXT_PREFIX, HybridQuery, PointId, RankedList
from haygate.errors import ConfigurationError


def text_index_params() -> qe.TextIndexParams:
    """English BM25 text index: word tokens, lowercase, ASCII folding, snowball stemming, stopwords."""
    return qe.TextIndexParams(
        tokenizer=qe.TokenizerType.Word,
        lowercase=True,
        ascii_folding=True,
        phrase_matching=True,
        stemmer=qe.SnowballParams(qe.SnowballLanguage.English),
        stopwords=qe.Language.English,
        scoring=True,
    )


def shard_config(storage: dict[str, Any], embedding_dim: int, passages: bool) -> qe.EdgeConfig:
    """A shard's vector layout and indexing settings, as its collection's YAML declares them (`storage`)."""
    settings = {key: value for key, value in storage.items() if isinstance(value, int)}
    hnsw = None
    if {"hnsw_m", "hnsw_ef_construct", "hnsw_payload_m", "full_scan_threshold_kb", "max_indexing_threads"} & set(
        settings
    ):
        hnsw = qe.HnswIndexConfig(
            m=settings.get("hnsw_m", 16),
            ef_construct=settings.get("hnsw_ef_construct", 100),
            full_scan_threshold=settings.get("full_scan_threshold_kb", 10_000),
            max_indexing_threads=settings.get("max_indexing_threads", 0),
            payload_m=settings.get("hnsw_payload_m"),
        )
    optimizers = None
    if {"indexing_threshold_kb", "max_segment_size_kb", "default_segment_number"} & set(settings):
        optimizers = qe.EdgeOptimizersConfig(
            indexing_threshold=settings.get("indexing_threshold_kb"),
            max_segment_size=settings.get("max_segment_size_kb"),
            default_segment_number=settings.get("default_segment_number"),
        )
    memory = {"cached": qe.Memory.Cached, "cold": qe.Memory.Cold}.get(str(storage.get("vector_memory")))
    quantization = None
    if storage.get("quantization") == "int8":  # the compressed copy stays in RAM whatever the vectors do
        quantization = qe.ScalarQuantizationConfig(type=qe.ScalarType.Int8, memory=qe.Memory.Pinned)
    vectors = {
        DENSE_VECTORS_NAME: qe.EdgeVectorParams(
            size=embedding_dim, distance=qe.Distance.Cosine, memory=memory, quantization_config=quantization
        )
    }
    if passages:  # read for the candidates of a query only: no graph to build or keep
        vectors[PASSAGE_VECTORS_NAME] = qe.EdgeVectorParams(
            size=embedding_dim,
            distance=qe.Distance.Cosine,
            memory=memory,
            multivector_config=qe.MultiVectorConfig(qe.MultiVectorComparator.MaxSim),
            hnsw_config=qe.HnswIndexConfig(m=0, ef_construct=100, full_scan_threshold=10_000),
        )
    return qe.EdgeConfig(
        vectors=vectors,
        sparse_vectors={SPARSE_VECTORS_NAME: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        hnsw_config=hnsw,
        optimizers=optimizers,
    )


def weighted_sum(weights: list[float]) -> qe.Formula:
    """Score = sum of w_i x (source i's score), 0 where a source missed the point: FTS5's bm25(5.0, 1.0)."""
    terms = [
        qe.Expression.Mult([qe.Expression.Constant(w), qe.Expression.Variable(f"$score[{i}]")])
        for i, w in enumerate(weights)
    ]
    return qe.Formula(qe.Expression.Sum(terms), defaults={f"$score[{i}]": 0.0 for i in range(len(weights))})


def query_request(query: HybridQuery, request: RankedList, condition: qe.Filter | None) -> qe.QueryRequest:
    """One ranked list of a plan as an Edge request: a source alone, or every source prefetched and fused."""
    if not request.fused:
        [source] = request.sources
        return qe.QueryRequest(
            limit=request.limit,
            query=scorer(source, query),
            filter=condition,
            with_payload=request.with_payload,
            with_vector=[SPARSE_VECTORS_NAME] if request.with_terms else None,
            score_threshold=request.score_threshold,
        )
    prefetches = [
        qe.Prefetch(limit=query.prefetch_limit, query=scorer(name, query), filter=condition) for name in request.sources
    ]
    fusion: Any
    if query.fusion == "sum":
        fusion = weighted_sum(query.weight_list())
    elif query.fusion == "rrf":
        fusion = qe.Fusion.Rrf(k=query.rrf_k, weights=query.weight_list())
    else:
        fusion = qe.Fusion.Dbsf()
    return qe.QueryRequest(
        limit=request.limit,
        prefetches=prefetches,
        query=fusion,
        with_payload=request.with_payload,
        with_vector=[SPARSE_VECTORS_NAME] if request.with_terms else None,
        score_threshold=request.score_threshold,
    )


def scorer(source: str, query: HybridQuery) -> Any:
    """How Edge scores one source of the query."""
    if source == DENSE:
        return qe.Query.Nearest(list(query.dense or []), using=DENSE_VECTORS_NAME)
    if source == SPARSE:
        assert query.sparse is not None
        return qe.Query.Nearest(
            qe.SparseVector(list(query.sparse.indices), list(query.sparse.values)), using=SPARSE_VECTORS_NAME
        )
    return qe.TextQuery(source.removeprefix(TEXT_PREFIX), query.text or "")


def to_point(document: Document, collection: str, keeps_passages: bool) -> qe.Point:
    """A document as an Edge point: its vectors by name and its payload (qdrant-haystack's layout)."""
    vector: dict[str, Any] = {}
    if document.embedding is not None:
        vector[DENSE_VECTORS_NAME] = list(document.embedding)
    passages = passage_vectors(document)
    if passages is not None:
        if not keeps_passages:
            msg = (
                f"document '{document.id}' brings passage vectors, but collection '{collection}' stores "
                "none: set `passages: true` in its YAML, or remove `passages` from its dense embedder"
            )
            raise ConfigurationError(msg, {"collection": collection})
        vector[PASSAGE_VECTORS_NAME] = passages
    if document.sparse_embedding is not None:
        sparse = document.sparse_embedding
        vector[SPARSE_VECTORS_NAME] = qe.SparseVector(list(sparse.indices), list(sparse.values))
    return qe.Point(convert_id(document.id), vector, payload_from_document(document))


def to_document(payload: dict[str, Any], vector: Any) -> Document:
    """A stored point (payload and vectors) as the document it was written from."""
    data = dict(payload)
    data["score"] = None
    if isinstance(vector, dict):
        dense = vector.get(DENSE_VECTORS_NAME)
        data["embedding"] = list(dense) if dense is not None else None
        sparse = vector.get(SPARSE_VECTORS_NAME)
        if sparse is not None:
            data["sparse_embedding"] = {"indices": list(sparse.indices), "values": list(sparse.values)}
    return Document.from_dict(data)


def point_key(point_id: int | UUID | str) -> int:
    """How a search names an Edge point (`ScoredPoint.id`): its UUID's 128-bit int. Edge's points are all UUIDs
    (`convert_id`), and hashing a `UUID` runs Python code: a search of 50 fused hits over two lists of 100
    hashes its ids about 1,800 times."""
    return point_id.int  # type: ignore[union-attr]


def point_uuids(keys: list[PointId]) -> list[int | UUID | str]:
    """The shard's ids of the points a search named by `point_key`."""
    return [f"{key:032x}" for key in keys]
