"""The status ledger: one KV entry per job id, changed only by compare-and-set.

Delivery is at-least-once; completion is once. Each transition names the revision it read, so a
worker whose lease was lost (a newer attempt has written `running` since) cannot record a
completion over the newer attempt, and a redelivered job whose entry is terminal is not run again.
"""

from __future__ import annotations

import re
from typing import Any

import anyio
import nats.js.errors
from nats.aio.msg import Msg
from nats.js.kv import KeyValue

from jetjobs._errors import StreamError, WrongLastSequence
from jetjobs._transport.requests import BatchReply, Reply, Requester
from jetjobs._wire.envelope import ENCODER, STATUS_DECODER, DeadReason, Job, JobState, StatusRecord, utcnow
from jetjobs._wire.headers import EXPECTED_LAST_SUBJECT_SEQUENCE, KV_OPERATION, SEQUENCE, SUBJECT

_CREATE = {EXPECTED_LAST_SUBJECT_SEQUENCE: "0"}
# A KV revision is a stream sequence, an unsigned 64-bit integer: at most 20 ASCII digits.
_REVISION = re.compile(r"[0-9]{1,20}")


class Ledger:
    """Reads and compare-and-set writes of job status records.

    With a `Requester` (the worker's and publisher's hot path) reads are direct gets and writes are
    pipelined publishes with msgspec-decoded acks; without one, nats-py's KeyValue API is used.
    """

    def __init__(self, kv: KeyValue, *, requester: Requester | None = None, bucket: str = "") -> None:
        self.kv = kv
        self.requester = requester if bucket else None
        self._stream = f"KV_{bucket}"
        self._prefix = f"$KV.{bucket}."

    async def get(self, job_id: str) -> tuple[StatusRecord | None, int]:
        """The job's record and its revision; `(None, 0)` when the job has no entry."""
        if self.requester is not None:
            msg = await self.requester.direct_get_last(self._stream, self._prefix + job_id)
            return (None, 0) if msg is None else _entry(msg)
        try:
            entry = await self.kv.get(job_id)
        except nats.js.errors.KeyNotFoundError:
            return None, 0
        if not entry.value:
            return None, entry.revision or 0
        return STATUS_DECODER.decode(entry.value), entry.revision or 0

    async def send_get_many(self, job_ids: list[str]) -> Reads:
        """Ask for the entries of many jobs in one request; `Reads.entry()` waits for the answer.

        Pipelined, so it needs the Requester (the worker's ledger has one).
        """
        assert self.requester is not None, "send_get_many needs a Ledger built with a Requester"
        subjects = [self._prefix + job_id for job_id in job_ids]
        return Reads(await self.requester.send_direct_get_last_many(self._stream, subjects), self._prefix)

    async def write(self, record: StatusRecord, revision: int) -> int | None:
        """Store `record` if the entry is still at `revision` (0: if it does not exist).

        Returns:
            The new revision, or None when someone else changed the entry first.
        """
        if self.requester is not None:
            try:
                ack = await self.requester.publish(
                    self._prefix + record.id,
                    ENCODER.encode(record),
                    {EXPECTED_LAST_SUBJECT_SEQUENCE: str(revision)},
                )
            except WrongLastSequence:
                return None
            return ack.seq
        try:
            return await self.kv.update(record.id, ENCODER.encode(record), last=revision)
        except nats.js.errors.KeyWrongLastSequenceError:
            return None

    async def send_create(self, record: StatusRecord) -> Reply:
        """Send the creation of an entry that must not exist yet; `created()` reads the answer.

        Pipelined, so it needs the Requester (the publisher's ledger has one).
        """
        assert self.requester is not None, "send_create needs a Ledger built with a Requester"
        return await self.requester.send(self._prefix + record.id, ENCODER.encode(record), _CREATE)

    @staticmethod
    async def created(reply: Reply) -> int | None:
        """The new entry's revision; None where it existed already, or on failure."""
        try:
            return (await reply.ack()).seq
        except (StreamError, TimeoutError):
            return None

    async def put(self, record: StatusRecord) -> int:
        """Store `record` unconditionally (operator actions: requeue, cancel)."""
        return await self.kv.put(record.id, ENCODER.encode(record))

    async def discard(self, job_id: str, revision: int) -> None:
        """Delete the entry if it is still at `revision` (a `queued` entry for a duplicate submit)."""
        headers = {KV_OPERATION: "DEL", EXPECTED_LAST_SUBJECT_SEQUENCE: str(revision)}
        try:
            if self.requester is not None:
                await self.requester.publish(self._prefix + job_id, b"", headers)
            else:
                await self.kv.delete(job_id, last=revision)
        except (WrongLastSequence, nats.js.errors.KeyWrongLastSequenceError):
            pass


def _entry(msg: Msg) -> tuple[StatusRecord | None, int]:
    """The record and revision a direct get answered with (None for a deleted entry)."""
    headers = msg.headers or {}
    revision = int(headers.get(SEQUENCE, "0"))
    if not msg.data or headers.get(KV_OPERATION) in ("DEL", "PURGE"):
        return None, revision
    return STATUS_DECODER.decode(msg.data), revision


class Reads:
    """The entries of a batch of jobs, read in one request (`Ledger.send_get_many`).

    Awaited once, by whichever claim needs it first; every claim of the batch then finds its own
    entry there. A job the answer leaves out has no entry.
    """

    def __init__(self, batch: BatchReply, prefix: str) -> None:
        self._batch: BatchReply | None = batch
        self._prefix = prefix
        self._entries: dict[str, tuple[StatusRecord | None, int]] | None = None
        self._answered = anyio.Event()

    async def entry(self, job_id: str) -> tuple[StatusRecord | None, int] | None:
        """The job's record and revision as read (`(None, 0)`: no entry); None when the batch
        failed (no answer, a refusal, an unreadable entry): the caller then reads it alone."""
        if self._batch is not None:
            batch, self._batch = self._batch, None
            try:
                entries = {}
                for msg in await batch.messages():
                    subject = (msg.headers or {}).get(SUBJECT, "")
                    entries[subject.removeprefix(self._prefix)] = _entry(msg)
                self._entries = entries
            except Exception:
                pass  # each claim reads its own entry
            finally:
                self._answered.set()
        if not self._answered.is_set():  # (anyio's wait would yield to the loop even when set)
            await self._answered.wait()
        if self._entries is None:
            return None
        return self._entries.get(job_id, (None, 0))


def parse_revision(value: str) -> int | None:
    """The revision a `Jetjobs-Ledger-Revision` header names; None when it is not a revision.

    `str.isdigit()` is not enough: it accepts `²` and other digits `int()` refuses.
    """
    if _REVISION.fullmatch(value) is None:
        return None
    revision = int(value)
    return revision if 0 < revision < 2**64 else None


def queued_record(job: Job, digest: str | None = None) -> StatusRecord:
    """The entry of a job that is waiting to run; `digest` is its message's `body_digest`."""
    return StatusRecord(id=job.id, type=job.type, state="queued", updated_at=utcnow(), digest=digest)


def transition(
    job: Job,
    state: JobState,
    *,
    attempt: int,
    worker: str | None,
    result: Any = None,
    error: str | None = None,
    dead_reason: DeadReason | None = None,
    stream_seq: int = 0,
    delivery: int = 0,
) -> StatusRecord:
    """The next record of a job, keeping nothing stale from the previous one.

    `stream_seq`: the JOBS stream sequence of the delivery writing it (terminal states need it);
    `delivery`: its JetStream delivery count (a `running` claim needs it).
    """
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
        stream_seq=stream_seq,
        delivery=delivery,
    )
