"""The worker's local buffer of fetched deliveries, drained by priority without starvation.

Deliveries wait here between fetch and start (their leases are extended meanwhile). `get()`
chooses among the non-empty priorities by smooth weighted round-robin (the nginx algorithm): with
weights 8/4/1, a waiting high job is chosen next (a high job never waits behind buffered low
ones), yet while high jobs keep arriving a low one still starts once in every 13 picks.
"""

from __future__ import annotations

from collections import deque
from typing import Generic, TypeVar

import anyio

from jetjobs._wire.envelope import PRIORITIES, Priority

T = TypeVar("T")


class PriorityBuffer(Generic[T]):
    """Per-priority FIFO queues with a bounded size each, and a fair `get()`."""

    def __init__(self, weights: dict[Priority, int], capacity: int) -> None:
        self._queues: dict[Priority, deque[T]] = {p: deque() for p in PRIORITIES}
        self._weights = weights
        self._current: dict[Priority, int] = dict.fromkeys(PRIORITIES, 0)
        self.capacity = capacity
        self._item_added = anyio.Event()
        self.closed = False
        self._room_made: dict[Priority, anyio.Event] = {p: anyio.Event() for p in PRIORITIES}

    def __len__(self) -> int:
        return sum(len(q) for q in self._queues.values())

    def room(self, priority: Priority) -> int:
        """How many more deliveries of this priority may be buffered now."""
        return max(0, self.capacity - len(self._queues[priority]))

    async def wait_room(self, priority: Priority) -> int:
        """Wait until a worthwhile fetch of this priority fits; return how many may be buffered.

        Worthwhile: half the capacity, or anything at all once the queue has run dry. Refilling one
        slot at a time would cost a fetch round trip per job while a backlog drains.
        """
        low_water = max(1, self.capacity // 2)
        while (room := self.room(priority)) < low_water and (room == 0 or self._queues[priority]):
            # A worker over several queues has one fetcher per queue and priority: they share
            # one event, renewed only after it fired (a waiter replacing it would strand the
            # other queue's fetcher on an event nobody sets, and that queue would stop).
            event = self._room_made[priority]
            if event.is_set():
                self._room_made[priority] = event = anyio.Event()
            await event.wait()
        return room

    def put(self, priority: Priority, item: T) -> None:
        """Add a fetched delivery."""
        self._queues[priority].append(item)
        self._item_added.set()

    def pick(self) -> tuple[Priority, T] | None:
        """Take the next delivery by smooth weighted round-robin, or None when empty."""
        queues, current = self._queues, self._current
        ready = [p for p in PRIORITIES if queues[p]]
        if not ready:
            return None
        # An idle priority neither banks credit nor carries debt into its next arrival, so a
        # newly arrived high job (weight 8 against 4 and 1) is picked next.
        for p in PRIORITIES:
            if not queues[p]:
                current[p] = 0
        if len(ready) == 1:
            chosen = ready[0]  # the round with one priority ready leaves its credit as it was
        else:
            total = 0
            for p in ready:
                current[p] += self._weights[p]
                total += self._weights[p]
            chosen = max(ready, key=lambda p: current[p])
            current[chosen] -= total
        item = queues[chosen].popleft()
        self._room_made[chosen].set()
        return chosen, item

    async def get(self) -> tuple[Priority, T] | None:
        """Wait for and take the next delivery; None once the buffer is closed.

        Any number of tasks may wait: they share one event, renewed only after it fired.
        """
        while not self.closed:
            picked = self.pick()
            if picked is not None:
                return picked
            if self._item_added.is_set():
                self._item_added = anyio.Event()
            await self._item_added.wait()
        return None

    def close(self) -> None:
        """Hand out nothing more (shutdown): waiting and later `get()` calls return None."""
        self.closed = True
        self._item_added.set()

    def drain(self) -> list[T]:
        """Remove and return everything buffered (at shutdown, to NAK it)."""
        items = [item for p in PRIORITIES for item in self._queues[p]]
        for queue in self._queues.values():
            queue.clear()
        return items
