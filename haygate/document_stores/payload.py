"""The point layout both backends share, qdrant-haystack's own: a payload is a Document without vectors.

Vectors are named `text-dense` (cosine) and `text-sparse` (BM25, IDF modifier); a point's id is
`uuid5(namespace, document.id)`; the payload is `Document.to_dict(flatten=False)` minus the vectors, so
filters address `meta.<field>`, `content` and `id`.

A collection that declares `passages: true` adds one vector of our own, `text-passages`: a multivector
holding the embedding of each passage (word window) of the document, compared by MaxSim, so a query's score
there is its cosine with the document's best passage. A Haystack Document has no field for several vectors:
the embedder hands them to the store under the meta key `PASSAGE_EMBEDDINGS`, which never reaches a payload.
"""

import dataclasses
import uuid
from typing import Any

from haystack import Document

# qdrant-haystack's names and id scheme (`haystack_integrations.document_stores.qdrant.converters`), kept
# here so the embedded path does not import qdrant-client (a second of every start); a test checks they agree.
DENSE_VECTORS_NAME = "text-dense"
SPARSE_VECTORS_NAME = "text-sparse"
PASSAGE_VECTORS_NAME = "text-passages"
PASSAGE_EMBEDDINGS = "_passage_embeddings"  # meta key: list[list[float]], from the embedder to the store only
UUID_NAMESPACE = uuid.UUID("3896d314-1e95-4a3a-b45a-945f9f0b541d")


def convert_id(document_id: str) -> str:
    """A Document id -> the point id qdrant-haystack gives it (a deterministic UUID)."""
    return uuid.uuid5(UUID_NAMESPACE, document_id).hex


__all__ = [
    "DENSE_VECTORS_NAME",
    "PASSAGE_EMBEDDINGS",
    "PASSAGE_VECTORS_NAME",
    "SPARSE_VECTORS_NAME",
    "convert_id",
    "document_from_payload",
    "passage_vectors",
    "payload_from_document",
    "sparse_terms",
]


def sparse_terms(vector: Any) -> frozenset[int]:
    """A point's BM25 terms, the indices of its sparse vector, from either backend's named vectors (a point
    without a sparse vector has none)."""
    sparse = vector.get(SPARSE_VECTORS_NAME) if isinstance(vector, dict) else None
    return frozenset(sparse.indices) if sparse is not None else frozenset()


def passage_vectors(document: Document) -> list[list[float]] | None:
    """The passage embeddings an embedder attached to `document` (None: it has none)."""
    vectors = document.meta.get(PASSAGE_EMBEDDINGS)
    return vectors if vectors else None


def payload_from_document(document: Document) -> dict[str, Any]:
    """The payload qdrant-haystack writes for a Document.

    Built field by field: `to_dict` deep-copies the whole Document (every embedding float, then the meta)
    through `dataclasses.asdict`, which was most of a write. The meta is handed over as it is; both stores
    convert the payload into their own form at once, so nothing here keeps a reference to it.
    """
    meta = document.meta
    if PASSAGE_EMBEDDINGS in meta:
        meta = {key: value for key, value in meta.items() if key != PASSAGE_EMBEDDINGS}
    if document.blob is None:
        return {"id": document.id, "content": document.content, "blob": None, "meta": meta, "score": document.score}
    payload = dataclasses.replace(document, embedding=None, sparse_embedding=None, meta=meta).to_dict(flatten=False)
    payload.pop("embedding", None)
    payload.pop("sparse_embedding", None)
    return payload


def document_from_payload(
    payload: dict[str, Any], score: float | None, extra_meta: dict[str, Any] | None = None
) -> Document:
    """Rebuild a Document from a payload; this runs per hit, so it skips what `Document(...)` would check.

    `Document.__init__` (behind Haystack's mutation tracking) is a measurable share of a search
    (docs/results/benchmarks.md); a stored payload already holds what it checks (an id, a string or no content), so the
    instance is filled in directly, as `haygate.compat.fast_deepcopy` copies one. A payload without an id goes through
    it."""
    meta = payload.get("meta") or {}
    content = payload.get("content")
    if not payload.get("id") or not (content is None or type(content) is str):
        meta = {**meta, **extra_meta} if extra_meta else meta
        return Document(id=payload.get("id", ""), content=content, meta=meta, score=score)
    document = object.__new__(Document)
    document.__dict__.update(
        id=payload["id"],
        content=content,
        blob=None,
        meta={**meta, **extra_meta} if extra_meta else meta,
        score=score,
        embedding=None,
        sparse_embedding=None,
    )
    return document
