"""The store's timestamps: ISO text in UTC, as every timestamp column holds them."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> str:
    """Now, as the ISO text every timestamp column holds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def utcnow_exact() -> str:
    """Now to the microsecond: `drafts.recorded_at`, which a replay compares with its start."""
    return datetime.now(UTC).isoformat(timespec="microseconds")
