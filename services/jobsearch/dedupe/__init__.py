"""The dedupe stage: merge the postings of one job across boards and runs, filter, pass on drafts.

`jobsearch serve dedupe` runs it over the `jobsearch-dedupe` queue. Each `jobsearch.listing` job
is matched against the seen-set in SQLite (exact keys, then fuzzy within the company), merged,
filtered by the profile's search, and a new matching listing becomes one `jobsearch.draft` job
(key `draft:<merged id>`, job id `draft-<merged id>`) on `jobsearch-draft`. See docs/dedupe.md.
"""

from __future__ import annotations

from typing import Any

from jetjobs import App, JobContext
from jobsearch.dedupe.service import Dedupe, check_db_path, draft_job_id, draft_key
from jobsearch.jobs import DRAFT, LISTING, QUEUES, DraftJob, ListingJob
from jobsearch.settings import load_pipeline_settings

__all__ = ["Dedupe", "draft_job_id", "draft_key", "register"]


def register(app: App) -> Dedupe:
    """Register the dedupe stage's handler (`jobsearch.listing`); its seen-set closes with `aclose`."""
    db_path = load_pipeline_settings().db_path
    check_db_path(db_path)
    dedupe = Dedupe(db_path)

    @app.job(LISTING, payload=ListingJob)
    async def dedupe_listing(ctx: JobContext, job: ListingJob) -> dict[str, Any]:
        async def submit(draft: DraftJob, key: str) -> None:
            # The job id is the merged listing's too: past the stream's duplicate window, the
            # ledger still refuses to run a draft job id twice (a kill between submit and note).
            prepared = ctx.publisher.build(
                DRAFT, draft, queue=QUEUES["draft"], key=key, job_id=draft_job_id(draft.listing.id)
            )
            await ctx.publisher.publish(prepared)

        return await dedupe.handle(job, submit)

    return dedupe
