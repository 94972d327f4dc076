"""A dead worker's deliveries handed back: NAKed so that they are redelivered now, not after ack_wait.

The supervisor (jetjobs._liveness.supervisor) calls `hand_back` once it has claimed a death. A
beat younger than ack_wait: every delivery it lists is still the dead worker's; NAK them all, and
mark their jobs `queued` in the ledger. An older one (always, when ack_wait <= heartbeat_ttl):
JetStream has redelivered them by itself, and a NAK could hit a new holder; NAK only the jobs
nobody has claimed since (ledger still `running` on the dead worker), addressed to the consumer's
newest delivery. Deliveries the last beat could not list are found by jetjobs._liveness.orphans.
"""

from __future__ import annotations

from datetime import timedelta

import msgspec
import structlog
from nats.aio.client import Client as NATS
from nats.js import JetStreamContext

from jetjobs._errors import describe_error
from jetjobs._joblog.ledger import Ledger
from jetjobs._liveness.orphans import held_sequence, nak_subject
from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import WorkerBeat, utcnow

log = structlog.get_logger("jetjobs.supervisor")


async def hand_back(
    nc: NATS,
    js: JetStreamContext,
    *,
    topology: Topology,
    settings: Settings,
    ledger: Ledger,
    beat: WorkerBeat,
) -> tuple[int, list[str]]:
    """NAK the dead worker's deliveries (see above); returns how many, and the ids of their jobs."""
    fresh = beat.beat_at >= utcnow() - timedelta(seconds=settings.ack_wait)
    job_ids = []
    recovered = 0
    delivered: dict[str, int | None] = {}  # consumer → its last delivered sequence, asked once
    for held in beat.in_flight:
        if fresh:
            reply = held.reply
        elif held.job_id and await mark_queued(ledger, held.job_id, beat.id):
            reply = await newest_reply(js, topology, held.reply, delivered)
        else:
            continue
        try:
            await nc.publish(reply, b"-NAK")
        except Exception as exc:
            log.warning("supervisor.nak_failed", error=describe_error(exc))
            continue
        recovered += 1
        if held.job_id:
            job_ids.append(held.job_id)
            if fresh:
                await mark_queued(ledger, held.job_id, beat.id)
    await nc.flush()
    return recovered, job_ids


async def mark_queued(ledger: Ledger, job_id: str, dead_worker: str) -> bool:
    """`running` on the dead worker → `queued`; False if someone else has it (or it ended)."""
    try:
        record, revision = await ledger.get(job_id)
    except Exception as exc:
        log.warning("supervisor.ledger_failed", job_id=job_id, error=describe_error(exc))
        return False
    if record is None or record.state != "running" or record.worker != dead_worker:
        return False
    queued = msgspec.structs.replace(
        record,
        state="queued",
        worker=None,
        updated_at=utcnow(),
        error=f"worker {dead_worker} died during attempt {record.attempt}; redelivered",
        delivery=0,
    )
    return await ledger.write(queued, revision) is not None


async def newest_reply(
    js: JetStreamContext, topology: Topology, reply: str, delivered: dict[str, int | None]
) -> str:
    """The NAK subject of a delivery's stream sequence, as of the consumer's newest delivery.

    JetStream takes a NAK for a pending stream sequence whose delivery sequence is within the
    delivered range; an old delivery's may be below the ack floor by now (jetjobs._liveness.orphans).
    `delivered` keeps each consumer's last delivered sequence for the rest of one recovery.
    """
    pair = held_sequence(reply)
    if pair is None:
        return reply
    consumer, stream_seq = pair
    if consumer not in delivered:
        try:
            info = await js.consumer_info(topology.jobs_stream, consumer)
        except Exception as exc:
            log.warning("supervisor.consumer_info_failed", consumer=consumer, error=describe_error(exc))
            return reply
        delivered[consumer] = info.delivered.consumer_seq if info.delivered is not None else None
    consumer_seq = delivered[consumer]
    if consumer_seq is None:
        return reply
    return nak_subject(topology.jobs_stream, consumer, stream_seq, consumer_seq)
