"""Progress in the terminal: rich progress bars per stage, or plain lines when not a terminal.

Bars: fetch (sources read), dedupe (listings looked at), draft (drafts written), export (listings
recorded); beside them the counts a person watches: fetched, new, filtered, drafted, exported,
failed.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from jobsearch.jobs import DRAFT, EXPORT, LISTING, SOURCE
from jobsearch.run.progress import Progress as PipelineProgress

_STAGES = (("fetch", SOURCE), ("dedupe", LISTING), ("draft", DRAFT), ("export", EXPORT))
_PLAIN_EVERY = 2.0  # seconds between plain progress lines


def counts_line(progress: PipelineProgress) -> str:
    """`fetched 120  new 30  filtered 80  drafted 28  exported 27  failed 0`."""
    c = progress.counts
    filtered = _filtered(progress)
    failed = sum(counts.dead for counts in c.values())
    return (
        f"fetched {fetched(progress)}  new {_new(progress)}  filtered {filtered}  "
        f"drafted {c[DRAFT].succeeded}  exported {c[EXPORT].succeeded}  failed {failed}"
    )


class Display:
    """Shows a run's progress until closed; `note` prints a line above it (restarts, retries)."""

    def __init__(
        self,
        progress: PipelineProgress,
        *,
        stream: TextIO | None = None,
        sources: int = 0,
        console: Console | None = None,
    ) -> None:
        """Show `progress` on `stream` (default stdout), or on `console` when given (tests)."""
        self.progress = progress
        self.console = console or Console(file=stream or sys.stdout, highlight=False)
        self.stream = self.console.file
        self.sources = sources
        self.rich: Progress | None = None
        self._tasks: dict[str, object] = {}
        self._last_line = ""
        self._last_at = 0.0

    @property
    def interactive(self) -> bool:
        """True when the output is a terminal (bars), False for plain lines."""
        return self.console.is_terminal

    def __enter__(self) -> Display:
        if self.interactive:
            self.rich = Progress(
                TextColumn("{task.description:<7}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[detail]}"),
                TimeElapsedColumn(),
                console=self.console,
            )
            for stage, _ in _STAGES:
                self._tasks[stage] = self.rich.add_task(stage, total=None, detail="")
            self.rich.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.refresh(force=True)
        if self.rich is not None:
            self.rich.stop()

    def note(self, text: str) -> None:
        """Print one line (above the bars when there are bars)."""
        if self.rich is not None:
            self.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.stream, flush=True)

    def refresh(self, *, force: bool = False) -> None:
        """Bring the bars (or the plain line, at most every 2 s unless forced) up to date."""
        if self.rich is not None:
            details = stage_details(self.progress)
            for stage, job_type in _STAGES:
                counts = self.progress.counts[job_type]
                total = self.sources if job_type == SOURCE and self.sources else counts.submitted
                self.rich.update(
                    self._tasks[stage],  # type: ignore[arg-type]
                    total=max(total, counts.settled) or None,
                    completed=counts.settled,
                    detail=details[stage],
                )
            return
        line = "progress: " + counts_line(self.progress)
        now = time.monotonic()
        if line != self._last_line and (force or now - self._last_at >= _PLAIN_EVERY):
            print(line, file=self.stream, flush=True)  # one line each, never wrapped or styled
            self._last_line, self._last_at = line, now


def stage_details(progress: PipelineProgress) -> dict[str, str]:
    """The counts shown beside each bar."""
    c = progress.counts
    details = {
        "fetch": f"fetched {fetched(progress)}",
        "dedupe": f"new {_new(progress)}  filtered {_filtered(progress)}",
        "draft": f"drafted {c[DRAFT].succeeded}",
        "export": f"exported {c[EXPORT].succeeded}",
    }
    for stage, job_type in _STAGES:
        if c[job_type].dead:
            details[stage] += f"  failed {c[job_type].dead}"
        if c[job_type].retrying:
            details[stage] += f"  retrying {c[job_type].retrying}"
    return details


def _new(progress: PipelineProgress) -> int:
    # Listings new to the person, as dedupe's results say (the summary counts them in SQLite).
    return progress.outcomes[f"{LISTING}:outcome:new"]


def _filtered(progress: PipelineProgress) -> int:
    # Postings whose listing the profile's filters drop (new ones, and dropped ones read again).
    return progress.outcomes[f"{LISTING}:outcome:filtered"]


def fetched(progress: PipelineProgress) -> int:
    """Postings the boards gave (from the source jobs' reports), or listing jobs submitted."""
    reported = sum(
        int(result.get("listings") or 0)
        for result in progress.results.get(SOURCE, [])
        if isinstance(result, dict)
    )
    return max(reported, progress.counts[LISTING].submitted)
