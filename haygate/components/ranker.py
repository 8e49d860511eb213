"""`Ranker`: a cross-encoder when one is configured, otherwise the fused order, said out loud.

With no model the documents keep the retriever's order and score and the run reports `reranked: False`.
A configured model that cannot load fails at warm-up (server start), never silently per request.
"""

import dataclasses
from typing import TYPE_CHECKING, Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.components.models import model_folder
from haygate.errors import ConfigurationError, InvalidRequestError
from haygate.extras import add_extra

if TYPE_CHECKING:
    from haystack_integrations.components.rankers.sentence_transformers import SentenceTransformersSimilarityRanker


@component
class Ranker:
    """Reranks with a cross-encoder when one is configured, otherwise keeps the fused order and says so.

    Use it after the retriever: with no `model` the documents keep the retriever's order and score and the run
    reports `reranked: False`; with one (the `torch` extra), a model that cannot load fails at warm-up, when the
    server starts, never silently per request. `top_k` and `min_score` cut the list either way.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.ranker import Ranker

    ranker = Ranker(top_k=1)
    result = ranker.run(query="install", documents=[Document(content="a", score=0.9), Document(content="b", score=0.4)])
    print(result["documents"], result["reranked"])  # the first document, False
    ```
    """

    def __init__(
        self,
        model: str | None = None,
        top_k: int = 10,
        scale_score: bool = True,
        meta_fields_to_embed: list[str] | None = None,
        min_score: float | None = None,
        batch_size: int = 16,
    ) -> None:
        """Set the cross-encoder (or none) and the cut; the model loads in `warm_up`.

        :param model: cross-encoder id or path; None keeps the fused order.
        :param top_k: how many documents to return.
        :param scale_score: sigmoid-scale cross-encoder scores into [0, 1].
        :param meta_fields_to_embed: meta fields (e.g. title) the cross-encoder reads before the content.
        :param min_score: drop documents scoring below this after ranking.
        """
        if top_k < 1:
            msg = f"top_k must be >= 1, got {top_k}"
            raise ConfigurationError(msg)
        self.model = model
        self.top_k = top_k
        self.scale_score = scale_score
        self.meta_fields_to_embed = list(meta_fields_to_embed or [])
        self.min_score = min_score
        self.batch_size = batch_size
        self._cross_encoder: SentenceTransformersSimilarityRanker | None = None

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(
            self,
            model=self.model,
            top_k=self.top_k,
            scale_score=self.scale_score,
            meta_fields_to_embed=self.meta_fields_to_embed,
            min_score=self.min_score,
            batch_size=self.batch_size,
        )

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Ranker":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    def warm_up(self) -> None:
        """Load the cross-encoder, when one is configured; a model that cannot load fails here."""
        if self.model is None or self._cross_encoder is not None:
            return
        try:  # a model that is not on this machine fails here, before seconds of importing torch
            folder = model_folder(self.model)
        except ConfigurationError as error:
            msg = f"ranker: cannot load cross-encoder '{self.model}': {error.message}"
            raise ConfigurationError(msg, {"model": self.model}) from error
        # Imported here: sentence-transformers and torch load only where a cross-encoder is configured.
        try:
            from haystack_integrations.components.rankers.sentence_transformers import (
                SentenceTransformersSimilarityRanker,
            )
        except ImportError as error:
            missing = f"ranker: cross-encoder '{self.model}' runs on sentence-transformers, not installed"
            msg = f"{missing}: {add_extra('torch')}"
            raise ConfigurationError(msg, {"model": self.model}) from error

        ranker = SentenceTransformersSimilarityRanker(
            model=str(folder),
            top_k=self.top_k,
            scale_score=self.scale_score,
            meta_fields_to_embed=self.meta_fields_to_embed,
            batch_size=self.batch_size,
        )
        try:
            ranker.warm_up()
        except Exception as error:
            msg = (
                f"ranker: cannot load cross-encoder '{self.model}' ({type(error).__name__}). Give a local "
                "folder or a cached model id, or remove `model` to keep the fused order."
            )
            raise ConfigurationError(msg, {"model": self.model}) from error
        self._cross_encoder = ranker

    @component.output_types(documents=list[Document], reranked=bool)
    def run(
        self,
        query: str,
        documents: list[Document],
        top_k: int | None = None,
        min_score: float | None = None,
    ) -> dict[str, Any]:
        """Rerank (or keep the fused order), then cut to `top_k` and `min_score`."""
        top_k = top_k if top_k is not None else self.top_k
        if top_k < 1:
            msg = f"top_k must be >= 1, got {top_k}"
            raise InvalidRequestError(msg, {"field": "top_k", "minimum": 1})
        threshold = min_score if min_score is not None else self.min_score
        if self.model is not None and documents:
            if all(document.content is None for document in documents):
                msg = (
                    "ranker: the cross-encoder reads each document's content, and the retriever read none: add "
                    "`content` (and each meta field of meta_fields_to_embed, as `meta.<field>`) to its "
                    "payload_fields, or remove payload_fields"
                )
                raise ConfigurationError(msg, {"model": self.model})
            self.warm_up()
            assert self._cross_encoder is not None
            ranked = self._cross_encoder.run(query=query, documents=documents, top_k=len(documents))["documents"]
            ranked = [
                dataclasses.replace(d, meta={**d.meta, "scores": {**d.meta.get("scores", {}), "rerank_score": d.score}})
                for d in ranked
            ]
            reranked = True
        else:
            ranked = list(documents)
            reranked = False
        if threshold is not None:
            ranked = [d for d in ranked if d.score is not None and d.score >= threshold]
        return {"documents": ranked[:top_k], "reranked": reranked}
