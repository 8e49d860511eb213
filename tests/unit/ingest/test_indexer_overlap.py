"""Ingest with a component that runs elsewhere (`RunsElsewhere`, as on a Ray cluster): batches overlap, every
record lands once, and the component lets go of its workers when the ingest is done, so the next collection's
ingest can have them. On the `entities` collection, with a pass-through in place of the cluster."""

import json
from pathlib import Path
from typing import Any, cast

from haystack import Document, Pipeline, component
from haystack.components.writers import DocumentWriter
from haystack.document_stores.types import DuplicatePolicy

from haygate.components.prefix_terms import PrefixTerms
from haygate.gateway.loader import Loader
from haygate.ingest.indexer import Collection, LocalLock, RunsElsewhere, ingest_files


@component
class PassedOn:
    """Hands the documents on as they come, noting what ingest gave it: the lock held, and `close`."""

    def __init__(self) -> None:
        self.local_lock: LocalLock | None = None
        self.calls = 0
        self.closed = 0

    @component.output_types(documents=list[Document])
    def run(self, documents: list[Document]) -> dict[str, list[Document]]:
        assert self.local_lock is not None, "ingest did not hand it the local lock"
        self.local_lock.release()  # as the cluster's embedder does while the actors work
        self.calls += 1
        self.local_lock.acquire()
        return {"documents": documents}

    def close(self) -> list[str]:
        self.closed += 1
        return ["1 worker elsewhere was lost; its work ran again"]


def test_an_ingest_beside_a_cluster_lands_everything_and_lets_go_of_it(loader: Loader, tmp_path: Path) -> None:
    store = loader.store("entities")
    elsewhere = PassedOn()
    assert isinstance(elsewhere, RunsElsewhere)
    pipeline = Pipeline()
    pipeline.add_component("elsewhere", elsewhere)
    pipeline.add_component("terms", PrefixTerms(field="content", meta_key="terms"))
    writer = DocumentWriter(document_store=cast(Any, store), policy=DuplicatePolicy.OVERWRITE)  # as the YAML has it
    pipeline.add_component("writer", writer)
    pipeline.connect("elsewhere.documents", "terms.documents")
    pipeline.connect("terms.documents", "writer.documents")
    declared = loader.collection("entities")
    collection = Collection(declared.schema, store, pipeline, ("elsewhere", "documents"), declared.fingerprint)
    source = tmp_path / "entities.jsonl"
    records = [
        {"entity_type": "bug", "entity_id": f"bug:{n}", "product_id": "product:1", "title": f"Bug {n}"}
        for n in range(40)
    ]
    source.write_text("".join(json.dumps(record) + "\n" for record in records))

    report = ingest_files(collection, [source], progress=True)  # a bar: small batches, so they overlap

    assert report.written == 40 and not report.errors
    assert store.count_documents() == 40
    assert elsewhere.calls > 1  # several batches went through it
    assert elsewhere.closed == 1 and elsewhere.local_lock is None
    assert report.warnings == ["1 worker elsewhere was lost; its work ran again"]  # what it said is reported
