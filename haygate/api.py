"""The stable surface for a project's own components: what a module under a project's `components/` may import
from haygate (a layer test forbids every other `haygate.*` import there).

Everything else in the package may move between releases; these names keep their meaning.

Stores and queries (a component that reads the collection takes its store through `__init__`, as
qdrant-haystack's retrievers do, and serialises it in `to_dict`):

- `HybridDocumentStore`: the store behind every collection (the Edge and the server backend alike).
- `check_store`: `self.document_store = check_store(document_store, "my component")` refuses anything else,
  naming the component.
- `HybridQuery`: one search request for `HybridDocumentStore.hybrid_search` (dense, sparse and text sources,
  fused inside the store).
- `DENSE`: the name of the dense source, as `HybridQuery.weights` and a hit's `source_scores` key it.

Records (what ingest writes into every document's meta):

- `RECORD_ID`: the meta key holding the id of the record a stored document belongs to.
- `SHARED_BY`: the meta key of a document that several records share (a phrase stored once), listing them;
  ingest takes a deleted record off that list.

Models:

- `DenseTextEmbedder`: haygate's query embedder (offline, ONNX Runtime by default); its `embed_many` embeds a
  batch of texts to unit-length rows.
- `DEFAULT_MODEL`: the embedding model haygate ships with (all-MiniLM-L6-v2), the default of every embedder.

Errors (raise them from a component; the gateway turns each into its error code and HTTP status, so a caller
reads the message, where any other exception becomes `INTERNAL_ERROR`):

- `HaygateError`: the base of them all.
- `InvalidRequestError`: the caller's arguments are wrong (the message says what to change).
- `InvalidRecordError`: a record being ingested is wrong.
- `NotFoundError`: what the caller named does not exist.
- `ConfigurationError`: a pipeline's or a component's settings are wrong (raised at load time where it can).
- `OperatorError`: only the server's operator can fix it (the collection needs a re-ingest, its store is
  held or damaged); the caller hears a message that names no server path.

Files:

- `load_yaml`: `yaml.safe_load`, parsed in C where PyYAML can (vocabularies and configs read on every start).

Telemetry:

- `Stage` (and `STAGES`): a component class declares the pipeline stage its runs are timed under, as a class
  attribute: `stage: Stage = "store"`. The gateway's `haygate_pipeline_stage_duration_seconds` histogram
  reads it; a class without one is placed by Haystack's naming (`*TextEmbedder` is `query_embedding`,
  `*Retriever` `store`, `*Ranker` `ranking`), else `other`.

Indexing:

- `preview_parameters`: a component class attribute, a mapping of init parameters, that an indexing component
  runs with when haygate only needs the ids an ingest would write (`haygate eval` checks every judged id
  against them before indexing). It holds the cheaper settings that change no document id:
  `preview_parameters = {"embed_phrases": False}` (the CV profiler: no model loaded).

Judging:

- `one_source(init_parameters, source) -> init_parameters`: a retriever class's static method, its init
  parameters with one of its sources alone, `dense` or `bm25` (raising `ConfigurationError` when it has no such
  source). A judging pool (the Judge tab, `haygate judged pool`) runs the tool's pipeline with every retriever
  that answers it so, beside the tool as served: `HybridRetriever` answers it.
"""

from typing import Literal

from haygate.components.dense_text_embedder import DenseTextEmbedder
from haygate.components.models import DEFAULT_MODEL
from haygate.document_stores.hybrid import HybridDocumentStore, check_store
from haygate.document_stores.query import DENSE, HybridQuery
from haygate.errors import (
    ConfigurationError,
    HaygateError,
    InvalidRecordError,
    InvalidRequestError,
    NotFoundError,
    OperatorError,
)
from haygate.ingest.mapping import RECORD_ID, SHARED_BY
from haygate.yamlfile import safe_load as load_yaml

Stage = Literal["query_building", "query_embedding", "store", "ranking", "formatting", "other"]
STAGES: tuple[Stage, ...] = ("query_building", "query_embedding", "store", "ranking", "formatting", "other")

__all__ = [
    "DEFAULT_MODEL",
    "DENSE",
    "RECORD_ID",
    "SHARED_BY",
    "STAGES",
    "ConfigurationError",
    "DenseTextEmbedder",
    "HaygateError",
    "HybridDocumentStore",
    "HybridQuery",
    "InvalidRecordError",
    "InvalidRequestError",
    "NotFoundError",
    "OperatorError",
    "Stage",
    "check_store",
    "load_yaml",
]
