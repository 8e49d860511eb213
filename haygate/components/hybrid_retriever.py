"""`HybridRetriever`: dense + BM25 (sparse vector and/or text index) fused inside Qdrant."""

import inspect
from collections.abc import Mapping
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict
from haystack.dataclasses import SparseEmbedding

from haygate.document_stores.hybrid import HybridDocumentStore, check_store
from haygate.document_stores.policy import HybridSearchPolicy, ignored_settings, one_source
from haygate.document_stores.query import Fusion


@component
class HybridRetriever:
    """Retrieves documents from a haygate store by dense and BM25 scores fused inside Qdrant.

    Thin, as qdrant-haystack's retrievers are: it checks its store and settings, and each run is one call of its
    settings' `retrieve` on the store (a `HybridSearchPolicy`, beside the store's query plan): the filter fields checked
    against the collection's indexes, a listing when the query text is empty, the relevance floors, and a second search
    with relaxed filters when the first finds nothing. Each returned Document carries its provenance in
    `meta["scores"]`: its rank in each source and the raw fused score.

    A setting that the others make irrelevant (`weights` with DBSF, `rrf_k` without RRF, any fusion setting
    with a single source) is refused rather than ignored: `ignored_settings` is the one home of that rule,
    used at init, at run time for a call's `rrf_k`, and by `haygate tune` for its grid axes.

    ### Usage example

    ```python
    import tempfile

    from haystack import Document
    from haystack.dataclasses import SparseEmbedding

    from haygate.components.hybrid_retriever import HybridRetriever
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    with tempfile.TemporaryDirectory() as data_dir:
        store = EdgeDocumentStore("notes", data_dir, embedding_dim=3, text_fields=["content"])
        store.write_documents(
            [
                Document(
                    id="fox",
                    content="the quick brown fox",
                    embedding=[1.0, 0.0, 0.0],
                    sparse_embedding=SparseEmbedding(indices=[1, 2], values=[1.0, 1.0]),
                ),
                Document(
                    id="whale",
                    content="a blue whale",
                    embedding=[0.0, 1.0, 0.0],
                    sparse_embedding=SparseEmbedding(indices=[3], values=[1.0]),
                ),
            ]
        )
        retriever = HybridRetriever(store, top_k=2, text_fields=["content"])
        result = retriever.run(
            query="brown fox",
            query_embedding=[0.9, 0.1, 0.0],
            query_sparse_embedding=SparseEmbedding(indices=[2], values=[1.0]),
        )
        for document in result["documents"]:
            print(document.id, round(document.score, 2), document.meta["scores"])
        store.close()
    ```
    """

    def __init__(
        self,
        document_store: HybridDocumentStore,
        top_k: int = 50,
        prefetch_limit: int | None = None,
        fusion: Fusion | None = None,
        rrf_k: int | None = None,
        weights: dict[str, float] | None = None,
        use_dense: bool = True,
        use_sparse: bool = True,
        text_fields: list[str] | None = None,
        min_score: float | None = None,
        payload_fields: list[str] | None = None,
        relevance_floor: dict[str, float] | None = None,
        feedback: dict[str, float] | None = None,
        passages: float | None = None,
        one_per_record: bool = True,
    ) -> None:
        """Set the collection searched and how its sources are fused, checked against each other.

        :param document_store: the collection's store (the loader builds it from `{collection: name}`).
        :param top_k: fused candidates returned (the over-fetch handed to the ranker).
        :param prefetch_limit: candidates each source contributes to fusion, at least `top_k` (None: 100, or
            `top_k` if larger). Only with two or more sources.
        :param fusion: how two or more sources are fused (None: `rrf`): `rrf` (reciprocal rank fusion, with
            `rrf_k` and `weights`), `dbsf` (unweighted, no `rrf_k`), or `sum`: the weighted sum of the sources'
            own scores (BM25 field boosts, as FTS5's bm25(5.0, 1.0); `weights`, no `rrf_k`).
        :param rrf_k: the RRF constant (None: Qdrant's 60); only with `fusion: rrf`.
        :param weights: per-source weight: `dense`, `sparse`, `text:<field>`; only with `rrf` or `sum`, and only
            for sources this retriever uses.
        :param use_dense: fuse the dense vector's ranking.
        :param use_sparse: fuse the BM25 sparse vector's ranking.
        :param text_fields: payload fields whose native BM25 text index joins the fusion.
        :param min_score: drop hits whose normalised fused score is below this (0..1).
        :param payload_fields: fetch only these payload paths (e.g. `meta.record_id`) when the rest of the
            pipeline needs nothing else; None fetches whole documents.
        :param relevance_floor: per-source floors on the sources' own scores, e.g. `{dense: 0.3, terms: 1.0}`:
            a hit is kept only if some score named here reaches its floor. `dense`: the cosine similarity to
            the query; `passages`: its best passage's cosine (with `passages`); `terms`: the share of the
            query's BM25 terms (stemmed, no stop words) the hit contains, so 1.0 keeps what has every word
            the caller typed (with the sparse source); `sparse`, `text:<field>`: BM25, where any matched term
            scores above 0. Fused scores are relative to one query's candidates, so they cannot tell "the
            best of unrelated items" from a match; these can. Dropped hits are counted in the `metadata`
            output (`below_relevance_floor`).
        :param feedback: dense pseudo-relevance feedback, `{documents: 3, weight: 1.0}`: the query vector
            moves toward the mean of the first ranking's top `documents` by `weight`, then the query runs
            again (one more store query). Needs the dense source. None: off.
        :param passages: rescore the fused candidates (all `top_k` of them) by their best passage's cosine to
            the query, weighted this much against the fused score (both scaled as DBSF scales a list). Needs
            the dense source and a collection with `passages: true`. With feedback, the feedback documents
            are the rescored list's first. None: off.
        :param one_per_record: a record the indexing pipeline split into chunks (`ChunkIds`: `<id>#chunk3`) comes
            back once, as its best chunk, so the results are distinct records; false returns every chunk (for
            a ranker that reads a record's chunks together, as the skill coverage ranker does).
        :raises ConfigurationError: on a bad value, or a setting the others make irrelevant (naming both).
        """
        self.document_store = check_store(document_store, "retriever")
        self.policy = HybridSearchPolicy(
            top_k=top_k,
            prefetch_limit=prefetch_limit,
            fusion=fusion,
            rrf_k=rrf_k,
            weights=weights or {},
            use_dense=use_dense,
            use_sparse=use_sparse,
            text_fields=text_fields or [],
            min_score=min_score,
            payload_fields=payload_fields,
            relevance_floor=relevance_floor,
            feedback=feedback,
            passages=passages,
            one_per_record=one_per_record,
        )
        self.policy.check(self.document_store)

    @staticmethod
    def ignored_settings(init_parameters: Mapping[str, Any]) -> dict[str, str]:
        """Each setting that cannot change results given the others, with why (naming the other setting).

        Unset parameters take their defaults; `haygate tune` asks this of a grid point's parameters.
        """
        return ignored_settings({**_defaults(), **init_parameters})

    @staticmethod
    def one_source(init_parameters: Mapping[str, Any], source: str) -> dict[str, Any]:
        """Its init parameters with one source alone, `dense` or `bm25` (`policy.one_source`): a judging pool's
        one-source rankings run the tool's pipeline with its retrievers so (`haygate.gateway.pooling`).

        :raises ConfigurationError: the retriever has no such source.
        """
        return {**init_parameters, **one_source({**_defaults(), **init_parameters}, source)}

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary: its store and every setting, as given."""
        return default_to_dict(self, document_store=self.document_store, **self.policy.settings())

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HybridRetriever":
        """Deserialize the component (and its store) from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents=list[Document], collection_count=int | None, metadata=dict[str, Any])
    def run(
        self,
        query_embedding: list[float] | None = None,
        query_sparse_embedding: SparseEmbedding | None = None,
        query: str | None = None,
        filters: dict[str, Any] | None = None,
        top_k: int | None = None,
        rrf_k: int | None = None,
        min_score: float | None = None,
        relaxed_filters: dict[str, Any] | None = None,
        unmatchable: bool = False,
    ) -> dict[str, Any]:
        """Retrieve the documents that best match the query, best first, in one call of the store.

        :param query_embedding: the query's dense vector (used with `use_dense`).
        :param query_sparse_embedding: the query's BM25 sparse vector (used with `use_sparse`).
        :param query: scoring text for the text-index sources; an empty query lists by filter instead.
        :param filters: Haystack filters every source applies; a field without an index is a FilterError.
        :param top_k: this call's number of results (None: the init value).
        :param rrf_k: this call's RRF constant; refused (InvalidRequestError) where the configuration ignores it.
        :param min_score: this call's floor on the normalised fused score (None: the init value).
        :param relaxed_filters: looser filters searched when `filters` find nothing (a full-text query's
            "any word" for "every word"); the `metadata` output then says `relaxed: true`.
        :param unmatchable: the query has nothing the index could match (a full-text query of stop words
            only): no documents, and no search.
        :returns: `documents`, best first; `collection_count` (0 for an empty collection, None when there are
            results), so the formatter can tell "nothing matched" from "nothing ingested"; and `metadata`:
            `{"below_relevance_floor": n}` with a floor set, and `{"relaxed": true}` when the results are those
            of `relaxed_filters`.
        """
        return self.policy.retrieve(
            self.document_store,
            dense=query_embedding,
            sparse=query_sparse_embedding,
            text=query,
            filters=filters,
            relaxed_filters=relaxed_filters,
            top_k=top_k,
            rrf_k=rrf_k,
            min_score=min_score,
            unmatchable=unmatchable,
        )._asdict()


def _defaults() -> dict[str, Any]:
    """The retriever's settings as they are when the YAML leaves them out."""
    return {
        name: parameter.default
        for name, parameter in inspect.signature(HybridRetriever.__init__).parameters.items()
        if parameter.default is not inspect.Parameter.empty
    }
