"""What the operations page shows, read from the deployment: workers, queues, throughput.

Everything comes from the platform's own readers (`live_workers`, the streams' and consumers'
info); this module only shapes it for a table. Throughput is sampled by the page's process:
every `SAMPLE_EVERY` seconds it reads the JOBS stream's last sequence and, per consumer, how many
deliveries it made and how many are still unacknowledged, and keeps `WINDOW` of samples. Rates
are shown per whole minute only (see `Throughput.per_minute`).
"""

from __future__ import annotations

import itertools
from collections import deque
from datetime import datetime

import anyio
import msgspec
import nats.errors
import nats.js.errors
import structlog
from nats.aio.client import Client as NATS

from jetjobs._liveness.roster import live_workers
from jetjobs._settings import Settings
from jetjobs._transport.topology import Topology
from jetjobs._wire.envelope import PRIORITIES, WorkerBeat, utcnow

log = structlog.get_logger("jetjobs.ui")

SAMPLE_EVERY = 5.0
WINDOW = 10 * 60.0


class WorkerRow(msgspec.Struct, kw_only=True, frozen=True):
    """One live worker: its heartbeat and the heartbeat's age."""

    beat: WorkerBeat
    age: float

    @property
    def in_flight_ids(self) -> list[str]:
        """The job ids of the deliveries it holds (those it has read)."""
        return [f.job_id for f in self.beat.in_flight if f.job_id]


class QueueRow(msgspec.Struct, kw_only=True, frozen=True):
    """One durable consumer of the JOBS stream (one queue and priority)."""

    consumer: str
    queue: str
    priority: str
    pending: int
    ack_pending: int
    redelivered: int
    waiting: int
    delivered: int


class StreamRow(msgspec.Struct, kw_only=True, frozen=True):
    """A stream's size."""

    name: str
    messages: int
    bytes: int


class Sample(msgspec.Struct, kw_only=True, frozen=True):
    """Cumulative counters at one moment."""

    at: datetime
    submitted: int  # the JOBS stream's last sequence
    settled: int  # deliveries made minus those still unacknowledged, over every consumer


class Rate(msgspec.Struct, kw_only=True, frozen=True):
    """Per-minute rates between two samples."""

    start: datetime
    end: datetime
    submitted: float
    settled: float


async def workers(nc: NATS, settings: Settings) -> list[WorkerRow]:
    """The live workers (unexpired heartbeats) with their heartbeat ages."""
    now = utcnow()
    return [
        WorkerRow(beat=b, age=max(0.0, (now - b.beat_at).total_seconds()))
        for b in await live_workers(nc, settings)
    ]


async def queues(nc: NATS, topology: Topology) -> list[QueueRow]:
    """Every consumer of the JOBS stream with pending, ack-pending and redelivered counts."""
    js = nc.jetstream()
    try:
        infos = await js.consumers_info(topology.jobs_stream)
    except nats.js.errors.NotFoundError:
        return []
    rows = []
    for info in infos:
        queue, priority = _queue_of(info.name, topology.ns)
        rows.append(
            QueueRow(
                consumer=info.name,
                queue=queue,
                priority=priority,
                pending=info.num_pending or 0,
                ack_pending=info.num_ack_pending or 0,
                redelivered=info.num_redelivered or 0,
                waiting=info.num_waiting or 0,
                delivered=(info.delivered.consumer_seq or 0) if info.delivered else 0,
            )
        )
    order: dict[str, int] = {name: i for i, name in enumerate(PRIORITIES)}
    return sorted(rows, key=lambda r: (r.queue, order.get(r.priority, len(order))))


def _queue_of(consumer: str, ns: str) -> tuple[str, str]:
    """`<ns>_<queue>_<priority>` → (queue, priority); other consumers (a replay's) keep their name."""
    body = consumer.removeprefix(f"{ns}_")
    queue, _, priority = body.rpartition("_")
    if body == consumer or priority not in PRIORITIES:
        return consumer, "-"
    return queue, priority


async def streams(nc: NATS, topology: Topology) -> list[StreamRow]:
    """The JOBS and DLQ streams' message counts and sizes (absent ones are left out)."""
    js = nc.jetstream()
    rows = []
    for name in (topology.jobs_stream, topology.dlq_stream):
        try:
            info = await js.stream_info(name)
        except nats.js.errors.NotFoundError:
            continue
        rows.append(StreamRow(name=name, messages=info.state.messages, bytes=info.state.bytes))
    return rows


class Throughput:
    """Samples of the deployment's counters over the last `WINDOW` seconds, and rates from them.

    Args:
        every: seconds between samples.
        window: the length of one rate's window, in seconds (a minute; tests shorten it).
    """

    def __init__(
        self, nc: NATS, topology: Topology, *, every: float = SAMPLE_EVERY, window: float = 60.0
    ) -> None:
        self.nc = nc
        self.topology = topology
        self.every = every
        self.window = window
        self.samples: deque[Sample] = deque(maxlen=int(WINDOW / every) + 1)
        # The samples that end a whole window, the first one on (fixed: they never shift).
        self.marks: deque[Sample] = deque(maxlen=int(WINDOW / window) + 1)
        self.started_at: datetime | None = None  # the first sample's moment

    async def sample(self) -> None:
        """Take one sample (skipped while the server does not answer)."""
        try:
            info = await self.nc.jetstream().stream_info(self.topology.jobs_stream)
            rows = await queues(self.nc, self.topology)
        except (nats.errors.Error, nats.js.errors.Error) as exc:
            log.warning("ui.sample_failed", error=str(exc))
            return
        settled = sum(max(0, r.delivered - r.ack_pending) for r in rows)
        sample = Sample(at=utcnow(), submitted=info.state.last_seq, settled=settled)
        self.samples.append(sample)
        self.started_at = self.started_at or sample.at
        if not self.marks or (sample.at - self.marks[-1].at).total_seconds() >= self.window:
            self.marks.append(sample)

    async def run(self) -> None:
        """Sample every `every` seconds until cancelled."""
        while True:
            await self.sample()
            await anyio.sleep(self.every)

    def per_minute(self, buckets: int = 10, *, window: float | None = None) -> list[Rate]:
        """Per-minute rates over whole windows, newest first.

        The windows are fixed from the first sample on (each ends at the first sample `window`
        seconds or more after the previous end, by default the meter's own window), so a figure
        changes once a window, and there is none until one whole window has passed: a few
        seconds are not extrapolated to a minute.
        """
        if window is None or window == self.window:
            marks = list(self.marks)
        else:
            marks = []
            for sample in self.samples:
                if not marks or (sample.at - marks[-1].at).total_seconds() >= window:
                    marks.append(sample)
        rates: list[Rate] = []
        for a, b in itertools.pairwise(marks):
            minutes = max((b.at - a.at).total_seconds(), 1e-9) / 60
            rates.append(
                Rate(
                    start=a.at,
                    end=b.at,
                    submitted=max(0, b.submitted - a.submitted) / minutes,
                    settled=max(0, b.settled - a.settled) / minutes,
                )
            )
        return rates[::-1][:buckets]
