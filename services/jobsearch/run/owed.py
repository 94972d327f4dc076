"""Drafts owed from earlier runs: submitted by every run, and by `jobsearch draft --failed`.

A listing whose drafting failed (every provider down on the job's last attempt, out of quota) or
waits (a provider asked to be called again later than the run waits) is recorded as such in the
state of record (`jobsearch.store.drafting`). A plain `jobsearch run` submits their draft jobs
first, with the run's profile, so an outage is repaired by the next run with nobody's help;
`jobsearch draft --failed` does the same on demand, without reading the boards, and
`jobsearch draft LISTING_ID ...` drafts the listings the person names, whatever their state. A draft job that
was dead-lettered anyway (a worker lost on its last attempt) is recorded the same way at the
run's end (`record_dead_drafts`), so no listing ends dead-lettered with nobody told.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from jetjobs import Publisher, StatusRecord
from jobsearch.jobs import DRAFT, QUEUES, DraftIssue, DraftJob, draft_job_id, draft_key, listing_of_draft_job
from jobsearch.listing import MergedListing
from jobsearch.profile import Profile
from jobsearch.store import Store


async def submit_owed_drafts(
    publisher: Publisher, db_path: Path, run_id: str, profile: Profile, *, missing: bool = False
) -> int:
    """Submit a draft job for every listing owed one (see the module); how many were submitted."""
    if not profile.drafting.enabled:
        return 0
    with Store.open(db_path) as store:
        listings = store.owed_drafts(missing=missing)
    return await submit_drafts(publisher, run_id, profile, listings)


async def submit_drafts(
    publisher: Publisher, run_id: str, profile: Profile, listings: Sequence[MergedListing]
) -> int:
    """Submit one draft job of run `run_id` for each of `listings`; how many."""
    for listing in listings:
        job = DraftJob(run_id=run_id, listing=listing, profile=profile)
        prepared = publisher.build(
            DRAFT,
            job,
            queue=QUEUES["draft"],
            key=draft_key(run_id, listing.id),
            job_id=draft_job_id(run_id, listing.id),
        )
        await publisher.publish(prepared)
    return len(listings)


def record_dead_drafts(
    db_path: Path, run_id: str, dead: Iterable[StatusRecord], runs: Mapping[str, str] | None = None
) -> int:
    """Record each dead-lettered draft job as its listing's issue, under the run it belongs to
    (`runs`: job id -> run id, as the run's progress learned them; default: this run); how many."""
    recorded = 0
    with Store.open(db_path) as store:
        for record in dead:
            listing_id = listing_of_draft_job(record.id) if record.type == DRAFT else None
            if listing_id is None:
                continue
            why = record.error or record.dead_reason or "dead-lettered"
            issue = DraftIssue(kind="failed", reason=f"the draft job died: {why}", attempts=record.attempt)
            owner = (runs or {}).get(record.id, run_id)
            recorded += store.record_draft_issue(listing_id, issue, run_id=owner, job_id=record.id)
    return recorded
