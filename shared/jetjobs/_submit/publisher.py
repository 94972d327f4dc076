"""Submitting jobs: encode, size-check, publish with `Nats-Msg-Id`, record `queued`.

One import against the layers (docs/architecture.md): `_submit` sits below `_joblog`, whose
schedules, replay and cancel publish through this Publisher, yet the publisher writes the job's
`queued` entry in the status ledger (jetjobs._joblog.ledger) before the job itself, and sends its
revision in `Jetjobs-Ledger-Revision`, so that a worker's first claim is one compare-and-set
without a read (DESIGN: the ledger revision header). The ledger imports nothing of `_joblog`'s
other modules nor of `_submit`, so this makes no circle between modules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Unpack

import anyio
import msgspec
import nats.errors
import nats.js.errors
import structlog
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext

from jetjobs._errors import InvalidJob, JobTooLarge, NoStream, describe_error
from jetjobs._joblog.ledger import Ledger, queued_record
from jetjobs._observability import telemetry
from jetjobs._settings import Settings
from jetjobs._submit.validation import check_payload
from jetjobs._transport.requests import Requester, StreamAck
from jetjobs._transport.topology import Topology
from jetjobs._wire.delay import delayed_headers
from jetjobs._wire.envelope import (
    DEFAULT_OPTIONS,
    ENCODER,
    JOB_DECODER,
    Job,
    JobOptionFields,
    JobOptions,
    body_digest,
    new_job_id,
    utcnow,
    wide_integer,
)
from jetjobs._wire.headers import LEDGER_REVISION_HEADER, MSG_ID

log = structlog.get_logger("jetjobs.publisher")


class Enqueued(msgspec.Struct, frozen=True):
    """The answer to a submission: the job id, and whether the stream already had it."""

    id: str
    duplicate: bool
    seq: int


class Publisher:
    """Publishes jobs into a namespace's JOBS stream. Share one per process."""

    def __init__(
        self,
        nc: NATS,
        settings: Settings,
        *,
        topology: Topology | None = None,
        requester: Requester | None = None,
    ) -> None:
        """`topology` and `requester` are shared when given (a worker process has one of each)."""
        self.nc = nc
        self.js: JetStreamContext = nc.jetstream()
        self.settings = settings
        self.topology = topology or Topology(settings)
        self._ledger: Ledger | None = None
        self.requester = requester or Requester(nc)

    async def status_ledger(self) -> Ledger:
        """The status ledger, over this publisher's requester (created with its bucket if missing)."""
        if self._ledger is None:
            self._ledger = Ledger(
                await self.topology.status_kv(self.js),
                requester=self.requester,
                bucket=self.topology.status_bucket,
            )
        return self._ledger

    async def _ready(self, queue: str) -> Ledger:
        await self.topology.ensure_queue(self.js, queue)
        return await self.status_ledger()

    def build(
        self,
        job_type: str,
        payload: Mapping[str, Any] | msgspec.Struct | None = None,
        options: JobOptions | None = None,
        *,
        job_id: str | None = None,
        replay_of: str | None = None,
        **fields: Unpack[JobOptionFields],
    ) -> Job:
        """Make a validated Job (the same checks a worker applies when decoding one).

        `options` (default `JobOptions()`), with any of its fields given as keywords on top.

        Raises:
            msgspec.ValidationError: an argument breaks the envelope schema.
            InvalidJob: the job type's payload check refused the payload (jetjobs._submit.validation), or
                it holds an integer wider than 64 bits.
        """
        chosen = (options or DEFAULT_OPTIONS).replace(**fields)
        body = msgspec.to_builtins(payload) if payload is not None else {}
        raw = {
            "id": job_id or new_job_id(),
            "type": job_type,
            "payload": body,
            "queue": chosen.queue,
            "priority": chosen.priority,
            "created_at": utcnow(),
            "run_at": chosen.run_at,
            "key": chosen.key,
            "max_attempts": chosen.max_attempts,
            "timeout": chosen.timeout,
            "replay_of": replay_of,
        }
        # Round-trip through JSON so that the client sees the worker's validation errors now.
        job = JOB_DECODER.decode(ENCODER.encode(raw))
        if (path := wide_integer(job.payload, "$.payload")) is not None:
            raise InvalidJob(f"integer at `{path}` does not fit in 64 bits; send it as a string")
        check_payload(job.type, job.payload)
        return job

    async def enqueue(
        self,
        job_type: str,
        payload: Mapping[str, Any] | msgspec.Struct | None = None,
        options: JobOptions | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        **fields: Unpack[JobOptionFields],
    ) -> Enqueued:
        """Submit a job and return its id, and whether the stream saw it as a duplicate.

        `options` (default `JobOptions()`), with any of its fields given as keywords on top:
        `enqueue("report.build", {...}, queue="reports", key="report-2026-11")`.
        `key` is the idempotency key (the `Nats-Msg-Id`; default the job id): a second submit
        with the same key inside the stream's duplicate window is reported `duplicate=True` with
        the first job's id and is not run again. A future `run_at` makes it a delayed job: the
        server holds it until then (see jetjobs._joblog.schedule).

        Raises:
            JobTooLarge: the encoded job exceeds `max_job_bytes`.
            msgspec.ValidationError: an argument breaks the envelope schema.
            InvalidJob: the job type's payload check refused the payload; nothing is published.
        """
        job = self.build(job_type, payload, options, **fields)
        return await self.publish(job, headers=headers)

    async def publish(self, job: Job, *, headers: Mapping[str, str] | None = None) -> Enqueued:
        """Publish a prepared Job (see `build`)."""
        ledger = await self._ready(job.queue)
        data = self._encode(job)
        all_headers = dict(headers or {})
        all_headers[MSG_ID] = job.msg_id
        # The `queued` entry goes first, and its revision rides along, so the worker's claim is a
        # single compare-and-set on the first delivery (no read).
        revision = await self._record_queued(ledger, job, data)
        if revision:
            all_headers[LEDGER_REVISION_HEADER] = str(revision)
        subject = self.topology.job_subject(job.queue, job.priority, job.type)
        delayed = delayed_headers(job, subject)
        if delayed is not None:  # held by the server until run_at, then stored on `subject`
            all_headers.update(delayed)
            subject = self.topology.delayed_subject(job.id)
        with telemetry.producer_span(subject, job, all_headers):
            ack = await self._publish_retrying(subject, data, all_headers)
        if ack.duplicate:
            return await self._duplicate(ledger, job, revision, ack.seq)
        return Enqueued(job.id, False, ack.seq)

    async def _record_queued(self, ledger: Ledger, job: Job, data: bytes) -> int | None:
        """Create the job's `queued` entry; None if it exists or cannot be written now.

        The entry is informational (the worker's claim creates it when missing): a status bucket
        electing a leader after a node loss must not stop a submission.
        """
        try:
            return await ledger.write(queued_record(job, body_digest(data)), 0)
        except Exception as exc:
            log.warning("publish.queued_record_failed", job_id=job.id, error=describe_error(exc))
            return None

    async def _duplicate(self, ledger: Ledger, job: Job, revision: int | None, seq: int) -> Enqueued:
        """The stream already had this key: drop our `queued` entry and name the first job."""
        if revision:
            await ledger.discard(job.id, revision)
        original = await self.js.get_msg(self.topology.jobs_stream, seq=seq)
        first_id = JOB_DECODER.decode(original.data).id if original.data else job.id
        return Enqueued(first_id, True, seq)

    def _encode(self, job: Job) -> bytes:
        data = ENCODER.encode(job)
        if len(data) > self.settings.max_job_bytes:
            raise JobTooLarge(
                f"job {job.id} ({job.type}) is {len(data)} bytes; the limit is "
                f"{self.settings.max_job_bytes} (JETJOBS_MAX_JOB_BYTES). Store large inputs elsewhere "
                "and pass a reference."
            )
        return data

    async def publish_many(self, jobs: Sequence[Job], *, window: int = 1024) -> list[Enqueued]:
        """Publish many prepared Jobs, pipelined: up to `window` unacknowledged publishes at once.

        The same guarantees as `publish` (dedup by message id, `queued` ledger entries), at a
        fraction of the round trips. A publish whose ack times out is retried alone.
        """
        if not jobs:
            return []
        for queue in {job.queue for job in jobs}:
            ledger = await self._ready(queue)
        results: list[Enqueued] = []
        for start in range(0, len(jobs), window):
            chunk = jobs[start : start + window]
            bodies = [self._encode(job) for job in chunk]
            created = [
                await ledger.send_create(queued_record(job, body_digest(data)))
                for job, data in zip(chunk, bodies, strict=True)
            ]
            sent = []
            # Each job is published as soon as its `queued` entry is acknowledged (its revision
            # rides along), not after the whole window's entries.
            for job, data, creation in zip(chunk, bodies, created, strict=True):
                revision = await ledger.created(creation)
                headers = {MSG_ID: job.msg_id}
                if revision:
                    headers[LEDGER_REVISION_HEADER] = str(revision)
                subject = self.topology.job_subject(job.queue, job.priority, job.type)
                with telemetry.producer_span(subject, job, headers):
                    reply = await self.requester.send(subject, data, headers)
                sent.append((job, data, revision, subject, headers, reply))
            for job, data, revision, subject, headers, reply in sent:
                try:
                    ack = await reply.ack()
                except (TimeoutError, NoStream):
                    ack = await self._publish_retrying(subject, data, headers)
                if ack.duplicate:
                    results.append(await self._duplicate(ledger, job, revision, ack.seq))
                else:
                    results.append(Enqueued(job.id, False, ack.seq))
        return results

    async def _publish_retrying(self, subject: str, data: bytes, headers: dict[str, str]) -> StreamAck:
        """Publish until acknowledged, for up to `publish_retry_for` seconds.

        Retrying is safe because the message id is the same: if an earlier try was stored but its
        ack was lost (the server restarted), the retry is answered `duplicate` and not stored twice.
        """
        deadline = anyio.current_time() + self.settings.publish_retry_for
        delay = 0.05
        while True:
            try:
                return await self.requester.publish(subject, data, headers)
            except (
                TimeoutError,
                NoStream,
                nats.errors.ConnectionClosedError,
                nats.errors.ConnectionReconnectingError,
            ) as exc:
                if anyio.current_time() + delay > deadline:
                    raise
                log.warning("publish.retry", subject=subject, error=describe_error(exc), delay=delay)
                await anyio.sleep(delay)
                delay = min(delay * 2, 1.0)
