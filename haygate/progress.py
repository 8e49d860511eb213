"""Progress of a long ingest or evaluation: a bar on a terminal, plain lines in a log, or nothing.

A bar redrawn in place (tqdm) is right on a terminal and noise in a log or a CI job, where `\\r` piles the
redraws up; silence there is worse: five minutes of an ingest with nothing said. So without a terminal, unless
told otherwise, a long run says where it is in a plain line every `LINE_SECONDS` (records, the rate, the time
left, and what the caller adds, such as chunks), and nothing at all when it ends sooner.
"""

import sys
import time
from collections.abc import Callable
from typing import Any, TextIO

LINE_SECONDS = 15.0  # between two lines of a run without a terminal


class Lines:
    """What a tqdm bar says, as a line every `every` seconds: `ingest docs: 1,200 of 2,880 rec (42 %), 35.2
    rec/s, about 48 s left; 3,400 chunks`. Quacks like the tqdm calls haygate makes."""

    def __init__(
        self,
        total: int | None,
        desc: str,
        unit: str,
        every: float = LINE_SECONDS,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.desc, self.unit, self.every = total, desc, unit, every
        self.stream, self.clock = stream, clock
        self.n = 0
        self.postfix = ""
        self.started = self.last = clock()

    def update(self, n: int = 1) -> None:
        self.n += n
        now = self.clock()
        if now - self.last >= self.every:
            self.last = now
            print(self.line(now), file=self.stream or sys.stderr, flush=True)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.postfix = text

    def refresh(self) -> None:
        """A bar's redraw: nothing here (a line comes with the time, not with each change)."""

    def close(self) -> None:
        """Nothing: the caller reports what the run did when it ends."""

    def line(self, now: float) -> str:
        elapsed = max(now - self.started, 1e-9)
        rate = self.n / elapsed
        done = f"{self.n:,}" + (f" of {self.total:,}" if self.total else "") + f" {self.unit}"
        if self.total:
            done += f" ({100 * self.n / self.total:.0f} %)"
        left = ""
        if self.total and rate > 0 and self.n < self.total:
            left = f", about {_duration((self.total - self.n) / rate)} left"
        extra = f"; {self.postfix}" if self.postfix else ""
        return f"{self.desc}: {done}, {rate:.1f} {self.unit}/s{left}{extra}"

    def __enter__(self) -> "Lines":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def progress_bar(total: int | None, desc: str, unit: str, progress: bool | None) -> Any:
    """`progress` True: a tqdm bar; False: nothing shown; None (no one said): a bar on a terminal, else `Lines`."""
    from tqdm import tqdm  # a progress bar is for a long run, not for every command

    if progress is None and not sys.stderr.isatty():
        return Lines(total, desc, unit)
    return tqdm(total=total, desc=desc, unit=unit, disable=not progress)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
