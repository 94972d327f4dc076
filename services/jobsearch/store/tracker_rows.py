"""The state of record as the tracker shows it: every listing as a tracker row, what the last
render wrote (`tracker_rows` table), and the person's edits of the sheet brought back.

Connection-level functions: `Store.tracker_rows`, `summary_rows`, `apply_sheet_edits` and
`remember_rendered` call them, the writes inside their own transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime

from jobsearch.jobs import Check, Step
from jobsearch.listing import SourceRef
from jobsearch.store.drafting import CURRENT_DRAFTS, current_checks, issues, review_text
from jobsearch.store.readback import read_back_notes, read_back_status
from jobsearch.store.records import EditReport, SheetEdit, TrackerRow, parse_status
from jobsearch.store.rows import day, fit_why, shown_fields, source_ref, with_drafts


def tracker_rows(conn: sqlite3.Connection) -> list[TrackerRow]:
    """Every listing as a tracker row, newest found first, with its current drafts."""
    current: dict[str, dict[str, sqlite3.Row]] = {}
    for row in conn.execute(
        "SELECT d.listing_id, d.step, d.text, d.provider, d.model, d.fell_over FROM drafts d"
        f" JOIN ({CURRENT_DRAFTS}) c ON d.id = c.id"
    ):
        current.setdefault(row["listing_id"], {})[row["step"]] = row
    return [with_drafts(row, current.get(row.listing_id)) for row in summary_rows(conn)]


def summary_rows(
    conn: sqlite3.Connection, *, checks: dict[str, dict[Step, tuple[str, list[Check]]]] | None = None
) -> list[TrackerRow]:
    """Every listing as a tracker row without its drafts, newest found first (from `checks`, the
    `current_checks` a caller already read, when given)."""
    sources: dict[str, list[str]] = {}
    postings: dict[str, list[SourceRef]] = {}
    for row in conn.execute(
        "SELECT listing_id, board, source, external_id, url, posted_at FROM listing_sources"
        " ORDER BY listing_id, rowid"
    ):
        names = sources.setdefault(row["listing_id"], [])
        if row["source"] not in names:
            names.append(row["source"])
        postings.setdefault(row["listing_id"], []).append(source_ref(row))
    checks = current_checks(conn) if checks is None else checks
    waits = issues(conn)
    return [
        TrackerRow(
            listing_id=row["id"],
            **shown_fields(row),
            sources=sources.get(row["id"], []),
            postings=postings.get(row["id"], []),
            found=datetime.fromisoformat(row["first_seen"]).date(),
            updated=datetime.fromisoformat(row["changed_at"]).date() if row["changed_at"] else None,
            status=parse_status(row["status"]) or "Saved",
            notes=row["notes"],
            review=review_text(checks.get(row["id"]), waits.get(row["id"])),
            fit=row["fit"],
            fit_why=fit_why(row["fit_reasons"]),
            closed_at=day(row["closed_at"]),
            stale_at=day(row["stale_at"]),
        )
        for row in conn.execute(
            "SELECT id, company, title, locations, remote, salary, url, posted_at, workplace, pay_note,"
            " first_seen, changed_at, status, notes, fit, fit_reasons, closed_at, stale_at FROM listings"
            " ORDER BY fit IS NULL, fit DESC, first_seen DESC, company, title"
        )
    ]


def apply_sheet_edits(
    conn: sqlite3.Connection, edits: Iterable[SheetEdit], *, tracker_mtime: datetime, now: str
) -> EditReport:
    """Bring the person's tracker edits into the database, inside the caller's transaction (the
    rules are `Store.apply_sheet_edits`'s; each field is `jobsearch.store.readback`'s)."""
    report = EditReport()
    for edit in edits:
        listing = conn.execute(
            "SELECT l.status, l.status_at, l.notes, t.status AS shown_status, t.notes AS shown_notes,"
            " t.notes_cell"
            " FROM listings l LEFT JOIN tracker_rows t ON t.listing_id = l.id WHERE l.id = ?",
            (edit.listing_id,),
        ).fetchone()
        if listing is None:
            report.problems.append(
                f"row {edit.row}: ID {edit.listing_id!r} is not in the database; row left out"
            )
            continue
        read_back_notes(conn, edit, listing, now, report)
        read_back_status(conn, edit, listing, tracker_mtime, now, report)
    return report


def remember_rendered(conn: sqlite3.Connection, rows: Iterable[tuple[TrackerRow, str]], *, now: str) -> None:
    """Record what the tracker now shows (each row and its notes cell's text as written), inside
    the caller's transaction."""
    conn.executemany(
        "INSERT INTO tracker_rows (listing_id, status, notes, notes_cell, rendered_at)"
        " VALUES (?, ?, ?, ?, ?) ON CONFLICT (listing_id) DO UPDATE SET status = excluded.status,"
        " notes = excluded.notes, notes_cell = excluded.notes_cell,"
        " rendered_at = excluded.rendered_at",
        [(row.listing_id, row.status, row.notes, cell, now) for row, cell in rows],
    )
