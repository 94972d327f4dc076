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
import structlog
from anyio.abc import TaskStatus
from nats.aio.client import Client as NATS

from jetjobs._errors import describe_error
from jetjobs._version import VERSION
from jetjobs._wire.envelope import ENCODER, InFlight, WorkerBeat, utcnow
from jetjobs._wire.headers import KV_OPERATION, MESSAGE_TTL

log = structlog.get_logger("jetjobs.heartbeat")


def worker_key(worker_id: str) -> str:
    """The KV key of a worker's heartbeat."""
    return f"workers.{worker_id}"


class Heartbeat:
    """Writes one worker's heartbeat on a fixed tick until cancelled, then deletes it.

    `fingerprint` is carried in every beat as it is (see `WorkerBeat.fingerprint`).
    """

    def __init__(
        self,
        nc: NATS,
        bucket: str,
        *,
        worker_id: str,
        queues: list[str],
        concurrency: int,
        interval: float,
        ttl: int,
        in_flight: Callable[[], list[InFlight]],
        fingerprint: str = "",
    ) -> None:
        self.nc = nc
        self.js = nc.jetstream()
        self.subject = f"$KV.{bucket}.{worker_key(worker_id)}"
        self.interval = interval
        self.ttl = ttl
        self.in_flight = in_flight
        self.beats = 0
        self._headers: dict[str, str] = {}
        self._static = {
            "id": worker_id,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "queues": queues,
            "concurrency": concurrency,
            "version": VERSION,
            "started_at": utcnow(),
            "fingerprint": fingerprint,
        }

    def beat(self, now: datetime | None = None) -> WorkerBeat:
        """The heartbeat value as of now."""
        return WorkerBeat(**self._static, beat_at=now or utcnow(), in_flight=self.in_flight())  # type: ignore[arg-type]

    async def send(self) -> None:
        """Write one heartbeat now."""
        await self.js.publish(self.subject, ENCODER.encode(self.beat()), msg_ttl=self.ttl)
        self.beats += 1

    async def held_more(self) -> None:
        """New deliveries are held: publish a beat listing them now, before any of them starts.

        The supervisor NAKs what the last stored beat lists. This beat is sent without waiting for
        the server's ack (it is queued on the connection in order, in microseconds), so a worker
        killed after a fetch leaves at most the deliveries of that one fetch unlisted, and those
        were never started.
        """
        self._headers = self._headers or {MESSAGE_TTL: f"{self.ttl}s"}
        await self.nc.publish(self.subject, ENCODER.encode(self.beat()), headers=self._headers)
        self.beats += 1

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Beat until cancelled (`started` after the first beat); then delete the key."""
        try:
            await self.send()
            task_status.started()
            while True:
                await anyio.sleep(self.interval)
                try:
                    await self.send()
                except Exception as exc:  # disconnected: keep trying; expiry is the honest signal
                    log.warning("heartbeat.failed", error=describe_error(exc))
        finally:
            with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                try:
                    await self.js.publish(self.subject, b"", headers={KV_OPERATION: "DEL"})
                except Exception as exc:
                    log.warning("heartbeat.delete_failed", error=describe_error(exc))
