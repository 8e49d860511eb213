"""`QdrantServerStore`: the same collection layout and `hybrid_search` on a Qdrant server or cluster.

It is qdrant-haystack's `QdrantDocumentStore` (vector names, point ids and payload are its own), plus the
hybrid query our retriever needs. `HAYGATE_QDRANT_URL` switches every pipeline to it. `:memory:` and
`local:/path` select qdrant-client's local mode, which speaks the same API (tests use it).
"""

import dataclasses
from typing import Any

from haystack import Document
from haystack.utils import Secret
from haystack_integrations.document_stores.qdrant import QdrantDocumentStore
from haystack_integrations.document_stores.qdrant.converters import DENSE_VECTORS_NAME, SPARSE_VECTORS_NAME
from haystack_integrations.document_stores.qdrant.filters import convert_filters_to_qdrant
from qdrant_client.http import models as rest

from components.collections import CollectionSchema
from components.hybrid import (
    DENSE,
    SPARSE,
    TEXT_PREFIX,
    Hit,
    HybridQuery,
    document_from_payload,
    normalized_score,
    stable_order,
)

_FIELD_SCHEMAS: dict[str, Any] = {
    "keyword": "keyword",
    "keyword_prefix": rest.KeywordIndexParams(type=rest.KeywordIndexType.KEYWORD, prefix=True),
    "integer": "integer",
    "float": "float",
    "bool": "bool",
    "datetime": "datetime",
    "uuid": "uuid",
}


_TEXT_MATCH: dict[str, Any] = {
    "match": lambda value: rest.MatchText(text=value),
    "phrase": lambda value: rest.MatchPhrase(phrase=value),
    "prefix": lambda value: rest.MatchPrefix(prefix=value),
}


def server_filter(filters: dict[str, Any] | None) -> rest.Filter | None:
    """Haystack filters -> qdrant-client, with haygate's full-text operators (`match`, `phrase`, `prefix`).

    Logical nodes are walked here so that full-text leaves can sit anywhere in the tree; every other leaf
    goes through qdrant-haystack's converter, exactly as before.
    """
    if not filters:
        return None
    node = _server_node(filters)
    return node if isinstance(node, rest.Filter) else rest.Filter(must=[node])


def _server_node(node: dict[str, Any]) -> Any:
    operator = node.get("operator")
    if "conditions" in node:
        children = [_server_node(child) for child in node["conditions"]]
        if operator == "AND":
            return rest.Filter(must=children)
        if operator == "OR":
            return rest.Filter(should=children)
        if operator == "NOT":
            return rest.Filter(must_not=[rest.Filter(must=children)])
    if operator in _TEXT_MATCH:
        return rest.FieldCondition(key=node["field"], match=_TEXT_MATCH[operator](node["value"]))
    return convert_filters_to_qdrant(node)


def text_index_schema() -> rest.TextIndexParams:
    """The server-side twin of `components.store.text_index_params`."""
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


class QdrantServerStore(QdrantDocumentStore):
    @classmethod
    def for_schema(cls, schema: CollectionSchema, url: str, api_key: str | None = None) -> "QdrantServerStore":
        indexes: list[dict[str, Any]] = [{"field_name": "id", "field_schema": "keyword"}]
        indexes += [{"field_name": f, "field_schema": _FIELD_SCHEMAS[t]} for f, t in schema.payload_indexes.items()]
        indexes += [{"field_name": f, "field_schema": text_index_schema()} for f in schema.text_index]
        location: dict[str, Any]
        if url == ":memory:":
            location = {"location": ":memory:"}
        elif url.startswith("local:"):
            location = {"path": url.removeprefix("local:")}
        else:
            location = {"url": url, "api_key": Secret.from_token(api_key) if api_key else None}
        store = cls(
            **location,
            index=schema.name,
            embedding_dim=schema.embedding_dim,
            use_sparse_embeddings=True,
            sparse_idf=True,
            payload_fields_to_index=indexes,
            progress_bar=False,
        )
        store.text_fields = list(schema.text_index)
        return store

    text_fields: list[str] = []

    def exists(self) -> bool:
        self._initialize_client()
        assert self._client is not None
        return bool(self._client.collection_exists(self.index))

    def optimize(self) -> bool:
        """A server optimizes in the background; nothing to do here."""
        return False

    def meta_by_filter(self, filters: dict[str, Any] | None) -> list[Document]:
        """Documents without vectors, by a filter that may use the full-text operators."""
        self._initialize_client()
        assert self._client is not None
        documents: list[Document] = []
        offset = None
        while True:
            points, offset = self._client.scroll(
                self.index,
                scroll_filter=server_filter(filters),
                limit=1024,
                offset=offset,
                with_payload=True,
                with_vectors=False,
            )
            documents += [document_from_payload(p.payload or {}, 0.0) for p in points]
            if offset is None:
                return [dataclasses.replace(d, score=None) for d in documents]

    def count_documents(self, filters: dict[str, Any] | None = None) -> int:  # type: ignore[override]
        if filters:
            return self.count_documents_by_filter(filters)
        return super().count_documents()

    def hybrid_search(self, query: HybridQuery) -> list[Hit]:
        query.validate()
        sources = query.sources()
        if not sources:
            return []
        self._initialize_client()
        assert self._client is not None
        condition = server_filter(query.filters)
        scorers = {name: self._scorer(name, query) for name in sources}
        singles = [
            rest.QueryRequest(
                query=scorers[name][0],
                using=scorers[name][1],
                filter=condition,
                limit=query.prefetch_limit,
                with_payload=False,
            )
            for name in sources
        ]
        if len(sources) == 1:
            fused_request = rest.QueryRequest(
                query=scorers[sources[0]][0],
                using=scorers[sources[0]][1],
                filter=condition,
                limit=query.limit,
                with_payload=query.payload_selector(),
            )
        else:
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
            fused_request = rest.QueryRequest(
                prefetch=[
                    rest.Prefetch(
                        query=scorers[n][0], using=scorers[n][1], filter=condition, limit=query.prefetch_limit
                    )
                    for n in sources
                ],
                query=fusion,
                limit=query.limit,
                with_payload=query.payload_selector(),
            )
        responses = self._client.query_batch_points(self.index, requests=[fused_request, *singles])
        fused, ranked = responses[0].points, [r.points for r in responses[1:]]
        rank_of = [{str(p.id): rank for rank, p in enumerate(points, start=1)} for points in ranked]
        return stable_order(
            [
                Hit(
                    payload=point.payload or {},
                    fused_score=point.score,
                    score=normalized_score(point.score, query, len(sources)),
                    ranks={name: rank_of[i].get(str(point.id)) for i, name in enumerate(sources)},
                )
                for point in fused
            ]
        )

    def _scorer(self, source: str, query: HybridQuery) -> tuple[Any, str]:
        if source == DENSE:
            return list(query.dense or []), DENSE_VECTORS_NAME
        if source == SPARSE:
            assert query.sparse is not None
            vector = rest.SparseVector(indices=list(query.sparse.indices), values=list(query.sparse.values))
            return vector, SPARSE_VECTORS_NAME
        field = source.removeprefix(TEXT_PREFIX)
        return rest.TextQuery(text=rest.TextQueryInput(query=query.text or "")), field
