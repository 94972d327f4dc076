"""Fire-and-forget publishes of the worker's own connection (acks, job events), below nats-py.

`Client.publish` is a coroutine that validates the subject, builds the command, creates a future
and queues it for the flusher task: several microseconds for each ack and each job event, two per
job. These messages need none of it: the subject is the server's own reply subject or one of ours,
there are no headers, and nobody waits for them. `Outbound.publish` appends the `PUB` command to
the connection's pending buffer, exactly as `Client.publish` does, and wakes nats-py's flusher once
per event-loop pass, so a burst of acks and events leaves in one write.

It uses three internals of nats-py's `Client` (`_pending`, `_pending_data_size`, `_flush_queue`);
`tests/integration/test_outbound.py` fails if they change. While the connection is being
re-established the command waits in the same buffer as nats-py's own publishes, and is sent on
reconnect (an ack sent then may be for a delivery the server has forgotten: harmless).
"""

from __future__ import annotations

import asyncio

import nats.errors
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg

_ACK = b"+ACK"


class Outbound:
    """Core-NATS publishes without headers or replies, buffered on one nats-py connection."""

    def __init__(self, nc: NATS) -> None:
        self.nc = nc
        self._kick_pending = False

    def publish(self, subject: str, payload: bytes = b"") -> None:
        """Queue a message for `subject` (sent within this event-loop pass).

        Raises:
            nats.errors.ConnectionClosedError: the connection is closed for good.
        """
        nc = self.nc
        if nc.is_closed:
            raise nats.errors.ConnectionClosedError
        command = b"PUB %s %d\r\n%s\r\n" % (subject.encode(), len(payload), payload)
        nc._pending.append(command)
        nc._pending_data_size += len(command)
        nc.stats["out_msgs"] += 1
        nc.stats["out_bytes"] += len(payload)
        if not self._kick_pending:
            self._kick_pending = True
            asyncio.get_running_loop().call_soon(self._kick)

    def ack(self, msg: Msg) -> None:
        """Acknowledge a JetStream delivery (what `await msg.ack()` sends)."""
        assert msg.reply, "only a JetStream delivery can be acknowledged"
        self.publish(msg.reply, _ACK)

    def _kick(self) -> None:
        """Wake nats-py's flusher, as `Client.publish` does, unless it is awake already."""
        self._kick_pending = False
        queue = self.nc._flush_queue
        if queue is not None and queue.empty() and self.nc.is_connected:
            queue.put_nowait(asyncio.get_running_loop().create_future())
