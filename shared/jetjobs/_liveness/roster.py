"""The roster: the workers alive now, read from the heartbeat bucket without a consumer.

A worker snapshot (`jetjobs workers` and `info`, the operations page, a `jobsearch run` looking
for its services) was nats-py's `KeyValue.keys()` and then a `get` per key. That listing is a
watch, an ordered push consumer delivering the last message of each key, which ends at the first
delivery whose `num_pending` is 0. When a key is re-put while the consumer delivers (every worker
re-puts its key each `heartbeat_interval`), the server can report `num_pending` 0 before the last
value of every key has gone out: the listing ended early and live workers were missing from a
few snapshots in a thousand (docs/liveness.md, "Reading who is alive"). And the consumer outlived the
call: nats-py's unsubscribe leaves it on the server until its inactive threshold (5 minutes), so
a page polling every second reached the stream's consumer limit (error 10026) within minutes.

Here one request to the stream's direct get API answers with the last message of every
`workers.*` key (`multi_last`, ADR-31, nats-server 2.11+). The server reads the store in one go,
isolated from writes, so a renewal lands either before the read or after it, never inside it; and
nothing is created on the server. An answer cut short (the server caps a batch's bytes) is
continued past the last sequence returned. A bucket with more keys than one multi get may match
(1,024) is read in stream order instead (`next_by_subj`, in batches); the bucket keeps one
message per key, and a key re-put during that walk gets a sequence past the walk's cursor, so the
walk sees every key that lived through it too.
"""

from __future__ import annotations

import anyio
import msgspec
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

from jetjobs._errors import StreamError
from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import ENCODER, WORKER_BEAT_DECODER, WorkerBeat
from jetjobs._wire.headers import KV_OPERATION, MARKER_REASON, SEQUENCE, SUBJECT

log = structlog.get_logger("jetjobs.roster")

WORKER_PREFIX = "workers."
# Messages asked for per request when the bucket is walked in stream order.
WALK_BATCH = 1024
# The closing message of a batch: empty, with a status line (204 EOB, 404, 413...).
_STATUS = "Status"
_NUM_PENDING = "Nats-Num-Pending"
_LAST_SEQUENCE = "Nats-Last-Sequence"


class _DirectGet(msgspec.Struct, omit_defaults=True):
    """A direct get request (ADR-31): a multi-subject get, or a batch walk from `seq`."""

    seq: int = 0
    multi_last: list[str] | None = None
    next_by_subj: str | None = None
    batch: int = 0


async def live_workers(nc: NATS, settings: Settings) -> list[WorkerBeat]:
    """The workers whose heartbeats have not expired, by id.

    Reads the namespace's heartbeat bucket without creating it: none yet means no worker.
    """
    return await read_beats(nc, Topology(settings).workers_bucket)


async def read_beats(nc: NATS, bucket: str, *, timeout: float = 5.0) -> list[WorkerBeat]:
    """The live heartbeats of the KV bucket `bucket`, by worker id.

    Deleted keys (a clean stop) and expired ones (the server's marker) are not live. A value that
    does not decode as a heartbeat is logged and left out.

    Raises:
        StreamError: the server refused the read.
        TimeoutError: it did not answer within `timeout` seconds.
    """
    beats = []
    for msg in await last_values(nc, f"KV_{bucket}", f"$KV.{bucket}.{WORKER_PREFIX}>", timeout=timeout):
        headers = msg.headers or {}
        if not msg.data or KV_OPERATION in headers or MARKER_REASON in headers:
            continue  # a delete or purge marker, or the server's marker of an expired key
        try:
            beats.append(WORKER_BEAT_DECODER.decode(msg.data))
        except msgspec.DecodeError as exc:
            log.warning("roster.bad_heartbeat", subject=headers.get(SUBJECT), error=str(exc))
    return sorted(beats, key=lambda b: b.id)


async def last_values(nc: NATS, stream: str, wildcard: str, *, timeout: float = 5.0) -> list[Msg]:
    """The last message of every subject of `stream` matching `wildcard`, in stream order.

    Markers are included (the caller tells a value from a delete). No stream: no messages.

    Raises:
        StreamError: the server refused the read.
        TimeoutError: it did not answer within `timeout` seconds.
    """
    found: dict[str, Msg] = {}
    request = _DirectGet(multi_last=[wildcard])
    while True:
        messages, closing = await _batch(nc, f"$JS.API.DIRECT.GET.{stream}", request, timeout)
        headers = closing.headers or {}
        status = headers.get(_STATUS, "")
        if status == "413" and request.multi_last:  # more keys than one multi get may match
            request = _DirectGet(next_by_subj=wildcard, batch=WALK_BATCH)
            continue
        if status in ("404", "503"):  # nothing matches (on a later page: nothing more); no stream
            break
        if status != "204":
            raise StreamError(f"direct get of {wildcard} in {stream} failed: {status} {headers}")
        for msg in messages:
            subject = (msg.headers or {}).get(SUBJECT, "")
            seen = found.get(subject)
            if seen is None or _sequence(seen) < _sequence(msg):  # a key re-put between pages
                found[subject] = msg
        if int(headers.get(_NUM_PENDING, "0")) == 0 or not messages:
            break
        request = msgspec.structs.replace(request, seq=_sequence(messages[-1]) + 1)
    return sorted(found.values(), key=_sequence)


async def _batch(nc: NATS, subject: str, request: _DirectGet, timeout: float) -> tuple[list[Msg], Msg]:
    """Send one direct get request; its messages and the closing status message.

    The replies come to an inbox of this call's own, a plain subscription: nothing lives on after
    it. A server without a stream there answers "no responders" (503), which closes it too.
    """
    inbox = nc.new_inbox()
    sub = await nc.subscribe(inbox)
    try:
        await nc.publish(subject, ENCODER.encode(request), reply=inbox)
        messages: list[Msg] = []
        with anyio.fail_after(timeout):
            async for msg in sub.messages:
                if not msg.data and msg.headers and _STATUS in msg.headers:
                    return messages, msg
                messages.append(msg)
        raise StreamError(f"direct get on {subject}: the replies ended without a closing status")
    finally:
        await sub.unsubscribe()


def _sequence(msg: Msg) -> int:
    return int((msg.headers or {}).get(SEQUENCE, "0"))
