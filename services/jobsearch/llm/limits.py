"""Per-provider limits shared by every job of one service: concurrent calls, requests and tokens a minute.

A provider's account limits are per organisation, not per job, so one `ProviderLimits` per provider
lives as long as the service and every call goes through it. The minute limits are token buckets
(capacity = the per-minute figure, refilled continuously); a call reserves its estimated tokens
(prompt characters / 4 + the output budget) before it is sent.

The buckets read time through a `Clock` (the event loop's by default), so a test can drive the
refill with a clock it advances by hand.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Protocol

import anyio

_ROUNDING = 1e-9


class Clock(Protocol):
    """Where a bucket reads the time and waits for it to pass."""

    def now(self) -> float:
        """Seconds on a monotonic scale."""

    async def sleep(self, seconds: float) -> None:
        """Return once `seconds` have passed on this clock."""


class LoopClock:
    """The event loop's monotonic clock (`anyio.current_time`, `anyio.sleep`)."""

    def now(self) -> float:
        """The event loop's time."""
        return anyio.current_time()

    async def sleep(self, seconds: float) -> None:
        """Sleep on the event loop."""
        await anyio.sleep(seconds)


class TokenBucket:
    """`per_minute` units a minute, refilled continuously, at most `per_minute` banked."""

    def __init__(self, per_minute: int, clock: Clock | None = None) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self._clock = clock or LoopClock()
        self._level = self.capacity
        self._stamp: float | None = None  # set on first use, inside the event loop
        self._lock = anyio.Lock()

    async def take(self, amount: float) -> None:
        """Wait until `amount` units are available and take them (one waiter at a time, in order)."""
        amount = min(amount, self.capacity)
        async with self._lock:
            while True:
                now = self._clock.now()
                if self._stamp is None:
                    self._stamp = now
                self._level = min(self.capacity, self._level + (now - self._stamp) * self.rate)
                self._stamp = now
                # Float rounding of the refill (30 s of 2/min is 0.999... of a unit) must not
                # cost another wake-up, or a spin while a coarse clock has not ticked.
                if self._level + _ROUNDING >= amount:
                    self._level -= amount
                    return
                await self._clock.sleep((amount - self._level) / self.rate)


class ProviderLimits:
    """Concurrency, requests a minute and tokens a minute for one provider."""

    def __init__(
        self,
        concurrency: int,
        requests_per_minute: int | None,
        tokens_per_minute: int | None,
        *,
        clock: Clock | None = None,
    ) -> None:
        self._slots = anyio.Semaphore(max(1, concurrency))
        self._requests = TokenBucket(requests_per_minute, clock) if requests_per_minute else None
        self._tokens = TokenBucket(tokens_per_minute, clock) if tokens_per_minute else None

    @property
    def immediate(self) -> bool:
        """Whether a slot is free now and no minute limit applies: taking one cannot wait."""
        return self._requests is None and self._tokens is None and self._slots.value > 0

    @contextlib.asynccontextmanager
    async def slot(self, estimated_tokens: int) -> AsyncIterator[None]:
        """Hold one of the provider's slots for a request estimated at `estimated_tokens`."""
        if self._requests is not None:
            await self._requests.take(1)
        if self._tokens is not None:
            await self._tokens.take(estimated_tokens)
        async with self._slots:
            yield
