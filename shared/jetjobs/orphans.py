"""Deliveries a dead worker held but never listed in a heartbeat, found and handed back.

A heartbeat lists what a worker holds, but the deliveries of its last pull request can be in its
socket, delivered by the server and never read, when the process dies. No heartbeat names them;
left alone they wait for `ack_wait`. The sweep finds them from the server's side: every stream
sequence between a consumer's ack floor and its last delivery that is still pending, not held by
a live worker (their heartbeats list their deliveries), and whose job is not waiting out a retry
backoff (ledger `failed`) is NAKed now.

The NAK is addressed by stream sequence: JetStream accepts a NAK for any pending sequence whose
consumer sequence lies within the delivered range (nats-server `processNak`), so the sweep uses
the consumer's last delivered sequence. A sequence that is not pending (acked) ignores it.
"""

from __future__ import annotations

import anyio
import msgspec
import nats.js.errors
import structlog
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext

from jetjobs.envelope import JOB_DECODER, PRIORITIES, WorkerBeat
from jetjobs.ledger import Ledger
from jetjobs.outcome import describe
from jetjobs.topology import Topology

log = structlog.get_logger("jetjobs.supervisor")

# Never scan more than this many sequences per consumer (a very old unacked job holds the floor).
SWEEP_LIMIT = 20_000


def held_sequence(reply: str) -> tuple[str, int] | None:
    """(consumer, stream sequence) of a delivery's `$JS.ACK...` reply subject (v1 or v2 form)."""
    tokens = reply.split(".")
    if len(tokens) == 9:
        return tokens[3], int(tokens[5])
    if len(tokens) >= 11:
        return tokens[5], int(tokens[7])
    return None


class Window(msgspec.Struct, frozen=True):
    """One consumer's pending range at the moment of the snapshot."""

    consumer: str
    prefix: str
    first: int
    last: int
    consumer_seq: int


async def snapshot(nc: NATS, topology: Topology, queues: list[str]) -> list[Window]:
    """The pending ranges of the consumers of `queues`, as of now.

    Deliveries made after this snapshot cannot belong to a worker that died before it, so only
    these ranges are swept.
    """
    js = nc.jetstream()
    windows = []
    for queue in queues:
        for priority in PRIORITIES:
            consumer = topology.consumer_name(queue, priority)
            try:
                info = await js.consumer_info(topology.jobs_stream, consumer)
            except nats.js.errors.NotFoundError:
                continue
            if info.delivered is None or info.ack_floor is None or not info.num_ack_pending:
                continue
            last = info.delivered.stream_seq
            windows.append(
                Window(
                    consumer=consumer,
                    prefix=topology.queue_filter(queue, priority).removesuffix(">"),
                    first=max(info.ack_floor.stream_seq + 1, last - SWEEP_LIMIT + 1),
                    last=last,
                    consumer_seq=info.delivered.consumer_seq,
                )
            )
    return windows


async def sweep_orphans(
    nc: NATS, topology: Topology, ledger: Ledger, windows: list[Window], live: list[WorkerBeat]
) -> list[str]:
    """NAK the pending deliveries in `windows` that no live worker holds; return their job ids.

    `live` must be heartbeats written after the snapshot, so that they list every delivery the
    live workers received before it.
    """
    js = nc.jetstream()
    held = {pair for beat in live for item in beat.in_flight if (pair := held_sequence(item.reply))}
    recovered: list[str] = []
    limiter = anyio.CapacityLimiter(64)

    async def check(window: Window, seq: int) -> None:
        async with limiter:
            job_id = await _orphan_job(js, topology, ledger, seq, window.prefix)
        if job_id is not None:
            ack = f"$JS.ACK.{topology.jobs_stream}.{window.consumer}.1.{seq}.{window.consumer_seq}.0.0"
            await nc.publish(ack, b"-NAK")
            recovered.append(job_id)

    async with anyio.create_task_group() as tg:
        for window in windows:
            for seq in range(window.first, window.last + 1):
                if (window.consumer, seq) not in held:
                    tg.start_soon(check, window, seq)
    await nc.flush()
    if recovered:
        log.info("supervisor.swept", recovered=len(recovered), job_ids=recovered[:20])
    return recovered


async def _orphan_job(
    js: JetStreamContext, topology: Topology, ledger: Ledger, seq: int, prefix: str
) -> str | None:
    """The job id at `seq` if it may be an orphan: on this consumer, and not waiting for a retry."""
    try:
        msg = await js.get_msg(topology.jobs_stream, seq=seq)
    except nats.js.errors.NotFoundError:
        return None
    except Exception as exc:
        log.warning("supervisor.sweep_read_failed", seq=seq, error=describe(exc))
        return None
    if not (msg.subject or "").startswith(prefix) or not msg.data:
        return None
    try:
        job = JOB_DECODER.decode(msg.data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return f"invalid-{seq}"
    record, _ = await ledger.get(job.id)
    # Orphans are deliveries nobody started (`queued`, or no entry yet) or finished with the ack
    # lost (`succeeded`, `dead`, `cancelled`: the redelivery is acked without running). A
    # `running` job has a holder (the dead worker's were NAKed from its heartbeat), and a
    # `failed` one is pending on purpose, waiting out its retry delay.
    if record is not None and record.state in ("running", "failed"):
        return None
    return job.id
