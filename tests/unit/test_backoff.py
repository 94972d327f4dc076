"""Exponential backoff: doubling from the base, the cap, and the jitter band."""

from __future__ import annotations

import pytest

from jetjobs._runtime.backoff import backoff_delay


def middle() -> float:
    """A random draw at the centre of [0, 1): no jitter either way."""
    return 0.5


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [(0, 1.0), (1, 1.0), (2, 2.0), (3, 4.0), (4, 8.0), (5, 16.0), (8, 128.0)],
)
def test_delay_doubles_per_attempt(attempt: int, expected: float) -> None:
    """Without jitter the delay after `attempt` failures is base * 2**(attempt - 1)."""
    assert backoff_delay(attempt, base=1.0, cap=1000.0, jitter=0.2, rand=middle) == expected


def test_delay_is_capped() -> None:
    """Once doubling passes the cap, every later attempt waits exactly the cap."""
    delays = [backoff_delay(n, base=0.5, cap=10.0, jitter=0.0, rand=middle) for n in range(1, 12)]
    assert delays[:5] == [0.5, 1.0, 2.0, 4.0, 8.0]
    assert delays[5:] == [10.0] * 6


def test_huge_attempt_does_not_overflow() -> None:
    """An attempt count far past float range still gives the cap, not an OverflowError."""
    assert backoff_delay(10_000, base=1.0, cap=300.0, jitter=0.2, rand=middle) == 300.0


@pytest.mark.parametrize(("draw", "expected"), [(0.0, 6.4), (0.5, 8.0), (1.0, 9.6)])
def test_jitter_spreads_by_fraction(draw: float, expected: float) -> None:
    """With jitter 0.2 the delay lies in [0.8, 1.2] x the raw delay, set by the random draw."""
    delay = backoff_delay(4, base=1.0, cap=100.0, jitter=0.2, rand=lambda: draw)
    assert delay == pytest.approx(expected)


def test_jitter_never_exceeds_cap() -> None:
    """At the cap, upward jitter is clipped to the cap; downward jitter still applies."""
    assert backoff_delay(20, base=1.0, cap=60.0, jitter=0.5, rand=lambda: 1.0) == 60.0
    assert backoff_delay(20, base=1.0, cap=60.0, jitter=0.5, rand=lambda: 0.0) == pytest.approx(30.0)


def test_full_jitter_never_negative() -> None:
    """Jitter 1.0 at the lowest draw gives zero delay, never a negative one."""
    assert backoff_delay(3, base=1.0, cap=100.0, jitter=1.0, rand=lambda: 0.0) == 0.0
    assert backoff_delay(3, base=1.0, cap=100.0, jitter=1.0, rand=lambda: 1.0) == pytest.approx(8.0)


def test_default_random_stays_in_band() -> None:
    """With the real random source, every delay lies within the jitter band."""
    for _ in range(500):
        delay = backoff_delay(3, base=1.0, cap=100.0, jitter=0.25)
        assert 3.0 <= delay <= 5.0
