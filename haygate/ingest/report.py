"""What an ingest did, and how it paces its batches: no Haystack here, so the `haygate` command can report an
ingest that a running server does (`haygate.remote`) without loading it."""

from dataclasses import dataclass, field

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


@dataclass
class IngestReport:
    """What an ingest did with each record: added, updated, unchanged or refused (with why)."""

    collection: str
    records: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    duplicates: int = 0  # records whose id comes again later in the same input: the last one is kept
    refused: list["Refusal"] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # What the indexing pipeline wrote: the new or changed records' chunks (one for a record it does not split),
    # and whatever it writes beside them (a CV's phrases). What an ingest's time goes on.
    chunks: int = 0
    seconds: float = 0.0  # spent on the batches: mapping, splitting, embedding, writing; not the final optimize

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
            f"{self.unchanged} unchanged, {len(self.refused)} rejected{written}{repeated}{warned}"
        )


@dataclass(frozen=True)
class Refusal:
    where: str  # file:line
    index: int  # position among the records of this ingest, from 0
    reason: str
