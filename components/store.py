"""`EdgeDocumentStore`: Haystack's DocumentStore protocol on a Qdrant Edge shard, in-process.

The layout is qdrant-haystack's: named vectors `text-dense` (cosine) and `text-sparse` (BM25 weights, IDF
modifier), point id `uuid5(namespace, document.id)`, payload `Document.to_dict(flatten=False)` without the
vectors. The same data therefore runs against a Qdrant server through `QdrantDocumentStore`.
"""

import logging
import threading
from pathlib import Path
from typing import Any

import qdrant_edge as qe
from haystack import Document, default_from_dict, default_to_dict
from haystack.document_stores.errors import DuplicateDocumentError
from haystack.document_stores.types import DuplicatePolicy
from haystack_integrations.document_stores.qdrant.converters import (
    DENSE_VECTORS_NAME,
    SPARSE_VECTORS_NAME,
    convert_id,
)

from components.collections import CollectionSchema
from components.errors import StoreInUseError
from components.filters import convert_filters
from components.hybrid import (
    DENSE,
    SPARSE,
    TEXT_PREFIX,
    Hit,
    HybridQuery,
    normalized_score,
    payload_from_document,
    stable_order,
)

logger = logging.getLogger(__name__)

_SCROLL_PAGE = 1000
_INDEX_TYPES = {
    "keyword": qe.PayloadSchemaType.Keyword,
    "keyword_prefix": qe.KeywordIndexParams(prefix=True),
    "integer": qe.PayloadSchemaType.Integer,
    "float": qe.PayloadSchemaType.Float,
    "bool": qe.PayloadSchemaType.Bool,
    "datetime": qe.PayloadSchemaType.Datetime,
    "uuid": qe.PayloadSchemaType.Uuid,
}
STORE_IN_USE = (
    "collection '{name}' is open in another process ({path}). Qdrant Edge lets one process own a shard: "
    "stop the other process (a running `haygate serve`?) and retry, or point HAYGATE_DATA_DIR elsewhere."
)


def _weighted_sum(weights: list[float]) -> qe.Formula:
    """Score = sum of w_i x (source i's score), 0 where a source missed the point: FTS5's bm25(5.0, 1.0)."""
    terms = [
        qe.Expression.Mult([qe.Expression.Constant(w), qe.Expression.Variable(f"$score[{i}]")])
        for i, w in enumerate(weights)
    ]
    return qe.Formula(qe.Expression.Sum(terms), defaults={f"$score[{i}]": 0.0 for i in range(len(weights))})


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


class EdgeDocumentStore:
    """A Qdrant Edge shard per collection under `data_dir/<collection>`.

    The shard opens lazily on first use, so constructing the store (e.g. while validating YAML) costs
    nothing and never takes the lock.
    """

    def __init__(
        self,
        collection: str,
        data_dir: str,
        embedding_dim: int = 384,
        payload_indexes: dict[str, str] | None = None,
        text_fields: list[str] | None = None,
    ) -> None:
        unknown = set((payload_indexes or {}).values()) - set(_INDEX_TYPES)
        if unknown:
            msg = f"unknown payload index types {sorted(unknown)}; allowed: {sorted(_INDEX_TYPES)}"
            raise ValueError(msg)
        self.collection = collection
        self.data_dir = data_dir
        self.embedding_dim = embedding_dim
        self.payload_indexes = dict(payload_indexes or {})
        self.text_fields = list(text_fields or [])
        self._shard: qe.EdgeShard | None = None
        self._lock = threading.Lock()

    @classmethod
    def for_schema(cls, schema: CollectionSchema, data_dir: str) -> "EdgeDocumentStore":
        return cls(
            collection=schema.name,
            data_dir=data_dir,
            embedding_dim=schema.embedding_dim,
            payload_indexes=dict(schema.payload_indexes),
            text_fields=list(schema.text_index),
        )

    @property
    def path(self) -> Path:
        return Path(self.data_dir) / self.collection

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(
            self,
            collection=self.collection,
            data_dir=self.data_dir,
            embedding_dim=self.embedding_dim,
            payload_indexes=self.payload_indexes,
            text_fields=self.text_fields,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EdgeDocumentStore":
        return default_from_dict(cls, data)

    # -- shard lifecycle -------------------------------------------------------------------------

    @property
    def shard(self) -> qe.EdgeShard:
        if self._shard is None:
            with self._lock:
                if self._shard is None:
                    self._shard = self._open()
        return self._shard

    def exists(self) -> bool:
        """Whether the shard has been created on disk (without opening it)."""
        return (self.path / "edge_config.json").exists()

    def _open(self) -> qe.EdgeShard:
        config = qe.EdgeConfig(
            vectors={DENSE_VECTORS_NAME: qe.EdgeVectorParams(size=self.embedding_dim, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE_VECTORS_NAME: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
        )
        try:
            if self.exists():
                shard = qe.EdgeShard.load(str(self.path))
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                shard = qe.EdgeShard.create(str(self.path), config)
        except Exception as error:
            if "WouldBlock" in str(error):
                msg = STORE_IN_USE.format(name=self.collection, path=self.path)
                raise StoreInUseError(msg, {"collection": self.collection}) from error
            raise
        self._ensure_indexes(shard)
        return shard

    def _ensure_indexes(self, shard: qe.EdgeShard) -> None:
        existing = set(shard.info().payload_schema)
        wanted: dict[str, Any] = {"id": qe.PayloadSchemaType.Keyword}
        wanted.update({name: _INDEX_TYPES[kind] for name, kind in self.payload_indexes.items()})
        wanted.update({name: text_index_params() for name in self.text_fields})
        for name, schema in wanted.items():
            if name not in existing:
                shard.update(qe.UpdateOperation.create_field_index(name, schema))

    def close(self) -> None:
        with self._lock:
            if self._shard is not None:
                self._shard.flush()
                self._shard.close()
                self._shard = None

    def optimize(self) -> bool:
        """Merge segments and build HNSW; run after bulk loads."""
        return self.shard.optimize()

    # -- DocumentStore protocol ------------------------------------------------------------------

    def count_documents(self, filters: dict[str, Any] | None = None) -> int:
        if not self.exists() and self._shard is None:
            return 0
        return self.shard.count(qe.CountRequest(exact=True, filter=convert_filters(filters, self._bool_ids)))

    def filter_documents(self, filters: dict[str, Any] | None = None) -> list[Document]:
        return list(self._scroll(filters, with_vectors=True))

    def _scroll(self, filters: dict[str, Any] | None, with_vectors: bool) -> Any:
        if not self.exists() and self._shard is None:
            return
        condition = convert_filters(filters, self._bool_ids)
        offset: Any = None
        while True:
            records, offset = self.shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=_SCROLL_PAGE,
                    filter=condition,
                    with_payload=True,
                    with_vector=with_vectors,
                )
            )
            for record in records:
                yield self._to_document(record.payload or {}, record.vector, None)
            if offset is None:
                return

    def write_documents(self, documents: list[Document], policy: DuplicatePolicy = DuplicatePolicy.NONE) -> int:
        for document in documents:
            if not isinstance(document, Document):
                msg = f"write_documents expects Documents, got {type(document).__name__}"
                raise ValueError(msg)
        if not documents:
            return 0
        policy = DuplicatePolicy.FAIL if policy == DuplicatePolicy.NONE else policy
        unique = {d.id: d for d in documents}
        if policy in (DuplicatePolicy.FAIL, DuplicatePolicy.SKIP):
            present = self._existing_ids(list(unique))
            if present and policy == DuplicatePolicy.FAIL:
                msg = f"documents with ids {sorted(present)[:5]} already exist in '{self.collection}'"
                raise DuplicateDocumentError(msg)
            unique = {i: d for i, d in unique.items() if i not in present}
        points = [self._to_point(d) for d in unique.values()]
        if points:
            self.shard.update(qe.UpdateOperation.upsert_points(points))
        return len(points)

    def delete_documents(self, document_ids: list[str]) -> None:
        if document_ids:
            self.shard.update(qe.UpdateOperation.delete_points([convert_id(i) for i in document_ids]))

    def delete_by_filter(self, filters: dict[str, Any]) -> int:
        """Delete every document matching `filters`; returns how many there were."""
        condition = convert_filters(filters, self._bool_ids)
        if condition is None:
            msg = "delete_by_filter needs a filter; refusing to delete the whole collection"
            raise ValueError(msg)
        count = self.count_documents(filters)
        if count:
            self.shard.update(qe.UpdateOperation.delete_points_by_filter(condition))
        return count

    def meta_by_filter(self, filters: dict[str, Any] | None) -> list[Document]:
        """Documents without vectors: cheap reads for change detection."""
        return list(self._scroll(filters, with_vectors=False))

    def _bool_ids(self, field: str, value: bool) -> set[Any]:
        """Point ids whose `field` is exactly `value` (see `convert_filters` on why booleans need this)."""
        ids: set[Any] = set()
        offset: Any = None
        while True:
            records, offset = self.shard.scroll(
                qe.ScrollRequest(offset=offset, limit=_SCROLL_PAGE, with_payload=[field], with_vector=False)
            )
            for record in records:
                current: Any = record.payload or {}
                for key in field.split("."):
                    current = current.get(key) if isinstance(current, dict) else None
                if current is value:
                    ids.add(record.id)
            if offset is None:
                return ids

    def _existing_ids(self, ids: list[str]) -> set[str]:
        records = self.shard.retrieve([convert_id(i) for i in ids], with_payload=["id"], with_vector=False)
        return {r.payload["id"] for r in records if r.payload}

    # -- retrieval -------------------------------------------------------------------------------

    def hybrid_search(self, query: HybridQuery) -> list[Hit]:
        """Fuse every source of `query` inside Qdrant, and rank each source alone for provenance.

        All requests go in one `query_batch`, which Edge plans as a whole.
        """
        query.validate()
        sources = query.sources()
        if not sources:
            return []
        condition = convert_filters(query.filters, self._bool_ids)
        scorers = {name: self._scorer(name, query) for name in sources}
        singles = [
            qe.QueryRequest(limit=query.prefetch_limit, query=scorers[name], filter=condition, with_payload=False)
            for name in sources
        ]
        if query.fusion == "sum" and len(sources) > 1:
            fused_request = qe.QueryRequest(
                limit=query.limit,
                prefetches=[
                    qe.Prefetch(limit=query.prefetch_limit, query=scorers[name], filter=condition) for name in sources
                ],
                query=_weighted_sum(query.weight_list()),
                with_payload=query.payload_selector(),
            )
        elif len(sources) == 1:
            fused_request = qe.QueryRequest(
                limit=query.limit, query=scorers[sources[0]], filter=condition, with_payload=query.payload_selector()
            )
        else:
            fusion: Any = (
                qe.Fusion.Rrf(k=query.rrf_k, weights=query.weight_list()) if query.fusion == "rrf" else qe.Fusion.Dbsf()
            )
            fused_request = qe.QueryRequest(
                limit=query.limit,
                prefetches=[
                    qe.Prefetch(limit=query.prefetch_limit, query=scorers[name], filter=condition) for name in sources
                ],
                query=fusion,
                with_payload=query.payload_selector(),
            )
        fused, *ranked = self.shard.query_batch(qe.QueryBatchRequest([fused_request, *singles]))
        rank_of = [{p.id: rank for rank, p in enumerate(points, start=1)} for points in ranked]
        hits = []
        for point in fused:
            ranks = {name: rank_of[i].get(point.id) for i, name in enumerate(sources)}
            hits.append(
                Hit(
                    payload=point.payload or {},
                    fused_score=point.score,
                    score=normalized_score(point.score, query, len(sources)),
                    ranks=ranks,
                )
            )
        return stable_order(hits)

    def _scorer(self, source: str, query: HybridQuery) -> Any:
        if source == DENSE:
            return qe.Query.Nearest(list(query.dense or []), using=DENSE_VECTORS_NAME)
        if source == SPARSE:
            sparse = query.sparse
            assert sparse is not None
            return qe.Query.Nearest(
                qe.SparseVector(list(sparse.indices), list(sparse.values)), using=SPARSE_VECTORS_NAME
            )
        field = source.removeprefix(TEXT_PREFIX)
        if field not in self.text_fields:
            msg = f"field '{field}' has no text index in '{self.collection}'; text-indexed: {self.text_fields}"
            raise ValueError(msg)
        return qe.TextQuery(field, query.text or "")

    # -- conversion ------------------------------------------------------------------------------

    @staticmethod
    def _to_point(document: Document) -> qe.Point:
        vector: dict[str, Any] = {}
        if document.embedding is not None:
            vector[DENSE_VECTORS_NAME] = list(document.embedding)
        if document.sparse_embedding is not None:
            sparse = document.sparse_embedding
            vector[SPARSE_VECTORS_NAME] = qe.SparseVector(list(sparse.indices), list(sparse.values))
        return qe.Point(convert_id(document.id), vector, payload_from_document(document))

    @staticmethod
    def _to_document(payload: dict[str, Any], vector: Any, score: float | None) -> Document:
        data = dict(payload)
        data["score"] = score
        if isinstance(vector, dict):
            dense = vector.get(DENSE_VECTORS_NAME)
            data["embedding"] = list(dense) if dense is not None else None
            sparse = vector.get(SPARSE_VECTORS_NAME)
            if sparse is not None:
                data["sparse_embedding"] = {"indices": list(sparse.indices), "values": list(sparse.values)}
        return Document.from_dict(data)
