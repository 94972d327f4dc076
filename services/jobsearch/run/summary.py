"""The end of a run: what it found, drafted and cost, what failed, where the tracker is, and the
exit code (0 all went well; 1 something failed and is named; 2 the run could not start).

The stage services finish whatever the queues hold: a run killed mid-run leaves its jobs there,
and the next run's services finish them under the old run's id. The summary counts the run's own
jobs in its lines (each source once, each posting once, its drafts), and what it finished for
each earlier run on a line of its own, with how that run ended (`interrupted`: its process was
stopped or killed). `failed` counts the run's own jobs that died (each has its dead letter); the
dead letters that were there before the run began are named apart. The lines printed from a
summary are `jobsearch.run.summary_lines`'.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jetjobs import StatusRecord
from jobsearch.dedupe.report import RunOutcomes
from jobsearch.fit.judge import Judging
from jobsearch.jobs import (
    BOARD_READ,
    DRAFT,
    DRAFT_SHORTLIST,
    EXPORT,
    EXPORT_BATCH,
    LISTING,
    LISTING_BATCH,
    SEARCH,
    SOURCE,
    TRACKER,
)
from jobsearch.run.progress import Progress, RunWork
from jobsearch.sources.fetched import Extraction
from jobsearch.store import ProviderUsage, RunNumbers
from jobsearch.store.records import Fallback

OK = 0
FAILED = 1
CANNOT_RUN = 2


class EarlierRun(msgspec.Struct, kw_only=True):
    """What a run finished for an earlier run's jobs (left in the queues when it was stopped)."""

    run_id: str
    outcome: str | None = None  # as the runs table says: `interrupted`, `running`, ...
    sources: int = 0  # its source jobs that read their board
    fetched: int = 0  # the postings they gave
    postings: int = 0  # its postings dedupe looked at
    listings: int = 0  # its listings recorded (new or changed, with their drafts)
    drafts: int = 0
    failures: list[str] = []  # its jobs that died, one line each


class RunSummary(msgspec.Struct, kw_only=True):
    """Everything `jobsearch run` prints at the end (also stored with the run in SQLite)."""

    run_id: str
    seconds: float
    command: str = "run"  # the command that ran: `run` or `replay` (heads the summary)
    sources_ok: int = 0
    sources_failed: list[str] = []
    # Per source that dropped postings: "hackernews: 81 postings from 89 comments; 6 not postings".
    source_skips: list[str] = []
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
    # Listings whose every board took them down (closed), that only aggregators carried and none
    # lately (stale), or that were closed or stale and are listed again (reopened).
    listings_closed: int = 0
    listings_stale: int = 0
    listings_reopened: int = 0
    drafts: list[ProviderUsage] = []
    needs_review: int = 0
    drafted_listings: int = 0
    fallbacks: list[Fallback] = []
    # Listings the run could not draft: `failed`, `waiting` (the next run drafts them again),
    # and why; and how many listings owed a draft from earlier runs it drafted again.
    draft_issues: dict[str, int] = {}
    issue_reasons: dict[str, int] = {}
    drafts_owed: int = 0
    # The run's drafting bar ([drafting] min_fit, max_per_run): listings it chose to draft, those
    # kept undrafted below the fit bar, and those above it held back by the cap.
    shortlisted: int = 0
    below_bar: int = 0
    held_back: int = 0
    # A model's judgement of the shortlist's fit (FIT_PROVIDER), when one was asked: its counts,
    # tokens and cost (from the shortlist job's result).
    fit_judging: Judging | None = None
    failures: list[str] = []  # dead jobs (and other failures), one line each
    failed_jobs: int = 0
    dead_letters_before: int = 0  # in the dead-letter stream already when the run began
    earlier: list[EarlierRun] = []  # what it finished for earlier runs' jobs, per run
    tracker: str | None = None
    tracker_rows: int = 0
    tracker_error: str | None = None
    service_error: str | None = None
    # What started it (typed, `schedule:<name>`) and what its digest did: None (no [digest] in the
    # profile), "nothing new", "sent: email, ntfy (4 listings, 1 taken down)" or "failed: ...".
    trigger: str = "typed"
    digest: str | None = None
    digest_error: str | None = None  # a digest that failed: reported, never fails the run
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
            or any(run.failures for run in self.earlier)
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
    # A replay's jobs carry the ids of the runs they replay: all it settled is its own.
    replay = numbers.drafts_since is not None
    own = own_work(progress, *(progress.work if replay else (run_id, None)))
    summary.sources_ok = len(own.sources)  # once per source, however many jobs read it
    # A broken board's source job is dead-lettered with the reason (the fetch stage names it).
    summary.sources_failed = [str(record.error) for record in own.dead if record.type == SOURCE]
    summary.source_skips = source_skip_lines(progress.results.get(SOURCE, []))
    outcomes = outcomes or RunOutcomes()
    # What the boards reported giving; at least what dedupe recorded (a source job that submitted
    # its postings and then died has no report).
    summary.listings_seen = max(sum(own.sources.values()), outcomes.recorded)
    summary.listings_new = outcomes.new
    summary.listings_updated = outcomes.updated
    summary.listings_merged = outcomes.merged
    summary.listings_unchanged = outcomes.unchanged
    summary.listings_filtered = outcomes.filtered
    summary.filtered_reasons = dict(outcomes.filtered_reasons)
    # Postings dedupe could not record, and dead single-posting jobs; a dead batch shows as
    # `not recorded`.
    summary.listings_rejected = outcomes.rejected + sum(1 for r in own.dead if r.type == LISTING)
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
    summary.fit_judging = _judging(progress)
    dead = [record for record in own.dead if record.type != SOURCE]
    summary.failed_jobs = len(dead)
    summary.failures = [_failure(record) for record in dead]
    summary.dead_letters_before = progress.dead_letters_before
    earlier = [] if replay else sorted(r for r in progress.work if r is not None and r != run_id)
    summary.earlier = [
        _earlier(r, progress.work[r], numbers.earlier_outcomes.get(r))
        for r in earlier
        if progress.work[r].anything
    ]
    if tracker is not None:
        summary.tracker = str(tracker.get("path"))
        summary.tracker_rows = int(tracker.get("rows") or 0)
    return summary


def _judging(progress: Progress) -> Judging | None:
    """What the run's shortlist job says its fit judgement did (None: no judge was set)."""
    for record in progress.records.values():
        result = record.result
        if record.type == DRAFT_SHORTLIST and isinstance(result, dict) and result.get("judging"):
            try:
                return msgspec.convert(result["judging"], Judging)
            except msgspec.ValidationError:
                return None
    return None


def own_work(progress: Progress, *run_ids: str | None) -> RunWork:
    """The work of the jobs of `run_ids` together: a run's own are those of its id and those whose
    run is not known (None)."""
    work = RunWork()
    for part in (progress.work.get(run_id) for run_id in run_ids):
        if part is not None:
            work.sources.update(part.sources)
            work.postings += part.postings
            work.exported |= part.exported
            work.batch_listings += part.batch_listings
            work.drafts += part.drafts
            work.dead.extend(part.dead)
    return work


def _earlier(run_id: str, work: RunWork, outcome: str | None) -> EarlierRun:
    return EarlierRun(
        run_id=run_id,
        outcome=outcome,
        sources=len(work.sources),
        fetched=sum(work.sources.values()),
        postings=work.postings,
        listings=work.listings,
        drafts=work.drafts,
        failures=[_failure(record) for record in work.dead],
    )


def _failure(record: StatusRecord) -> str:
    return f"{record.type} {record.id}: {record.dead_reason or 'dead'}: {record.error}"


WATCHED = (SEARCH, SOURCE, LISTING, LISTING_BATCH, BOARD_READ, DRAFT, EXPORT, EXPORT_BATCH, TRACKER)


def source_skip_lines(results: list[Any]) -> list[str]:
    """One line per source whose board gave items it did not keep, from the source jobs' results:
    `hackernews: 81 postings from 89 comments; 6 not postings, 2 unreadable`. A Hacker News
    comment's reasons "not a posting: <why>" count together; other reasons are named as given.
    A source whose unreadable comments a model read (EXTRACT_PROVIDER) has a line saying so."""
    lines: dict[str, list[str]] = {}
    for result in results:
        if not isinstance(result, dict) or not isinstance(result.get("skipped_reasons"), dict):
            continue
        reasons: dict[str, int] = {}
        for reason, n in result["skipped_reasons"].items():
            if isinstance(n, int) and n > 0:
                key = "not postings" if str(reason).startswith("not a posting") else str(reason)
                key = "unreadable" if key == "unreadable comment" else key
                reasons[key] = reasons.get(key, 0) + n
        listings, read = result.get("listings"), result.get("read")
        given = f"{listings if isinstance(listings, int) else 0:,} postings"
        if isinstance(read, int) and read > 0:
            given += f" from {read:,} {'comments' if result.get('board') == 'hackernews' else 'items'}"
        told = ", ".join(f"{n:,} {reason}" for reason, n in sorted(reasons.items(), key=lambda r: -r[1]))
        source = str(result.get("source"))
        shown = [f"{source}: {given}; {told}"] if reasons else []
        lines[source] = shown + _extraction_lines(source, result.get("extraction"))
    return [line for shown in lines.values() for line in shown]


def _extraction_lines(source: str, extraction: object) -> list[str]:
    """What the model pass over a source's unreadable comments did (EXTRACT_PROVIDER), from its
    source job's result, and why some postings or comments gave no listing:

    ```
    hackernews:1: 3 unreadable comments sent to openai/gpt-4o-mini: 2 postings from 2 of them; 1 dropped by the check, 1 failed; 4,140 tokens, $0.0011
      title not in the comment (1); HTTP 500: internal error (1)
    ```
    """  # noqa: E501 (the example is the line as printed)
    if not isinstance(extraction, dict):
        return []
    try:
        done = msgspec.convert(extraction, Extraction)
    except msgspec.ValidationError:
        return []
    cost = f"{done.tokens_in + done.tokens_out:,} tokens, ${done.cost_usd:.4f}"
    left = f" ({done.left:,} more not sent: EXTRACT_MAX)" if done.left else ""
    line = (
        f"{source}: {done.sent:,} unreadable {_plural(done.sent, 'comment')}{left} sent to {done.by}: "
        f"{done.postings:,} {_plural(done.postings, 'posting')} from {done.read:,} of them; "
        f"{done.dropped:,} dropped by the check, {done.failed:,} failed; {cost}"
    )
    why = "; ".join(f"{reason} ({n})" for reason, n in list(done.reasons.items())[:3])
    return [line, *([f"  {why}"] if why else [])]


def _plural(n: int, word: str) -> str:
    return word if n == 1 else f"{word}s"
