"""The outcome's record: one compare-and-set in the ledger, and only if it wins, the settle.

An attempt's outcome (jetjobs._runtime.outcome) is written over the revision its delivery names:
the `running` entry of a claimed attempt, or the entry read for one never claimed (a late claim,
see jetjobs._runtime.claim). If that write wins, the delivery is acked, nak'ed or dead-lettered
and termed (jetjobs._runtime.settle); if it loses, the attempt was fenced out by a newer one, or
by an operator's `cancelled` (jetjobs._joblog.cancel), and its result is not recorded.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import anyio
import msgspec
import nats.errors
import structlog

from jetjobs._errors import StreamError, describe_error
from jetjobs._joblog.ledger import Ledger, transition
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.lease import LeaseKeeper
from jetjobs._runtime.outcome import Dead, Outcome, RetryLater, Succeeded
from jetjobs._runtime.settle import Settler
from jetjobs._settings import Settings
from jetjobs._wire.envelope import Job, StatusRecord

log = structlog.get_logger("jetjobs.worker")

# How often a write over a not-yet-claimed attempt's `queued` entry is tried again.
WRITE_TRIES = 5
# A ledger request that failed without a compare-and-set verdict (no reply, no stream leader, an
# unreadable reply, a connection being re-established): the write may have landed or not.
_UNANSWERED = (TimeoutError, StreamError, nats.errors.Error, OSError, msgspec.DecodeError)
_READ_BACK_PAUSE = 0.5


class Recorder:
    """Writes attempts' outcomes to the ledger for one worker, then settles their deliveries."""

    def __init__(
        self, *, ledger: Ledger, settings: Settings, settler: Settler, lease: LeaseKeeper, worker_id: str
    ) -> None:
        self.ledger = ledger
        self.settings = settings
        self.settler = settler
        self.lease = lease
        self.worker_id = worker_id

    async def record(self, d: Delivery, job: Job, outcome: Outcome) -> str | None:
        """Record the outcome and settle the delivery; returns `cancelled`/`fenced` if the CAS lost."""
        settler = self.settler
        match outcome:
            case Succeeded(result):
                record = transition(
                    job,
                    "succeeded",
                    attempt=d.attempt,
                    worker=self.worker_id,
                    result=self._result(result),
                    stream_seq=d.seq,
                )
                if await self._write(d, record) is None:
                    return await self._fenced(d, job)
                await settler.finish(d, "ack")
                settler.announce(job, "succeeded", d.attempt)
                settler.count("succeeded", job.id, job.type)
            case RetryLater(delay, error):
                record = transition(job, "failed", attempt=d.attempt, worker=self.worker_id, error=error)
                if await self._write(d, record) is None:
                    return await self._fenced(d, job)
                await settler.finish(d, "nak", delay)
                settler.count("retried", job.id, job.type, error)
            case Dead():
                return await self.die(d, job, outcome)
        return None

    async def die(self, d: Delivery, job: Job, outcome: Dead) -> str | None:
        """Record `dead`; if that wins, file the dead letter and term the delivery."""
        record = transition(
            job,
            "dead",
            attempt=d.attempt,
            worker=self.worker_id,
            error=outcome.error,
            dead_reason=outcome.reason,
            stream_seq=d.seq,
        )
        if await self._write(d, record) is None:
            return await self._fenced(d, job)
        settler = self.settler
        await settler.dead_letter(d, job, d.attempt, outcome.reason, outcome.error)
        await settler.finish(d, "term")
        settler.announce(job, "dead", d.attempt)
        settler.count("invalid" if outcome.reason == "invalid" else "dead", job.id, job.type, outcome.error)
        return None

    async def over_queued(
        self, d: Delivery, job_id: str, write: Callable[[int], Awaitable[int | None]]
    ) -> tuple[int | None, StatusRecord | None]:
        """`write(revision)` for an attempt not claimed yet, over the revision its admission read;
        if that loses while the entry is still this attempt's `queued` (the publisher's record
        landed after the read), over the new revision. Returns the revision written (None when
        something else was written) and the entry last read, if any."""
        revision, current = d.revision, None
        for _ in range(WRITE_TRIES):
            written = await write(revision)
            if written is not None:
                return written, current
            current, revision = await self.ledger.get(job_id)
            if current is None or current.state != "queued" or current.attempt != d.attempt - 1:
                break
        return None, current

    def _result(self, value: Any) -> Any:
        try:
            builtins = msgspec.to_builtins(value)
            size = len(msgspec.json.encode(builtins))
        except (TypeError, msgspec.EncodeError) as exc:
            return {"unserializable": describe_error(exc)}
        if size > self.settings.max_result_bytes:
            return {"truncated": True, "bytes": size}
        return builtins

    def _write(self, d: Delivery, record: StatusRecord) -> Awaitable[int | None]:
        """Write an attempt's outcome; None when a newer write won. Over the `running` revision of
        a claimed attempt; over the revision read for one never claimed (`over_queued`)."""
        if d.claimed:
            return self._write_outcome(record, d.revision)
        return self._write_unclaimed(d, record)

    async def _write_unclaimed(self, d: Delivery, record: StatusRecord) -> int | None:
        written, _ = await self.over_queued(d, record.id, partial(self._write_outcome, record))
        return written

    async def _write_outcome(self, record: StatusRecord, revision: int) -> int | None:
        """Write an outcome over the attempt's `running` revision; None when a newer write won.

        When the server does not answer (restarting, paused) it is unknown whether the write
        landed. The entry is read back once the server answers, and written again only if it is
        still this attempt's `running`, for up to `publish_retry_for` seconds. So the worker that
        recorded an ending knows it, and it alone announces it: at most one event per job, and a
        lost reply does not lose it.
        """
        deadline = anyio.current_time() + self.settings.publish_retry_for
        unanswered = False
        while True:
            try:
                written = await self.ledger.write(record, revision)
                # A lost compare-and-set after an unanswered attempt may have lost to that attempt.
                if written is not None or not unanswered:
                    return written
            except _UNANSWERED as exc:
                if anyio.current_time() >= deadline:
                    raise
                unanswered = True
                log.warning("job.outcome_unconfirmed", state=record.state, error=describe_error(exc))
            current, current_revision = await self._read_back(record.id, deadline)
            if current is not None and (current.state, current.attempt, current.worker) == (
                record.state,
                record.attempt,
                record.worker,
            ):
                return current_revision  # it had landed
            if current_revision != revision:
                return None  # a newer attempt, or an operator, wrote since
            # Still this attempt's `running` entry: the write has not landed; write it again.

    async def _read_back(self, job_id: str, deadline: float) -> tuple[StatusRecord | None, int]:
        """The job's entry, asked again until the server answers or `deadline` passes."""
        while True:
            try:
                return await self.ledger.get(job_id)
            except _UNANSWERED:
                if anyio.current_time() >= deadline:
                    raise
                await anyio.sleep(_READ_BACK_PAUSE)

    async def _fenced(self, d: Delivery, job: Job) -> str:
        record, _ = await self.ledger.get(job.id)
        if record is not None and record.state == "cancelled":
            # Cancelled while it ran: the entry stays `cancelled`, and the job is never redelivered.
            await self.settler.finish(d, "term")
            self.settler.count("cancelled", job.id, job.type)
            log.info("job.cancelled", reason="cancelled while running; result not recorded")
            return "cancelled"
        self.lease.release(d.msg)
        self.settler.count("fenced", job.id, job.type)
        log.warning("job.fenced", reason="a newer attempt owns this job; result not recorded")
        return "fenced"
