"""One delivery, from admission to ack, nak or term: the per-job path of the worker.

    Delivery ─▶ admit ─▶ claim ─▶ run (under lease) ─▶ outcome ─▶ record ─▶ settle
    delivery.py  admit.py  claim.py  run.py             outcome.py  record.py  settle.py

One `Delivery` value (jetjobs._runtime.delivery), decoded when its burst arrived, is handed from
step to step; the claim sets its attempt and the ledger revision the record names. The order of
writes is chosen so that a crash at any point loses nothing and completes nothing twice:

1. admit: find the handler, convert the payload; any failure → DLQ `invalid`; a `run_at` still
   ahead → handed to the server's scheduler, which delivers it again when due;
2. claim: read the ledger (first from the burst's batch read): terminal → settle without running;
   `max_attempts` executions → DLQ `exhausted`; else CAS `running` (attempt n = executions so far
   + 1) on the revision just read: from here a newer attempt fences this one out (or, with
   `claim_after`, a late claim: see claim.py);
3. run the handler under the job's timeout (the lease is extended throughout by the worker's ticker);
4. outcome: what the handler's ending means (succeeded, retry later, dead);
5. record: CAS the outcome against the `running` revision (or the one read, if never claimed);
6. settle: only if that won, ack / nak(delay) / DLQ+term; if it lost to an operator's `cancelled`
   (see jetjobs._joblog.cancel): term, and the entry stays cancelled.

An attempt is an execution, not a delivery: the attempt number is the ledger's count of claims
plus one. A delivery handed back unstarted (released at shutdown, NAKed by the supervisor for a
worker that never started it, left to a live holder) costs the job nothing. A late claim can
leave one execution uncounted: a first delivery that ends with its worker's death, or whose outcome
the ledger could not take, within `claim_after` of its start (every redelivery, and every job with
`max_attempts=1`, is claimed before it starts).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

import anyio
import structlog
from nats.aio.client import Client as NATS

from jetjobs._errors import describe_error
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger
from jetjobs._observability import telemetry
from jetjobs._runtime.admit import Admission, Admitted
from jetjobs._runtime.app import App, JobContext
from jetjobs._runtime.claim import Claimer
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.lease import LeaseKeeper
from jetjobs._runtime.metrics import WorkerMetrics
from jetjobs._runtime.outcome import Backoff, Succeeded, classify
from jetjobs._runtime.record import Recorder
from jetjobs._runtime.run import Runs
from jetjobs._runtime.settle import Settler
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.outbound import Outbound
from jetjobs._transport.requests import Requester
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import Job

log = structlog.get_logger("jetjobs.worker")


class Executor:
    """Runs deliveries for one worker. Stateless per job; shared by all of the worker's tasks."""

    def __init__(
        self,
        *,
        app: App,
        settings: Settings,
        topology: Topology,
        nc: NATS,
        requester: Requester,
        outbound: Outbound,
        ledger: Ledger,
        dead_letters: DeadLetters,
        publisher: Publisher,
        lease: LeaseKeeper,
        worker_id: str,
        concurrency: int,
        metrics: WorkerMetrics | None = None,
        held_by: Callable[[str | None, int], bool] = lambda _worker, _seq: False,
    ) -> None:
        """`publisher` is only handed to handlers (`JobContext.publisher`), for follow-up jobs."""
        self.ledger = ledger
        self.lease = lease
        self.metrics = metrics
        self.backoff = Backoff.of(settings)
        self.settler = Settler(
            nc=nc,
            outbound=outbound,
            lease=lease,
            dead_letters=dead_letters,
            topology=topology,
            worker_id=worker_id,
            metrics=metrics,
        )
        self.admission = Admission(
            app=app,
            topology=topology,
            requester=requester,
            ledger=ledger,
            settler=self.settler,
            worker_id=worker_id,
        )
        self.recorder = Recorder(
            ledger=ledger, settings=settings, settler=self.settler, lease=lease, worker_id=worker_id
        )
        running: dict[str, JobContext] = {}
        self.claimer = Claimer(
            ledger=ledger,
            settler=self.settler,
            recorder=self.recorder,
            lease=lease,
            worker_id=worker_id,
            claim_after=settings.claim_after,
            running=running,
            held_by=held_by,
            metrics=metrics,
        )
        self.runs = Runs(
            publisher=publisher,
            worker_id=worker_id,
            concurrency=concurrency,
            running=running,
            arm=self.claimer.arm,
        )

    @property
    def counts(self) -> dict[str, int]:
        """Endings so far by kind (succeeded, retried, dead, invalid, skipped, ...)."""
        return self.settler.counts

    @property
    def listeners(self) -> list[Callable[[str, str], None]]:
        """Called with (ending, job id) at every ending; append to listen."""
        return self.settler.listeners

    @property
    def running(self) -> dict[str, JobContext]:
        """The contexts of the handlers running here, by job id."""
        return self.runs.running

    def cancel_running(self, job_id: str) -> bool:
        """Tell the handler running `job_id` here, if any, that its job was cancelled."""
        return self.runs.cancel(job_id)

    async def process(self, d: Delivery) -> None:
        """Run one delivery to its end. Never raises once decoded, except cancellation (shutdown)."""
        job = d.job
        if job is None:
            await self.admission.refuse_undecodable(d)
            return
        headers = d.msg.headers or {}
        with telemetry.consumer_span(d.msg.subject, headers, job.type, partial(_span_attributes, d, job)):
            # Bound for every log line of this job, the handler's own included. (Tokens, not
            # `bound_contextvars`, which scans the whole context twice per job.)
            tokens = structlog.contextvars.bind_contextvars(
                job_id=job.id, type=job.type, delivery=d.count, **telemetry.log_ids()
            )
            try:
                admitted = await self.admission.admit(d, job)
                if admitted is not None and await self.claimer.claim(d, job):
                    attempt = structlog.contextvars.bind_contextvars(attempt=d.attempt)
                    telemetry.mark_attempt(d.attempt)
                    try:
                        await self._run_claimed(d, job, admitted)
                    finally:
                        structlog.contextvars.reset_contextvars(**attempt)
            except Exception as exc:
                # Ledger or stream I/O failed (connection lost, no reply): the lease expires or
                # the supervisor NAKs, and the job comes back. Logged here, inside the job's context.
                self.lease.release(d.msg)
                log.error("job.process_failed", error=describe_error(exc))
            finally:
                structlog.contextvars.reset_contextvars(**tokens)

    async def _run_claimed(self, d: Delivery, job: Job, admitted: Admitted) -> None:
        """Run → outcome → record → settle, for a claimed delivery; one `job.finished` line."""
        if self.metrics is not None:
            self.metrics.job_started(job.type, redelivered=d.count > 1)
        started = time.monotonic()
        try:
            result, error = await self.runs.run(admitted.handler, d, job, admitted.payload), None
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self.claimer.hand_back(d, job)
                log.info("job.interrupted", reason="worker shutting down; redelivered now")
            raise
        except Exception as exc:
            result, error = None, exc
        outcome = classify(
            error, result, attempt=d.attempt, max_attempts=job.max_attempts, backoff=self.backoff
        )
        elapsed = time.monotonic() - started
        if d.claim is not None:
            await self.claimer.settle_late(d)
        settled = await self.recorder.record(d, job, outcome)
        label = settled or type(outcome).__name__.lower()
        if self.metrics is not None:
            self.metrics.job_duration(job.type, label, elapsed)
        log.info(
            "job.finished",
            outcome=label,
            duration_ms=round(elapsed * 1000, 2),
            queue=job.queue,
            priority=job.priority,
            error=None if isinstance(outcome, Succeeded) else outcome.error,
        )


def _span_attributes(d: Delivery, job: Job) -> dict[str, Any]:
    """The consumer span's attributes (built only when tracing is on)."""
    return {
        "messaging.message.id": (d.msg.headers or {}).get("Nats-Msg-Id", job.id),
        "messaging.consumer.group.name": d.consumer,
        "messaging.nats.stream_sequence": d.seq,
        "messaging.nats.delivery_attempt": d.count,
        "jetjobs.job.id": job.id,
        "jetjobs.job.type": job.type,
    }
