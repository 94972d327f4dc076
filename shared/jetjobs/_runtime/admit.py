"""The admission: may this delivery's job run here, and now?

The envelope was decoded when the delivery arrived (jetjobs._runtime.delivery). Here its subject,
type and payload are checked against the App: a job that can never run here is dead-lettered
`invalid` (settling only a ledger entry that is its own: see `Admission.refuse`); one whose
`run_at` is still ahead is handed to the server's scheduler, which delivers it again when due.
What passes goes on to the claim (jetjobs._runtime.claim) with its handler and converted payload.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec
import structlog

from jetjobs._errors import InvalidJob
from jetjobs._joblog.ledger import Ledger, transition
from jetjobs._runtime.app import App, Handler
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.settle import Settler
from jetjobs._transport.requests import Requester
from jetjobs._transport.topology import Topology
from jetjobs._wire.delay import at_pattern, schedule_headers
from jetjobs._wire.envelope import Job, body_digest, utcnow
from jetjobs._wire.headers import SCHEDULER

log = structlog.get_logger("jetjobs.worker")

# A `run_at` at most this far ahead runs now: clocks of client, server and worker differ a little.
RUN_AT_TOLERANCE = 1.0


@dataclass(frozen=True, slots=True)
class Admitted:
    """A job that may run here: its handler, and its payload converted to the handler's type."""

    handler: Handler
    payload: Any


class Admission:
    """Admits deliveries for one worker's App."""

    def __init__(
        self,
        *,
        app: App,
        topology: Topology,
        requester: Requester,
        ledger: Ledger,
        settler: Settler,
        worker_id: str,
    ) -> None:
        self.app = app
        self.topology = topology
        self.requester = requester
        self.ledger = ledger
        self.settler = settler
        self.worker_id = worker_id

    async def admit(self, d: Delivery, job: Job) -> Admitted | None:
        """The job's handler and payload; None when the delivery was settled here instead
        (dead-lettered `invalid`, or deferred to its `run_at`)."""
        try:
            admitted = self.resolve(d, job)
        except InvalidJob as exc:
            await self.refuse(d, job, str(exc))
            return None
        if await self._defer(d, job):
            return None
        return admitted

    def resolve(self, d: Delivery, job: Job) -> Admitted:
        """Find the job's handler and convert its payload.

        Raises:
            InvalidJob: the job can never run here (subject, type or payload is wrong).
        """
        expected = self.topology.job_subject(job.queue, job.priority, job.type)
        if d.msg.subject != expected:
            raise InvalidJob(f"published on {d.msg.subject} but the envelope says {expected}")
        handler = self.app.handlers.get(job.type)
        if handler is None:
            raise InvalidJob(
                f"unknown job type {job.type!r}; this worker handles {sorted(self.app.handlers)}"
            )
        try:
            payload = msgspec.convert(job.payload, handler.payload_type)
        except msgspec.ValidationError as exc:
            raise InvalidJob(f"payload of {job.type} does not match its schema: {exc}") from None
        return Admitted(handler, payload)

    async def refuse_undecodable(self, d: Delivery) -> None:
        """Dead-letter a message that is not a job (`d.invalid` says why), under its stream sequence."""
        settler = self.settler
        await settler.dead_letter(d, None, d.count, "invalid", d.invalid)
        await settler.finish(d, "term")
        settler.count("invalid", f"invalid-{d.seq}", error=d.invalid)
        log.warning("job.invalid", stream_seq=d.seq, error=d.invalid)

    async def refuse(self, d: Delivery, job: Job, error: str) -> None:
        """Dead-letter a well-formed job that cannot run here (type, payload or subject is wrong).

        Its id is only what the message claims: another message (a real job) may own that id. So
        the ledger entry is settled `dead` only if it is this message's own (none yet, or written
        for this very body: its digest); any other entry is left alone and the dead letter is
        filed under the message's stream sequence, not under the id.
        """
        settler = self.settler
        digest = body_digest(d.msg.data)
        record, revision = await self.ledger.get(job.id)
        own = record is None or (record.digest == digest and record.state in ("queued", "dead"))
        if own and record is not None and record.state == "dead":
            await settler.settle_finished(d, job, record)  # a redelivery after a crash
            return
        if own:
            dead = transition(
                job,
                "dead",
                attempt=d.count,  # as the dead letter of an undecodable message counts it
                worker=self.worker_id,
                error=error,
                dead_reason="invalid",
                stream_seq=d.seq,
                delivery=d.count,
            )
            written = await self.ledger.write(msgspec.structs.replace(dead, digest=digest), revision)
            if written is not None:
                await settler.dead_letter(d, job, dead.attempt, "invalid", error)
                await settler.finish(d, "term")
                settler.announce(job, "dead", dead.attempt)
                settler.count("invalid", job.id, job.type, error)
                log.warning("job.invalid", error=error)
                return
            # The entry changed under us (another message of this id got there first).
        error = f"job id {job.id} belongs to another message; {error}"
        await settler.dead_letter(d, None, d.count, "invalid", error, claims=job)
        await settler.finish(d, "term")
        settler.count("invalid", f"invalid-{d.seq}", job.type, error)
        log.warning("job.invalid", error=error, stream_seq=d.seq, entry_left=record.state if record else None)

    async def _defer(self, d: Delivery, job: Job) -> bool:
        """Hand a job whose `run_at` is still ahead to the server's scheduler; True if it did.

        A raw client may set `run_at` on a job it publishes straight to the job subject (our
        publisher sends such a job to the schedules subject instead). The worker then does what
        the publisher would have: it stores the job as a delayed job (`<ns>.schedules.at.<id>`,
        fired by the server at `run_at`) and acks this delivery. No slot is held, no attempt is
        spent. A firing carries `Nats-Scheduler`, so it is never deferred again.
        """
        headers = d.msg.headers or {}
        if job.run_at is None or SCHEDULER in headers:
            return False
        if (job.run_at - utcnow()).total_seconds() <= RUN_AT_TOLERANCE:
            return False
        delayed = {k: v for k, v in headers.items() if not k.startswith("Nats-")}
        delayed |= schedule_headers(at_pattern(job.run_at), d.msg.subject)
        delayed["Nats-Msg-Id"] = f"defer:{job.id}:{d.seq}"
        subject = self.topology.delayed_subject(job.id)
        await self.requester.publish(subject, d.msg.data, delayed)
        await self.settler.finish(d, "ack")
        self.settler.count("deferred", job.id, job.type)
        log.info("job.deferred", run_at=job.run_at.isoformat(), subject=subject)
        return True
