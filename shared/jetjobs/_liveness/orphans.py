"""Deliveries a dead worker held but never listed in a heartbeat, found and handed back.

A heartbeat lists what a worker holds, but the deliveries of its last pull request can be in its
socket, delivered by the server and never read, when the process dies. No heartbeat names them;
left alone they wait for `ack_wait`. The sweep finds them from the server's side.

JetStream does not list a consumer's pending sequences; its consumer info gives their number
(`num_ack_pending`) and bounds (above `ack_floor`, up to `delivered`). Between those bounds most
sequences are usually acked already (acks arrive out of order), so the sweep does not hand the
whole range back. It counts the orphans to find, `num_ack_pending` less the deliveries live
workers list in that range, and walks down from the newest delivery (a dead worker's last pull
request is the most recent) until it has found that many: a sequence that no live worker holds
and whose job never started (ledger `queued`, or no entry yet). Jobs recorded as ended come back
after `ack_wait` and are acked without running; a `running` job has a holder (the dead worker's
were NAKed from its heartbeat); a `failed` one is pending on purpose, waiting out its retry
delay; none of them is NAKed.

The NAK is addressed by stream sequence: JetStream accepts a NAK for any pending sequence whose
consumer sequence lies within the delivered range (nats-server `processNak`), so the sweep uses
the consumer's last delivered sequence. A sequence that is not pending ignores it; one that is
pending is redelivered and the server publishes a NAK advisory for it, and only those advisories
are counted as recovered.
"""

from __future__ import annotations

import anyio
import msgspec
import nats.js.errors
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js import JetStreamContext

from jetjobs._errors import describe_error
from jetjobs._joblog.ledger import Ledger
from jetjobs._transport.pull import ack_reply
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import JOB_DECODER, PRIORITIES, WorkerBeat

log = structlog.get_logger("jetjobs.supervisor")

# Never scan more than this many sequences per consumer (a very old unacked job holds the floor).
SWEEP_LIMIT = 20_000


def held_sequence(reply: str) -> tuple[str, int] | None:
    """(consumer, stream sequence) of a delivery's `$JS.ACK...` reply subject (v1 or v2 form)."""
    fields = ack_reply(reply)
    return None if fields is None else (fields.consumer, fields.stream_seq)


def nak_subject(stream: str, consumer: str, stream_seq: int, consumer_seq: int) -> str:
    """A `$JS.ACK` subject that NAKs `stream_seq` (pending) given a delivered `consumer_seq`."""
    return f"$JS.ACK.{stream}.{consumer}.1.{stream_seq}.{consumer_seq}.0.0"


class Window(msgspec.Struct, frozen=True):
    """One consumer's pending range at the moment of the snapshot."""

    consumer: str
    prefix: str
    first: int
    last: int
    consumer_seq: int
    pending: int = 0  # num_ack_pending: how many sequences in the range are not acked


class _NakAdvisory(msgspec.Struct):
    stream_seq: int
    consumer: str = ""


_ADVISORY_DECODER = msgspec.json.Decoder(_NakAdvisory)
_ADVISORY_WAIT = 2.0  # seconds to wait for the server's NAK advisories after the last NAK
_SCAN_CHUNK = 64


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
                    pending=info.num_ack_pending,
                )
            )
    return windows


async def sweep_orphans(
    nc: NATS, topology: Topology, ledger: Ledger, windows: list[Window], live: list[WorkerBeat]
) -> list[str]:
    """NAK the pending deliveries in `windows` that no live worker holds; return the job ids of
    those the server really handed back.

    `live` must be heartbeats written after the snapshot, so that they list every delivery the
    live workers received before it.
    """
    held = {pair for beat in live for item in beat.in_flight if (pair := held_sequence(item.reply))}
    naked: dict[tuple[str, int], str] = {}  # (consumer, stream seq) → job id
    handed_back: set[tuple[str, int]] = set()
    arrived = anyio.Event()

    async def on_advisory(msg: Msg) -> None:
        try:
            advisory = _ADVISORY_DECODER.decode(msg.data)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return
        handed_back.add((advisory.consumer, advisory.stream_seq))
        if naked.keys() <= handed_back:
            arrived.set()

    advisories = await nc.subscribe(
        f"$JS.EVENT.ADVISORY.CONSUMER.MSG_NAKED.{topology.jobs_stream}.*", cb=on_advisory
    )
    sweeper = _Sweeper(nc, topology, ledger, held)
    try:
        for window in windows:
            await sweeper.sweep(window, naked)
        await nc.flush()
        if naked and not naked.keys() <= handed_back:
            with anyio.move_on_after(_ADVISORY_WAIT):
                await arrived.wait()
    finally:
        await advisories.unsubscribe()
    recovered = [job_id for pair, job_id in naked.items() if pair in handed_back]
    if naked:
        log.info(
            "supervisor.swept",
            recovered=len(recovered),
            nak_ignored=len(naked) - len(recovered),
            job_ids=recovered[:20],
        )
    return recovered


class _Sweeper:
    """Finds the orphans of one window after another."""

    def __init__(self, nc: NATS, topology: Topology, ledger: Ledger, held: set[tuple[str, int]]) -> None:
        self.nc = nc
        self.js: JetStreamContext = nc.jetstream()
        self.topology = topology
        self.ledger = ledger
        self.held = held

    async def sweep(self, window: Window, naked: dict[tuple[str, int], str]) -> None:
        """Walk the window down from its newest delivery, NAKing orphans until all are found."""
        name, stream = window.consumer, self.topology.jobs_stream
        to_find = window.pending - sum(
            1 for consumer, seq in self.held if consumer == name and window.first <= seq <= window.last
        )
        unheld = (s for s in range(window.last, window.first - 1, -1) if (name, s) not in self.held)
        while to_find > 0:
            chunk = [seq for _, seq in zip(range(_SCAN_CHUNK), unheld, strict=False)]
            if not chunk:
                return
            found: dict[int, str] = {}

            async def check(seq: int, found: dict[int, str] = found) -> None:
                job_id = await self.orphan_job(seq, window.prefix)
                if job_id is not None:
                    found[seq] = job_id

            async with anyio.create_task_group() as tg:
                for seq in chunk:
                    tg.start_soon(check, seq)
            for seq, job_id in found.items():
                await self.nc.publish(nak_subject(stream, name, seq, window.consumer_seq), b"-NAK")
                naked[(name, seq)] = job_id
            to_find -= len(found)

    async def orphan_job(self, seq: int, prefix: str) -> str | None:
        """The job id at `seq` if it may be an orphan: on this consumer, and never started."""
        try:
            msg = await self.js.get_msg(self.topology.jobs_stream, seq=seq)
            if not (msg.subject or "").startswith(prefix) or not msg.data:
                return None
            job = JOB_DECODER.decode(msg.data)
            record, _ = await self.ledger.get(job.id)
        except nats.js.errors.NotFoundError:
            return None
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            return None  # an invalid message is termed at its delivery; nothing to hurry
        except Exception as exc:
            log.warning("supervisor.sweep_read_failed", seq=seq, error=describe_error(exc))
            return None
        return job.id if record is None or record.state == "queued" else None
