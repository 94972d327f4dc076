"""A provider's pause: after it names a wait, no call of the service sends to it until the wait ends.

A 429 or 503 with `Retry-After` (or Gemini's `RetryInfo`) speaks for the account, not for the one
request that met it: 200 queued drafts that each found that out with a request of their own would
be 200 requests the provider already refused. So one `Pause` per provider lives in the
`LlmClient`, shared by every call, and every request waits on it first (`wait`): the call either
waits the pause out, when it ends before the call's deadline, or is refused at once with
`RateLimited` and no request, and its chain goes on to the next provider.

Calls that are queued for one of the provider's slots (its concurrency or its minute limits) when
a pause begins are interrupted (`interruptible`), so a call that cannot wait that long finds out
then, not when a slot frees. The pause reads time through the same `Clock` as the limits, so a
test drives it with a clock it advances by hand; `retry_at` is the wall-clock moment, in UTC.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import anyio
import structlog

from jobsearch.llm.errors import RateLimited, clock_time
from jobsearch.llm.limits import Clock, LoopClock

# A pause this close to its end is over: float rounding of `until - now` must not cost a sleep
# that a coarse clock cannot end.
_ROUNDING = 1e-9

log = structlog.get_logger("jobsearch.llm")


class Pause:
    """Until when one provider must not be asked, and why (shared by every call of a client)."""

    def __init__(self, provider: str, clock: Clock | None = None) -> None:
        self.provider = provider
        self.clock = clock or LoopClock()
        self._until = -math.inf  # on the clock's monotonic scale
        self._retry_at: datetime | None = None
        self._reason = ""
        self._queued: set[anyio.CancelScope] = set()

    @property
    def active(self) -> bool:
        """Whether the provider is paused now."""
        return self.remaining() > 0

    @property
    def retry_at(self) -> datetime | None:
        """When the provider may be asked again (UTC), while it is paused."""
        return self._retry_at if self.active else None

    def remaining(self) -> float:
        """Seconds until the pause ends (0 when there is none)."""
        left = self._until - self.clock.now()
        return left if left > _ROUNDING else 0.0

    def hold(self, delay: float, reason: str) -> None:
        """Pause the provider for `delay` seconds from now; a pause already lasting longer stays.

        Every call queued for one of the provider's slots is interrupted, to wait or fall over.
        """
        if delay <= 0:
            return
        until = self.clock.now() + delay
        if until <= self._until:
            return
        if not self.active:  # one line per pause, not one per request that met it
            log.warning("llm.paused", provider=self.provider, seconds=round(delay, 3), reason=reason)
        self._until = until
        self._retry_at = datetime.now(UTC) + timedelta(seconds=delay)
        self._reason = reason
        for scope in list(self._queued):
            scope.cancel()

    async def wait(self, deadline: float, *, sent: int = 0) -> None:
        """Return once the provider may be asked: at once, or when the pause ends.

        Args:
            deadline: the latest moment (on the clock) this call may wait until.
            sent: how many requests this call has sent to the provider, for the message.

        Raises:
            RateLimited: the pause ends after `deadline`; nothing was waited.
        """
        while (left := self.remaining()) > 0:
            if self._until > deadline:
                raise self.limited(sent)
            await self.clock.sleep(left)

    def limited(self, sent: int) -> RateLimited:
        """The error of a call that cannot wait for this pause, after `sent` requests."""
        retry_at = self._retry_at or datetime.now(UTC)
        requests = "no request sent" if sent == 0 else f"{sent} request{'s' if sent > 1 else ''}"
        return RateLimited(
            self.provider,
            f"asked to retry at {clock_time(retry_at)} ({self._reason}; {requests})",
            self.remaining(),
            retry_at,
        )

    @contextlib.contextmanager
    def interruptible(self) -> Iterator[anyio.CancelScope]:
        """Around queueing for a slot: cancelled when a pause begins (see `cancelled_caught`)."""
        with anyio.CancelScope() as scope:
            self._queued.add(scope)
            try:
                yield scope
            finally:
                self._queued.discard(scope)
