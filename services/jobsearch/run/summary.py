"""The end of a run: what it found, drafted and cost, what failed, where the tracker is, and the
exit code (0 all went well; 1 something failed and is named; 2 the run could not start)."""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.jobs import DRAFT, EXPORT, LISTING, SEARCH, SOURCE, TRACKER
from jobsearch.run.progress import Progress
from jobsearch.store import ProviderUsage, RunNumbers

OK = 0
FAILED = 1
CANNOT_RUN = 2
_SHOWN_FAILURES = 10


class RunSummary(msgspec.Struct, kw_only=True):
    """Everything `jobsearch run` prints at the end (also stored with the run in SQLite)."""

    run_id: str
    seconds: float
    command: str = "run"  # the command that ran: `run` or `replay` (heads the summary)
    sources_ok: int = 0
    sources_failed: list[str] = []
    listings_seen: int = 0
    listings_new: int = 0
    listings_filtered: int = 0
    listings_known: int = 0  # seen in an earlier run (or merged into one seen now)
    drafts: list[ProviderUsage] = []
    needs_review: int = 0
    failures: list[str] = []  # dead jobs (and other failures), one line each
    failed_jobs: int = 0
    tracker: str | None = None
    tracker_rows: int = 0
    tracker_error: str | None = None
    service_error: str | None = None

    @property
    def exit_code(self) -> int:
        """0 when nothing failed, else 1."""
        failed = self.sources_failed or self.failed_jobs or self.tracker_error or self.service_error
        return FAILED if failed else OK

    @property
    def tokens(self) -> int:
        """Tokens in and out over every draft."""
        return sum(usage.tokens_in + usage.tokens_out for usage in self.drafts)

    @property
    def cost_usd(self) -> float:
        """The drafts' cost in US dollars, as the providers' price lists give it."""
        return sum(usage.cost_usd for usage in self.drafts)


def summarise(
    run_id: str, seconds: float, progress: Progress, numbers: RunNumbers, tracker: dict[str, Any] | None
) -> RunSummary:
    """The summary of a run from its ledger progress and what the store recorded."""
    summary = RunSummary(run_id=run_id, seconds=seconds)
    reports = [r for r in progress.results.get(SOURCE, []) if isinstance(r, dict)]
    summary.sources_ok = len(reports)
    # A broken board's source job is dead-lettered with the reason (the fetch stage names it).
    summary.sources_failed = [str(record.error) for record in progress.dead if record.type == SOURCE]
    summary.listings_seen = sum(int(r.get("listings") or 0) for r in reports)
    summary.listings_new = numbers.listings_new
    summary.listings_filtered = progress.outcomes[f"{LISTING}:new:dropped"]
    # Merged into another posting of this run, or seen in an earlier run (dedupe's seen-set, or
    # the stream's duplicate window, which keeps a listing job from being submitted twice).
    summary.listings_known = max(0, summary.listings_seen - progress.outcomes[f"{LISTING}:outcome:new"])
    summary.drafts = numbers.drafts
    summary.needs_review = numbers.needs_review
    dead = [record for record in progress.dead if record.type != SOURCE]
    summary.failed_jobs = len(dead)
    summary.failures = [
        f"{record.type} {record.id}: {record.dead_reason or 'dead'}: {record.error}" for record in dead
    ]
    if tracker is not None:
        summary.tracker = str(tracker.get("path"))
        summary.tracker_rows = int(tracker.get("rows") or 0)
    return summary


def format_summary(summary: RunSummary) -> list[str]:
    """The lines printed at the end of a run."""
    verdict = "done" if summary.exit_code == OK else "finished with failures"
    lines = [f"jobsearch {summary.command} {summary.run_id}: {verdict} in {summary.seconds:.1f} s"]
    failed = f", {len(summary.sources_failed)} failed" if summary.sources_failed else ", 0 failed"
    lines.append(f"  sources    {summary.sources_ok} ok{failed}")
    lines.extend(f"               failed: {line}" for line in summary.sources_failed)
    lines.append(
        f"  listings   seen {summary.listings_seen}, new {summary.listings_new}, "
        f"filtered {summary.listings_filtered}, merged or seen before {summary.listings_known}"
    )
    if summary.drafts:
        by = ", ".join(f"{u.provider}/{u.model} {u.drafts}" for u in summary.drafts)
        drafts = sum(u.drafts for u in summary.drafts)
        lines.append(
            f"  drafts     {drafts} ({by}); {summary.tokens:,} tokens, ${summary.cost_usd:.4f}"
            + (f"; {summary.needs_review} need review" if summary.needs_review else "")
        )
    else:
        lines.append("  drafts     0")
    lines.append(f"  failed     {summary.failed_jobs} jobs")
    lines.extend(f"               {line}" for line in summary.failures[:_SHOWN_FAILURES])
    if len(summary.failures) > _SHOWN_FAILURES:
        lines.append(
            f"               ... and {len(summary.failures) - _SHOWN_FAILURES} more (jetjobs dlq list)"
        )
    if summary.service_error:
        lines.append(f"  service    {summary.service_error}")
    if summary.tracker_error:
        lines.append(f"  tracker    NOT written: {summary.tracker_error}")
        lines.append("             everything is in the database; `jobsearch export` writes it later")
    elif summary.tracker:
        lines.append(f"  tracker    {summary.tracker} ({summary.tracker_rows} listings)")
    return lines


WATCHED = (SEARCH, SOURCE, LISTING, DRAFT, EXPORT, TRACKER)
