"""`SharedDocumentWriter`: writes points that several records share, adding records to them, never replacing them.

A point stored once for every record that has it (a CV phrase, naming in `meta.record_ids` every CV that says it)
is written by whichever ingest meets one of those records, and several ingests may write one collection at a time.
Haystack's `DocumentWriter` with `OVERWRITE` would write the batch's list over the stored one, so each document
given here names only its batch's records, and the store adds them to the stored list
(`HybridDocumentStore.add_holders`: a compare-and-set per point, retried when another writer got in first). A
record's old membership is taken off before (`haygate.ingest.indexer.remove_records`, in the same batch).
"""

from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from haygate.document_stores.hybrid import HybridDocumentStore, check_store
from haygate.errors import ConfigurationError


@component
class SharedDocumentWriter:
    """Writes documents several records share, adding their records to the stored points' lists.

    Each document names its records in the list `meta.<field>`; the write adds them to those the stored point
    names, inserting the point where none is stored. Safe when several processes write the collection: no
    stored list is read and written back (`haygate.document_stores.shared`). Inside an ingest batch, the write
    is applied with the batch's others, at its end.

    ### Usage example

    ```python
    from haystack import Document

    from haygate.components.shared_document_writer import SharedDocumentWriter
    from haygate.document_stores.edge.document_store import EdgeDocumentStore

    store = EdgeDocumentStore("phrases", "data", embedding_dim=2)
    writer = SharedDocumentWriter(document_store=store, field="record_ids")
    for cv in ("cv-1", "cv-2"):  # two ingests meet the phrase, each naming its own CV
        phrase = Document(id="p1", content="Python engineer", meta={"record_ids": [cv]}, embedding=[1.0, 0.0])
        writer.run(documents=[phrase])
    print(store.get_documents_by_id(["p1"])[0].meta["record_ids"])  # ['cv-1', 'cv-2']
    ```
    """

    def __init__(self, document_store: HybridDocumentStore, field: str) -> None:
        """Set the collection and the meta field that lists a point's records.

        :param document_store: the collection the documents are written to (`{collection: name}`).
        :param field: the meta key holding the list of records a point belongs to (haygate's ingest names it
            `record_ids`, `haygate.api.SHARED_BY`, and takes a deleted record off it).
        """
        if not isinstance(field, str) or not field or field.startswith("meta."):
            msg = f"shared document writer: field must be a meta key such as 'record_ids', got {field!r}"
            raise ConfigurationError(msg)
        self.document_store = check_store(document_store, "shared document writer")
        self.field = field

    def to_dict(self) -> dict[str, Any]:
        """Serialize the component to a dictionary, for `Pipeline.dumps()` and the loader."""
        return default_to_dict(self, document_store=self.document_store, field=self.field)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "SharedDocumentWriter":
        """Deserialize the component from a dictionary made by `to_dict`."""
        return default_from_dict(cls, data)

    @component.output_types(documents_written=int)
    def run(self, documents: list[Document]) -> dict[str, Any]:
        """Add each document's records to its stored point, or store it.

        :param documents: the shared points, each naming in `meta.<field>` the records of this batch that hold it.
        :returns: `documents_written`: how many points were written (each id once), as `DocumentWriter` says.
        """
        return {"documents_written": self.document_store.add_holders(documents, self.field)}
