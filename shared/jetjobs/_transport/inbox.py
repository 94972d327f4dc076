"""Subscriptions whose messages go straight to a plain callback in the connection's read loop.

A nats-py subscription with `cb=` puts each message on an asyncio.Queue that a task per
subscription drains, awaiting the callback; `next_msg` (behind `fetch`) even starts a task and a
timer per message. The worker receives three messages per job (the delivery and two ledger acks),
so those hops were a large share of its time. nats-py resolves a subscription made with `future=`
by calling `future.set_result(msg)` from the read loop; `DirectDelivery` stands in for that future
and hands every message to a callback instead: no queue, no task, no wake-up per message. The
connection is then read by jetjobs' own protocol reader (jetjobs._transport.reader), which calls
the callback without even nats-py's coroutine per message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription

from jetjobs._transport import reader
from jetjobs._transport.reader import DirectDelivery

__all__ = ["DirectDelivery", "subscribe_direct"]


async def subscribe_direct(nc: NATS, subject: str, callback: Callable[[Msg], None]) -> Subscription:
    """Subscribe to `subject`; `callback` runs synchronously in the read loop for every message.

    The callback must not block or raise: it runs inside the connection's protocol reader, which
    is jetjobs' own from then on (jetjobs._transport.reader).
    """
    reader.install(nc)
    future: Any = DirectDelivery(callback)
    return await nc.subscribe(subject, future=future)
