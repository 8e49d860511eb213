"""Collection schemas (declared in `configs/collections/*.yaml`) and the one place that opens stores.

A schema says how a record becomes a Document (which field is the stable id, which is the content, which
become meta), which payload fields are indexed for filtering and which are BM25 text-indexed. Pipelines
name a collection; `open_collection` picks Qdrant Edge or a Qdrant server from settings, so one setting
moves every pipeline.
"""

import threading
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from components.errors import ConfigurationError, NotFoundError

IndexType = Literal["keyword", "keyword_prefix", "integer", "float", "bool", "datetime", "uuid"]


class SplitSettings(BaseModel):
    """Long texts are cut into overlapping word windows; each chunk is its own point."""

    model_config = ConfigDict(extra="forbid")
    max_words: int = Field(default=220, ge=20)
    overlap_words: int = Field(default=30, ge=0)


class RecordMapping(BaseModel):
    """How one input record maps onto a Haystack Document."""

    model_config = ConfigDict(extra="forbid")
    id: str | list[str] | None = Field(
        default=None, description="Field(s) forming the stable record id; default: a hash of the content."
    )
    content: str | list[str] | None = Field(default=None, description="Field(s) joined into the document text.")
    content_template: str | None = Field(
        default=None, description="Jinja template over the record for the text, when it is nested (instead of content)."
    )
    meta: list[str | dict[str, str]] = Field(
        default_factory=list, description="Record fields copied into meta; {meta_name: record_field} renames."
    )
    constants: dict[str, Any] = Field(default_factory=dict, description="Fixed meta values for every record.")
    derive: list[str] = Field(default_factory=list, description="Named derivations, see components.mapping.")

    @model_validator(mode="after")
    def _one_text_source(self) -> "RecordMapping":
        if (self.content is None) == (self.content_template is None):
            raise ValueError("give exactly one of content (fields) or content_template")
        return self

    @property
    def meta_fields(self) -> dict[str, str]:
        """meta name -> record field."""
        fields: dict[str, str] = {}
        for entry in self.meta:
            fields.update({entry: entry} if isinstance(entry, str) else entry)
        return fields


class CollectionSchema(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    description: str = ""
    record: RecordMapping
    payload_indexes: dict[str, IndexType] = Field(default_factory=dict)
    text_index: list[str] = Field(default_factory=list, description="Payload fields with a BM25 text index.")
    indexing: str = Field(default="indexing.yaml", description="Indexing pipeline in pipelines/.")
    split: SplitSettings | None = None
    links: str | None = Field(
        default=None, description="Meta field holding [{target_key, weight}] links; dangling ones are reported."
    )
    embedding_dim: int = 384

    @property
    def filterable_fields(self) -> list[str]:
        return sorted(self.payload_indexes)


def load_schema(path: Path) -> CollectionSchema:
    """Parse and validate one collection schema file, naming the file in every error."""
    try:
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as error:
        msg = f"{path}: invalid YAML: {error}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    except OSError as error:
        msg = f"{path}: cannot read: {error.strerror}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    try:
        return CollectionSchema.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        msg = f"{path}: invalid collection schema: {problems}"
        raise ConfigurationError(msg, {"file": str(path)}) from error


def schema_for(name: str, collections_dir: Path | None = None) -> CollectionSchema:
    from haygate.settings import get_settings

    folder = collections_dir or get_settings().collections_dir
    path = folder / f"{name}.yaml"
    if not path.exists():
        known = sorted(p.stem for p in folder.glob("*.yaml"))
        msg = f"unknown collection '{name}'; declared: {', '.join(known) or 'none'} (in {folder.name}/)"
        raise NotFoundError(msg, {"collection": name, "allowed": known})
    schema = load_schema(path)
    if schema.name != name:
        msg = f"{path}: schema name '{schema.name}' does not match its file name '{name}'"
        raise ConfigurationError(msg, {"file": str(path)})
    return schema


_open_stores: dict[tuple[str, str], Any] = {}
_open_lock = threading.Lock()


def open_collection(name: str) -> Any:
    """The store for a collection, shared by every component of this process that names it.

    Qdrant Edge lets one process own a shard, so components never open their own: they ask here.
    """
    from haygate.settings import get_settings

    settings = get_settings()
    target = settings.qdrant_url or str(Path(settings.data_dir).resolve())
    key = (target, name)
    with _open_lock:
        if key not in _open_stores:
            schema = schema_for(name)
            if settings.qdrant_url:
                from components.server_store import QdrantServerStore

                _open_stores[key] = QdrantServerStore.for_schema(
                    schema, url=settings.qdrant_url, api_key=settings.qdrant_api_key
                )
            else:
                from components.store import EdgeDocumentStore

                _open_stores[key] = EdgeDocumentStore.for_schema(schema, data_dir=str(settings.data_dir))
        return _open_stores[key]


def close_all() -> None:
    """Flush and release every store this process opened (tests, shutdown)."""
    with _open_lock:
        for store in _open_stores.values():
            close = getattr(store, "close", None)
            if close:
                close()
        _open_stores.clear()
