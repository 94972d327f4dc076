"""The `drafts` table read and written for one listing: its current draft of each step, every
draft before them, and a person's edit stored as the newest.

Connection-level functions: `Store.current_drafts`, `draft_history` and `save_draft_edit` call
them, the edit inside its own transaction. (Why a listing has no draft, and the Review column,
are `jobsearch.store.drafting`'s.)
"""

from __future__ import annotations

import sqlite3

from jobsearch.jobs import Step
from jobsearch.store.clock import utcnow, utcnow_exact
from jobsearch.store.errors import UnknownListing
from jobsearch.store.records import StoredDraft
from jobsearch.store.rows import newest_by_step, stored_draft


def _require_listing(conn: sqlite3.Connection, listing_id: str) -> None:
    if conn.execute("SELECT 1 FROM listings WHERE id = ?", (listing_id,)).fetchone() is None:
        raise UnknownListing(f"no listing has the id {listing_id!r}")


def current_drafts(conn: sqlite3.Connection, listing_id: str) -> dict[Step, StoredDraft]:
    """The newest draft of each step of `listing_id`.

    Raises:
        UnknownListing: no such listing.
    """
    _require_listing(conn, listing_id)
    rows = conn.execute(
        "SELECT * FROM drafts WHERE id IN"
        " (SELECT max(id) FROM drafts WHERE listing_id = ? GROUP BY step) ORDER BY id",
        (listing_id,),
    )
    return newest_by_step([stored_draft(row) for row in rows])


def draft_history(conn: sqlite3.Connection, listing_id: str) -> list[StoredDraft]:
    """Every draft and edit of `listing_id`, oldest first, with its checks."""
    rows = conn.execute("SELECT * FROM drafts WHERE listing_id = ? ORDER BY id", (listing_id,))
    return [stored_draft(row) for row in rows]


def save_draft_edit(conn: sqlite3.Connection, listing_id: str, step: Step, text: str) -> StoredDraft:
    """Insert a person's text for one step as the listing's newest draft, inside the caller's
    transaction (what it keeps of the draft it replaces: `Store.save_draft_edit`).

    Raises:
        UnknownListing: no such listing.
    """
    _require_listing(conn, listing_id)
    previous = conn.execute(
        "SELECT provider, model FROM drafts WHERE listing_id = ? AND step = ? ORDER BY id DESC LIMIT 1",
        (listing_id, step),
    ).fetchone()
    provider, model = (previous["provider"], previous["model"]) if previous else ("person", "")
    cursor = conn.execute(
        "INSERT INTO drafts (listing_id, step, text, provider, model, status, checks, origin,"
        " created_at, recorded_at) VALUES (?, ?, ?, ?, ?, 'ok', '[]', 'edit', ?, ?)",
        (listing_id, step, text, provider, model, utcnow(), utcnow_exact()),
    )
    return stored_draft(conn.execute("SELECT * FROM drafts WHERE id = ?", (cursor.lastrowid,)).fetchone())
