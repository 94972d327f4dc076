"""Leases: keep every delivery this worker holds alive while it waits or runs.

A delivery is a lease of `ack_wait`. One ticker per worker sends `in_progress` (+WPI) for every
held delivery at a third of `ack_wait`, so `ack_wait` can be seconds while jobs run for hours.
If the process stops (crash, SIGSTOP), the ticks stop and JetStream redelivers after `ack_wait`.
"""

from __future__ import annotations

import anyio
import structlog
from nats.aio.msg import Msg

from jetjobs._wire.envelope import InFlight

log = structlog.get_logger("jetjobs.lease")


class LeaseKeeper:
    """The set of deliveries this worker holds, extended on a fixed tick."""

    def __init__(self, ack_wait: float) -> None:
        self.interval = ack_wait / 3
        self._held: dict[str, Msg] = {}
        # What the heartbeat lists, kept ready: a beat goes out on every fetch.
        self._entries: dict[str, InFlight] = {}
        self.extensions = 0

    def __len__(self) -> int:
        return len(self._held)

    def hold(self, msg: Msg, job_id: str | None = None, *, count: int | None = None) -> None:
        """Start extending this delivery's lease; `job_id` names its job in the heartbeat, `count`
        is its delivery count (read from the message when not given)."""
        assert msg.reply
        self._held[msg.reply] = msg
        attempt = msg.metadata.num_delivered if count is None else count
        self._entries[msg.reply] = InFlight(reply=msg.reply, attempt=attempt, job_id=job_id)

    def release(self, msg: Msg) -> None:
        """Stop extending (the delivery was acked, nak'ed or termed)."""
        if msg.reply:
            self._held.pop(msg.reply, None)
            self._entries.pop(msg.reply, None)

    def in_flight(self) -> list[InFlight]:
        """What this worker holds, as reported in its heartbeat."""
        return list(self._entries.values())

    def held(self) -> list[Msg]:
        """The deliveries held now."""
        return list(self._held.values())

    async def run(self) -> None:
        """Extend every held lease each `interval` seconds, until cancelled."""
        while True:
            await anyio.sleep(self.interval)
            for msg in list(self._held.values()):
                try:
                    await msg.in_progress()
                    self.extensions += 1
                except Exception as exc:  # a dropped connection must not kill the ticker
                    log.warning("lease.extend_failed", error=str(exc))
