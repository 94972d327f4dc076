"""The last step of a delivery's path: ack, nak or term it, file its dead letter, say what happened.

Every ending of a delivery passes here, whatever step decided it: the admission (invalid,
deferred), the claim (already finished, duplicate, stale, held elsewhere), or the outcome's record
(succeeded, retried, dead, cancelled, fenced). `Settler` also keeps the tally of endings
(`counts`, the metrics, the span's outcome, the listeners) and publishes the job events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import msgspec
import structlog
from nats.aio.client import Client as NATS

from jetjobs._errors import describe_error
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._observability import telemetry
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.lease import LeaseKeeper
from jetjobs._runtime.metrics import WorkerMetrics
from jetjobs._transport.outbound import Outbound
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import DeadLetter, Job, JobDuplicate, JobEvent, StatusRecord, utcnow

log = structlog.get_logger("jetjobs.worker")

_EVENT_ENCODER = msgspec.json.Encoder()


class Settler:
    """Ends deliveries for one worker: the server's side (ack/nak/term), the dead letters, the tally."""

    def __init__(
        self,
        *,
        nc: NATS,
        outbound: Outbound,
        lease: LeaseKeeper,
        dead_letters: DeadLetters,
        topology: Topology,
        worker_id: str,
        metrics: WorkerMetrics | None,
    ) -> None:
        self.nc = nc
        self.outbound = outbound
        self.lease = lease
        self.dead_letters = dead_letters
        self.worker_id = worker_id
        self.metrics = metrics
        self.events_prefix = topology.events_subject("job.")
        self.duplicate_subject = topology.events_subject("duplicate")
        self.counts: dict[str, int] = {}
        self.listeners: list[Callable[[str, str], None]] = []

    def count(self, outcome: str, job_id: str, job_type: str = "-", error: str | None = None) -> None:
        """Tally an ending (succeeded, retried, dead, invalid, skipped, ...): counts, metrics, span."""
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if self.metrics is not None:
            self.metrics.job_finished(job_type, outcome)
        telemetry.mark_outcome(outcome, error)
        for listener in self.listeners:
            listener(outcome, job_id)

    async def finish(self, d: Delivery, action: str, delay: float | None = None) -> None:
        """Ack, nak or term; a failure (lost connection) leaves the lease to expire, which is safe."""
        msg = d.msg
        self.lease.release(msg)
        try:
            if action == "ack":
                self.outbound.ack(msg)
            elif action == "nak":
                await msg.nak(delay=delay)
            else:
                await msg.term()
        except Exception as exc:
            log.warning("job.settle_failed", action=action, error=describe_error(exc))

    async def dead_letter(
        self,
        d: Delivery,
        job: Job | None,
        attempt: int,
        reason: Any,
        error: str,
        *,
        claims: Job | None = None,
    ) -> None:
        """File a dead letter under the job's id, or under `invalid-<stream seq>` when `job` is
        None (not a job, or `claims` an id that is not its own)."""
        msg = d.msg
        shown = job or claims
        await self.dead_letters.put(
            DeadLetter(
                job_id=job.id if job else f"invalid-{d.seq}",
                type=shown.type if shown else None,
                queue=shown.queue if shown else None,
                reason=reason,
                error=error,
                attempts=attempt,
                worker=self.worker_id,
                failed_at=utcnow(),
                enqueued_at=shown.created_at if shown else msg.metadata.timestamp,
                original_subject=msg.subject,
                original_headers=dict(msg.headers or {}),
                original=msg.data,
                stream_seq=d.seq,
            )
        )

    def announce(self, job: Job, outcome: Literal["succeeded", "dead"], attempt: int) -> None:
        """Tell listeners on `<ns>.events.job.<outcome>` (fire and forget: never blocks the job)."""
        event = JobEvent(
            job_id=job.id, type=job.type, outcome=outcome, attempt=attempt, worker=self.worker_id, at=utcnow()
        )
        try:
            self.outbound.publish(self.events_prefix + outcome, _EVENT_ENCODER.encode(event))
        except Exception as exc:
            log.warning("job.announce_failed", error=describe_error(exc))

    async def settle_finished(self, d: Delivery, job: Job, record: StatusRecord) -> None:
        """A delivery of a job that already ended: finish it without running the handler."""
        if _is_duplicate(d, record):
            await self._drop_duplicate(d, job, record)
            return
        if record.state == "dead" and await self.dead_letters.show(job.id) is None:
            # The previous attempt recorded `dead` but crashed before writing the dead letter.
            await self.dead_letter(
                d, job, record.attempt, record.dead_reason or "exhausted", record.error or ""
            )
        await self.finish(d, "ack" if record.state == "succeeded" else "term")
        self.count("cancelled" if record.state == "cancelled" else "skipped", job.id, job.type)
        log.info("job.already_finished", state=record.state)

    async def _drop_duplicate(self, d: Delivery, job: Job, record: StatusRecord) -> None:
        """Ack a second message naming a finished job without running it, and say so loudly.

        An id names one job forever; new work needs a new id. The payload is dropped: the
        warning, the `duplicate` count and the `<ns>.events.duplicate` event tell the client. (Not
        under `<ns>.events.job.`, whose listeners read every message there as a JobEvent.)
        """
        msg = d.msg
        await self.finish(d, "ack")
        self.count("duplicate", job.id, job.type)
        msg_id = (msg.headers or {}).get("Nats-Msg-Id")
        log.warning(
            "job.duplicate",
            state=record.state,
            msg_id=msg_id,
            stream_seq=d.seq,
            reason="an id names one job forever; this message's payload was dropped (use a new id)",
        )
        event = JobDuplicate(
            job_id=job.id,
            type=job.type,
            state=record.state,
            msg_id=msg_id,
            stream_seq=d.seq,
            subject=msg.subject,
            worker=self.worker_id,
            at=utcnow(),
        )
        try:
            await self.nc.publish(self.duplicate_subject, _EVENT_ENCODER.encode(event))
        except Exception as exc:
            log.warning("job.announce_failed", error=describe_error(exc))


def _is_duplicate(d: Delivery, record: StatusRecord) -> bool:
    """Whether this is another message naming a job that already ended (not a redelivery).

    A worker's terminal entry names the stream sequence of the message it settled; any other
    message is another submission of the id. (Not the delivery count: a server that restarts
    without its consumer state counts a redelivery as a first delivery again.) An entry that
    names no message (a cancel, an older jetjobs) is never taken for a duplicate.
    """
    return record.stream_seq not in (0, d.seq)
