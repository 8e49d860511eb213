"""Evaluation bars count texts as each batch is embedded, with the real MiniLM model, and change no vector."""

import io
import uuid
from typing import Any

import numpy as np
from haystack import Document, Pipeline
from tqdm import tqdm

from haygate.components.dense_document_embedder import DenseDocumentEmbedder
from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.evaluation.runner import CountingBackend, counted_embeddings

TEXTS = [
    "wind",
    "solar panels convert sunlight into electricity using silicon cells arranged in large arrays",
    "espresso is coffee brewed under pressure",
    "volcanoes erupt when magma rises",
    "a star much heavier than the sun ends its life in a supernova that outshines its galaxy",
]


class RecordedBars:
    """Opens a real, visible tqdm bar per embedding call, writing into a buffer the test reads."""

    def __init__(self, unit: str) -> None:
        self.unit = unit
        self.bars: list[Any] = []
        self.outputs: list[io.StringIO] = []

    def __call__(self, texts: int) -> Any:
        output = io.StringIO()
        self.outputs.append(output)
        self.bars.append(tqdm(total=texts, unit=self.unit, file=output, mininterval=0, miniters=1))
        return self.bars[-1]


def test_document_embedding_advances_per_batch_in_the_callers_order() -> None:
    embedder = DenseDocumentEmbedder(batch_size=2)
    pipeline = Pipeline()
    pipeline.add_component("embedder", embedder)
    texts = [f"{text} {uuid.uuid4()}" for text in TEXTS]  # embedded by no earlier run (none is kept on disk)
    documents = [Document(content=text) for text in texts]
    recorded = RecordedBars("doc")
    with counted_embeddings(pipeline, recorded):
        assert isinstance(embedder.embedding_backend, CountingBackend)
        counted = pipeline.run({"embedder": {"documents": documents}})["embedder"]["documents"]
    assert not isinstance(embedder.embedding_backend, CountingBackend)  # the shared backend is back

    [bar], [output] = recorded.bars, recorded.outputs
    assert (bar.n, bar.total) == (5, 5)
    shown = output.getvalue()
    assert "2/5" in shown and "4/5" in shown and "5/5" in shown  # one step per batch of two
    assert "1/5" not in shown and "3/5" not in shown
    assert "doc/s" in shown or "s/doc" in shown  # a rate in the bar's unit

    plain = DenseDocumentEmbedder(batch_size=len(TEXTS)).run([Document(content=text) for text in texts])
    expected = np.array([d.embedding for d in plain["documents"]])
    assert np.allclose([d.embedding for d in counted], expected, atol=1e-5)  # same vectors, same order


def test_query_prefill_is_counted_in_queries() -> None:
    embedder = DenseTextEmbedder(batch_size=2)
    pipeline = Pipeline()
    pipeline.add_component("embedder", embedder)
    queries = [f"{text} {uuid.uuid4()}" for text in TEXTS[:3]]  # not in the process-wide query cache
    recorded = RecordedBars("q")
    with counted_embeddings(pipeline, recorded):
        embedder.prefill(queries)
    [bar] = recorded.bars
    assert (bar.n, bar.total) == (3, 3) and "3/3" in recorded.outputs[0].getvalue()
    with counted_embeddings(pipeline, recorded):
        embedder.prefill(queries)  # cached now: nothing to embed, no bar
    assert len(recorded.bars) == 1
