"""Recording which listings the boards took down (`closed_at`) or stopped carrying (`stale_at`).

The export stage is handed them by dedupe (`jobsearch.listing_states`) once a run has drained.
They are the boards' facts beside the person's own Status, which they never change: a listing the
person applied to that closes stays `Applied`, with its closed date next to it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import date

from jobsearch.jobs import ListingState


def record_listing_states(conn: sqlite3.Connection, states: Iterable[ListingState]) -> int:
    """Write each listing's closed and stale dates; how many listings of the state of record changed."""
    changed = 0
    for state in states:
        cursor = conn.execute(
            "UPDATE listings SET closed_at = ?, stale_at = ? WHERE id = ?"
            " AND (closed_at IS NOT ? OR stale_at IS NOT ?)",
            (
                _iso(state.closed_at),
                _iso(state.stale_at),
                state.id,
                _iso(state.closed_at),
                _iso(state.stale_at),
            ),
        )
        changed += cursor.rowcount
    return changed


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None
