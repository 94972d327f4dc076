"""One delivery, from admission to ack, nak or term: the per-job path of the worker.

Order of writes, chosen so that a crash at any point loses nothing and completes nothing twice:
Each delivery is one `Delivery` value (jetjobs._runtime.delivery), decoded by the fetcher.

1. admit: the envelope decoded, find the handler, convert the payload; any failure → DLQ `invalid`
   (an invalid message settles only a ledger entry that is its own: see `_refuse`); a `run_at`
   still ahead → handed to the server's scheduler, which delivers it again when due;
2. read the ledger (first from the burst's batch read, sent when the burst arrived): terminal →
   settle without running (a second message naming a finished job is reported as a
   `duplicate`); max_attempts executions → DLQ `exhausted`;
3. claim: CAS `running` (attempt n = executions so far + 1) on the revision just read: from here
   a newer attempt fences this one out. Never on a revision a message carries: a header says what
   its sender claims, not what the entry is, and a CAS on the current revision of a `succeeded`
   entry would overwrite it. With `claim_after` above 0 (off by default), a first delivery of a
   job allowed more than one attempt is claimed late: its handler starts at once, and the claim is
   written only if it is still running after `claim_after` seconds. A job that ends sooner is
   recorded by its outcome's one write, a CAS on the revision read, which fences it just the same;
4. run the handler under the job's timeout;
5. CAS the outcome against the `running` revision (or the one read, if never claimed); only if
   that wins: ack / nak(delay) / DLQ+term; if it lost to an operator's `cancelled` (see
   jetjobs._joblog.cancel): term, and the entry stays cancelled.

An attempt is an execution, not a delivery: the attempt number is the ledger's count of claims
plus one. A delivery handed back unstarted (released at shutdown, NAKed by the supervisor for a
worker that never started it, left to a live holder) costs the job nothing. A late claim can
leave one execution uncounted: a first delivery that ends with its worker's death, or whose outcome
the ledger could not take, within `claim_after` of its start (every redelivery, and every job with
`max_attempts=1`, is claimed before it starts).
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Awaitable, Callable, Coroutine, Generator
from contextlib import nullcontext
from functools import partial
from typing import Any, Literal

import anyio
import msgspec
import nats.errors
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from jetjobs._errors import InvalidJob, JobTimeout, StreamError, describe_error
from jetjobs._joblog.dead_letters import DeadLetters
from jetjobs._joblog.ledger import Ledger, parse_revision, transition
from jetjobs._joblog.schedule import at_pattern, schedule_headers
from jetjobs._observability import telemetry
from jetjobs._observability.metrics import WorkerMetrics
from jetjobs._runtime.app import App, Handler, JobContext
from jetjobs._runtime.delivery import Delivery
from jetjobs._runtime.lease import LeaseKeeper
from jetjobs._runtime.outcome import Backoff, Dead, Outcome, RetryLater, Succeeded, classify
from jetjobs._settings import Settings
from jetjobs._submit.publisher import Publisher
from jetjobs._transport.outbound import Outbound
from jetjobs._transport.requests import Requester
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import (
    TERMINAL_STATES,
    DeadLetter,
    Job,
    JobDuplicate,
    JobEvent,
    StatusRecord,
    body_digest,
    utcnow,
)
from jetjobs._wire.headers import LEDGER_REVISION_HEADER, SCHEDULER

log = structlog.get_logger("jetjobs.worker")

_CLAIM_TRIES = 5
# A ledger request that failed without a compare-and-set verdict (no reply, no stream leader, an
# unreadable reply, a connection being re-established): the write may have landed or not.
_UNANSWERED = (TimeoutError, StreamError, nats.errors.Error, OSError, msgspec.DecodeError)
_READ_BACK_PAUSE = 0.5
_EVENT_ENCODER = msgspec.json.Encoder()
# A `run_at` at most this far ahead runs now: clocks of client, server and worker differ a little.
RUN_AT_TOLERANCE = 1.0


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
        self.app = app
        self.held_by = held_by
        self.metrics = metrics
        self.settings = settings
        self.backoff = Backoff.of(settings)
        self.claim_after = settings.claim_after
        self.topology = topology
        self.nc = nc
        self.requester = requester
        self.outbound = outbound
        self.ledger = ledger
        self.dead_letters = dead_letters
        self.publisher = publisher
        self.lease = lease
        self.worker_id = worker_id
        self.events_prefix = topology.events_subject("job.")
        self.duplicate_subject = topology.events_subject("duplicate")
        self.threads = anyio.CapacityLimiter(concurrency)
        self.counts: dict[str, int] = {}
        self.listeners: list[Callable[[str, str], None]] = []
        self.running: dict[str, JobContext] = {}
        # Cancels that arrived for jobs not running here (yet): checked when a handler starts.
        self._cancels: dict[str, None] = {}

    def _count(self, outcome: str, job_id: str, job_type: str = "-", error: str | None = None) -> None:
        """Tally an ending (succeeded, retried, dead, invalid, skipped, ...): counts, metrics, span."""
        self.counts[outcome] = self.counts.get(outcome, 0) + 1
        if self.metrics is not None:
            self.metrics.job_finished(job_type, outcome)
        telemetry.mark_outcome(outcome, error)
        for listener in self.listeners:
            listener(outcome, job_id)

    def cancel_running(self, job_id: str) -> bool:
        """Tell the handler running `job_id` here, if any, that its job was cancelled."""
        ctx = self.running.get(job_id)
        if ctx is None:
            self._cancels[job_id] = None
            while len(self._cancels) > 1024:
                del self._cancels[next(iter(self._cancels))]
            return False
        ctx.cancelled.set()
        return True

    def resolve(self, msg: Msg, job: Job) -> tuple[Handler, Any]:
        """Find the job's handler and convert its payload.

        Raises:
            InvalidJob: the job can never run here (subject, type or payload is wrong).
        """
        expected = self.topology.job_subject(job.queue, job.priority, job.type)
        if msg.subject != expected:
            raise InvalidJob(f"published on {msg.subject} but the envelope says {expected}")
        handler = self.app.handlers.get(job.type)
        if handler is None:
            raise InvalidJob(
                f"unknown job type {job.type!r}; this worker handles {sorted(self.app.handlers)}"
            )
        try:
            payload = msgspec.convert(job.payload, handler.payload_type)
        except msgspec.ValidationError as exc:
            raise InvalidJob(f"payload of {job.type} does not match its schema: {exc}") from None
        return handler, payload

    async def process(self, d: Delivery) -> None:
        """Run one delivery to its end. Never raises once decoded, except cancellation (shutdown)."""
        msg, job = d.msg, d.job
        if job is None:
            await self._dead_letter(d, None, d.count, "invalid", d.invalid)
            await self._finish(d, "term")
            self._count("invalid", f"invalid-{d.seq}", error=d.invalid)
            log.warning("job.invalid", stream_seq=d.seq, error=d.invalid)
            return
        headers = msg.headers or {}

        def span_attributes() -> dict[str, Any]:  # built only when tracing is on
            return {
                "messaging.message.id": headers.get("Nats-Msg-Id", job.id),
                "messaging.consumer.group.name": d.consumer,
                "messaging.nats.stream_sequence": d.seq,
                "messaging.nats.delivery_attempt": d.count,
                "jetjobs.job.id": job.id,
                "jetjobs.job.type": job.type,
            }

        with telemetry.consumer_span(msg.subject, headers, job.type, span_attributes):
            # Bound for every log line of this job, the handler's own included. (Tokens, not
            # `bound_contextvars`, which scans the whole context twice per job.)
            tokens = structlog.contextvars.bind_contextvars(
                job_id=job.id, type=job.type, delivery=d.count, **telemetry.log_ids()
            )
            try:
                await self._process_job(d, job)
            except Exception as exc:
                # Ledger or stream I/O failed (connection lost, no reply): the lease expires or
                # the supervisor NAKs, and the job comes back. Logged here, inside the job's context.
                self.lease.release(msg)
                log.error("job.process_failed", error=describe_error(exc))
            finally:
                structlog.contextvars.reset_contextvars(**tokens)

    async def _process_job(self, d: Delivery, job: Job) -> None:
        try:
            handler, payload = self.resolve(d.msg, job)
        except InvalidJob as exc:
            await self._refuse(d, job, str(exc))
            return
        if await self._defer(d, job):
            return
        if not await self._claim(d, job):
            return
        tokens = structlog.contextvars.bind_contextvars(attempt=d.attempt)
        telemetry.mark_attempt(d.attempt)
        try:
            await self._process_valid(d, job, handler, payload)
        finally:
            structlog.contextvars.reset_contextvars(**tokens)

    async def _process_valid(self, d: Delivery, job: Job, handler: Handler, payload: Any) -> None:
        if self.metrics is not None:
            self.metrics.job_started(job.type, redelivered=d.count > 1)
        started = time.monotonic()
        try:
            result, error = await self._run(handler, d, job, payload), None
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._settle_claim(d)
                if d.claimed:
                    await self.ledger.write(
                        transition(job, "queued", attempt=d.attempt, worker=None), d.revision
                    )
                await self._finish(d, "nak")
                log.info("job.interrupted", reason="worker shutting down; redelivered now")
            raise
        except Exception as exc:
            result, error = None, exc
        outcome = classify(
            error, result, attempt=d.attempt, max_attempts=job.max_attempts, backoff=self.backoff
        )
        elapsed = time.monotonic() - started
        if d.claim is not None:
            await self._settle_claim(d)
        settled = await self._settle(d, job, outcome)
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

    async def _refuse(self, d: Delivery, job: Job, error: str) -> None:
        """Dead-letter a well-formed job that cannot run here (type, payload or subject is wrong).

        Its id is only what the message claims: another message (a real job) may own that id. So
        the ledger entry is settled `dead` only if it is this message's own (none yet, or written
        for this very body: its digest); any other entry is left alone and the dead letter is
        filed under the message's stream sequence, not under the id.
        """
        digest = body_digest(d.msg.data)
        record, revision = await self.ledger.get(job.id)
        own = record is None or (record.digest == digest and record.state in ("queued", "dead"))
        if own and record is not None and record.state == "dead":
            await self._settle_terminal(d, job, record)  # a redelivery after a crash
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
                await self._dead_letter(d, job, dead.attempt, "invalid", error)
                await self._finish(d, "term")
                self._announce(job, "dead", dead.attempt)
                self._count("invalid", job.id, job.type, error)
                log.warning("job.invalid", error=error)
                return
            # The entry changed under us (another message of this id got there first).
        error = f"job id {job.id} belongs to another message; {error}"
        await self._dead_letter(d, None, d.count, "invalid", error, claims=job)
        await self._finish(d, "term")
        self._count("invalid", f"invalid-{d.seq}", job.type, error)
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
        await self._finish(d, "ack")
        self._count("deferred", job.id, job.type)
        log.info("job.deferred", run_at=job.run_at.isoformat(), subject=subject)
        return True

    def _ledger_hint(self, msg: Msg) -> int | None:
        """The revision in the publisher's `Jetjobs-Ledger-Revision` header; a malformed one is
        ignored, counted and logged (a client can send anything), never a failure of the job."""
        value = (msg.headers or {}).get(LEDGER_REVISION_HEADER)
        if value is None:
            return None
        hint = parse_revision(value)
        if hint is None:
            self.counts["bad_header"] = self.counts.get("bad_header", 0) + 1
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

    async def _claim(self, d: Delivery, job: Job) -> bool:
        """Record `running` for the next attempt (sets `d.attempt`, `d.revision`); False when it
        must not run.

        Each decision is taken on an entry read after the delivery arrived (the first read is the
        burst's, asked for when it arrived), and the claim is a compare-and-set on the revision
        read: if the entry changed since, the claim loses and the entry is read again.
        """
        msg = d.msg
        hint = self._ledger_hint(msg)
        for tries in range(_CLAIM_TRIES):
            record, revision = await self._read(d, job)
            if tries == 0 and hint is not None and d.count == 1 and revision != hint:
                # Not what our publisher left (a cancel or requeue since, or a header the sender
                # made up): only diagnostic, the entry read decides.
                log.info("job.ledger_hint_differs", hint=hint, revision=revision)
            if record is not None and record.state in TERMINAL_STATES:
                await self._settle_terminal(d, job, record)
                return False
            if record is not None and record.state == "running" and record.delivery > d.count:
                # A newer delivery of this job holds it; this one is stale (a paused worker woke up).
                self.lease.release(msg)
                self._count("stale", job.id, job.type)
                log.warning("job.stale_delivery", holder=record.worker, holder_attempt=record.attempt)
                return False
            if record is not None and self._held(d, job, record):
                # A live worker runs this job under an earlier delivery (a stray redelivery: a
                # recovery NAK that raced it). Leave it to the holder, whose ack settles it; if
                # the holder dies, its heartbeat expires and the job comes back.
                self.lease.release(msg)
                self._count("held_elsewhere", job.id, job.type)
                log.info("job.held_elsewhere", holder=record.worker, holder_attempt=record.attempt)
                return False
            ran = record.attempt if record is not None else 0
            if ran >= job.max_attempts:
                # The last execution never recorded an outcome (its worker died or lost the ledger).
                error = f"ran {ran} times without finishing (max_attempts={job.max_attempts})"
                if record is not None and record.error:
                    error += f"; last error: {record.error}"
                d.attempt, d.revision = ran, revision
                await self._die(d, job, Dead("exhausted", error))
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
        self._count("raced", job.id, job.type)
        log.warning("job.claim_failed", reason="the ledger entry kept changing; left for redelivery")
        return False

    def _held(self, d: Delivery, job: Job, record: StatusRecord) -> bool:
        """Whether a live worker runs this job under an earlier delivery: a `running` entry of a
        live holder, or this worker running it still unclaimed (its entry `queued`)."""
        if record.state == "running":
            if record.worker == self.worker_id:
                return job.id in self.running
            return self.held_by(record.worker, d.seq)
        return record.state == "queued" and d.count > 1 and job.id in self.running

    def _arm_claim(self, d: Delivery, job: Job) -> asyncio.TimerHandle | None:
        """For a delivery claimed late: start its claim once the handler has run `claim_after`."""
        if d.claimed:
            return None

        def start() -> None:
            d.claim = asyncio.create_task(self._claim_late(d, job))

        return asyncio.get_running_loop().call_later(self.claim_after, start)

    async def _claim_late(self, d: Delivery, job: Job) -> None:
        """Write `running` over the revision read (or one the publisher's `queued` record moved it
        to). If the entry changed otherwise (a cancel, another delivery's claim), the outcome's
        compare-and-set will lose, and `_fenced` settles the delivery."""
        running = transition(job, "running", attempt=d.attempt, worker=self.worker_id, delivery=d.count)
        try:
            claimed, current = await self._over_queued(d, job.id, partial(self.ledger.write, running))
        except Exception as exc:  # unanswered: the outcome's CAS decides (see _write_outcome)
            log.warning("job.late_claim_failed", error=describe_error(exc))
            return
        if claimed is None:
            log.info("job.late_claim_lost", state=current.state if current else None)
            return
        d.revision, d.claimed = claimed, True

    async def _over_queued(
        self, d: Delivery, job_id: str, write: Callable[[int], Awaitable[int | None]]
    ) -> tuple[int | None, StatusRecord | None]:
        """`write(revision)` for an attempt not claimed yet, over the revision its admission read;
        if that loses while the entry is still this attempt's `queued` (the publisher's record
        landed after the read), over the new revision. Returns the revision written (None when
        something else was written) and the entry last read, if any."""
        revision, current = d.revision, None
        for _ in range(_CLAIM_TRIES):
            written = await write(revision)
            if written is not None:
                return written, current
            current, revision = await self.ledger.get(job_id)
            if current is None or current.state != "queued" or current.attempt != d.attempt - 1:
                break
        return None, current

    async def _settle_claim(self, d: Delivery) -> None:
        """Wait for a late claim in flight, so that the outcome names the revision it wrote."""
        claim, d.claim = d.claim, None
        if claim is not None:
            try:
                await claim
            except Exception as exc:
                log.warning("job.late_claim_failed", error=describe_error(exc))

    async def _run(self, handler: Handler, d: Delivery, job: Job, payload: Any) -> Any:
        ctx = JobContext(
            job=job,
            attempt=d.attempt,
            worker_id=self.worker_id,
            publisher=self.publisher,
            headers=dict(d.msg.headers or {}),
            stored_at=d.stored_at,
            received_at=d.received_at,
        )
        self.running[job.id] = ctx
        if job.id in self._cancels:  # the cancel arrived between the claim and now
            del self._cancels[job.id]
            ctx.cancelled.set()
        timer = self._arm_claim(d, job)
        try:
            if handler.is_async:
                return await run_async_handler(handler.fn(ctx, payload), job.timeout)
            with anyio.move_on_after(job.timeout) if job.timeout else nullcontext():
                return await anyio.to_thread.run_sync(
                    handler.fn, ctx, payload, abandon_on_cancel=True, limiter=self.threads
                )
            # Only reached when the timeout cancelled the wait for the thread.
            raise JobTimeout(f"handler ran longer than the job's timeout of {job.timeout}s")
        finally:
            if timer is not None:
                timer.cancel()
            if self.running.get(job.id) is ctx:
                del self.running[job.id]

    def _result(self, value: Any) -> Any:
        try:
            builtins = msgspec.to_builtins(value)
            size = len(msgspec.json.encode(builtins))
        except (TypeError, msgspec.EncodeError) as exc:
            return {"unserializable": describe_error(exc)}
        if size > self.settings.max_result_bytes:
            return {"truncated": True, "bytes": size}
        return builtins

    async def _settle(self, d: Delivery, job: Job, outcome: Outcome) -> str | None:
        """Record the outcome and settle the delivery; returns `cancelled`/`fenced` if the CAS lost."""
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
                if await self._record(d, record) is None:
                    return await self._fenced(d, job)
                await self._finish(d, "ack")
                self._announce(job, "succeeded", d.attempt)
                self._count("succeeded", job.id, job.type)
            case RetryLater(delay, error):
                record = transition(job, "failed", attempt=d.attempt, worker=self.worker_id, error=error)
                if await self._record(d, record) is None:
                    return await self._fenced(d, job)
                await self._finish(d, "nak", delay)
                self._count("retried", job.id, job.type, error)
            case Dead():
                return await self._die(d, job, outcome)
        return None

    async def _die(self, d: Delivery, job: Job, outcome: Dead) -> str | None:
        record = transition(
            job,
            "dead",
            attempt=d.attempt,
            worker=self.worker_id,
            error=outcome.error,
            dead_reason=outcome.reason,
            stream_seq=d.seq,
        )
        if await self._record(d, record) is None:
            return await self._fenced(d, job)
        await self._dead_letter(d, job, d.attempt, outcome.reason, outcome.error)
        await self._finish(d, "term")
        self._announce(job, "dead", d.attempt)
        self._count("invalid" if outcome.reason == "invalid" else "dead", job.id, job.type, outcome.error)
        return None

    async def _settle_terminal(self, d: Delivery, job: Job, record: StatusRecord) -> None:
        """A delivery of a job that already ended: finish it without running the handler."""
        if self._is_duplicate(d, record):
            await self._drop_duplicate(d, job, record)
            return
        if record.state == "dead" and await self.dead_letters.show(job.id) is None:
            # The previous attempt recorded `dead` but crashed before writing the dead letter.
            await self._dead_letter(
                d, job, record.attempt, record.dead_reason or "exhausted", record.error or ""
            )
        await self._finish(d, "ack" if record.state == "succeeded" else "term")
        self._count("cancelled" if record.state == "cancelled" else "skipped", job.id, job.type)
        log.info("job.already_finished", state=record.state)

    def _record(self, d: Delivery, record: StatusRecord) -> Awaitable[int | None]:
        """Write an attempt's outcome; None when a newer write won. Over the `running` revision of
        a claimed attempt; over the revision read for one never claimed (`_over_queued`)."""
        if d.claimed:
            return self._write_outcome(record, d.revision)
        return self._outcome_unclaimed(d, record)

    async def _outcome_unclaimed(self, d: Delivery, record: StatusRecord) -> int | None:
        written, _ = await self._over_queued(d, record.id, partial(self._write_outcome, record))
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

    @staticmethod
    def _is_duplicate(d: Delivery, record: StatusRecord) -> bool:
        """Whether this is another message naming a job that already ended (not a redelivery).

        A worker's terminal entry names the stream sequence of the message it settled; any other
        message is another submission of the id. (Not the delivery count: a server that restarts
        without its consumer state counts a redelivery as a first delivery again.) An entry that
        names no message (a cancel, an older jetjobs) is never taken for a duplicate.
        """
        return record.stream_seq not in (0, d.seq)

    async def _drop_duplicate(self, d: Delivery, job: Job, record: StatusRecord) -> None:
        """Ack a second message naming a finished job without running it, and say so loudly.

        An id names one job forever; new work needs a new id. The payload is dropped: the
        warning, the `duplicate` count and the `<ns>.events.duplicate` event tell the client. (Not
        under `<ns>.events.job.`, whose listeners read every message there as a JobEvent.)
        """
        msg = d.msg
        await self._finish(d, "ack")
        self._count("duplicate", job.id, job.type)
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

    def _announce(self, job: Job, outcome: Literal["succeeded", "dead"], attempt: int) -> None:
        """Tell listeners on `<ns>.events.job.<outcome>` (fire and forget: never blocks the job)."""
        event = JobEvent(
            job_id=job.id, type=job.type, outcome=outcome, attempt=attempt, worker=self.worker_id, at=utcnow()
        )
        try:
            self.outbound.publish(self.events_prefix + outcome, _EVENT_ENCODER.encode(event))
        except Exception as exc:
            log.warning("job.announce_failed", error=describe_error(exc))

    async def _fenced(self, d: Delivery, job: Job) -> str:
        record, _ = await self.ledger.get(job.id)
        if record is not None and record.state == "cancelled":
            # Cancelled while it ran: the entry stays `cancelled`, and the job is never redelivered.
            await self._finish(d, "term")
            self._count("cancelled", job.id, job.type)
            log.info("job.cancelled", reason="cancelled while running; result not recorded")
            return "cancelled"
        self.lease.release(d.msg)
        self._count("fenced", job.id, job.type)
        log.warning("job.fenced", reason="a newer attempt owns this job; result not recorded")
        return "fenced"

    async def _dead_letter(
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

    async def _finish(self, d: Delivery, action: str, delay: float | None = None) -> None:
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


def run_async_handler(handler_call: Coroutine[Any, Any, Any], timeout: float | None) -> Awaitable[Any]:
    """Await an async handler in a context of its own, cancelled with JobTimeout after `timeout`.

    The handler's coroutine is stepped by the awaiting task (no task of its own: creating one and
    waking the runner when it ends cost more than the rest of a no-op job's run), each step inside
    a copy of the context: whatever context variables the handler sets (structlog binds, library
    state) end with the job instead of leaking into the runner's next one. The timeout is a loop
    timer cancelling the task at the handler's start plus `timeout`, armed only once the handler
    suspends (one that finishes in its first step never yields to a timer), and told apart from
    any other cancellation the way `asyncio.timeout` does; cancellation of the runner (shutdown)
    reaches the handler through the await.
    """
    return _Isolated(handler_call, timeout)


class _Isolated:
    __slots__ = ("_context", "_coro", "_timeout")

    def __init__(self, coro: Coroutine[Any, Any, Any], timeout: float | None) -> None:
        self._coro, self._timeout = coro, timeout
        self._context = contextvars.copy_context()

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, run = self._coro, self._context.run
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            yielded = run(coro.send, None)
        except StopIteration as done:
            return done.value
        if not self._timeout:
            return (yield from _steps(coro, run, yielded))
        timeout = self._timeout
        task = asyncio.current_task()
        assert task is not None, "a handler is awaited by a task"
        cancelling = task.cancelling()
        expired = False

        def expire() -> None:
            nonlocal expired
            expired = True
            task.cancel()

        timer = loop.call_at(started + timeout, expire)  # the deadline counts the first step
        try:
            return (yield from _steps(coro, run, yielded))
        except asyncio.CancelledError:
            if expired:
                expired = False  # the cancel it made is taken back here, once
                if task.uncancel() <= cancelling:
                    raise JobTimeout(f"handler ran longer than the job's timeout of {timeout}s") from None
            raise
        finally:
            timer.cancel()
            if expired:  # the handler swallowed the timeout's cancel and ended otherwise
                task.uncancel()


def _steps(coro: Coroutine[Any, Any, Any], run: Callable[..., Any], yielded: Any) -> Generator[Any, Any, Any]:
    """Go on stepping a suspended coroutine inside `run` (a context's `run`), as `yield from`
    would: what the task sends or throws goes to the coroutine, what it yields to the task."""
    step: Callable[[Any], Any]
    while True:
        try:
            sent = yield yielded
        except BaseException as exc:  # every throw goes to the handler (GeneratorExit included)
            step, sent = coro.throw, exc
        else:
            step = coro.send
        try:
            yielded = run(step, sent)
        except StopIteration as done:
            return done.value
