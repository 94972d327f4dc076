"""The read/write API of the state of record: listings, drafts, statuses, notes, runs.

One `Store` per thread (an sqlite3 connection is not shared between threads). Every write is one
`BEGIN IMMEDIATE` transaction, so two writers (two export services, `jobsearch mark` beside a
running pipeline) queue on the file's write lock instead of failing half-way; readers (the review
page, a person's `sqlite3`) never block thanks to WAL.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec

from jobsearch.db import open_db
from jobsearch.jobs import Draft
from jobsearch.listing import MergedListing, Salary
from jobsearch.store.errors import AmbiguousListing, InvalidStatus, UnknownListing
from jobsearch.store.records import (
    STATUSES,
    Conflict,
    EditReport,
    ProviderUsage,
    RecordedExport,
    RunNumbers,
    RunRecord,
    SheetEdit,
    Status,
    StatusSource,
    TrackerRow,
    parse_status,
)
from jobsearch.store.schema import migrate

_JSON = msgspec.json.Encoder()
_SALARY = msgspec.json.Decoder(Salary)
_STRINGS = msgspec.json.Decoder(list[str])
_SUMMARY = msgspec.json.Decoder(dict[str, Any])


def utcnow() -> str:
    """Now, as the ISO text every timestamp column holds."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def utcnow_exact() -> str:
    """Now to the microsecond: `drafts.recorded_at`, which a replay compares with its start."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Store:
    """The state of record in one SQLite file (see `jobsearch.store.schema`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open (creating if needed) the database and its tables.

        Switching a new file to WAL takes an exclusive lock that SQLite does not wait for: two
        services opening a brand-new file at once can get "database is locked" there. That is
        retried for a few seconds; any other error is raised.
        """
        for delay in (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 0.0):
            try:
                conn = open_db(path)
                break
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or not delay:
                    raise
                time.sleep(delay)
        conn.isolation_level = None  # explicit transactions only: see `_write`
        migrate(conn)
        return cls(conn)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # IMMEDIATE takes the write lock up front, so busy_timeout applies; a deferred transaction
        # that upgrades later can fail with SQLITE_BUSY at once.
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -- the export stage -------------------------------------------------------------------

    def record_export(
        self, *, run_id: str, job_id: str, listing: MergedListing, drafts: Iterable[Draft]
    ) -> RecordedExport:
        """Record a listing (new or seen again), its sources and its drafts; idempotent per job id.

        A new listing starts `Drafted` when it comes with drafts, else `Saved`; a `Saved` listing
        that later gets drafts moves to `Drafted`. A status the person set is never changed.
        """
        now = utcnow()
        drafts = list(drafts)
        with self._write() as conn:
            existing = conn.execute("SELECT status FROM listings WHERE id = ?", (listing.id,)).fetchone()
            fields = _listing_fields(listing)
            if existing is None:
                first_seen = (listing.first_seen or datetime.now(UTC)).isoformat(timespec="seconds")
                status: Status = "Drafted" if drafts else "Saved"
                conn.execute(
                    "INSERT INTO listings (id, title, company, url, locations, remote, employment_type,"
                    " salary, posted_at, description, department, first_seen, first_run_id, last_run_id,"
                    " updated_at, status, status_at) VALUES (:id, :title, :company, :url, :locations,"
                    " :remote, :employment_type, :salary, :posted_at, :description, :department,"
                    " :first_seen, :run_id, :run_id, :now, :status, :now)",
                    fields | {"first_seen": first_seen, "run_id": run_id, "now": now, "status": status},
                )
                _add_status(conn, listing.id, status, None, "pipeline", "found", run_id, now)
            else:
                conn.execute(
                    "UPDATE listings SET title = :title, company = :company, url = :url,"
                    " locations = :locations, remote = :remote, employment_type = :employment_type,"
                    " salary = :salary, posted_at = :posted_at, description = :description,"
                    " department = :department, last_run_id = :run_id, updated_at = :now WHERE id = :id",
                    fields | {"run_id": run_id, "now": now},
                )
            for ref in listing.sources:
                conn.execute(
                    "INSERT OR IGNORE INTO listing_sources (listing_id, board, source, external_id, url,"
                    " posted_at, first_seen) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (listing.id, ref.board, ref.source, ref.external_id, ref.url, _iso(ref.posted_at), now),
                )
            added = 0
            for draft in drafts:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO drafts (listing_id, step, text, provider, model, tokens_in,"
                    " tokens_out, cost_usd, latency_ms, status, checks, origin, run_id, job_id, created_at,"
                    " recorded_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pipeline', ?, ?, ?, ?)",
                    (
                        listing.id, draft.step, draft.text, draft.provider, draft.model, draft.tokens_in,
                        draft.tokens_out, draft.cost_usd, draft.latency_ms, draft.status,
                        _JSON.encode(draft.checks).decode(), run_id, job_id,
                        (draft.created_at.isoformat(timespec="seconds") if draft.created_at else now),
                        utcnow_exact(),
                    ),
                )  # fmt: skip
                added += cursor.rowcount
            if existing is not None and existing["status"] == "Saved" and added:
                _set_status(conn, listing.id, "Drafted", "pipeline", "drafted", run_id, now)
        return RecordedExport(listing_id=listing.id, new=existing is None, drafts=added)

    # -- statuses and notes -----------------------------------------------------------------

    def resolve_id(self, id_or_prefix: str) -> str:
        """The listing id that `id_or_prefix` names (a whole id, or a unique prefix of one).

        Raises:
            UnknownListing: no listing matches.
            AmbiguousListing: more than one listing matches the prefix.
        """
        if self.conn.execute("SELECT 1 FROM listings WHERE id = ?", (id_or_prefix,)).fetchone():
            return id_or_prefix
        escaped = id_or_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self.conn.execute(
            "SELECT id FROM listings WHERE id LIKE ? ESCAPE '\\' LIMIT 6", (escaped + "%",)
        ).fetchall()
        if not rows:
            raise UnknownListing(f"no listing has the id {id_or_prefix!r} (see the tracker's ID column)")
        if len(rows) > 1:
            shown = ", ".join(row["id"] for row in rows[:5])
            raise AmbiguousListing(
                f"{id_or_prefix!r} names several listings ({shown}...): give more of the id"
            )
        return str(rows[0]["id"])

    def set_status(
        self, listing_id: str, status: str, *, source: StatusSource, detail: str = ""
    ) -> tuple[Status, Status]:
        """Set a listing's status (any case of a tracker status); return (previous, new).

        Raises:
            InvalidStatus: `status` is not one of STATUSES.
            UnknownListing: no such listing.
        """
        wanted = parse_status(status)
        if wanted is None:
            raise InvalidStatus(f"{status!r} is not a status; use one of: {', '.join(STATUSES)}")
        with self._write() as conn:
            previous = _set_status(conn, listing_id, wanted, source, detail, None, utcnow())
        return previous, wanted

    def set_notes(self, listing_id: str, notes: str, *, source: str) -> None:
        """Replace a listing's notes (the old text stays in `notes_history`).

        Raises:
            UnknownListing: no such listing.
        """
        with self._write() as conn:
            _set_notes(conn, listing_id, notes, source, utcnow())

    def status_history(self, listing_id: str) -> list[dict[str, Any]]:
        """Every status the listing had, oldest first."""
        rows = self.conn.execute(
            "SELECT status, previous, source, detail, run_id, changed_at FROM status_history"
            " WHERE listing_id = ? ORDER BY id",
            (listing_id,),
        )
        return [dict(row) for row in rows]

    def counts_by_status(self) -> dict[Status, int]:
        """How many listings are in each status (every status present, zeros included)."""
        counts: dict[Status, int] = dict.fromkeys(STATUSES, 0)
        for row in self.conn.execute("SELECT status, count(*) AS n FROM listings GROUP BY status"):
            status = parse_status(row["status"])
            if status is not None:
                counts[status] += row["n"]
        return counts

    # -- the tracker ------------------------------------------------------------------------

    def tracker_rows(self) -> list[TrackerRow]:
        """Every listing as a tracker row, newest found first, with its current drafts."""
        sources: dict[str, list[str]] = {}
        for row in self.conn.execute(
            "SELECT listing_id, source FROM listing_sources ORDER BY listing_id, rowid"
        ):
            names = sources.setdefault(row["listing_id"], [])
            if row["source"] not in names:
                names.append(row["source"])
        current: dict[str, dict[str, sqlite3.Row]] = {}
        for row in self.conn.execute(
            "SELECT d.listing_id, d.step, d.text, d.provider, d.model FROM drafts d"
            " JOIN (SELECT listing_id, step, max(id) AS id FROM drafts GROUP BY listing_id, step) c"
            " ON d.id = c.id"
        ):
            current.setdefault(row["listing_id"], {})[row["step"]] = row
        rows = []
        for row in self.conn.execute("SELECT * FROM listings ORDER BY first_seen DESC, company, title"):
            steps = current.get(row["id"], {})
            used = sorted({f"{d['provider']}/{d['model']}" for d in steps.values()})
            rows.append(
                TrackerRow(
                    listing_id=row["id"],
                    company=row["company"],
                    title=row["title"],
                    locations=_STRINGS.decode(row["locations"]),
                    remote=None if row["remote"] is None else bool(row["remote"]),
                    salary=_SALARY.decode(row["salary"]) if row["salary"] else None,
                    sources=sources.get(row["id"], []),
                    url=row["url"],
                    posted_at=date.fromisoformat(row["posted_at"]) if row["posted_at"] else None,
                    found=datetime.fromisoformat(row["first_seen"]).date(),
                    status=parse_status(row["status"]) or "Saved",
                    cover_letter=steps["cover_letter"]["text"] if "cover_letter" in steps else "",
                    connection_note=steps["connection_note"]["text"] if "connection_note" in steps else "",
                    provider_model=", ".join(used),
                    notes=row["notes"],
                )
            )
        return rows

    def apply_sheet_edits(self, edits: Iterable[SheetEdit], *, tracker_mtime: datetime) -> EditReport:
        """Bring the person's tracker edits (status, notes) into the database, before a re-render.

        A field is an edit when the sheet differs from what the last render wrote. If the database
        changed too (`jobsearch mark`, the review page) and to something else, that is a conflict:
        for status the newer of the two wins (the tracker's time is its file's mtime), for notes
        both texts are kept; each conflict gets a row in `conflicts` and a line in the notes.
        """
        report = EditReport()
        now = utcnow()
        with self._write() as conn:
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
                _read_back_notes(conn, edit, listing, now, report)
                _read_back_status(conn, edit, listing, tracker_mtime, now, report)
        return report

    def remember_rendered(self, rows: Iterable[tuple[TrackerRow, str]]) -> None:
        """Record what the tracker now shows (each row and its notes cell's text as written), so
        that the next export can tell the person's edits from ours."""
        now = utcnow()
        with self._write() as conn:
            conn.executemany(
                "INSERT INTO tracker_rows (listing_id, status, notes, notes_cell, rendered_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (listing_id) DO UPDATE SET status = excluded.status,"
                " notes = excluded.notes, notes_cell = excluded.notes_cell,"
                " rendered_at = excluded.rendered_at",
                [(row.listing_id, row.status, row.notes, cell, now) for row, cell in rows],
            )

    # -- runs -------------------------------------------------------------------------------

    def start_run(self, run_id: str, *, profile: str) -> None:
        """Record that a run started."""
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO runs (run_id, started_at, profile) VALUES (?, ?, ?)",
                (run_id, utcnow(), profile),
            )

    def finish_run(self, run_id: str, *, outcome: str, summary: dict[str, Any]) -> None:
        """Record how a run ended and its summary."""
        with self._write() as conn:
            conn.execute(
                "UPDATE runs SET finished_at = ?, outcome = ?, summary = ? WHERE run_id = ?",
                (utcnow(), outcome, _JSON.encode(summary).decode(), run_id),
            )

    def last_run(self) -> RunRecord | None:
        """The most recently started run, if any."""
        row = self.conn.execute("SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT 1").fetchone()
        if row is None:
            return None
        return RunRecord(
            run_id=row["run_id"],
            started_at=datetime.fromisoformat(row["started_at"]),
            finished_at=datetime.fromisoformat(row["finished_at"]) if row["finished_at"] else None,
            profile=row["profile"],
            outcome=row["outcome"],
            summary=_SUMMARY.decode(row["summary"]) if row["summary"] else None,
        )

    def run_numbers(self, run_id: str, *, drafts_since: str | None = None) -> RunNumbers:
        """What a run added: new and updated listings, drafts by provider with tokens and cost.

        Drafts count by the run id their jobs carry; with `drafts_since` (an ISO time), by when
        they were recorded instead (a replay re-drafts jobs that carry their first run's id).
        """
        new = self.conn.execute("SELECT count(*) FROM listings WHERE first_run_id = ?", (run_id,)).fetchone()[
            0
        ]
        updated = self.conn.execute(
            "SELECT count(*) FROM listings WHERE last_run_id = ? AND first_run_id != ?", (run_id, run_id)
        ).fetchone()[0]
        which, value = ("recorded_at >= ?", drafts_since) if drafts_since else ("run_id = ?", run_id)
        usage = [
            ProviderUsage(
                provider=row["provider"],
                model=row["model"],
                drafts=row["n"],
                tokens_in=row["tin"],
                tokens_out=row["tout"],
                cost_usd=row["cost"],
            )
            for row in self.conn.execute(
                "SELECT provider, model, count(*) AS n, sum(tokens_in) AS tin, sum(tokens_out) AS tout,"
                f" sum(cost_usd) AS cost FROM drafts WHERE {which} GROUP BY provider, model"
                " ORDER BY provider, model",
                (value,),
            )
        ]
        review = self.conn.execute(
            f"SELECT count(*) FROM drafts WHERE {which} AND status = 'needs_review'", (value,)
        ).fetchone()[0]
        return RunNumbers(listings_new=new, listings_updated=updated, drafts=usage, needs_review=review)


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


def _listing_fields(listing: MergedListing) -> dict[str, Any]:
    return {
        "id": listing.id,
        "title": listing.title,
        "company": listing.company,
        "url": listing.url,
        "locations": _JSON.encode(listing.locations).decode(),
        "remote": None if listing.remote is None else int(listing.remote),
        "employment_type": listing.employment_type,
        "salary": _JSON.encode(listing.salary).decode() if listing.salary else None,
        "posted_at": _iso(listing.posted_at),
        "description": listing.description,
        "department": listing.department,
    }


def _add_status(  # noqa: PLR0917 - one argument per column of the history row
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


def _set_status(  # noqa: PLR0917 - one argument per column of the history row
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
        _add_status(conn, listing_id, status, previous, source, detail, run_id, now)
    return previous


def _set_notes(conn: sqlite3.Connection, listing_id: str, notes: str, source: str, now: str) -> None:
    cursor = conn.execute(
        "UPDATE listings SET notes = ?, notes_at = ? WHERE id = ?", (notes, now, listing_id)
    )
    if cursor.rowcount == 0:
        raise UnknownListing(f"no listing has the id {listing_id!r}")
    conn.execute(
        "INSERT INTO notes_history (listing_id, notes, source, changed_at) VALUES (?, ?, ?, ?)",
        (listing_id, notes, source, now),
    )


def _record_conflict(conn: sqlite3.Connection, conflict: Conflict, now: str, report: EditReport) -> None:
    conn.execute(
        "INSERT INTO conflicts (listing_id, field, tracker_value, db_value, kept, detected_at)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        (conflict.listing_id, conflict.field, conflict.tracker_value, conflict.db_value, conflict.kept, now),
    )
    report.conflicts.append(conflict)


def _read_back_status(  # noqa: PLR0917 - the read-back's whole context, named once
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
        _set_status(conn, edit.listing_id, wanted, "tracker", "edited in the tracker", None, now)
        report.applied += 1
        return
    # Changed in both places since the last render: the newer wins, the other is kept and named.
    db_time = datetime.fromisoformat(listing["status_at"])
    kept = wanted if tracker_mtime >= db_time else parse_status(in_db) or "Saved"
    conflict = Conflict(
        listing_id=edit.listing_id, field="status", tracker_value=wanted, db_value=in_db, kept=kept
    )
    if kept == wanted:
        _set_status(
            conn, edit.listing_id, wanted, "tracker", f"conflict: the database had {in_db}", None, now
        )
    line = (
        f"[{now[:16]} conflict] status was {wanted} in the tracker and {in_db} in the database; "
        f"kept {kept} (the newer)"
    )
    notes = conn.execute("SELECT notes FROM listings WHERE id = ?", (edit.listing_id,)).fetchone()["notes"]
    _set_notes(conn, edit.listing_id, f"{notes}\n{line}".strip(), "conflict", now)
    _record_conflict(conn, conflict, now, report)


def _read_back_notes(
    conn: sqlite3.Connection, edit: SheetEdit, listing: sqlite3.Row, now: str, report: EditReport
) -> None:
    sheet, in_db = edit.notes, listing["notes"]
    if listing["notes_cell"] is not None and sheet == listing["notes_cell"]:
        return  # the cell is as we wrote it
    if sheet == in_db:
        return
    if listing["shown_notes"] is None or in_db == listing["shown_notes"]:
        _set_notes(conn, edit.listing_id, sheet, "tracker", now)
        report.applied += 1
        return
    # Changed in the sheet and in the database since the last render: keep both texts.
    merged = f"{sheet}\n[{now[:16]} conflict] the database's notes were:\n{in_db}"
    conflict = Conflict(
        listing_id=edit.listing_id, field="notes", tracker_value=sheet, db_value=in_db, kept="both"
    )
    _set_notes(conn, edit.listing_id, merged, "conflict", now)
    _record_conflict(conn, conflict, now, report)
