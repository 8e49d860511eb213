"""What an ingest did, and how it paces its batches: no Haystack here, so the `haygate` command can report an
ingest that a running server does (`haygate.remote`) without loading it."""

from dataclasses import asdict, dataclass, field, replace
from typing import Any

BATCH_RECORDS = 1024  # large batches let sentence-transformers sort by length across more texts
PROGRESS_SECONDS = 2.0  # with a progress bar, a batch is sized to take about this long


class Pacer:
    """Sizes batches so each takes about `seconds`, so a progress bar moves at a steady pace: cheap records
    (entities) soon go `largest` at a time, and costly ones (CVs, each profiled and embedded) a few at a time,
    instead of one silent minute per 1,024."""

    def __init__(self, seconds: float, largest: int = BATCH_RECORDS, first: int = 8) -> None:
        self.seconds = seconds
        self.largest = largest
        self.size = min(first, largest)

    def took(self, records: int, elapsed: float) -> None:
        per_record = elapsed / max(records, 1)
        self.size = self.largest if per_record <= 0 else max(1, min(self.largest, round(self.seconds / per_record)))


# How pydantic reads these dataclasses where a schema is wanted (the server's OpenAPI document): each field's
# docstring is its description, and every field is in every answer. A plain dict, so nothing here imports
# pydantic: the `haygate` command reads reports without it.
SCHEMA_CONFIG = {"use_attribute_docstrings": True, "json_schema_serialization_defaults_required": True}


@dataclass(frozen=True)
class Refusal:
    """A record the ingest refused, and why."""

    __pydantic_config__ = SCHEMA_CONFIG

    index: int
    """Its position among the records of this ingest, from 0."""
    where: str
    """Where the record came from: `file:line` (`request:N` for the Nth record of a request)."""
    reason: str
    """Why it was refused: what to change."""


@dataclass
class IngestReport:
    """What an ingest did with each record: added, updated, unchanged or refused (with why). The `haygate`
    command prints it; a write to a running server answers it (`as_dict`)."""

    __pydantic_config__ = SCHEMA_CONFIG

    collection: str
    """The collection written."""
    records: int = 0
    """Records read."""
    added: int = 0
    """Records that were new."""
    updated: int = 0
    """Records that replaced an earlier version of themselves."""
    unchanged: int = 0
    """Records already stored as they are: skipped."""
    duplicates: int = 0
    """Records whose id comes again later in the same input: the last one is kept."""
    refused: list[Refusal] = field(default_factory=list)
    """Each record that was refused, with why; the others landed."""
    warnings: list[str] = field(default_factory=list)
    """What landed but may not be what was meant (a long record embedded whole)."""
    chunks: int = 0
    """Documents written after splitting: the new or changed records' chunks (one for a record the indexing
    pipeline does not split), and whatever it writes beside them (a CV's phrases)."""
    seconds: float = 0.0
    """Time the batches took: mapping, splitting, embedding and storing; not the final optimize."""
    includes: int = 0
    """Code includes read into Markdown pages (`--8<--`, `{literalinclude}`, the collection's own syntax)."""
    missing_includes: dict[str, list[str]] = field(default_factory=dict)
    """Per Markdown file (`file:line`), the includes that could not be read: each is left out of its text."""
    changelogs: list[str] = field(default_factory=list)
    """Markdown files taken for changelogs (meta `changelog: true`), which a tool may leave out of its answers."""

    def note_page(self, where: str, data: dict[str, Any]) -> None:
        """Tally what reading a Markdown page found: its includes, read or not, and whether it is a changelog."""
        self.includes += len(data.get("includes") or ())
        if data.get("missing_includes"):
            self.missing_includes[where] = list(data["missing_includes"])
        if data.get("changelog") is True:
            self.changelogs.append(str(data.get("path") or where))

    @property
    def written(self) -> int:
        return self.added + self.updated

    @property
    def errors(self) -> list[str]:
        """Each refused record as `file:line: why`."""
        return [f"{r.where}: {r.reason}" for r in self.refused]

    @property
    def chunks_per_second(self) -> float:
        return self.chunks / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        """The report as JSON, as a write answers it (to the millisecond: the figure is a duration)."""
        return asdict(replace(self, seconds=round(self.seconds, 3)))

    def throughput(self) -> str:
        """`57 chunks written (13.6 chunks/s)`; the rate only once something was written."""
        rate = f" ({self.chunks_per_second:.1f} chunks/s)" if self.chunks else ""
        return f"{self.chunks} chunks written{rate}"

    def summary(self) -> str:
        warned = f", {len(self.warnings)} warning(s)" if self.warnings else ""
        repeated = f", {self.duplicates} duplicate id(s) (the last one kept)" if self.duplicates else ""
        # Untimed (no batch ran here: an ingest through a server that does not report its chunks), no figures.
        written = f", {self.throughput()}" if self.seconds else ""
        return (
            f"{self.collection}: {self.records} records read, {self.written} new or changed, "
            f"{self.unchanged} unchanged, {len(self.refused)} rejected{written}{repeated}{warned}{self.pages()}"
        )

    def pages(self) -> str:
        """What the Markdown pages held beyond their text (", 12 includes read, 2 not found (in 1 file)")."""
        missing = sum(map(len, self.missing_includes.values()))
        parts = [f"{self.includes} includes read"] if self.includes or missing else []
        if missing:
            parts.append(f"{missing} not found (in {len(self.missing_includes)} file(s))")
        if self.changelogs:
            parts.append(f"{len(self.changelogs)} changelog(s)")
        return "".join(f", {part}" for part in parts)
