"""The export stage: record each listing and its drafts in the state of record, and render the
tracker when asked.

Four job types on the `jobsearch-export` queue: `jobsearch.export_batch` (the listings dedupe
kept or changed, recorded as they now stand) and `jobsearch.export` (a listing with its drafts;
idempotent per job id), both written many to a transaction (`jobsearch.batch`);
`jobsearch.listing_states` (the listings the boards took down or stopped carrying, and those that
reopened: `closed_at`, `stale_at`); and `jobsearch.tracker` (read the person's edits back, render
`tracker.xlsx`; submitted once per run after the pipeline drained, so a run of 5,000 listings
renders once, not 5,000 times). The work itself lives in `jobsearch.store` and
`jobsearch.tracker`, which the CLI and the review page share; this module only wires them to jobs.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from jetjobs import App, JobContext, Reject, Retry
from jobsearch.batch import BatchWriter
from jobsearch.jobs import (
    EXPORT,
    EXPORT_BATCH,
    LISTING_STATES,
    TRACKER,
    ExportBatchJob,
    ExportJob,
    ListingStatesJob,
    TrackerJob,
)
from jobsearch.settings import PipelineSettings, load_pipeline_settings
from jobsearch.store import Store
from jobsearch.store.closing import record_listing_states
from jobsearch.store.exports import record_export
from jobsearch.store.schema import migrate
from jobsearch.tracker import (
    TrackerBusy,
    TrackerChanged,
    TrackerLocked,
    TrackerReadOnly,
    TrackerUnwritable,
    export_tracker,
)

# A tracker held open by a spreadsheet program: try again at this pace (about 5 minutes in all
# with the job's attempts), then give up with the reason in the dead letter.
LOCKED_RETRY_DELAY = 10.0
TRACKER_ATTEMPTS = 30


class Deps:
    """What the handlers need: the paths, the service's batched writer (the export jobs running
    at once share transactions), and one Store per worker thread for the render."""

    def __init__(self, settings: PipelineSettings) -> None:
        self.settings = settings
        self.writer = BatchWriter(settings.db_path, prepare=migrate)
        self.store = Store.per_thread(settings.db_path)  # this thread's Store

    async def aclose(self) -> None:
        """Close the writer's connection when the service stops."""
        await self.writer.aclose()


async def record(deps: Deps, job_id: str, job: ExportJob) -> dict[str, Any]:
    """Handle `jobsearch.export`: record the listing and its drafts.

    Raises:
        Retry: the database stayed locked past its busy timeout.
    """
    recorded = await deps.writer.run_job(
        lambda conn: record_export(
            conn,
            run_id=job.run_id,
            job_id=job_id,
            listing=job.listing,
            drafts=job.drafts,
            issue=job.issue,
        ),
    )
    return {"run_id": job.run_id, **msgspec.to_builtins(recorded)}


async def record_batch(deps: Deps, job_id: str, job: ExportBatchJob) -> dict[str, Any]:
    """Handle `jobsearch.export_batch`: record each listing as it now stands (one transaction).

    Raises:
        Retry: the database stayed locked past its busy timeout.
    """
    recorded = await deps.writer.run_job(
        lambda conn: [
            record_export(
                conn,
                run_id=job.run_id,
                job_id=job_id,
                listing=listing,
                drafts=(),
                fit=job.fits.get(listing.id),
            )
            for listing in job.listings
        ],
    )
    return {"run_id": job.run_id, "listings": len(recorded), "new": sum(r.new for r in recorded)}


async def record_states(deps: Deps, job: ListingStatesJob) -> dict[str, Any]:
    """Handle `jobsearch.listing_states`: the listings that closed, went stale or reopened.

    Raises:
        Retry: the database stayed locked past its busy timeout.
    """
    changed = await deps.writer.run_job(lambda conn: record_listing_states(conn, job.states))
    return {"run_id": job.run_id, "listings": len(job.states), "changed": changed}


def render_tracker(
    deps: Deps, job: TrackerJob, *, attempt: int = 1, max_attempts: int = TRACKER_ATTEMPTS
) -> dict[str, Any]:
    """Handle `jobsearch.tracker` (`attempt` of `max_attempts`): read edits back and render.

    Raises:
        Reject: the tracker cannot be written there, or is read-only: only the person can change
            that, so the job fails at once with the one line that says what to do.
        Retry: the tracker is open in a spreadsheet program or another render holds it (the
            reason says until when it is retried), or it was saved meanwhile.
    """
    try:
        report = export_tracker(deps.store(), deps.settings.tracker_path)
    except (TrackerUnwritable, TrackerReadOnly) as exc:
        raise Reject(str(exc)) from None
    except (TrackerLocked, TrackerBusy) as exc:
        if attempt >= max_attempts:
            raise Reject(
                f"{exc}; gave up after {attempt} tries (`jobsearch export` writes it later)"
            ) from None
        until = datetime.now(UTC) + timedelta(seconds=LOCKED_RETRY_DELAY * (max_attempts - attempt))
        raise Retry(
            LOCKED_RETRY_DELAY,
            f"{exc}; retrying every {LOCKED_RETRY_DELAY:.0f} s until {until:%H:%M:%S} UTC",
        ) from None
    except TrackerChanged as exc:
        raise Retry(1.0, str(exc)) from None
    return {"run_id": job.run_id, **msgspec.to_builtins(report)}


def register(app: App, settings: PipelineSettings | None = None) -> Deps:
    """Register the export stage's handlers on the pipeline's App; `aclose` closes its writer."""
    deps = Deps(settings or load_pipeline_settings())

    @app.job(EXPORT, payload=ExportJob)
    async def export(ctx: JobContext, job: ExportJob) -> dict[str, Any]:
        return await record(deps, ctx.id, job)

    @app.job(EXPORT_BATCH, payload=ExportBatchJob)
    async def export_batch(ctx: JobContext, job: ExportBatchJob) -> dict[str, Any]:
        return await record_batch(deps, ctx.id, job)

    @app.job(LISTING_STATES, payload=ListingStatesJob)
    async def listing_states(ctx: JobContext, job: ListingStatesJob) -> dict[str, Any]:
        return await record_states(deps, job)

    @app.job(TRACKER, payload=TrackerJob)
    def tracker(ctx: JobContext, job: TrackerJob) -> dict[str, Any]:
        return render_tracker(deps, job, attempt=ctx.attempt, max_attempts=ctx.job.max_attempts)

    return deps
