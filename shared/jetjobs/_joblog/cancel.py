"""Cancelling a job: the ledger says `cancelled`, then every worker hears about it.

1. CAS the job's ledger entry to `cancelled` (terminal). This is the truth: a queued (or delayed,
   or waiting-to-retry) job is termed at its next delivery without running, and a running job's
   completion CAS loses, so the worker terms it and the entry stays `cancelled`.
2. A delayed job's schedule is deleted, so it does not even fire.
3. A `CancelRequest` on `<ns>.control.cancel` (core NATS) sets `ctx.cancelled` in the handler
   running the job, if any. It is a hint: a worker that misses it lets the handler run to its end,
   and the result is still not recorded.
"""

from __future__ import annotations

from typing import Literal

import msgspec
from nats.aio.client import Client as NATS

from jetjobs._errors import JetJobsError
from jetjobs._joblog.ledger import Ledger
from jetjobs._joblog.schedule import Schedules
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._wire.envelope import ENCODER, TERMINAL_STATES, CancelRequest, JobState, StatusRecord, utcnow

_TRIES = 5


class CancelResult(msgspec.Struct, kw_only=True, frozen=True):
    """What `cancel` did: `cancelled`, or why not (`unknown` job, or it had already `finished`)."""

    id: str
    outcome: Literal["cancelled", "unknown", "finished"]
    previous: JobState | None = None
    unscheduled: bool = False


async def cancel(nc: NATS, settings: Settings, job_id: str, *, reason: str | None = None) -> CancelResult:
    """Cancel a job that has not finished.

    A job with no ledger entry (unknown id, older than JETJOBS_STATUS_TTL, or published raw and not
    yet claimed) is `unknown`; one already succeeded, dead or cancelled is `finished`.
    """
    publisher = Publisher(nc, settings)
    topology = publisher.topology
    js = publisher.js
    await topology.ensure_base(js)
    ledger = Ledger(await topology.status_kv(js))
    for _ in range(_TRIES):
        record, revision = await ledger.get(job_id)
        if record is None:
            return CancelResult(id=job_id, outcome="unknown")
        if record.state in TERMINAL_STATES:
            return CancelResult(id=job_id, outcome="finished", previous=record.state)
        cancelled = StatusRecord(
            id=record.id,
            type=record.type,
            state="cancelled",
            attempt=record.attempt,
            worker=record.worker,
            updated_at=utcnow(),
            error=f"cancelled: {reason}" if reason else "cancelled",
        )
        if await ledger.write(cancelled, revision) is not None:
            break
        # The worker moved the entry on (queued → running → ...) meanwhile: read and decide again.
    else:
        raise JetJobsError(f"job {job_id}: the ledger entry kept changing; try again")
    unscheduled = await Schedules(publisher).cancel_delayed(job_id)
    request = CancelRequest(job_id=job_id, requested_at=utcnow(), reason=reason)
    await nc.publish(topology.control_subject("cancel"), ENCODER.encode(request))
    await nc.flush()
    return CancelResult(id=job_id, outcome="cancelled", previous=record.state, unscheduled=unscheduled)
