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

from jobsearch.jobs import DRAFT, EXPORT, EXPORT_BATCH, LISTING, LISTING_BATCH, SOURCE
from jobsearch.run.progress import Progress as PipelineProgress
from jobsearch.run.progress import TypeCounts

# Each stage's bar counts the jobs of its types (postings travel in batches, one by one from
# other clients).
_STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("fetch", (SOURCE,)),
    ("dedupe", (LISTING, LISTING_BATCH)),
    ("draft", (DRAFT,)),
    ("export", (EXPORT, EXPORT_BATCH)),
)


def stage_counts(progress: PipelineProgress, types: tuple[str, ...]) -> TypeCounts:
    """The counts of a stage's job types, added up."""
    total = TypeCounts()
    for job_type in types:
        counts = progress.counts.get(job_type)
        if counts is not None:
            total.submitted += counts.submitted
            total.succeeded += counts.succeeded
            total.dead += counts.dead
            total.retrying += counts.retrying
    return total


_PLAIN_EVERY = 2.0  # seconds between plain progress lines


def counts_line(progress: PipelineProgress) -> str:
    """`fetched 120  new 30  filtered 80  drafted 28  exported 27  failed 0`."""
    c = progress.counts
    filtered = _filtered(progress)
    failed = sum(counts.dead for counts in c.values())
    return (
        f"fetched {fetched(progress)}  new {_new(progress)}  filtered {filtered}  "
        f"drafted {_drafted(progress)}{_not_drafted(progress)}  exported {_exported(progress)}  "
        f"failed {failed}"
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
        self._told_waits: set[str] = set()

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
        self._note_waits()
        if self.rich is not None:
            details = stage_details(self.progress)
            for stage, types in _STAGES:
                counts = stage_counts(self.progress, types)
                total = self.sources if types == (SOURCE,) and self.sources else counts.submitted
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

    def _note_waits(self) -> None:
        # A job that waits says for what and until when, once per reason: a draft for a provider,
        # a source for a board that asked to be read again later.
        for job_id, error in list(self.progress.errors.items()):
            reason = error.removeprefix("Retry: ")
            job_type = self.progress.types.get(job_id)
            if job_type == DRAFT and reason.startswith("waiting: "):
                told = f"draft: {reason}"
            elif job_type == SOURCE and " read again at " in reason:
                told = f"fetch: {reason}"
            else:
                continue
            if told not in self._told_waits:
                self._told_waits.add(told)
                self.note(told)


def stage_details(progress: PipelineProgress) -> dict[str, str]:
    """The counts shown beside each bar."""
    details = {
        "fetch": f"fetched {fetched(progress)}",
        "dedupe": f"new {_new(progress)}  filtered {_filtered(progress)}",
        "draft": f"drafted {_drafted(progress)}{_not_drafted(progress)}",
        "export": f"exported {_exported(progress)}",
    }
    for stage, types in _STAGES:
        counts = stage_counts(progress, types)
        if counts.dead:
            details[stage] += f"  failed {counts.dead}"
        if counts.retrying:
            details[stage] += f"  retrying {counts.retrying}"
    return details


def _outcome(progress: PipelineProgress, outcome: str) -> int:
    # What dedupe's results say became of the postings (the summary counts them in SQLite).
    return sum(progress.outcomes[f"{job_type}:outcome:{outcome}"] for job_type in (LISTING, LISTING_BATCH))


def _new(progress: PipelineProgress) -> int:
    # Listings new to the person.
    return _outcome(progress, "new")


def _filtered(progress: PipelineProgress) -> int:
    # Postings whose listing the profile's filters drop (new ones, and dropped ones read again).
    return _outcome(progress, "filtered")


def _drafted(progress: PipelineProgress) -> int:
    # Listings drafted: a draft job that could not draft its listing succeeds too, saying so.
    return progress.outcomes[f"{DRAFT}:outcome:drafted"]


def _not_drafted(progress: PipelineProgress) -> str:
    # Listings whose drafting failed or waits (recorded; the next run drafts them again).
    failed = progress.outcomes[f"{DRAFT}:outcome:failed"]
    waiting = progress.outcomes[f"{DRAFT}:outcome:waiting"]
    return f" (not drafted {failed + waiting})" if failed + waiting else ""


def _exported(progress: PipelineProgress) -> int:
    # Listings recorded: dedupe's batches carry each kept listing, and a drafted one comes back
    # with its drafts in an export job of its own; either count, not both.
    return max(progress.counts[EXPORT].succeeded, progress.outcomes[f"{EXPORT_BATCH}:listings"])


def fetched(progress: PipelineProgress) -> int:
    """Postings the boards gave (from the source jobs' reports), or listing jobs submitted."""
    reported = sum(
        int(result.get("listings") or 0)
        for result in progress.results.get(SOURCE, [])
        if isinstance(result, dict)
    )
    return max(reported, progress.counts[LISTING].submitted)
