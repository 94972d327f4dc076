"""The end of a run: what it found, drafted and cost, what failed, where the tracker is, and the
exit code (0 all went well; 1 something failed and is named; 2 the run could not start)."""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.dedupe.report import RunOutcomes
from jobsearch.jobs import (
    BOARD_READ,
    DRAFT,
    EXPORT,
    EXPORT_BATCH,
    LISTING,
    LISTING_BATCH,
    SEARCH,
    SOURCE,
    TRACKER,
)
from jobsearch.run.progress import Progress
from jobsearch.store import ProviderUsage, RunNumbers
from jobsearch.store.records import Fallback

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
    # Every posting the boards gave is one of: new (a listing new to the person), updated (a
    # posting seen before that changed), merged (one more posting of a listing already known),
    # unchanged (seen before, as it was), filtered (its listing is dropped by the profile), or
    # rejected (its job failed; named under failures). From dedupe's tables in SQLite.
    listings_seen: int = 0
    listings_new: int = 0
    listings_updated: int = 0
    listings_merged: int = 0
    listings_unchanged: int = 0
    listings_filtered: int = 0
    listings_rejected: int = 0
    filtered_reasons: dict[str, int] = {}
    listings_known: int = 0  # merged + unchanged (kept for summaries stored before)
    drafts: list[ProviderUsage] = []
    needs_review: int = 0
    drafted_listings: int = 0
    fallbacks: list[Fallback] = []
    # Listings the run could not draft: `failed`, `waiting` (the next run drafts them again),
    # and why; and how many listings owed a draft from earlier runs it drafted again.
    draft_issues: dict[str, int] = {}
    issue_reasons: dict[str, int] = {}
    drafts_owed: int = 0
    failures: list[str] = []  # dead jobs (and other failures), one line each
    failed_jobs: int = 0
    tracker: str | None = None
    tracker_rows: int = 0
    tracker_error: str | None = None
    service_error: str | None = None
    # Per job type: (jobs settled, seconds from the first start to the last settle).
    timings: dict[str, tuple[int, float]] = {}

    @property
    def exit_code(self) -> int:
        """0 when nothing failed, else 1 (a listing that could not be drafted counts: it is kept,
        and the next run drafts it, but the person should know today)."""
        failed = (
            self.sources_failed
            or self.failed_jobs
            or self.tracker_error
            or self.service_error
            or self.draft_issues.get("failed")
        )
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
    run_id: str,
    seconds: float,
    progress: Progress,
    numbers: RunNumbers,
    tracker: dict[str, Any] | None,
    *,
    outcomes: RunOutcomes | None = None,
) -> RunSummary:
    """The summary of a run from its ledger progress and what the database recorded."""
    summary = RunSummary(run_id=run_id, seconds=seconds)
    reports = [r for r in progress.results.get(SOURCE, []) if isinstance(r, dict)]
    summary.sources_ok = len(reports)
    # A broken board's source job is dead-lettered with the reason (the fetch stage names it).
    summary.sources_failed = [str(record.error) for record in progress.dead if record.type == SOURCE]
    outcomes = outcomes or RunOutcomes()
    # What the boards reported giving; at least what dedupe recorded (a source job that submitted
    # its postings and then died has no report).
    summary.listings_seen = max(sum(int(r.get("listings") or 0) for r in reports), outcomes.recorded)
    summary.listings_new = outcomes.new
    summary.listings_updated = outcomes.updated
    summary.listings_merged = outcomes.merged
    summary.listings_unchanged = outcomes.unchanged
    summary.listings_filtered = outcomes.filtered
    summary.filtered_reasons = dict(outcomes.filtered_reasons)
    # Postings dedupe could not record, and dead single-posting jobs; a dead batch shows as
    # `not recorded`.
    summary.listings_rejected = outcomes.rejected + sum(1 for r in progress.dead if r.type == LISTING)
    summary.listings_known = outcomes.merged + outcomes.unchanged
    summary.timings = {
        job_type: (counts.settled, round(counts.busy_seconds, 3))
        for job_type, counts in progress.counts.items()
        if counts.settled
    }
    summary.drafts = numbers.drafts
    summary.needs_review = numbers.needs_review
    summary.drafted_listings = numbers.drafted_listings
    summary.fallbacks = numbers.fallbacks
    summary.draft_issues = numbers.draft_issues
    summary.issue_reasons = numbers.issue_reasons
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
    lines.append(listings_line(summary))
    lines.extend(drafts_lines(summary))
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


def drafts_lines(summary: RunSummary) -> list[str]:
    """The drafts a run wrote, by provider with how many need review; the fallbacks used; the
    listings it could not draft and why.

    ```
      drafts     24 for 12 listings (offline/template-v2 24); 0 tokens, $0.0000; 3 need review (offline 3)
                 24 by offline after openai failed: HTTP 500: overloaded (3 requests)
                 not drafted: 6 listings, failed 6; the next run drafts them again
                   failed: openai: HTTP 500: overloaded (3 requests) (6)
    ```
    """
    lines = []
    if summary.drafts:
        by = ", ".join(f"{u.provider}/{u.model} {u.drafts}" for u in summary.drafts)
        drafts = sum(u.drafts for u in summary.drafts)
        listings = f" for {summary.drafted_listings} listings" if summary.drafted_listings else ""
        line = f"  drafts     {drafts}{listings} ({by}); {summary.tokens:,} tokens, ${summary.cost_usd:.4f}"
        if summary.needs_review:
            review = ", ".join(f"{u.provider} {u.needs_review}" for u in summary.drafts if u.needs_review)
            line += f"; {summary.needs_review} need review ({review})"
        lines.append(line)
    else:
        lines.append("  drafts     0")
    lines.extend(f"             {f.drafts} by {f.provider} after {f.after}" for f in summary.fallbacks)
    if summary.drafts_owed:
        lines.append(
            f"             {summary.drafts_owed} listings owed a draft by earlier runs were drafted again"
        )
    not_drafted = sum(summary.draft_issues.values())
    if not_drafted:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(summary.draft_issues.items()))
        lines.append(
            f"             not drafted: {not_drafted} listings, {kinds}; the next run drafts them again"
        )
        lines.extend(f"               {why} ({n})" for why, n in list(summary.issue_reasons.items())[:5])
    return lines


def timings_lines(summary: RunSummary) -> list[str]:
    """`jobsearch run --timings`: each job type's count, busy time and rate (the ledger's clock)."""
    lines = []
    for job_type, (count, seconds) in summary.timings.items():
        rate = f", {count / seconds:,.0f}/s" if seconds > 0 else ""
        lines.append(f"  timing     {job_type:<22} {count:>7,} jobs in {seconds:6.2f} s{rate}")
    return lines


def listings_line(summary: RunSummary) -> str:
    """`listings   seen 40 = new 6 + updated 0 + merged 4 + unchanged 0 + filtered 30 (terms 18, ...)`.

    The parts add up to what the boards gave; a posting not accounted for (its job still queued
    when the run was stopped) is named as such, so the sum never silently fails.
    """
    s = summary
    parts = [
        f"new {s.listings_new}",
        f"updated {s.listings_updated}",
        f"merged {s.listings_merged}",
        f"unchanged {s.listings_unchanged}",
        f"filtered {s.listings_filtered}",
    ]
    if s.listings_rejected:
        parts.append(f"rejected {s.listings_rejected}")
    accounted = (
        s.listings_new + s.listings_updated + s.listings_merged + s.listings_unchanged
        + s.listings_filtered + s.listings_rejected
    )  # fmt: skip
    if accounted != s.listings_seen:
        parts.append(f"not recorded {s.listings_seen - accounted}")
    line = f"  listings   seen {s.listings_seen} = " + " + ".join(parts)
    if s.filtered_reasons:
        line += " (" + ", ".join(f"{k} {n}" for k, n in sorted(s.filtered_reasons.items())) + ")"
    return line


WATCHED = (SEARCH, SOURCE, LISTING, LISTING_BATCH, BOARD_READ, DRAFT, EXPORT, EXPORT_BATCH, TRACKER)
