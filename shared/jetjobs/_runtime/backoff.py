"""Exponential backoff with jitter for retried jobs."""

from __future__ import annotations

import random
from collections.abc import Callable


def backoff_delay(
    attempt: int,
    *,
    base: float,
    cap: float,
    jitter: float,
    rand: Callable[[], float] = random.random,
) -> float:
    """Seconds to wait before attempt `attempt + 1`, after `attempt` failures.

    The delay doubles per attempt from `base`, is capped at `cap`, and is spread by +/- `jitter`
    (a fraction) so that jobs failing together do not retry together.
    """
    exponent = min(max(attempt - 1, 0), 62)
    raw = min(cap, base * float(2**exponent))
    spread = raw * jitter * (2 * rand() - 1)
    return max(0.0, min(cap, raw + spread))
