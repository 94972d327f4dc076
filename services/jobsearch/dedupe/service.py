"""The dedupe handler: merge one fetched posting into the seen-set, filter, submit the draft job.

`Dedupe.handle` knows nothing about NATS: it is given a `submit` function for the draft job
(`register` passes `ctx.enqueue` on the `jobsearch-draft` queue), so tests drive it directly.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from jetjobs import ConfigError, Retry
from jobsearch.dedupe.store import Decision, SeenSet
from jobsearch.jobs import DraftJob, ListingJob

T = TypeVar("T")
SubmitDraft = Callable[[DraftJob, str], Awaitable[None]]


def draft_key(listing_id: str) -> str:
    """The draft job's idempotency key: one draft job per merged listing."""
    return f"draft:{listing_id}"


def draft_job_id(listing_id: str) -> str:
    """The draft job's id: fixed per merged listing, so the ledger runs it at most once."""
    return f"draft-{listing_id}"


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
    """One service's dedupe: its seen-set connection, used by one thread at a time."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._seen: SeenSet | None = None
        # SQLite serialises writers anyway; one connection used by one thread at a time keeps the
        # transactions of concurrent jobs apart. Other services wait on BEGIN IMMEDIATE.
        self._limiter = anyio.CapacityLimiter(1)

    def _open(self) -> SeenSet:
        if self._seen is None:
            self._seen = SeenSet(self.db_path)
        return self._seen

    def close(self) -> None:
        """Close the database connection (if opened)."""
        if self._seen is not None:
            self._seen.close()
            self._seen = None

    async def aclose(self) -> None:
        """Close the database connection when the service stops."""
        await anyio.to_thread.run_sync(self.close, limiter=self._limiter)

    async def handle(self, job: ListingJob, submit: SubmitDraft) -> dict[str, Any]:
        """Record `job.listing`; when a new, matching listing owes its draft, submit it, then note it.

        The draft is noted only after `submit` returns: a service killed in between leaves the
        listing pending, and the redelivered job submits it again under the same key.
        """
        decision: Decision = await self._in_thread(
            lambda: self._open().record(job.listing, job.profile.search, job.run_id)
        )
        listing = decision.listing
        if decision.draft:
            draft = DraftJob(run_id=job.run_id, listing=listing, profile=job.profile)
            await submit(draft, draft_key(listing.id))
            await self._in_thread(lambda: self._open().mark_drafted(listing.id, job.listing.key))
        return {
            "listing_id": listing.id,
            "outcome": decision.outcome,
            "how": decision.how,
            "state": "drafted" if decision.draft else decision.state,
            "drop_reason": decision.drop_reason,
            "sources": len(listing.sources),
        }

    async def _in_thread(self, fn: Callable[[], T]) -> T:
        try:
            return await anyio.to_thread.run_sync(fn, limiter=self._limiter)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise Retry(reason=f"the database is busy: {exc}") from None
            raise
