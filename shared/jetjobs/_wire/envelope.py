"""The wire contract: the job envelope, the status record and the dead-letter record.

Every message jetjobs writes is one of these msgspec Structs, JSON-encoded. `schemas/` holds the
JSON Schemas generated from them (`jetjobs schemas --write schemas`). Evolution rule: new fields
get defaults, unknown fields are ignored by decoders, a field never changes type.
"""

from __future__ import annotations

import hashlib
import os
import time
import uuid
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypedDict, Unpack

import msgspec

from jetjobs._errors import InvalidJob

Priority = Literal["high", "normal", "low"]
PRIORITIES: tuple[Priority, ...] = ("high", "normal", "low")

JobState = Literal["queued", "running", "succeeded", "failed", "dead", "cancelled"]
TERMINAL_STATES: frozenset[str] = frozenset({"succeeded", "dead", "cancelled"})

DeadReason = Literal["invalid", "exhausted", "rejected", "timeout"]

# Job ids and queue names become subject tokens and KV keys, so they keep to a safe alphabet.
JobId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,128}$", description="ULID/UUID-like id")]
QueueName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
JobType = Annotated[
    str,
    msgspec.Meta(
        pattern=r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$",
        max_length=128,
        description="dotted job type, e.g. `email.send`",
    ),
]
MaxAttempts = Annotated[int, msgspec.Meta(ge=1, le=1000)]
TimeoutSeconds = Annotated[float, msgspec.Meta(gt=0, le=7 * 24 * 3600)]
# RFC 3339 with its offset: a time without one names no instant, so the decoder refuses it.
Timestamp = Annotated[
    datetime, msgspec.Meta(tz=True, description="RFC 3339 date-time with `Z` or a `+hh:mm` offset")
]
RunAt = Annotated[
    datetime,
    msgspec.Meta(
        tz=True,
        description="RFC 3339 date-time with an offset: do not run before then. A worker that "
        "receives the job earlier hands it to the server's scheduler (`<ns>.schedules.at.<id>`) "
        "and runs it when it is due",
    ),
]

# Integers anywhere in a payload must fit in 64 bits, the widest integer most JSON clients hold
# natively (Go int64/uint64, Java long, Rust i64/u64); msgspec would accept any size. Floats must
# be finite doubles, which msgspec already enforces (`1e999999` is out of range).
INT_MIN = -(2**63)
INT_MAX = 2**64 - 1
# Every digit made a "0", so that a run of 19 digits is one `find` (a regular expression took
# six times as long, once per job).
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789", b"0" * 10)
_RUN_OF_19 = b"0" * 19


def _has_long_digit_run(data: bytes) -> bool:
    """Whether `data` has 19 digits in a row (only then can it hold an integer past 64 bits)."""
    return data.translate(_DIGITS_AS_ZERO).find(_RUN_OF_19) >= 0


PAYLOAD_DESCRIPTION = (
    "The job type's input, a JSON object. Integers anywhere inside must lie in "
    f"[{INT_MIN}, {INT_MAX}] (64 bits); numbers with a fraction or exponent must be finite "
    "IEEE 754 doubles. A payload breaking either rule makes the job invalid (dead-lettered)."
)


IdempotencyKey = Annotated[str, msgspec.Meta(min_length=1, max_length=256)]


class JobOptions(msgspec.Struct, kw_only=True, frozen=True):
    """How a job is submitted: the envelope fields a caller chooses, and their defaults.

    The one place these defaults live: `Publisher.enqueue` / `build`, `JobContext.enqueue` and
    `Schedules.add` take `options=JobOptions(...)`, or the same names as keywords (which override
    `options`), and the envelope's own defaults are these. The limits are the envelope's types
    (`QueueName`, `MaxAttempts`, ...), checked when the job is built (`msgspec.ValidationError`).

    ```python
    urgent = JobOptions(queue="reports", priority="high", max_attempts=3)
    await publisher.enqueue("report.build", {"month": "2026-11"}, urgent, key="report-2026-11")
    ```
    """

    queue: QueueName = "default"
    priority: Priority = "normal"
    # The idempotency key (`Nats-Msg-Id`); None: the job id.
    key: IdempotencyKey | None = None
    max_attempts: MaxAttempts = 5
    # Seconds per attempt; None: no limit.
    timeout: TimeoutSeconds | None = 300.0
    # Do not run before then (a delayed job, held by the server).
    run_at: RunAt | None = None

    def replace(self, **fields: Unpack[JobOptionFields]) -> JobOptions:
        """These options with `fields` changed (a keyword given as None sets None)."""
        return msgspec.structs.replace(self, **fields) if fields else self


class JobOptionFields(TypedDict, total=False):
    """The fields of JobOptions as keywords: what `enqueue(..., queue="x")` may pass."""

    queue: str
    priority: Priority
    key: str | None
    max_attempts: int
    timeout: float | None
    run_at: datetime | None


DEFAULT_OPTIONS = JobOptions()


class Job(msgspec.Struct, kw_only=True, frozen=True):
    """A unit of work, as published on `<namespace>.jobs.<queue>.<priority>.<type>`."""

    id: JobId
    type: JobType
    payload: Annotated[dict[str, Any], msgspec.Meta(description=PAYLOAD_DESCRIPTION)] = {}
    queue: QueueName = DEFAULT_OPTIONS.queue
    priority: Priority = DEFAULT_OPTIONS.priority
    created_at: Timestamp
    run_at: RunAt | None = DEFAULT_OPTIONS.run_at
    key: IdempotencyKey | None = DEFAULT_OPTIONS.key
    max_attempts: MaxAttempts = DEFAULT_OPTIONS.max_attempts
    timeout: TimeoutSeconds | None = DEFAULT_OPTIONS.timeout
    replay_of: JobId | None = None

    @property
    def msg_id(self) -> str:
        """The `Nats-Msg-Id` used for deduplication: the idempotency key, else the job id."""
        return self.key or self.id


class StatusRecord(msgspec.Struct, kw_only=True, frozen=True):
    """A job's entry in the status ledger (KV key = job id)."""

    id: JobId
    type: str
    state: JobState
    # Executions started so far (each claim counts one); deliveries that never ran do not count.
    attempt: int = 0
    worker: str | None = None
    updated_at: datetime
    result: Any = None
    error: str | None = None
    dead_reason: DeadReason | None = None
    # The `body_digest` of the message this entry was written for, where the writer knew it (the
    # publisher's `queued` entry, the worker's `dead` entry for an invalid message): an invalid
    # message may settle an entry only if the entry is its own.
    digest: str | None = None
    # The JOBS stream sequence of the message whose delivery wrote this entry (0: not written by
    # a delivery, or by an older jetjobs): tells a redelivery of that message from another
    # message with the same id.
    stream_seq: int = 0
    # The JetStream delivery count of the delivery that wrote this record (a `running` claim):
    # an older delivery of the same message that wakes up later sees that it is stale.
    delivery: int = 0


class DeadLetter(msgspec.Struct, kw_only=True, frozen=True):
    """A job that will not run again, with why, and the original message to requeue it."""

    job_id: str
    type: str | None
    queue: str | None
    reason: DeadReason
    error: str
    attempts: int
    worker: str
    failed_at: datetime
    enqueued_at: datetime | None
    original_subject: str
    original_headers: dict[str, str] = {}
    original: bytes = b""
    stream_seq: int = 0


class InFlight(msgspec.Struct, kw_only=True, frozen=True):
    """A delivery a worker holds: what the supervisor NAKs when the worker dies."""

    reply: str
    attempt: int
    job_id: str | None = None


class WorkerBeat(msgspec.Struct, kw_only=True, frozen=True):
    """A worker's heartbeat, the value of `workers.<id>` in the `<ns>_workers` bucket."""

    id: str
    host: str
    pid: int
    queues: list[str]
    concurrency: int
    version: str
    started_at: datetime
    beat_at: datetime
    in_flight: list[InFlight] = []
    fingerprint: str = ""
    """Opaque to jetjobs: what the App says it runs with (`App(fingerprint=...)`), so that a
    client can tell workers started with other settings; jobsearch puts a hash of its own there."""


class WorkerDied(msgspec.Struct, kw_only=True, frozen=True):
    """Published on `<ns>.events.worker.died` when a worker's heartbeat expires."""

    worker: str
    host: str
    pid: int
    last_beat_at: datetime
    detected_at: datetime
    recovered: int
    job_ids: list[str] = []
    supervisor: str


class JobEvent(msgspec.Struct, kw_only=True, frozen=True):
    """Published on `<ns>.events.job.<outcome>` (core NATS) when a job settles for good."""

    job_id: str
    type: str
    outcome: Literal["succeeded", "dead"]
    attempt: int
    worker: str
    at: datetime


class CancelRequest(msgspec.Struct, kw_only=True, frozen=True):
    """Published on `<ns>.control.cancel` (core NATS) after the ledger says `cancelled`.

    The ledger is the truth; this only tells the worker running the job to tell its handler.
    """

    job_id: str
    requested_at: datetime
    reason: str | None = None


class JobDuplicate(msgspec.Struct, kw_only=True, frozen=True):
    """Published on `<ns>.events.duplicate` (core NATS) when a second message names a finished job.

    An id names one job forever: the message is acknowledged without running and its payload is
    dropped. `msg_id` and `stream_seq` identify the dropped message.
    """

    job_id: str
    type: str
    state: JobState
    msg_id: str | None
    stream_seq: int
    subject: str
    worker: str
    at: datetime


# Built once (msgspec's perf tips): one encoder serves every Struct, one decoder per type.
ENCODER = msgspec.json.Encoder()
JOB_DECODER = msgspec.json.Decoder(Job)
STATUS_DECODER = msgspec.json.Decoder(StatusRecord)
DEAD_LETTER_DECODER = msgspec.json.Decoder(DeadLetter)
WORKER_BEAT_DECODER = msgspec.json.Decoder(WorkerBeat)
CANCEL_REQUEST_DECODER = msgspec.json.Decoder(CancelRequest)
WORKER_DIED_DECODER = msgspec.json.Decoder(WorkerDied)
JOB_EVENT_DECODER = msgspec.json.Decoder(JobEvent)


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def new_job_id() -> str:
    """A UUIDv7 (RFC 9562) as 32 hex digits: unique and sortable by creation time."""
    ms = time.time_ns() // 1_000_000
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms & ((1 << 48) - 1)) << 80 | 0x7 << 76 | (rand >> 68 & 0xFFF) << 64
    value |= 0b10 << 62 | (rand & ((1 << 62) - 1))
    return uuid.UUID(int=value).hex


def body_digest(data: bytes) -> str:
    """A digest of a message body: tells a job's own message from another carrying its id."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def decode_job(data: bytes) -> Job:
    """Decode and validate a job envelope.

    Raises:
        InvalidJob: with a readable reason, for any malformed input (bad UTF-8, truncated or
            deeply nested JSON, wrong types, missing fields, out-of-range numbers, a time
            without a time zone, an integer wider than 64 bits).
    """
    try:
        job = JOB_DECODER.decode(data)
    except msgspec.ValidationError as exc:
        raise InvalidJob(f"job envelope does not match the schema: {exc}") from None
    except msgspec.DecodeError as exc:
        raise InvalidJob(f"job is not valid JSON: {exc}") from None
    except RecursionError:
        raise InvalidJob("job JSON is nested too deeply") from None
    # Only a body with a run of 19 digits can hold an integer past 64 bits: skip the walk otherwise.
    if _has_long_digit_run(data) and (path := wide_integer(job.payload, "$.payload")):
        raise InvalidJob(
            f"job envelope does not match the schema: integer at `{path}` does not fit in 64 bits "
            f"([{INT_MIN}, {INT_MAX}]); send it as a string"
        )
    return job


def wide_integer(value: Any, path: str = "$") -> str | None:
    """The path of the first integer outside [INT_MIN, INT_MAX] in a decoded JSON value, or None."""
    stack = [(value, path)]
    while stack:
        item, where = stack.pop()
        if isinstance(item, dict):
            stack.extend((v, f"{where}.{k}") for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))
        elif isinstance(item, int) and not isinstance(item, bool) and not INT_MIN <= item <= INT_MAX:
            return where
    return None
