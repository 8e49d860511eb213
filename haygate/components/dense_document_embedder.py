"""`DenseDocumentEmbedder`: the document side of dense retrieval; embeds chosen meta fields (the title)
with the content."""

from typing import Any

from haystack import component
from haystack_integrations.components.embedders.sentence_transformers import SentenceTransformersDocumentEmbedder

from haygate.components.models import DEFAULT_MODEL, warm_up_offline


@component
class DenseDocumentEmbedder(SentenceTransformersDocumentEmbedder):
    """Document embedder; embeds `meta_fields_to_embed` (e.g. the title) with the content."""

    def __init__(self, *, model: str = DEFAULT_MODEL, progress_bar: bool = False, **kwargs: Any) -> None:
        SentenceTransformersDocumentEmbedder.__init__(self, model=model, progress_bar=progress_bar, **kwargs)

    def warm_up(self) -> None:
        if self.embedding_backend is None:
            warm_up_offline(self, lambda: SentenceTransformersDocumentEmbedder.warm_up(self))
