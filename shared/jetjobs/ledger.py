"""The status ledger: one KV entry per job id, changed only by compare-and-set.

Delivery is at-least-once; completion is once. Each transition names the revision it read, so a
worker whose lease was lost (a newer attempt has written `running` since) cannot record a
completion over the newer attempt, and a redelivered job whose entry is terminal is not run again.
"""

from __future__ import annotations

from typing import Any

import msgspec
import nats.js.errors
from nats.js.kv import KeyValue

from jetjobs.envelope import STATUS_DECODER, DeadReason, Job, JobState, StatusRecord, utcnow

_ENCODER = msgspec.json.Encoder()


class Ledger:
    """Reads and compare-and-set writes of job status records."""

    def __init__(self, kv: KeyValue) -> None:
        self.kv = kv

    async def get(self, job_id: str) -> tuple[StatusRecord | None, int]:
        """The job's record and its revision; `(None, 0)` when the job has no entry."""
        try:
            entry = await self.kv.get(job_id)
        except nats.js.errors.KeyNotFoundError:
            return None, 0
        if not entry.value:
            return None, entry.revision or 0
        return STATUS_DECODER.decode(entry.value), entry.revision or 0

    async def write(self, record: StatusRecord, revision: int) -> int | None:
        """Store `record` if the entry is still at `revision` (0: if it does not exist).

        Returns:
            The new revision, or None when someone else changed the entry first.
        """
        try:
            return await self.kv.update(record.id, _ENCODER.encode(record), last=revision)
        except nats.js.errors.KeyWrongLastSequenceError:
            return None

    async def put(self, record: StatusRecord) -> int:
        """Store `record` unconditionally (operator actions: requeue, cancel)."""
        return await self.kv.put(record.id, _ENCODER.encode(record))

    async def record_queued(self, job: Job) -> None:
        """Create the `queued` entry of a newly published job; never overwrites an existing one."""
        await self.write(queued_record(job), 0)


def queued_record(job: Job) -> StatusRecord:
    """The entry of a job that is waiting to run."""
    return StatusRecord(id=job.id, type=job.type, state="queued", updated_at=utcnow())


def transition(
    job: Job,
    state: JobState,
    *,
    attempt: int,
    worker: str | None,
    result: Any = None,
    error: str | None = None,
    dead_reason: DeadReason | None = None,
) -> StatusRecord:
    """The next record of a job, keeping nothing stale from the previous one."""
    return StatusRecord(
        id=job.id,
        type=job.type,
        state=state,
        attempt=attempt,
        worker=worker,
        updated_at=utcnow(),
        result=result,
        error=error,
        dead_reason=dead_reason,
    )
