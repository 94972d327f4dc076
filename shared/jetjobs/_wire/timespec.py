"""Durations and points in time as an operator types them: `90s`, `15m`, `1h`, `2d`, RFC 3339.

`replay --since 1h`, `enqueue --in 10m`, `schedule add --every 1h` and `--at 2026-12-01T08:00:00Z`
all read their argument here, so every command accepts the same forms.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from jetjobs._errors import ConfigError

_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}
_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d|w)")
_DURATION = re.compile(r"^(?:\d+(?:\.\d+)?(?:ms|s|m|h|d|w))+$")


def parse_duration(text: str) -> timedelta:
    """Parse `90s`, `15m`, `1h30m`, `2d`, `500ms` (a sum of number+unit parts).

    Raises:
        ConfigError: the text is not such a duration.
    """
    compact = text.strip().replace(" ", "")
    if not _DURATION.match(compact):
        raise ConfigError(f"{text!r} is not a duration; write e.g. 90s, 15m, 1h, 1h30m or 2d")
    seconds = sum(float(number) * _UNITS[unit] for number, unit in _PART.findall(compact))
    return timedelta(seconds=seconds)


def parse_time(text: str, *, now: datetime | None = None, future: bool = False) -> datetime:
    """A point in time: RFC 3339 (`2026-12-01T08:00:00Z`), or a duration from `now`.

    A duration means "that long ago" (`--since 1h`), or "that long from now" when `future` is
    true (`--in 10m`). A time without a zone is taken as UTC. The result is timezone-aware UTC.

    Raises:
        ConfigError: the text is neither a duration nor an RFC 3339 time.
    """
    now = now or datetime.now(UTC)
    stripped = text.strip()
    if _DURATION.match(stripped.replace(" ", "")):
        delta = parse_duration(stripped)
        return now + delta if future else now - delta
    try:
        parsed = datetime.fromisoformat(stripped.replace("z", "Z"))
    except ValueError:
        raise ConfigError(
            f"{text!r} is neither a duration (90s, 15m, 1h, 2d) nor an RFC 3339 time (2026-12-01T08:00:00Z)"
        ) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC)


def rfc3339(when: datetime) -> str:
    """`when` in UTC as RFC 3339 with a `Z` (the form the server's `@at` schedules parse)."""
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC).isoformat().replace("+00:00", "Z")
