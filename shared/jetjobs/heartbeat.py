"""Heartbeats: each worker says it is alive, and what it holds, in a KV bucket with a per-key TTL.

Every `heartbeat_interval` the worker writes `workers.<id>` with a TTL of `heartbeat_ttl` seconds
(the `Nats-TTL` header). If the process dies or hangs, the writes stop, the server expires the key
and leaves a delete marker, and the supervisor, watching the bucket, sees that as an event. A clean
shutdown deletes the key, which the supervisor sees as a departure, not a death.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable
from datetime import datetime

import anyio
import msgspec
import structlog
from anyio.abc import TaskStatus
from nats.js import JetStreamContext

from jetjobs.envelope import InFlight, WorkerBeat, utcnow
from jetjobs.outcome import describe
from jetjobs.version import VERSION

log = structlog.get_logger("jetjobs.heartbeat")

_ENCODER = msgspec.json.Encoder()


def worker_key(worker_id: str) -> str:
    """The KV key of a worker's heartbeat."""
    return f"workers.{worker_id}"


class Heartbeat:
    """Writes one worker's heartbeat on a fixed tick until cancelled, then deletes it."""

    def __init__(
        self,
        js: JetStreamContext,
        bucket: str,
        *,
        worker_id: str,
        queues: list[str],
        concurrency: int,
        interval: float,
        ttl: int,
        in_flight: Callable[[], list[InFlight]],
    ) -> None:
        self.js = js
        self.subject = f"$KV.{bucket}.{worker_key(worker_id)}"
        self.interval = interval
        self.ttl = ttl
        self.in_flight = in_flight
        self.beats = 0
        self._news = anyio.Event()
        self._static = {
            "id": worker_id,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "queues": queues,
            "concurrency": concurrency,
            "version": VERSION,
            "started_at": utcnow(),
        }

    def beat(self, now: datetime | None = None) -> WorkerBeat:
        """The heartbeat value as of now."""
        return WorkerBeat(**self._static, beat_at=now or utcnow(), in_flight=self.in_flight())  # type: ignore[arg-type]

    async def send(self) -> None:
        """Write one heartbeat now."""
        await self.js.publish(self.subject, _ENCODER.encode(self.beat()), msg_ttl=self.ttl)
        self.beats += 1

    def held_more(self) -> None:
        """New deliveries are held: beat now rather than at the next tick.

        The supervisor NAKs what the last beat lists; with short jobs, a beat a second old lists
        deliveries long acked and misses the ones held at death, which then wait for ack_wait.
        Writes are coalesced: one at a time, each listing everything held when it is encoded.
        """
        self._news.set()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Beat until cancelled (`started` after the first beat); then delete the key."""
        try:
            await self.send()
            task_status.started()
            while True:
                with anyio.move_on_after(self.interval):
                    await self._news.wait()
                self._news = anyio.Event()
                try:
                    await self.send()
                except Exception as exc:  # disconnected: keep trying; expiry is the honest signal
                    log.warning("heartbeat.failed", error=describe(exc))
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                try:
                    await self.js.publish(self.subject, b"", headers={"KV-Operation": "DEL"})
                except Exception as exc:
                    log.warning("heartbeat.delete_failed", error=describe(exc))
