"""The claim: read the job's ledger entry, decide whether this delivery may run, write `running`.

Each decision is taken on an entry read after the delivery arrived (the first read is the burst's,
asked for when it arrived: jetjobs._runtime.delivery), and the claim is a compare-and-set on the
revision read: if the entry changed since, the claim loses and the entry is read again. Never on a
revision a message carries: a header says what its sender claims, not what the entry is, and a
CAS on the current revision of a `succeeded` entry would overwrite it.

| entry read                                  | the delivery                                        |
|---------------------------------------------|-----------------------------------------------------|
| terminal                                    | settled without running (`duplicate` if another message) |
| `running` by a newer delivery               | `stale`: released, left to the holder                |
| run by a live worker under an earlier one   | `held_elsewhere`: released, left to the holder       |
| `max_attempts` executions already           | `exhausted`: dead-lettered                           |
| otherwise                                   | claimed: attempt n = executions so far + 1           |

With `claim_after` above 0 (off by default), a first delivery of a job allowed more than one
attempt is claimed late: its handler starts at once, and the claim is written only if it is still
running after `claim_after` seconds. A job that ends sooner is recorded by its outcome's one
write, a CAS on the revision read, which fences it just the same (jetjobs._runtime.record).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from functools import partial

import structlog

from jetjobs._errors import describe_error
from jetjobs._joblog.ledger import Ledger, parse_revision, transition
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.lease import LeaseKeeper
from jetjobs._runtime.metrics import WorkerMetrics
from jetjobs._runtime.outcome import Dead
from jetjobs._runtime.record import Recorder
from jetjobs._runtime.settle import Settler
from jetjobs._wire.envelope import TERMINAL_STATES, Job, StatusRecord
from jetjobs._wire.headers import LEDGER_REVISION_HEADER

log = structlog.get_logger("jetjobs.worker")

_CLAIM_TRIES = 5


class Claimer:
    """Claims deliveries for one worker: the ledger's `running` entry, now or late."""

    def __init__(
        self,
        *,
        ledger: Ledger,
        settler: Settler,
        recorder: Recorder,
        lease: LeaseKeeper,
        worker_id: str,
        claim_after: float,
        running: Mapping[str, object],
        held_by: Callable[[str | None, int], bool],
        metrics: WorkerMetrics | None,
    ) -> None:
        """`running` is the jobs running here (by id); `held_by(worker, stream_seq)` whether a live
        worker's heartbeat lists a delivery of that stream sequence."""
        self.ledger = ledger
        self.settler = settler
        self.recorder = recorder
        self.lease = lease
        self.worker_id = worker_id
        self.claim_after = claim_after
        self.running = running
        self.held_by = held_by
        self.metrics = metrics

    async def claim(self, d: Delivery, job: Job) -> bool:
        """Record `running` for the next attempt (sets `d.attempt`, `d.revision`); False when it
        must not run (the delivery is then settled or released)."""
        msg = d.msg
        hint = self._ledger_hint(d)
        for tries in range(_CLAIM_TRIES):
            record, revision = await self._read(d, job)
            if tries == 0 and hint is not None and d.count == 1 and revision != hint:
                # Not what our publisher left (a cancel or requeue since, or a header the sender
                # made up): only diagnostic, the entry read decides.
                log.info("job.ledger_hint_differs", hint=hint, revision=revision)
            if record is not None and record.state in TERMINAL_STATES:
                await self.settler.settle_finished(d, job, record)
                return False
            if record is not None and record.state == "running" and record.delivery > d.count:
                # A newer delivery of this job holds it; this one is stale (a paused worker woke up).
                self.lease.release(msg)
                self.settler.count("stale", job.id, job.type)
                log.warning("job.stale_delivery", holder=record.worker, holder_attempt=record.attempt)
                return False
            if record is not None and self._held(d, job, record):
                # A live worker runs this job under an earlier delivery (a stray redelivery: a
                # recovery NAK that raced it). Leave it to the holder, whose ack settles it; if
                # the holder dies, its heartbeat expires and the job comes back.
                self.lease.release(msg)
                self.settler.count("held_elsewhere", job.id, job.type)
                log.info("job.held_elsewhere", holder=record.worker, holder_attempt=record.attempt)
                return False
            ran = record.attempt if record is not None else 0
            if ran >= job.max_attempts:
                # The last execution never recorded an outcome (its worker died or lost the ledger).
                error = f"ran {ran} times without finishing (max_attempts={job.max_attempts})"
                if record is not None and record.error:
                    error += f"; last error: {record.error}"
                d.attempt, d.revision = ran, revision
                await self.recorder.die(d, job, Dead("exhausted", error))
                return False
            # Claimed late (once the handler has run claim_after), or now.
            late = bool(self.claim_after) and d.count == 1 and job.max_attempts > 1
            claimed = (
                revision
                if late
                else await self.ledger.write(
                    transition(job, "running", attempt=ran + 1, worker=self.worker_id, delivery=d.count),
                    revision,
                )
            )
            if claimed is not None:
                d.attempt, d.revision, d.claimed = ran + 1, claimed, not late
                return True
            # The entry changed between read and write (the publisher's `queued` record landing,
            # or another delivery): read again and decide again.
        self.lease.release(msg)
        self.settler.count("raced", job.id, job.type)
        log.warning("job.claim_failed", reason="the ledger entry kept changing; left for redelivery")
        return False

    def arm(self, d: Delivery, job: Job) -> asyncio.TimerHandle | None:
        """For a delivery claimed late: start its claim once the handler has run `claim_after`."""
        if d.claimed:
            return None

        def start() -> None:
            d.claim = asyncio.create_task(self._claim_late(d, job))

        return asyncio.get_running_loop().call_later(self.claim_after, start)

    async def settle_late(self, d: Delivery) -> None:
        """Wait for a late claim in flight, so that the outcome names the revision it wrote."""
        claim, d.claim = d.claim, None
        if claim is not None:
            try:
                await claim
            except Exception as exc:
                log.warning("job.late_claim_failed", error=describe_error(exc))

    async def hand_back(self, d: Delivery, job: Job) -> None:
        """An attempt interrupted by the worker's shutdown: the entry back to `queued` (the
        attempt not counted) and the delivery nak'ed, so that it is redelivered now."""
        await self.settle_late(d)
        if d.claimed:
            await self.ledger.write(transition(job, "queued", attempt=d.attempt, worker=None), d.revision)
        await self.settler.finish(d, "nak")

    def _ledger_hint(self, d: Delivery) -> int | None:
        """The revision in the publisher's `Jetjobs-Ledger-Revision` header; a malformed one is
        ignored, counted and logged (a client can send anything), never a failure of the job."""
        value = (d.msg.headers or {}).get(LEDGER_REVISION_HEADER)
        if value is None:
            return None
        hint = parse_revision(value)
        if hint is None:
            counts = self.settler.counts
            counts["bad_header"] = counts.get("bad_header", 0) + 1
            if self.metrics is not None:
                self.metrics.bad_header(LEDGER_REVISION_HEADER)
            log.warning("job.bad_header", header=LEDGER_REVISION_HEADER, value=value[:40])
        return hint

    async def _read(self, d: Delivery, job: Job) -> tuple[StatusRecord | None, int]:
        """The job's entry: as read with its burst (once), else read now."""
        reads, d.reads = d.reads, None
        if reads is not None and (entry := await reads.entry(job.id)) is not None:
            return entry
        return await self.ledger.get(job.id)

    def _held(self, d: Delivery, job: Job, record: StatusRecord) -> bool:
        """Whether a live worker runs this job under an earlier delivery: a `running` entry of a
        live holder, or this worker running it still unclaimed (its entry `queued`)."""
        if record.state == "running":
            if record.worker == self.worker_id:
                return job.id in self.running
            return self.held_by(record.worker, d.seq)
        return record.state == "queued" and d.count > 1 and job.id in self.running

    async def _claim_late(self, d: Delivery, job: Job) -> None:
        """Write `running` over the revision read (or one the publisher's `queued` record moved it
        to). If the entry changed otherwise (a cancel, another delivery's claim), the outcome's
        compare-and-set will lose, and the record step settles the delivery."""
        running = transition(job, "running", attempt=d.attempt, worker=self.worker_id, delivery=d.count)
        try:
            claimed, current = await self.recorder.over_queued(d, job.id, partial(self.ledger.write, running))
        except Exception as exc:  # unanswered: the outcome's CAS decides (see Recorder)
            log.warning("job.late_claim_failed", error=describe_error(exc))
            return
        if claimed is None:
            log.info("job.late_claim_lost", state=current.state if current else None)
            return
        d.revision, d.claimed = claimed, True
