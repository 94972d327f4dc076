"""The dedupe handler: merge one fetched posting into the seen-set, filter, submit what is owed.

`Dedupe.handle` knows nothing about NATS: it is given a `Submit` for the jobs it hands on
(`register` publishes them on the `jobsearch-export` and `jobsearch-draft` queues), so tests
drive it directly.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import msgspec
import structlog

from jetjobs import ConfigError, Reject
from jobsearch.batch import BatchWriter
from jobsearch.dedupe import tables
from jobsearch.dedupe.closing import Closings, close_listings
from jobsearch.dedupe.posting import posting_of
from jobsearch.dedupe.shortlist import judged_shortlist
from jobsearch.dedupe.store import (
    Decision,
    mark_drafted,
    record_board_read,
    record_postings,
)
from jobsearch.fit import Fit
from jobsearch.fit.judge import Judge
from jobsearch.jobs import (
    BoardReadJob,
    CloseListingsJob,
    DraftJob,
    DraftShortlistJob,
    ExportBatchJob,
    ListingBatchJob,
    ListingJob,
    batch_key,
    draft_job_id,
    draft_key,
    in_batches,
)
from jobsearch.listing import Listing
from jobsearch.profile import Profile

log = structlog.get_logger("jobsearch.dedupe")


def _fit_of(fits: dict[str, Fit], listing_id: str) -> str:
    """A listing's fit in an export batch's key: a fit that changed is a new export."""
    fit = fits.get(listing_id)
    return "-" if fit is None else str(fit.score)


class Submit(Protocol):
    """What dedupe hands on: the jobs it owes, each under a key scoped to the run."""

    async def draft(self, job: DraftJob, key: str, job_id: str) -> None:
        """Submit the draft job of a new, kept listing."""

    async def export(self, job: ExportBatchJob, key: str) -> None:
        """Submit the export job of listings the person keeps, new or changed."""


def check_db_path(path: Path) -> None:
    """Fail at start, not at the first job, when the seen-set's file cannot be written.

    Looks only (creates nothing): the file, else its nearest existing folder, must be writable.

    Raises:
        ConfigError: naming the path and the variables that set it.
    """
    hint = "set JOBSEARCH_DATA_DIR or JOBSEARCH_DB to a writable place"
    if path.exists():
        if path.is_dir() or not os.access(path, os.W_OK):
            raise ConfigError(f"the pipeline database {path} is not a writable file ({hint})")
        return
    folder = path.parent
    while not folder.exists():
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"the pipeline database {path} cannot be created in {folder} ({hint})")


class Dedupe:
    """One service's dedupe: its writes to the seen-set, batched (`BatchWriter`)."""

    def __init__(self, db_path: Path, *, judge: Judge | None = None) -> None:
        self.db_path = db_path
        self.writer = BatchWriter(db_path, prepare=tables.create)
        self.judge = judge  # a model's judgement of the shortlist (`FIT_PROVIDER`), or none

    async def aclose(self) -> None:
        """Close the database connection (and the judge's) when the service stops."""
        await self.writer.aclose()
        if self.judge is not None:
            await self.judge.aclose()

    async def handle(self, job: ListingJob, submit: Submit) -> dict[str, Any]:
        """`jobsearch.listing`: one posting (see `handle_batch`); what became of it.

        Raises:
            Reject: the posting could not be recorded (the reason goes to the dead letter).
        """
        # One posting a client submits is drafted at once; a run's batches wait for its shortlist.
        decisions = await self._record(job.run_id, [job.listing], job.profile, submit, draft_now=True)
        if not decisions:
            raise Reject(f"the posting {job.listing.key} could not be recorded (see the dedupe log)")
        [decision] = decisions
        listing = decision.listing
        return {
            "listing_id": listing.id,
            "outcome": decision.outcome,
            "how": decision.how,
            "state": "drafted" if decision.draft and job.profile.drafting.enabled else decision.state,
            "drop_reason": decision.drop_reason,
            "sources": len(listing.sources),
            "revision": listing.revision,
        }

    async def handle_batch(self, job: ListingBatchJob, submit: Submit) -> dict[str, Any]:
        """`jobsearch.listing_batch`: the postings of one source; how many had each outcome."""
        decisions = await self._record(job.run_id, job.listings, job.profile, submit)
        counts = Counter[str](d.outcome for d in decisions)
        if len(decisions) < len(job.listings):
            counts["rejected"] = len(job.listings) - len(decisions)
        return {"source": job.source, "postings": len(job.listings), "counts": dict(counts)}

    async def _record(
        self,
        run_id: str,
        listings: Sequence[Listing],
        profile: Profile,
        submit: Submit,
        *,
        draft_now: bool = False,
    ) -> list[Decision]:
        """Record postings in one transaction; submit what is owed (the listings the person keeps
        that are new or changed, to the export stage; the new ones' drafts), then note it.

        Each is noted only after `submit` returns: a service killed in between leaves it owed,
        and the redelivered job submits it again under the same key.
        """
        postings = [posting_of(listing) for listing in listings]
        results = await self.writer.run_job(
            lambda db: record_postings(db, postings, profile.search, run_id, profile)
        )
        decisions: list[Decision] = []
        for posting, result in zip(postings, results, strict=True):
            if isinstance(result, str):
                log.warning("dedupe.posting_rejected", run_id=run_id, posting=posting.key, error=result)
            else:
                decisions.append(result)
        owed = {d.listing.id: d.listing for d in decisions if d.export}  # a listing's last revision
        fits = {d.listing.id: d.fit for d in decisions if d.export and d.fit is not None}
        for batch in in_batches(list(owed.values())):
            key = batch_key(run_id, "export", [f"{m.id}@{m.revision}:{_fit_of(fits, m.id)}" for m in batch])
            batch_fits = {m.id: fits[m.id] for m in batch if m.id in fits}
            await submit.export(ExportBatchJob(run_id=run_id, listings=batch, fits=batch_fits), key)
        # A run's new listings stay owed their drafts until its shortlist (`shortlist`) picks the
        # best; with drafting off they stay owed: a later run with it on writes them.
        # Drafted from the listing as the batch left it (a later posting of it may have joined).
        latest = {d.listing.id: d.listing for d in decisions}
        drafts = [(d.listing.id, d.posting_key) for d in decisions if d.draft]
        if drafts and profile.drafting.enabled and draft_now:
            for listing_id, _ in drafts:
                listing = latest[listing_id]
                draft = DraftJob(run_id=run_id, listing=listing, profile=profile)
                await submit.draft(draft, draft_key(run_id, listing.id), draft_job_id(run_id, listing.id))
            await self.writer.run_job(lambda db: mark_drafted(db, drafts))
        return decisions

    async def shortlist(self, job: DraftShortlistJob, submit: Submit) -> dict[str, Any]:
        """`jobsearch.draft_shortlist`: submit the drafts of the best listings owed one (see
        `jobsearch.dedupe.shortlist`); how many were drafted, below the bar, held back by the cap
        (and, with a judge, what it did: `judging`)."""
        if not job.profile.drafting.enabled:
            return {"drafted": 0, "below_bar": 0, "held_back": 0}
        chosen = await judged_shortlist(self.writer, job, self.judge)
        for export, key in chosen.exports(job.run_id):  # the judged fits, for the tracker and page
            await submit.export(export, key)
        for listing, _ in chosen.chosen:
            draft = DraftJob(run_id=job.run_id, listing=listing, profile=job.profile)
            await submit.draft(draft, draft_key(job.run_id, listing.id), draft_job_id(job.run_id, listing.id))
        owed = [(listing.id, owner) for listing, owner in chosen.chosen]
        await self.writer.run_job(lambda db: mark_drafted(db, owed))
        result: dict[str, Any] = {
            "drafted": len(owed),
            "below_bar": chosen.below_bar,
            "held_back": chosen.held_back,
        }
        if chosen.judging is not None:
            result["judging"] = msgspec.to_builtins(chosen.judging)
        return result

    async def close_listings(self, job: CloseListingsJob) -> Closings:
        """What the run's whole reads no longer list (`jobsearch.close_listings`)."""
        return await self.writer.run_job(
            lambda db: close_listings(db, job.run_id, stale_after_days=job.stale_after_days)
        )

    async def board_read(self, job: BoardReadJob) -> dict[str, Any]:
        """Record that a source was read in full (`jobsearch.board_read`)."""
        await self.writer.run_job(
            lambda db: record_board_read(db, job.run_id, job.source, job.board, job.listed)
        )
        return {"source": job.source, "listed": job.listed}
