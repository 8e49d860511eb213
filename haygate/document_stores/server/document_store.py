"""`QdrantServerStore`: the same collection layout and hybrid plan on a Qdrant server or cluster.

It is qdrant-haystack's `QdrantDocumentStore` (vector names, point ids and payload are its own), plus the
hybrid query our retriever needs and our filter converter (so full-text operators work here too).
`HAYGATE_QDRANT_URL` moves every pipeline to it; `:memory:` and `local:/path` select qdrant-client's local
mode, which speaks the same API (tests use it).
"""

import dataclasses
import functools
import threading
from collections.abc import Callable, Hashable
from pathlib import Path
from typing import Any

import qdrant_client
from haystack import Document, default_to_dict
from haystack.dataclasses import SparseEmbedding
from haystack.document_stores.types import DuplicatePolicy
from haystack.utils import Secret
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore
from haystack_integrations.document_stores.qdrant.converters import convert_haystack_documents_to_qdrant_points
from qdrant_client.http import models as rest

from haygate.compat.qdrant import QdrantHooks
from haygate.document_stores import shared
from haygate.document_stores.backends import Layout, Place
from haygate.document_stores.hybrid import BATCH_PENDING, HybridDocumentStore
from haygate.document_stores.payload import (
    DENSE_VECTORS_NAME,
    PASSAGE_EMBEDDINGS,
    PASSAGE_VECTORS_NAME,
    SPARSE_VECTORS_NAME,
    convert_id,
    document_from_payload,
    passage_vectors,
    sparse_terms,
)
from haygate.document_stores.query import DENSE, SPARSE, TEXT_PREFIX, HybridQuery, PointId, RankedList, ScoredPoint
from haygate.document_stores.server.filters import convert_filters
from haygate.errors import ConfigurationError
from haygate.text.paths import value_at

API_KEY_VARIABLE = "HAYGATE_QDRANT_API_KEY"
# Shared points are changed by conditional operations (`haygate.document_stores.shared`): on the permanent leader
# of each shard, so every replica applies them in one order and their conditions hold alike on all (weak ordering
# lets two replicas apply two writers' operations in opposite orders); and the reads they rest on ask a majority.
WRITE_ORDERING = rest.WriteOrdering.STRONG
READ_CONSISTENCY = rest.ReadConsistencyType.MAJORITY


class _Serialised:
    """A local-mode client whose calls run one at a time. A server applies each request atomically (an update
    operation under its shard's update lock, a read on a consistent view), but qdrant-client's local mode has no
    lock between threads: without this, a conditional write could interleave with another thread's write or
    read. The stores of one process that share a folder share its client, and this lock with it."""

    def __init__(self, client: qdrant_client.QdrantClient) -> None:
        self._wrapped = client
        self._lock = threading.RLock()

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._wrapped, name)
        if not callable(attribute):
            return attribute

        @functools.wraps(attribute)
        def serialised(*args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return attribute(*args, **kwargs)

        return serialised


# qdrant-client's local mode lets one client hold a folder: the stores of one process share it, counted.
_LOCAL_CLIENTS: dict[str, tuple[_Serialised, int]] = {}
_LOCAL_LOCK = threading.Lock()
INDEX_SCHEMAS: dict[str, Any] = {
    "keyword": "keyword",
    "keyword_prefix": rest.KeywordIndexParams(type=rest.KeywordIndexType.KEYWORD, prefix=True),
    "integer": "integer",
    "float": "float",
    "bool": "bool",
    "datetime": "datetime",
    "uuid": "uuid",
}


def text_index_schema() -> rest.TextIndexParams:
    """The server-side twin of `edge.document_store.text_index_params`."""
    return rest.TextIndexParams(
        type=rest.TextIndexType.TEXT,
        tokenizer=rest.TokenizerType.WORD,
        lowercase=True,
        ascii_folding=True,
        phrase_matching=True,
        stemmer=rest.SnowballParams(type=rest.Snowball.SNOWBALL, language=rest.SnowballLanguage.ENGLISH),
        stopwords=rest.Language.ENGLISH,
        scoring=rest.TextScoringParams(type=rest.TextScoringType.BM25),
    )


def _location(url: str) -> dict[str, Any]:
    if url == ":memory:":
        return {"location": ":memory:"}
    if url.startswith("local:"):
        return {"path": url.removeprefix("local:")}
    return {"url": url}


class QdrantServerStore(QdrantHooks, HybridDocumentStore):
    """One haygate collection as one Qdrant collection on a server (or in qdrant-client's local mode)."""

    def __init__(
        self,
        collection: str,
        url: str,
        api_key: Secret | None = None,
        embedding_dim: int = 384,
        payload_indexes: dict[str, str] | None = None,
        text_fields: list[str] | None = None,
        passages: bool = False,
    ) -> None:
        """:param passages: the collection holds a passage multivector per point (`text-passages`, MaxSim)."""
        self._set_layout(collection, payload_indexes, text_fields, INDEX_SCHEMAS)
        self.passages = passages
        self.server_url = url
        indexes: list[dict[str, Any]] = [{"field_name": "id", "field_schema": "keyword"}]
        indexes += [{"field_name": f, "field_schema": INDEX_SCHEMAS[t]} for f, t in self.payload_indexes.items()]
        indexes += [{"field_name": f, "field_schema": text_index_schema()} for f in self.text_fields]
        QdrantDocumentStore.__init__(
            self,
            **_location(url),
            api_key=api_key,
            index=collection,
            embedding_dim=embedding_dim,
            use_sparse_embeddings=True,
            sparse_idf=True,
            payload_fields_to_index=indexes,
            progress_bar=False,
        )

    def to_dict(self) -> dict[str, Any]:
        """A token is never serialised: a store that has one refers to `HAYGATE_QDRANT_API_KEY` instead."""
        api_key = self.api_key
        if api_key is not None and api_key.type.value != "env_var":
            api_key = Secret.from_env_var(API_KEY_VARIABLE, strict=False)
        return default_to_dict(
            self,
            collection=self.collection,
            url=self.server_url,
            api_key=api_key.to_dict() if api_key is not None else None,
            embedding_dim=self.embedding_dim,
            payload_indexes=self.payload_indexes,
            text_fields=self.text_fields,
            passages=self.passages,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "QdrantServerStore":
        params = dict(data.get("init_parameters", {}))
        if isinstance(params.get("api_key"), dict):
            params["api_key"] = Secret.from_dict(params["api_key"])
        return cls(**params)

    def connect(self) -> None:
        """On a server, qdrant-haystack's own client; in local mode, the process's one client of the folder."""
        if self.path is None or self.client is not None:
            super().connect()
            return
        key = str(Path(self.path).resolve())
        with _LOCAL_LOCK:
            client, holders = _LOCAL_CLIENTS.get(key) or (_Serialised(qdrant_client.QdrantClient(path=self.path)), 0)
            _LOCAL_CLIENTS[key] = (client, holders + 1)
        self.client = client  # the folder's client, its calls serialised
        self.set_up_collection(self.recreate_index)

    def close(self) -> None:
        if self.path is None or self.client is None:
            super().close()
            return
        key = str(Path(self.path).resolve())
        with _LOCAL_LOCK:
            client, holders = _LOCAL_CLIENTS[key]
            if holders > 1:
                _LOCAL_CLIENTS[key] = (client, holders - 1)
            else:
                del _LOCAL_CLIENTS[key]
                client.close()
        self.client = None

    def collection_config(self, vectors: Any, sparse: Any) -> tuple[Any, Any]:
        """qdrant-haystack's layout, plus the passage multivector when the collection keeps passages."""
        if self.passages and isinstance(vectors, dict):  # named vectors: always, with the sparse one
            dense = vectors[DENSE_VECTORS_NAME]
            vectors = {
                **vectors,
                PASSAGE_VECTORS_NAME: rest.VectorParams(
                    size=dense.size,
                    distance=dense.distance,
                    on_disk=dense.on_disk,
                    multivector_config=rest.MultiVectorConfig(comparator=rest.MultiVectorComparator.MAX_SIM),
                    hnsw_config=rest.HnswConfigDiff(m=0),  # only rescores candidates: no graph
                ),
            }
        return vectors, sparse

    def _connected(self) -> Any:
        self.connect()
        assert self.client is not None
        return self.client

    def exists(self) -> bool:
        return bool(self._connected().collection_exists(self.index))

    def optimize(self) -> bool:
        """A server optimizes in the background; nothing to do here."""
        return False

    # The DocumentStore protocol and the extended methods come from HybridDocumentStore (locks, batches, our
    # filter semantics), not from qdrant-haystack; its `*_async` twins are qdrant-haystack's own.
    count_documents = HybridDocumentStore.count_documents  # type: ignore[assignment]
    filter_documents = HybridDocumentStore.filter_documents  # type: ignore[assignment]
    write_documents = HybridDocumentStore.write_documents  # type: ignore[assignment]
    delete_documents = HybridDocumentStore.delete_documents  # type: ignore[assignment]
    delete_by_filter = HybridDocumentStore.delete_by_filter  # type: ignore[assignment]
    delete_all_documents = HybridDocumentStore.delete_all_documents  # type: ignore[assignment]
    update_by_filter = HybridDocumentStore.update_by_filter  # type: ignore[assignment]
    count_documents_by_filter = HybridDocumentStore.count_documents_by_filter  # type: ignore[assignment]
    get_metadata_fields_info = HybridDocumentStore.get_metadata_fields_info  # type: ignore[assignment]
    get_metadata_field_min_max = HybridDocumentStore.get_metadata_field_min_max  # type: ignore[assignment]
    count_unique_metadata_by_filter = HybridDocumentStore.count_unique_metadata_by_filter  # type: ignore[assignment]
    get_metadata_field_unique_values = HybridDocumentStore.get_metadata_field_unique_values  # type: ignore[assignment]

    def _consistency_key(self) -> str:
        return f"server:{self.server_url}/{self.collection}"

    def _filter(self, filters: dict[str, Any] | None) -> rest.Filter | None:
        return convert_filters(filters, self._ids_where)

    def _ids_where(self, field: str, holds: Callable[[Any], bool], key: Hashable) -> set[Any]:
        """Point ids whose `field` satisfies `holds` (whole lists and objects, which Qdrant matches by element)."""
        ids: set[Any] = set()
        if not self.exists():
            return ids
        offset = None
        while True:
            points, offset = self._connected().scroll(
                self.index, limit=1024, offset=offset, with_payload=[field], with_vectors=False
            )
            ids.update(point.id for point in points if holds(value_at(point.payload or {}, field)))
            if offset is None:
                return ids

    def _distinct(self, field: str, filters: dict[str, Any] | None) -> set[Any]:
        """By the server's facet count where the field has a keyword index, else by reading the field."""
        if not self.exists():
            return set()
        condition = self._filter(filters)
        if self.payload_indexes.get(field) in ("keyword", "keyword_prefix"):
            matching = self._count(filters)
            if not matching:
                return set()
            found = self._connected().facet(self.index, key=field, facet_filter=condition, limit=matching, exact=True)
            return {hit.value for hit in found.hits}
        values: set[Any] = set()
        for document in self._scroll(filters, False, [field]):
            value = value_at({"meta": document.meta, "content": document.content, "id": document.id}, field)
            values.update(value if isinstance(value, list) else [] if value is None else [value])
        return values

    def _count(self, filters: dict[str, Any] | None) -> int:
        condition = self._filter(filters)  # first: a bad filter is named even before anything is written
        if not self.exists():
            return 0
        return int(self._connected().count(self.index, count_filter=condition, exact=True).count)

    def _write(self, documents: list[Document], policy: DuplicatePolicy) -> int:
        """qdrant-haystack writes the points; the passage vectors follow as an update of those points."""
        passages = {d.id: vectors for d in documents if (vectors := passage_vectors(d)) is not None}
        if passages and not self.passages:
            msg = (
                f"documents bring passage vectors, but collection '{self.collection}' stores none: set "
                "`passages: true` in its YAML, or remove `passages` from its dense embedder"
            )
            raise ConfigurationError(msg, {"collection": self.collection})
        if passages:
            documents = [
                dataclasses.replace(d, meta={k: v for k, v in d.meta.items() if k != PASSAGE_EMBEDDINGS})
                for d in documents
            ]
        written = int(QdrantDocumentStore.write_documents(self, documents, policy))
        if passages:
            self._connected().update_vectors(
                self.index,
                points=[
                    rest.PointVectors(id=convert_id(i), vector={PASSAGE_VECTORS_NAME: vectors})
                    for i, vectors in passages.items()
                ],
                wait=True,
            )
        return written

    def _delete_ids(self, document_ids: list[str]) -> None:
        QdrantDocumentStore.delete_documents(self, document_ids)

    def _delete_filter(self, filters: dict[str, Any]) -> None:
        condition = self._filter(filters)
        assert condition is not None  # the base class refuses an empty filter
        self._connected().delete(self.index, points_selector=rest.FilterSelector(filter=condition), wait=True)

    def _delete_all(self, recreate: bool) -> None:
        if recreate:  # qdrant-haystack's set-up, with our layout (`collection_config`) and indexes
            self.set_up_collection(recreate=True)
            return
        everything = rest.FilterSelector(filter=rest.Filter(must=[]))
        self._connected().delete(self.index, points_selector=everything, wait=True)

    def _scroll_page(
        self, filters: dict[str, Any] | None, after: str | None, limit: int
    ) -> tuple[list[Document], str | None]:
        if not self.exists():
            return [], None
        points, offset = self._connected().scroll(
            self.index, scroll_filter=self._filter(filters), limit=limit, offset=after, with_payload=True
        )
        documents = [document_from_payload(point.payload or {}, None) for point in points]
        return documents, None if offset is None else str(offset)

    def _update_filter(self, filters: dict[str, Any], meta: dict[str, Any]) -> None:
        condition = self._filter(filters)
        assert condition is not None  # the base class refuses an empty filter
        self._connected().set_payload(
            self.index, payload=meta, key="meta", points=rest.FilterSelector(filter=condition), wait=True
        )

    def _landing(self, document_ids: list[str]) -> None:
        """Nothing to note: every point a batch writes carries its mark (`_as_pending`)."""

    def _landed(self, document_ids: list[str]) -> None:
        """One request; selected by a filter, so a point the batch deleted again is no error (as an id would be)."""
        selector = rest.FilterSelector(filter=rest.Filter(must=[rest.HasIdCondition(has_id=_point_ids(document_ids))]))
        self._connected().delete_payload(self.index, keys=[f"meta.{BATCH_PENDING}"], points=selector, wait=True)

    def _make_durable(self) -> None:
        """Writes wait for the server's acknowledgement (qdrant-haystack's `wait_result_from_api`)."""

    def _shared_ids(self, field: str, record_ids: list[str]) -> list[str]:
        """Every backend's scan, with the read consistency of the other reads a compare-and-set rests on."""
        naming = self._scroll(shared.naming(field, record_ids), False, ["id"], consistency=READ_CONSISTENCY)
        return [document.id for document in naming]

    def _shared_states(self, document_ids: list[str], field: str) -> dict[str, shared.Stored]:
        if not document_ids or not self.exists():
            return {}
        records = self._connected().retrieve(
            self.index,
            ids=[convert_id(i) for i in document_ids],
            with_payload=["id", f"meta.{field}", f"meta.{shared.REVISION}"],
            consistency=READ_CONSISTENCY,
        )
        states = {}
        for record in records:
            payload = record.payload or {}
            meta = payload.get("meta") or {}
            states[str(payload["id"])] = shared.Stored(shared.holders_of(meta, field), meta.get(shared.REVISION))
        return states

    def _insert_absent(self, documents: list[Document]) -> None:
        """qdrant-haystack's points, upserted with `insert_only`: a point stored meanwhile is left as it is."""
        points = convert_haystack_documents_to_qdrant_points(
            documents, use_sparse_embeddings=self.use_sparse_embeddings
        )
        self._connected().upsert(
            self.index, points=points, update_mode=rest.UpdateMode.INSERT_ONLY, wait=True, ordering=WRITE_ORDERING
        )

    def _apply_if(self, changes: list[shared.Change]) -> None:
        """One request: each change a set-payload or a delete whose selector names the point at its revision."""
        operations: list[Any] = []
        for change in changes:
            condition = self._filter(shared.condition(change))
            assert condition is not None
            if change.meta is None:
                operations.append(rest.DeleteOperation(delete=rest.FilterSelector(filter=condition)))
            else:
                payload = rest.SetPayload(payload=change.meta, key="meta", filter=condition)
                operations.append(rest.SetPayloadOperation(set_payload=payload))
        self._connected().batch_update_points(self.index, operations, wait=True, ordering=WRITE_ORDERING)

    def _scroll(
        self,
        filters: dict[str, Any] | None,
        with_vectors: bool,
        fields: list[str] | None = None,
        consistency: Any = None,
    ) -> list[Document]:
        """`consistency`: how many replicas answer (the server's default: one)."""
        condition = self._filter(filters)
        if not self.exists():
            return []
        documents: list[Document] = []
        offset = None
        while True:
            points, offset = self._connected().scroll(
                self.index,
                scroll_filter=condition,
                limit=1024,
                offset=offset,
                with_payload=True if fields is None else sorted({"id", *fields}),
                with_vectors=with_vectors,
                consistency=consistency,
            )
            for point in points:
                document = document_from_payload(point.payload or {}, None)
                vectors = point.vector if isinstance(point.vector, dict) else {}
                dense, sparse = vectors.get(DENSE_VECTORS_NAME), vectors.get(SPARSE_VECTORS_NAME)
                if dense is not None or sparse is not None:
                    document = dataclasses.replace(
                        document,
                        embedding=list(dense) if isinstance(dense, list) else None,
                        sparse_embedding=None if sparse is None else _sparse(sparse),
                    )
                documents.append(document)
            if offset is None:
                return documents

    def _query_batch(self, query: HybridQuery, requests: list[RankedList]) -> list[list[ScoredPoint]]:
        condition = self._filter(query.filters)
        batch = [self._request(query, request, condition) for request in requests]
        responses = self._connected().query_batch_points(self.index, requests=batch)
        return [
            [
                ScoredPoint(p.id, p.score, p.payload, sparse_terms(p.vector) if asked.with_terms else None)
                for p in response.points
            ]
            for response, asked in zip(responses, requests, strict=True)
        ]

    def _passage_scores(self, vector: list[float], point_ids: list[PointId]) -> dict[PointId, float]:
        response = self._connected().query_points(
            self.index,
            query=[list(vector)],
            using=PASSAGE_VECTORS_NAME,
            query_filter=rest.Filter(must=[rest.HasIdCondition(has_id=list(point_ids))]),  # type: ignore[arg-type]
            limit=len(point_ids),
            with_payload=False,
        )
        return {p.id: p.score for p in response.points}

    def get_documents_by_id(self, ids: list[str]) -> list[Document]:
        """qdrant-haystack's, with each id asked once (it returns a document as often as its id is asked)."""
        return super().get_documents_by_id(list(dict.fromkeys(ids)))

    def _dense_vectors(self, point_ids: list[PointId]) -> list[list[float]]:
        records = self._connected().retrieve(
            self.index, ids=point_ids, with_payload=False, with_vectors=[DENSE_VECTORS_NAME]
        )
        vectors = [r.vector.get(DENSE_VECTORS_NAME) for r in records if isinstance(r.vector, dict)]
        return [list(v) for v in vectors if v is not None]

    def _request(self, query: HybridQuery, request: RankedList, condition: rest.Filter | None) -> rest.QueryRequest:
        if not request.fused:
            [source] = request.sources
            scorer, using = self._scorer(source, query)
            return rest.QueryRequest(
                query=scorer,
                using=using,
                filter=condition,
                limit=request.limit,
                with_payload=request.with_payload,
                with_vector=[SPARSE_VECTORS_NAME] if request.with_terms else None,
                score_threshold=request.score_threshold,
            )
        prefetch = []
        for name in request.sources:
            scorer, using = self._scorer(name, query)
            prefetch.append(rest.Prefetch(query=scorer, using=using, filter=condition, limit=query.prefetch_limit))
        fusion: Any
        if query.fusion == "rrf":
            fusion = rest.RrfQuery(rrf=rest.Rrf(k=query.rrf_k, weights=query.weight_list()))
        elif query.fusion == "sum":
            weights = query.weight_list()
            fusion = rest.FormulaQuery(
                formula=rest.SumExpression(
                    sum=[rest.MultExpression(mult=[w, f"$score[{i}]"]) for i, w in enumerate(weights)]
                ),
                defaults={f"$score[{i}]": 0.0 for i in range(len(weights))},
            )
        else:
            fusion = rest.FusionQuery(fusion=rest.Fusion.DBSF)
        return rest.QueryRequest(
            prefetch=prefetch,
            query=fusion,
            limit=request.limit,
            with_payload=request.with_payload,
            with_vector=[SPARSE_VECTORS_NAME] if request.with_terms else None,
            score_threshold=request.score_threshold,
        )

    @staticmethod
    def _scorer(source: str, query: HybridQuery) -> tuple[Any, str | None]:
        if source == DENSE:
            return list(query.dense or []), DENSE_VECTORS_NAME
        if source == SPARSE:
            assert query.sparse is not None
            return rest.SparseVector(
                indices=list(query.sparse.indices), values=list(query.sparse.values)
            ), SPARSE_VECTORS_NAME
        field = source.removeprefix(TEXT_PREFIX)
        return rest.TextQuery(text=rest.TextQueryInput(query=query.text or "")), field


def _point_ids(document_ids: list[str]) -> list[Any]:
    return [convert_id(document_id) for document_id in document_ids]


def _sparse(vector: Any) -> SparseEmbedding:
    return SparseEmbedding(indices=list(vector.indices), values=list(vector.values))


def open_store(layout: Layout, place: Place) -> QdrantServerStore:
    """The `qdrant` backend (`haygate.document_stores.backends`): a collection on the server at `place.url`."""
    if not place.url:
        msg = "the qdrant store backend needs the server's URL: set HAYGATE_QDRANT_URL (or HAYGATE_STORE=edge)"
        raise ConfigurationError(msg, {"field": "qdrant_url"})
    return QdrantServerStore(
        layout.name,
        place.url,
        Secret.from_token(place.api_key) if place.api_key else None,
        embedding_dim=layout.embedding_dim,
        payload_indexes=layout.payload_indexes,
        text_fields=layout.text_fields,
        passages=layout.passages,
    )
