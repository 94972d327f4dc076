"""A durable pull consumer's deliveries: requested in batches, received on one inbox, in bursts.

nats-py's `fetch` waits for every message with its own task and timer (`next_msg`), three
allocations and two wake-ups per delivery. Here one pull request asks for up to `batch`
deliveries with an `expires`; the server streams them to this consumer's inbox, the read loop
appends each to a list (jetjobs._transport.inbox), and the fetcher wakes once per burst and hands the burst
on while the request stays open. So a job published to an idle worker starts as soon as it
arrives, and a draining backlog costs one request per batch.

A request ends when its batch is filled, when the server says so with a status (408 request
expired, 409 consumer deleted or leadership change, 503 no responders), when the connection was
re-established meanwhile, or when it outlives its `expires` by `margin` (lost without a trace).
Deliveries that arrive after the request they answered ended (late ones) are still deliveries: the
next `pull` or `take` gets them.
"""

from __future__ import annotations

from typing import NamedTuple

import anyio
import msgspec
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from jetjobs._transport.inbox import subscribe_direct
from jetjobs._wire.envelope import ENCODER


class _PullRequest(msgspec.Struct, omit_defaults=True):
    batch: int
    expires: int = 0  # nanoseconds


_ACK_PREFIX = "$JS.ACK."


class AckReply(NamedTuple):
    """What a delivery's reply subject says: `$JS.ACK.<stream>.<consumer>.<delivered>.<stream
    seq>.<consumer seq>.<stored, ns>.<pending>`, or the same after a domain and an account hash."""

    consumer: str
    delivered: int  # JetStream's delivery count
    stream_seq: int
    stored_ns: int  # when the stream stored the message, Unix time in nanoseconds


def ack_reply(reply: str) -> AckReply | None:
    """The fields of a `$JS.ACK...` reply subject (either form); None for any other subject.

    What nats-py's `msg.metadata` gives, at a fraction of its cost (the worker reads one per job).
    """
    tokens = reply.split(".")
    if len(tokens) == 9:
        first = 2
    elif len(tokens) >= 11:
        first = 4
    else:
        return None
    return AckReply(tokens[first + 1], int(tokens[first + 2]), int(tokens[first + 3]), int(tokens[first + 5]))


class PullConsumer:
    """Deliveries of one durable consumer, for one fetcher task at a time."""

    def __init__(self, nc: NATS, *, stream: str, durable: str, margin: float = 1.0) -> None:
        self.nc = nc
        self.margin = margin
        self._next_subject = f"$JS.API.CONSUMER.MSG.NEXT.{stream}.{durable}"
        self._inbox = ""
        self._sub: Subscription | None = None
        self._arrived: list[Msg] = []
        self._status: str | None = None
        self._wake = anyio.Event()

    async def start(self) -> None:
        """Subscribe the inbox (before the first request)."""
        self._inbox = self.nc.new_inbox()
        self._sub = await subscribe_direct(self.nc, self._inbox, self._on_msg)

    async def close(self) -> None:
        """Unsubscribe; deliveries not taken by then come back after ack_wait."""
        if self._sub is not None and not self.nc.is_closed:
            await self._sub.unsubscribe()
        self._sub = None

    def _on_msg(self, msg: Msg) -> None:
        if msg.reply and msg.reply.startswith(_ACK_PREFIX):
            self._arrived.append(msg)
        else:
            headers = msg.headers or {}
            status = headers.get("Status", "")
            description = headers.get("Description", "")
            self._status = f"{status} {description}".strip() or "unknown reply"
        self._wake.set()

    def take(self) -> list[Msg]:
        """Every delivery that has arrived and was not handed on yet."""
        taken, self._arrived = self._arrived, []
        return taken

    def take_status(self) -> str | None:
        """The status that ended the open request (`408 Request Timeout`, ...), if one came."""
        status, self._status = self._status, None
        return status

    async def wait(self, timeout: float) -> bool:
        """Wait until something arrives (delivery or status); False on timeout."""
        if self._arrived or self._status is not None:
            return True
        self._wake = anyio.Event()
        with anyio.move_on_after(timeout):
            await self._wake.wait()
            return True
        return False

    async def pull(self, batch: int, expires: float) -> PullRequest:
        """Send a pull request for up to `batch` deliveries, open for `expires` seconds."""
        self._status = None  # a status of an earlier request must not end this one
        body = ENCODER.encode(_PullRequest(batch=batch, expires=int(expires * 1e9)))
        await self.nc.publish(self._next_subject, body, reply=self._inbox)
        return PullRequest(self, batch, anyio.current_time() + expires + self.margin)


class PullRequest:
    """One open pull request: call `next_burst()` until it returns []; `ended` then says how."""

    # While idle, how often to look whether the connection was re-established meanwhile (a
    # request does not survive a reconnect; without this it would be noticed only at its deadline).
    RECONNECT_CHECK = 0.5

    def __init__(self, consumer: PullConsumer, batch: int, deadline: float) -> None:
        self.consumer = consumer
        self.remaining = batch
        self.deadline = deadline
        self.ended = ""
        self._reconnects = consumer.nc.stats["reconnects"]

    async def next_burst(self) -> list[Msg]:
        """The deliveries that arrived since the last burst; [] once the request has ended."""
        consumer = self.consumer
        while not self.ended:
            burst = consumer.take()
            if burst:
                self.remaining -= len(burst)
                if self.remaining <= 0:
                    self.ended = "filled"
                return burst
            status = consumer.take_status()
            if status is not None:
                self.ended = status
                return []
            left = self.deadline - anyio.current_time()
            if left <= 0:
                self.ended = "lost"  # no answer within expires + margin: the request is gone
            elif (
                not await consumer.wait(min(left, self.RECONNECT_CHECK))
                and consumer.nc.stats["reconnects"] != self._reconnects
            ):
                self.ended = "reconnected"  # the server never saw it, or forgot it
        return []
