"""Status and notes changes, each with its history row: the writes every editor of a listing shares.

Called inside a `Store` write transaction (`conn` is in `BEGIN IMMEDIATE`).
"""

from __future__ import annotations

import sqlite3

from jobsearch.store.errors import UnknownListing
from jobsearch.store.records import Status, parse_status


def add_status(  # noqa: PLR0917 - one argument per column of the history row
    conn: sqlite3.Connection,
    listing_id: str,
    status: Status,
    previous: str | None,
    source: str,
    detail: str,
    run_id: str | None,
    now: str,
) -> None:
    conn.execute(
        "INSERT INTO status_history (listing_id, status, previous, source, detail, run_id, changed_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?)",
        (listing_id, status, previous, source, detail, run_id, now),
    )


def set_status(  # noqa: PLR0917 - one argument per column of the history row
    conn: sqlite3.Connection,
    listing_id: str,
    status: Status,
    source: str,
    detail: str,
    run_id: str | None,
    now: str,
) -> Status:
    row = conn.execute("SELECT status FROM listings WHERE id = ?", (listing_id,)).fetchone()
    if row is None:
        raise UnknownListing(f"no listing has the id {listing_id!r}")
    previous = parse_status(row["status"]) or "Saved"
    if previous != status:
        conn.execute("UPDATE listings SET status = ?, status_at = ? WHERE id = ?", (status, now, listing_id))
        add_status(conn, listing_id, status, previous, source, detail, run_id, now)
    return previous


def set_notes(conn: sqlite3.Connection, listing_id: str, notes: str, source: str, now: str) -> None:
    cursor = conn.execute(
        "UPDATE listings SET notes = ?, notes_at = ? WHERE id = ?", (notes, now, listing_id)
    )
    if cursor.rowcount == 0:
        raise UnknownListing(f"no listing has the id {listing_id!r}")
    conn.execute(
        "INSERT INTO notes_history (listing_id, notes, source, changed_at) VALUES (?, ?, ?, ?)",
        (listing_id, notes, source, now),
    )
