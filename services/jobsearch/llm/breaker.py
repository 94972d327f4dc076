"""A provider that keeps failing is left alone for a while: one breaker per provider and service.

A provider that is down (5xx after its retries, no answer within `LLM_TIMEOUT`, a refused
connection, answers we cannot read) costs every call its whole retry budget: with a provider that
hangs, 60 s a request. After `THRESHOLD` calls in a row end that way, the breaker opens: for
`COOLDOWN` seconds (doubling each time it opens again, at most `COOLDOWN_CAP`) calls skip the
provider without a request, fall over to the next one of the chain, or fail at once, so a run in
an outage records its listings as failed in seconds instead of hours. When the cooldown has
passed, calls go through again; the first answer closes the breaker.

The breaker reads the time through the client's `Clock`, like the limits and the pauses.
"""

from __future__ import annotations

from dataclasses import dataclass

from jobsearch.llm.errors import ProviderDown
from jobsearch.llm.limits import Clock

THRESHOLD = 3
COOLDOWN = 30.0
COOLDOWN_CAP = 300.0


@dataclass
class _State:
    failures: int = 0  # calls in a row that ended with the provider down
    last_reason: str = ""
    open_until: float | None = None  # on the clock's scale
    cooldown: float = COOLDOWN


class Breaker:
    """The breakers of one client's providers."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._states: dict[str, _State] = {}

    def check(self, provider: str) -> ProviderDown | None:
        """None when a call may ask `provider`; else the failure to record instead of a request."""
        state = self._states.get(provider)
        if state is None or state.open_until is None:
            return None
        left = state.open_until - self._clock.now()
        if left <= 0:
            return None
        # Worded the same for every call it skips, so that a summary counts them as one reason.
        return ProviderDown(
            provider,
            f"{state.last_reason} (not asked for {state.cooldown:g} s after {THRESHOLD} calls in a row "
            "failed; no request sent)",
        )

    def failed(self, provider: str, reason: str) -> None:
        """A call found `provider` down."""
        state = self._states.setdefault(provider, _State())
        state.failures += 1
        state.last_reason = reason
        now = self._clock.now()
        if state.failures >= THRESHOLD and (state.open_until is None or state.open_until <= now):
            if state.open_until is not None:  # it failed again after a cooldown: wait longer
                state.cooldown = min(state.cooldown * 2, COOLDOWN_CAP)
            state.open_until = now + state.cooldown

    def answered(self, provider: str) -> None:
        """`provider` answered: it is up."""
        self._states.pop(provider, None)
