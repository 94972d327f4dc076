"""A person's edits on the review page, each saved only over the version they were made from.

The page renders a listing's status, notes and drafts with the revision each one had (the id of
its newest `status_history`, `notes_history` or `drafts` row; 0 for none), and sends it back with
the edit. If a newer version was written meanwhile (read back from the tracker by an export,
`jobsearch mark`, a re-draft landing, another tab) and it differs from what the person saves, the
save writes nothing and returns that newer version, so the page can show both and let the person
choose. Check and write are one `BEGIN IMMEDIATE` transaction: nothing can slip in between.
"""

from __future__ import annotations

import sqlite3
from typing import Literal

import msgspec

from jobsearch.db import immediate
from jobsearch.jobs import STEPS, Step
from jobsearch.store.clock import utcnow, utcnow_exact
from jobsearch.store.errors import InvalidStatus, UnknownListing
from jobsearch.store.history import set_notes, set_status
from jobsearch.store.records import STATUSES, parse_status

Field = Literal["status", "notes", "cover_letter", "connection_note"]


class Version(msgspec.Struct, kw_only=True, frozen=True):
    """One field's current value, with who wrote it, when, and its revision."""

    field: Field
    value: str
    source: str  # tracker | mark | ui | pipeline | conflict | edit (a person's draft) | a provider
    at: str  # ISO time (UTC)
    revision: int  # the id of the row that wrote it; 0: never written


class Revisions(msgspec.Struct, kw_only=True, frozen=True):
    """The revision of each field of a listing, as the page renders it."""

    status: int
    notes: int
    drafts: dict[str, int]  # step -> id of its current draft (absent: none)


def revisions(conn: sqlite3.Connection, listing_id: str) -> Revisions:
    """The current revision of the listing's status, notes and each step's draft."""
    status = conn.execute(
        "SELECT coalesce(max(id), 0) FROM status_history WHERE listing_id = ?", (listing_id,)
    ).fetchone()[0]
    notes = conn.execute(
        "SELECT coalesce(max(id), 0) FROM notes_history WHERE listing_id = ?", (listing_id,)
    ).fetchone()[0]
    rows = conn.execute(
        "SELECT step, max(id) AS id FROM drafts WHERE listing_id = ? GROUP BY step", (listing_id,)
    )
    return Revisions(status=status, notes=notes, drafts={row["step"]: row["id"] for row in rows})


def save_status(
    conn: sqlite3.Connection, listing_id: str, status: str, *, base: int
) -> tuple[str, str] | Version:
    """Set the status (source `ui`) unless a different one was set after revision `base`.

    Returns:
        (previous, new) when saved; the newer version when it was not.

    Raises:
        InvalidStatus: `status` is not one of STATUSES.
        UnknownListing: no such listing.
    """
    wanted = parse_status(status)
    if wanted is None:
        raise InvalidStatus(f"{status!r} is not a status; use one of: {', '.join(STATUSES)}")
    with immediate(conn):
        current = _listing(conn, listing_id, "status")
        newest = conn.execute(
            "SELECT id, status, source, changed_at FROM status_history WHERE listing_id = ?"
            " ORDER BY id DESC LIMIT 1",
            (listing_id,),
        ).fetchone()
        revision = newest["id"] if newest else 0
        if revision != base and current != wanted:
            return Version(field="status", value=current, source=newest["source"] if newest else "pipeline",
                           at=newest["changed_at"] if newest else "", revision=revision)  # fmt: skip
        previous = set_status(conn, listing_id, wanted, "ui", "", None, utcnow())
    return previous, wanted


def save_notes(conn: sqlite3.Connection, listing_id: str, notes: str, *, base: int) -> Version | None:
    """Replace the notes (source `ui`) unless different notes were written after revision `base`.

    Returns:
        None when saved; the newer version when it was not.

    Raises:
        UnknownListing: no such listing.
    """
    with immediate(conn):
        current = _listing(conn, listing_id, "notes")
        newest = conn.execute(
            "SELECT id, source, changed_at FROM notes_history WHERE listing_id = ? ORDER BY id DESC LIMIT 1",
            (listing_id,),
        ).fetchone()
        revision = newest["id"] if newest else 0
        if revision != base and current != notes:
            return Version(field="notes", value=current, source=newest["source"] if newest else "",
                           at=newest["changed_at"] if newest else "", revision=revision)  # fmt: skip
        if current != notes:
            set_notes(conn, listing_id, notes, "ui", utcnow())
    return None


def save_draft(
    conn: sqlite3.Connection, listing_id: str, step: Step, text: str, *, base: int
) -> Version | None:
    """Store the person's text for `step` as the listing's newest draft (`origin` `edit`, as
    `Store.save_draft_edit`) unless a different draft was recorded after draft `base`.

    Returns:
        None when saved; the newer draft when it was not.

    Raises:
        UnknownListing: no such listing.
        ValueError: `step` is not a draft step.
    """
    if step not in STEPS:
        raise ValueError(f"{step!r} is not a draft step ({', '.join(STEPS)})")
    with immediate(conn):
        _listing(conn, listing_id, "id")
        newest = conn.execute(
            "SELECT id, text, provider, model, origin, created_at FROM drafts"
            " WHERE listing_id = ? AND step = ? ORDER BY id DESC LIMIT 1",
            (listing_id, step),
        ).fetchone()
        revision = newest["id"] if newest else 0
        if revision != base and newest is not None and newest["text"] != text:
            source = "edit" if newest["origin"] == "edit" else f"{newest['provider']}/{newest['model']}"
            return Version(
                field=step, value=newest["text"], source=source, at=newest["created_at"], revision=revision
            )
        provider, model = (newest["provider"], newest["model"]) if newest else ("person", "")
        conn.execute(
            "INSERT INTO drafts (listing_id, step, text, provider, model, status, checks, origin,"
            " created_at, recorded_at) VALUES (?, ?, ?, ?, ?, 'ok', '[]', 'edit', ?, ?)",
            (listing_id, step, text, provider, model, utcnow(), utcnow_exact()),
        )
    return None


def _listing(conn: sqlite3.Connection, listing_id: str, column: str) -> str:
    row = conn.execute(f"SELECT {column} FROM listings WHERE id = ?", (listing_id,)).fetchone()
    if row is None:
        raise UnknownListing(f"no listing has the id {listing_id!r}")
    return str(row[0])


__all__ = ["Field", "Revisions", "Version", "revisions", "save_draft", "save_notes", "save_status"]
