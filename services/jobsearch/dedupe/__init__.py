"""The dedupe stage: merge the postings of one job across boards and runs, filter, pass on.

`jobsearch serve dedupe` runs it over the `jobsearch-dedupe` queue. Each posting of a
`jobsearch.listing_batch` (or `jobsearch.listing`) job is matched against the seen-set in SQLite
(exact keys, then fuzzy within the company), merged, filtered by the profile's search; the new or
changed listings the person keeps go to `jobsearch-export` in `jobsearch.export_batch` jobs. Once
the run's dedupe has drained, `jobsearch.draft_shortlist` turns the best of the new ones by fit
into `jobsearch.draft` jobs (job id `draft-<merged id>`) on `jobsearch-draft`
(`jobsearch.dedupe.shortlist`). `jobsearch.board_read` records a source's whole read; once the
run has drained, `jobsearch.close_listings` marks what those reads no longer list, and hands the listings that
closed, went stale or reopened to `jobsearch-export` (`jobsearch.listing_states`). See
docs/dedupe.md.
"""

from __future__ import annotations

from typing import Any

from jetjobs import App, JobContext
from jobsearch.dedupe.report import RunOutcomes, explain, run_outcomes
from jobsearch.dedupe.service import Dedupe, check_db_path
from jobsearch.fit.judge import Judge
from jobsearch.jobs import (
    BOARD_READ,
    CLOSE_LISTINGS,
    DRAFT,
    DRAFT_SHORTLIST,
    EXPORT_BATCH,
    LISTING,
    LISTING_BATCH,
    LISTING_STATES,
    QUEUES,
    BoardReadJob,
    CloseListingsJob,
    DraftJob,
    DraftShortlistJob,
    ExportBatchJob,
    ListingBatchJob,
    ListingJob,
    ListingStatesJob,
    in_batches,
    run_key,
)
from jobsearch.llm.settings import load_fit_settings
from jobsearch.settings import load_pipeline_settings

__all__ = ["Dedupe", "RunOutcomes", "explain", "register", "run_outcomes"]


class _Publishing:
    """`Submit` over the job's publisher: the owed jobs go out on their stages' queues."""

    def __init__(self, ctx: JobContext) -> None:
        self.ctx = ctx

    async def draft(self, job: DraftJob, key: str, job_id: str) -> None:
        # The job id names the listing and the run: the ledger runs it at most once in the run
        # (a kill between submit and note), and the next run may draft the listing again.
        prepared = self.ctx.publisher.build(DRAFT, job, queue=QUEUES["draft"], key=key, job_id=job_id)
        await self.ctx.publisher.publish(prepared)

    async def export(self, job: ExportBatchJob, key: str) -> None:
        prepared = self.ctx.publisher.build(EXPORT_BATCH, job, queue=QUEUES["export"], key=key)
        await self.ctx.publisher.publish(prepared)


def register(app: App) -> Dedupe:
    """Register the dedupe stage's handlers; its seen-set closes with `aclose`."""
    db_path = load_pipeline_settings().db_path
    check_db_path(db_path)
    fit = load_fit_settings()  # FIT_PROVIDER: a model judges the shortlist (a wrong one fails here)
    dedupe = Dedupe(db_path, judge=Judge(fit) if fit is not None else None)

    @app.job(LISTING, payload=ListingJob)
    async def dedupe_listing(ctx: JobContext, job: ListingJob) -> dict[str, Any]:
        return await dedupe.handle(job, _Publishing(ctx))

    @app.job(LISTING_BATCH, payload=ListingBatchJob)
    async def dedupe_listings(ctx: JobContext, job: ListingBatchJob) -> dict[str, Any]:
        return await dedupe.handle_batch(job, _Publishing(ctx))

    @app.job(DRAFT_SHORTLIST, payload=DraftShortlistJob)
    async def draft_shortlist(ctx: JobContext, job: DraftShortlistJob) -> dict[str, Any]:
        return await dedupe.shortlist(job, _Publishing(ctx))

    @app.job(CLOSE_LISTINGS, payload=CloseListingsJob)
    async def close(ctx: JobContext, job: CloseListingsJob) -> dict[str, Any]:
        closings = await dedupe.close_listings(job)
        for number, states in enumerate(in_batches(closings.changed, most=1000)):
            payload = ListingStatesJob(run_id=job.run_id, states=states)
            key = run_key(job.run_id, f"listing_states:{number}")
            await ctx.enqueue(LISTING_STATES, payload, queue=QUEUES["export"], key=key)
        return {
            "closed": len(closings.closed),
            "reopened": len(closings.reopened),
            "stale": len(closings.stale),
        }

    @app.job(BOARD_READ, payload=BoardReadJob)
    async def board_read(ctx: JobContext, job: BoardReadJob) -> dict[str, Any]:
        return await dedupe.board_read(job)

    return dedupe
