"""How long a server asked us to wait: the `Retry-After` header, read once for boards and LLMs."""

from __future__ import annotations

import email.utils
import math
from datetime import UTC, datetime


def retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a `Retry-After` header: delta-seconds or an HTTP date; None if absent
    or unreadable. A date without a zone is taken as UTC (RFC 9110 dates are GMT)."""
    if not value:
        return None
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if math.isnan(seconds) or math.isinf(seconds):
        return None
    return max(0.0, seconds)
