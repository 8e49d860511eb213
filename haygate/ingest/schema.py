"""Collection schemas (`configs/collections/*.yaml`): how a record becomes a Document and what is indexed.

A schema says which record field is the stable id, which is the text, which become meta; which payload
fields are indexed for filtering and which get a BM25 text index; and which indexing pipeline (splitting,
derived metadata, embedding, writing) the collection's documents go through.
"""

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from haygate import yamlfile
from haygate.document_stores.backends import Layout
from haygate.errors import ConfigurationError, NotFoundError
from haygate.ingest.fields import FieldSpec
from haygate.ingest.readers import ReadOptions

IndexType = Literal["keyword", "keyword_prefix", "integer", "float", "bool", "datetime", "uuid"]


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
    fields: dict[str, FieldSpec] = Field(
        default_factory=dict,
        description='Declared field types ("string", "integer", "list[string]", or a full spec with '
        "aliases, prefix and case); ingest coerces what is safe and refuses the rest, naming the field.",
    )

    @field_validator("fields", mode="before")
    @classmethod
    def _shorthand_types(cls, value: Any) -> Any:
        """`topics: list[string]` is `{type: list, items: string}`; `year: integer` is `{type: integer}`."""
        if not isinstance(value, dict):
            return value
        expanded = {}
        for name, spec in value.items():
            if isinstance(spec, str):
                inner = spec.removeprefix("list[").removesuffix("]")
                spec = {"type": "list", "items": inner} if inner != spec else {"type": spec}
            expanded[name] = spec
        return expanded

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


class StorageSettings(BaseModel):
    """Qdrant Edge's indexing settings for the collection (the embedded store; a Qdrant server keeps its own).
    Unset values keep Edge's defaults; a changed value applies the next time the shard opens."""

    model_config = ConfigDict(extra="forbid")
    hnsw_m: int | None = Field(default=None, ge=4, le=128, description="HNSW edges per node (Edge default 16).")
    hnsw_ef_construct: int | None = Field(default=None, ge=4, le=1024, description="HNSW build candidates (100).")
    hnsw_payload_m: int | None = Field(
        default=None,
        ge=0,
        le=128,
        description="Edges per node of the extra graphs built for each keyword value held by more points than "
        "the full-scan threshold (None: hnsw_m; 0: none, so filtered searches use the main graph).",
    )
    full_scan_threshold_kb: int | None = Field(
        default=None, ge=1, description="Below this many KB of vectors a filtered search scans instead of HNSW."
    )
    indexing_threshold_kb: int | None = Field(
        default=None, ge=0, description="Segments larger than this (KB of vectors) get an HNSW index at optimize."
    )
    max_segment_size_kb: int | None = Field(default=None, ge=1, description="Largest segment optimize builds.")
    default_segment_number: int | None = Field(default=None, ge=0, description="Segments to aim for (0: auto).")
    max_indexing_threads: int | None = Field(default=None, ge=0, description="HNSW build threads (0: auto).")
    vector_memory: Literal["cached", "cold"] | None = Field(
        default=None,
        description="Where the full vectors live: memory-mapped and warmed at start (cached, Edge's default) or "
        "read from disk on first use (cold, for collections larger than RAM).",
    )
    quantization: Literal["int8"] | None = Field(
        default=None,
        description="An int8 copy of every vector kept in RAM for search, the full ones rescoring the best hits.",
    )


class FileSelection(BaseModel):
    """Which files of a folder are read: globs of their path inside it, as in a `.gitignore` (`**` crosses
    folders, `*` does not; a pattern with no `/` matches a name at any depth)."""

    model_config = ConfigDict(extra="forbid")
    include: list[str] = Field(
        default_factory=list, description="Only files matching one of these (none: every file haygate reads)."
    )
    exclude: list[str] = Field(default_factory=list, description="Files matching one of these are left out.")


class IncludeSettings(BaseModel):
    """Where a page's code includes (`--8<--`, `{literalinclude}`, the project's own) are looked up, and the
    project's own include syntax."""

    model_config = ConfigDict(extra="forbid")
    bases: list[str] = Field(
        default_factory=list,
        description="Folders, inside the one ingested, where an include's path is also tried after the page's "
        "own folder (MkDocs' snippets `base_path`, FastAPI's docs folder).",
    )
    patterns: list[str] = Field(
        default_factory=list,
        description="Regular expressions for a line that includes a file, each with a `path` group and "
        r"optionally a `lines` group ('3-8', '3:8'), e.g. '\{\*\s*(?P<path>\S+).*\*\}'.",
    )

    @field_validator("patterns")
    @classmethod
    def _compiles_with_path(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            try:
                compiled = re.compile(pattern)
            except re.error as error:
                raise ValueError(f"include pattern {pattern!r} is not a regular expression: {error}") from error
            if "path" not in compiled.groupindex:
                raise ValueError(f"include pattern {pattern!r} has no (?P<path>...) group")
        return patterns


class MarkdownSettings(BaseModel):
    """How the collection's Markdown files are read."""

    model_config = ConfigDict(extra="forbid")
    dialect: Literal["auto", "commonmark", "mkdocs", "docusaurus", "myst"] = Field(
        default="auto",
        description="The site generator's dialect; auto detects it per file (commonmark: GitHub's tables only).",
    )
    includes: IncludeSettings = Field(default_factory=IncludeSettings, description="Code includes.")


class CollectionSchema(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(
        pattern=r"^[a-z][a-z0-9_]*$", description="The collection's name, which its file's name repeats (<name>.yaml)."
    )
    description: str = Field(default="", description="What the collection holds (the OpenAPI document shows it).")
    record: RecordMapping = Field(description="How an input record maps onto a Haystack Document.")
    payload_indexes: dict[str, IndexType] = Field(
        default_factory=dict,
        description="Payload paths indexed for filtering (e.g. meta.year, meta.tags), each with its index type.",
    )
    text_index: list[str] = Field(default_factory=list, description="Payload fields with a BM25 text index.")
    indexing: str | None = Field(
        default=None, description="Indexing pipeline, relative to pipelines/; default indexing/<name>.yaml."
    )
    links: str | None = Field(
        default=None, description="Meta field holding [{target_key, weight}] links; dangling ones are reported."
    )
    embedding_dim: int = Field(default=384, description="Size of the dense vectors (384: all-MiniLM-L6-v2's).")
    passages: bool = Field(
        default=False,
        description="Store a vector per passage of each document (a multivector, `text-passages`), which the "
        "indexing pipeline's dense embedder fills (`passages: {words, stride}`) and the retriever rescores its "
        "candidates with (`passages: <weight>`). Changing it needs the collection ingested again.",
    )
    storage: StorageSettings = Field(
        default_factory=StorageSettings, description="Qdrant Edge's indexing settings for the collection."
    )
    files: FileSelection = Field(
        default_factory=FileSelection, description="Which files of an ingested folder are read."
    )
    markdown: MarkdownSettings = Field(
        default_factory=MarkdownSettings, description="How Markdown files are read: dialect and includes."
    )

    def read_options(self, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> ReadOptions:
        """How this collection's files are read; `include`/`exclude` (a command's) add to the declared globs."""
        return ReadOptions(
            dialect=self.markdown.dialect,
            include=(*self.files.include, *include),
            exclude=(*self.files.exclude, *exclude),
            include_bases=tuple(self.markdown.includes.bases),
            include_patterns=tuple(self.markdown.includes.patterns),
        )

    @property
    def indexing_pipeline(self) -> str:
        return self.indexing or f"indexing/{self.name}.yaml"

    def layout(self) -> Layout:
        """What a store backend is told of this collection (`haygate.document_stores.backends`)."""
        return Layout(
            self.name,
            self.embedding_dim,
            dict(self.payload_indexes),
            list(self.text_index),
            self.passages,
            self.storage.model_dump(exclude_none=True),
        )

    def declared_meta_keys(self) -> set[str]:
        """The meta keys this file names: the record's meta (renames under their new name), its constants,
        the links field, and the payload and text indexes' `meta.` keys (which indexing components fill)."""
        keys = {entry if isinstance(entry, str) else next(iter(entry)) for entry in self.record.meta}
        indexed = [*self.payload_indexes, *self.text_index]
        keys |= {path.split(".")[1] for path in indexed if path.startswith("meta.")}
        return keys | set(self.record.constants) | ({self.links} if self.links else set())


def load_schema(path: Path) -> CollectionSchema:
    """Parse and validate one collection schema file, naming the file in every error."""
    try:
        text = path.read_text()
        raw = yamlfile.safe_load(text)
    except yaml.YAMLError as error:
        msg = f"{path}: invalid YAML: {error}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    except OSError as error:
        msg = f"{path}: cannot read: {error.strerror}"
        raise ConfigurationError(msg, {"file": str(path)}) from error
    try:
        return CollectionSchema.model_validate(raw)
    except ValidationError as error:
        problems = yamlfile.validation_problems(error, CollectionSchema, text)
        msg = f"{path}: invalid collection schema: " + "; ".join(problems)
        raise ConfigurationError(msg, {"file": str(path), "problems": problems}) from error


def schema_for(name: str, collections_dir: Path) -> CollectionSchema:
    """The schema of collection `name` from `collections_dir/<name>.yaml`; NotFoundError lists the known ones.
    A caller's name becomes a path only when it is a declared collection's."""
    known = sorted(p.stem for p in collections_dir.glob("*.yaml"))
    path = collections_dir / f"{name}.yaml"
    if name not in known:
        msg = f"unknown collection '{name}'; declared: {', '.join(known) or 'none'} (in {collections_dir.name}/)"
        raise NotFoundError(msg, {"collection": name, "allowed": known})
    schema = load_schema(path)
    if schema.name != name:
        msg = f"{path}: schema name '{schema.name}' does not match its file name '{name}'"
        raise ConfigurationError(msg, {"file": str(path)})
    return schema
