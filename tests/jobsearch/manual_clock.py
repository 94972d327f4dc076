"""A clock that moves only when the test says so, for the provider layer's limits and pauses."""

from __future__ import annotations

import anyio


class ManualClock:
    """A clock that moves only when the test calls `advance`; it records what its sleepers asked for."""

    def __init__(self) -> None:
        self._now = 1000.0
        self.asked: list[float] = []  # every sleep's duration, in order
        self.sleeping = 0
        self._moved: anyio.Event | None = None
        self._arrived: anyio.Event | None = None

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        deadline = self._now + seconds
        if deadline <= self._now:
            # Too short to register on the clock: the caller would wake at once and ask again, a spin.
            raise AssertionError(f"a sleep of {seconds!r} s cannot end on this clock")
        self.asked.append(seconds)
        self.sleeping += 1
        if self._arrived is not None:
            self._arrived.set()
        try:
            while self._now < deadline:
                if self._moved is None:
                    self._moved = anyio.Event()
                await self._moved.wait()
        finally:
            self.sleeping -= 1

    def advance(self, seconds: float) -> None:
        """Move time on and wake every sleeper to look at it."""
        self._now += seconds
        moved, self._moved = self._moved, None
        if moved is not None:
            moved.set()

    async def someone_asleep(self) -> float:
        """Wait until a task sleeps on this clock; the duration it asked for."""
        await self.asleep(1)
        return self.asked[-1]

    async def asleep(self, count: int) -> None:
        """Wait until `count` tasks sleep on this clock at once."""
        with anyio.fail_after(10):  # a hang guard, not a measurement
            while self.sleeping < count:
                self._arrived = anyio.Event()
                await self._arrived.wait()
