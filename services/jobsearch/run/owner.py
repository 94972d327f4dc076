"""The work around one run, whoever started it: `jobsearch run` typed at a terminal, or a
schedule's `jobsearch.scheduled_run` job (`jobsearch.run.scheduled`). Both call this one owner,
so a typed and a scheduled run cannot drift apart.

```
start (the runs row) ─▶ submit: the drafts owed from earlier runs, then the profile's search
 ─▶ wait until the stage queues drain ─▶ `jobsearch.draft_shortlist` (the best new listings by
    fit are drafted: [drafting] min_fit, max_per_run) ─▶ drain again
 ─▶ record dead draft jobs as their listings' issues
 ─▶ `jobsearch.close_listings` (what the boards took down) ─▶ `jobsearch.tracker` (render)
 ─▶ summary ─▶ the digest (`jobsearch.digest`, on its own queue; its outcome is reported, never
    fails the run) ─▶ finish (the runs row: outcome and summary)
```

It knows nothing of terminals, child processes or signals: `jobsearch.run.orchestra` puts those
around it for a typed run, the scheduled-run handler puts a ledger follower around it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import anyio
import msgspec
import structlog

from jetjobs import Ledger, Publisher, StatusRecord
from jobsearch.dedupe.report import run_outcomes
from jobsearch.digest import DIGEST_QUEUE, DigestMessage, compose_digest, digest_jobs, record_told
from jobsearch.jobs import (
    CLOSE_LISTINGS,
    DRAFT,
    DRAFT_SHORTLIST,
    QUEUES,
    SEARCH,
    STAGES,
    TRACKER,
    CloseListingsJob,
    DraftShortlistJob,
    SearchJob,
    TrackerJob,
)
from jobsearch.profile import Digest, Profile
from jobsearch.run.owed import record_dead_drafts, submit_owed_drafts
from jobsearch.run.progress import Progress, wait_drained
from jobsearch.run.summary import RunSummary, summarise
from jobsearch.run.summary_lines import format_summary
from jobsearch.settings import PipelineSettings
from jobsearch.store import Store

log = structlog.get_logger("jobsearch.run")

_TICK = 2.0
# A digest's jobs retry on their own (SMTP down, a webhook 503); the run waits this long for
# their outcome before it reports "still sending" and ends.
DIGEST_WAIT = 120.0


async def wait_settled(
    publisher: Publisher, progress: Progress, job_id: str, on_retry: Callable[[str], None] = lambda _: None
) -> StatusRecord | None:
    """The job's final ledger entry, from the follower (or a direct read, should its news be late).

    `on_retry` hears each new error of the job while it is being retried (a locked tracker).
    """
    settled = progress.watch(job_id)
    ledger = Ledger(await publisher.topology.status_kv(publisher.js))
    told = ""
    while True:
        with anyio.move_on_after(_TICK):
            await settled.wait()
            return progress.records[job_id]
        error = progress.errors.get(job_id, "")
        if error and error != told:
            on_retry(error)
            told = error
        try:
            record, _ = await ledger.get(job_id)  # (None, 0): not written yet
        except Exception:  # the server is away for now: ask again next tick
            continue
        if record is not None and record.state in ("succeeded", "dead", "cancelled"):
            return record


class RunOwner:
    """One run's record, submissions, drain, closings, render, summary and digest."""

    def __init__(
        self,
        publisher: Publisher,
        progress: Progress,
        pipeline: PipelineSettings,
        run_id: str,
        *,
        note: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.publisher = publisher
        self.progress = progress
        self.pipeline = pipeline
        self.run_id = run_id
        self.note = note  # a line for the person (the terminal display; a log line when scheduled)
        self.started = time.monotonic()
        self.trigger = "typed"
        self.drafts_since: str | None = None  # a replay counts the drafts recorded since it began
        self.drafts_owed = 0  # listings owed a draft by earlier runs that this run submitted
        # A search closes what its whole reads no longer list (the profile's stale_after_days).
        self.close_after_days: int | None = None
        self.closings: dict[str, int] = {}
        self.profile: Profile | None = None  # a search's profile: its shortlist drafts the best
        self.shortlist: dict[str, int] = {}
        self.step_failures: list[str] = []  # the run's own steps (shortlist, closings) that failed
        self.tracker: dict[str, Any] | None = None
        self.tracker_error: str | None = None

    def start(self, *, profile: str, trigger: str = "typed") -> None:
        """Record the run in the state of record (`profile`: the file, or what the run is)."""
        self.trigger = trigger
        with Store.open(self.pipeline.db_path) as store:
            store.start_run(self.run_id, profile=profile, trigger=trigger)

    def finish(self, *, outcome: str, summary: dict[str, Any]) -> None:
        """Record how the run ended, with its summary."""
        with Store.open(self.pipeline.db_path) as store:
            store.finish_run(self.run_id, outcome=outcome, summary=summary)

    async def submit_search(self, profile: Profile) -> None:
        """What earlier runs could not draft (a provider was down), then the profile's search."""
        owed = await submit_owed_drafts(self.publisher, self.pipeline.db_path, self.run_id, profile)
        self.drafts_owed = owed
        if owed:
            self.note(f"drafting {owed} listings whose drafts failed or waited in an earlier run")
        self.close_after_days = profile.search.stale_after_days
        self.profile = profile
        await self.publisher.enqueue(
            SEARCH,
            SearchJob(run_id=self.run_id, profile=profile),
            queue=QUEUES["fetch"],
            key=f"search:{self.run_id}",
        )

    async def drain_and_render(self) -> None:
        """Wait until the stages drain, then record what died, close listings, render."""
        stages = [QUEUES[stage] for stage in STAGES]
        await wait_drained(self.publisher, self.progress, stages)
        if self.profile is not None and self.profile.drafting.enabled:
            await self._draft_shortlist(self.profile)
            await wait_drained(self.publisher, self.progress, stages)
        # A draft job dead-lettered anyway (its worker lost on the last attempt) is its listing's
        # issue, like any failed draft: shown in the Review cell, drafted again by the next run.
        dead_drafts = [record for record in self.progress.dead if record.type == DRAFT]
        if dead_drafts:
            await anyio.to_thread.run_sync(
                record_dead_drafts, self.pipeline.db_path, self.run_id, dead_drafts, self.progress.runs
            )
        if self.close_after_days is not None:
            await self._close_listings(self.close_after_days)
        job = await self.publisher.enqueue(
            TRACKER,
            TrackerJob(run_id=self.run_id),
            queue=QUEUES["export"],
            key=f"tracker:{self.run_id}",
            max_attempts=30,
            timeout=600.0,
        )

        def on_retry(error: str) -> None:
            self.note(f"tracker: {error.removeprefix('Retry: ')} (retrying)")

        record = await wait_settled(self.publisher, self.progress, job.id, on_retry)
        if record is not None and record.state == "succeeded" and isinstance(record.result, dict):
            self.tracker = record.result
        else:
            self.tracker_error = (record.error if record else None) or "the render job did not finish"

    async def _draft_shortlist(self, profile: Profile) -> None:
        """The best listings owed a draft, by fit (`jobsearch.dedupe.shortlist`), drafted now."""
        job = await self.publisher.enqueue(
            DRAFT_SHORTLIST,
            DraftShortlistJob(run_id=self.run_id, profile=profile),
            queue=QUEUES["dedupe"],
            key=f"shortlist:{self.run_id}",
        )
        record = await wait_settled(self.publisher, self.progress, job.id)
        self.shortlist = self._counts(DRAFT_SHORTLIST, job.id, record)
        if self.shortlist.get("drafted"):
            self.note(f"drafting the best {self.shortlist['drafted']} new listings by fit")

    async def _close_listings(self, stale_after_days: int) -> None:
        """What the run's whole reads no longer list: closed, stale, reopened (recorded by the
        export stage before the render)."""
        job = await self.publisher.enqueue(
            CLOSE_LISTINGS,
            CloseListingsJob(run_id=self.run_id, stale_after_days=stale_after_days),
            queue=QUEUES["dedupe"],
            key=f"close:{self.run_id}",
        )
        record = await wait_settled(self.publisher, self.progress, job.id)
        self.closings = self._counts(CLOSE_LISTINGS, job.id, record)
        # Its listing states, on the export queue, are recorded before the tracker renders.
        await wait_drained(self.publisher, self.progress, [QUEUES["export"]])

    def _counts(self, job_type: str, job_id: str, record: StatusRecord | None) -> dict[str, int]:
        """A step's counts; a step that failed is one of the run's failures, said in its summary
        (these job types are not followed as stage work, so nothing else would tell it)."""
        if record is not None and record.state == "succeeded" and isinstance(record.result, dict):
            return {k: int(v) for k, v in record.result.items() if isinstance(v, int)}
        why = f"{record.dead_reason or record.state}: {record.error}" if record else "did not finish"
        self.step_failures.append(f"{job_type} {job_id}: {why}")
        return {}

    def summarise(self) -> RunSummary:
        """The run's summary, from the ledger follower and the state of record."""
        with Store.open(self.pipeline.db_path) as store:
            numbers = store.run_numbers(self.run_id, drafts_since=self.drafts_since)
        summary = summarise(
            self.run_id,
            time.monotonic() - self.started,
            self.progress,
            numbers,
            self.tracker,
            outcomes=run_outcomes(self.pipeline.db_path, self.run_id),
        )
        summary.trigger = self.trigger
        summary.tracker_error = self.tracker_error
        summary.drafts_owed = self.drafts_owed
        summary.listings_closed = self.closings.get("closed", 0)
        summary.listings_reopened = self.closings.get("reopened", 0)
        summary.listings_stale = self.closings.get("stale", 0)
        summary.shortlisted = self.shortlist.get("drafted", 0)
        summary.below_bar = self.shortlist.get("below_bar", 0)
        summary.held_back = self.shortlist.get("held_back", 0)
        summary.failures.extend(self.step_failures)
        summary.failed_jobs += len(self.step_failures)
        return summary

    async def send_digest(self, settings: Digest, summary: RunSummary, *, wait: float = DIGEST_WAIT) -> None:
        """Compose and send the run's digest when there is something worth reading; its outcome
        goes in `summary.digest` / `digest_error` and never changes the run's exit code."""
        if not settings.enabled:
            return
        lines = [line for line in format_summary(summary) if line.strip()]
        message = await anyio.to_thread.run_sync(
            lambda: compose_digest(self.pipeline.db_path, self.run_id, settings, summary_lines=lines)
        )
        if message is None:
            summary.digest = "nothing new"
            return
        await self.deliver(message, settings, summary, wait=wait)

    async def deliver(
        self, message: DigestMessage, settings: Digest, summary: RunSummary, *, wait: float = DIGEST_WAIT
    ) -> None:
        """Send `message` on the digest queue (one job per channel, keyed by the run id, so a
        run sends at most one) and wait for the outcome; record what was told once sent."""
        await self.publisher.topology.ensure_queue(self.publisher.js, DIGEST_QUEUE)
        sent: list[str] = []
        failed: list[str] = []
        pending: list[str] = []
        jobs = digest_jobs(message, settings, run_id=self.run_id)
        submitted = [
            (
                job.channel,
                await self.publisher.enqueue(
                    job.job_type, job.payload, queue=DIGEST_QUEUE, key=job.key, max_attempts=8
                ),
            )
            for job in jobs
        ]
        for channel, job in submitted:
            record: StatusRecord | None = None
            with anyio.move_on_after(wait):
                record = await wait_settled(self.publisher, self.progress, job.id)
            if record is None:
                pending.append(channel)
            elif record.state == "succeeded":
                sent.append(channel)
            else:
                failed.append(f"{channel}: {record.error or record.state}")
        if sent or pending:
            # Told once: a channel still retrying delivers later; the listings are not told again.
            await anyio.to_thread.run_sync(record_told, self.pipeline.db_path, self.run_id, message)
        told = f"{len(message.listed)} listings" + (
            f", {len(message.closed)} taken down" if message.closed else ""
        )
        parts = []
        if sent:
            parts.append(f"sent: {', '.join(sent)} ({told})")
        if pending:
            parts.append(f"still sending: {', '.join(pending)} (the platform retries it)")
        summary.digest = "; ".join(parts) or None
        if failed:
            summary.digest_error = "; ".join(failed)
        log.info("run.digest", run_id=self.run_id, sent=sent, pending=pending, failed=failed)


def recorded(summary: RunSummary | None) -> dict[str, Any]:
    """A summary as the runs table keeps it."""
    return msgspec.to_builtins(summary) if summary is not None else {}
