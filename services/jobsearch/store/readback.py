"""Reading a person's tracker edits back (status, notes), and the conflicts with the database.

Called by `Store.apply_sheet_edits` (through `tracker_rows.apply_sheet_edits`) inside its write transaction.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime

from jobsearch.store.history import set_notes, set_status
from jobsearch.store.records import STATUSES, Conflict, EditReport, SheetEdit, parse_status


def _record_conflict(conn: sqlite3.Connection, conflict: Conflict, now: str, report: EditReport) -> None:
    conn.execute(
        "INSERT INTO conflicts (listing_id, field, tracker_value, db_value, kept, detected_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (conflict.listing_id, conflict.field, conflict.tracker_value, conflict.db_value, conflict.kept, now),
    )
    report.conflicts.append(conflict)


def read_back_status(  # noqa: PLR0917 - the read-back's whole context, named once
    conn: sqlite3.Connection,
    edit: SheetEdit,
    listing: sqlite3.Row,
    tracker_mtime: datetime,
    now: str,
    report: EditReport,
) -> None:
    shown, in_db = listing["shown_status"], listing["status"]
    if edit.status.strip() == "" or edit.status.strip() == shown:
        return  # not edited (an emptied cell is not a status)
    wanted = parse_status(edit.status)
    if wanted is None:
        report.problems.append(
            f"row {edit.row} (ID {edit.listing_id}): status {edit.status!r} is not one of "
            f"{', '.join(STATUSES)}; kept {in_db!r}"
        )
        return
    if wanted in (in_db, shown):
        return
    if shown is None or in_db == shown:
        set_status(conn, edit.listing_id, wanted, "tracker", "edited in the tracker", None, now)
        report.applied += 1
        return
    # Changed in both places since the last render: the newer wins, the other is kept and named.
    db_time = datetime.fromisoformat(listing["status_at"])
    kept = wanted if tracker_mtime >= db_time else parse_status(in_db) or "Saved"
    conflict = Conflict(
        listing_id=edit.listing_id, field="status", tracker_value=wanted, db_value=in_db, kept=kept
    )
    if kept == wanted:
        set_status(conn, edit.listing_id, wanted, "tracker", f"conflict: the database had {in_db}", None, now)
    line = (
        f"[{now[:16]} conflict] status was {wanted} in the tracker and {in_db} in the database; "
        f"kept {kept} (the newer)"
    )
    notes = conn.execute("SELECT notes FROM listings WHERE id = ?", (edit.listing_id,)).fetchone()["notes"]
    set_notes(conn, edit.listing_id, f"{notes}\n{line}".strip(), "conflict", now)
    _record_conflict(conn, conflict, now, report)


def read_back_notes(
    conn: sqlite3.Connection, edit: SheetEdit, listing: sqlite3.Row, now: str, report: EditReport
) -> None:
    sheet, in_db = edit.notes, listing["notes"]
    if listing["notes_cell"] is not None and sheet == listing["notes_cell"]:
        return  # the cell is as we wrote it
    if edit.notes_formula:
        # Kept as the text the person typed (the next render writes it as text, not a formula).
        report.problems.append(
            f"row {edit.row} (ID {edit.listing_id}): the Notes cell held a formula; kept its text {sheet!r}"
        )
    if sheet == in_db:
        return
    if listing["shown_notes"] is None or in_db == listing["shown_notes"]:
        set_notes(conn, edit.listing_id, sheet, "tracker", now)
        report.applied += 1
        return
    # Changed in the sheet and in the database since the last render: keep both texts.
    merged = f"{sheet}\n[{now[:16]} conflict] the database's notes were:\n{in_db}"
    conflict = Conflict(
        listing_id=edit.listing_id, field="notes", tracker_value=sheet, db_value=in_db, kept="both"
    )
    set_notes(conn, edit.listing_id, merged, "conflict", now)
    _record_conflict(conn, conflict, now, report)
