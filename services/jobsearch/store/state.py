"""The read/write API of the state of record: listings, drafts, statuses, notes, runs.

One `Store` per thread (an sqlite3 connection is not shared between threads). Every write is one
`BEGIN IMMEDIATE` transaction, so two writers (two export services, `jobsearch mark` beside a
running pipeline) queue on the file's write lock instead of failing half-way; readers (the review
page, a person's `sqlite3`) never block thanks to WAL. `Store` holds the connection and the
transactions; the queries of each concern are connection-level functions beside it (`drafts`,
`tracker_rows`, `exports`, `history`, `runs`), and rows become values in `rows`.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec

from jobsearch.db import immediate, open_db_retrying
from jobsearch.fit import Fit
from jobsearch.jobs import STEPS, Check, Draft, DraftIssue, Step
from jobsearch.listing import MergedListing
from jobsearch.store.clock import utcnow
from jobsearch.store.drafting import current_checks, issues, owed_drafts, record_issue, review_text, undrafted
from jobsearch.store.drafts import current_drafts, draft_history, save_draft_edit
from jobsearch.store.errors import AmbiguousListing, InvalidStatus, UnknownListing
from jobsearch.store.exports import record_export
from jobsearch.store.history import set_notes, set_status
from jobsearch.store.records import (
    STATUSES,
    EditReport,
    ListingDetail,
    RecordedExport,
    RunNumbers,
    RunRecord,
    SheetEdit,
    Status,
    StatusSource,
    StoredDraft,
    TrackerRow,
    parse_status,
)
from jobsearch.store.rows import REASONS, day, merged_listing, newest_by_step
from jobsearch.store.runs import abandoned, hold_run, mark_interrupted, release_run, run_numbers
from jobsearch.store.schema import migrate
from jobsearch.store.tracker_rows import apply_sheet_edits, remember_rendered, summary_rows, tracker_rows

_JSON = msgspec.json.Encoder()
_SUMMARY = msgspec.json.Decoder(dict[str, Any])


class Store:
    """The state of record in one SQLite file (see `jobsearch.store.schema`)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    @classmethod
    def open(cls, path: Path) -> Store:
        """Open (creating if needed) the database and its tables (see `open_db_retrying`)."""
        conn = open_db_retrying(path)
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

    def _write(self) -> AbstractContextManager[sqlite3.Connection]:
        return immediate(self.conn)

    @classmethod
    def per_thread(cls, path: Path) -> Callable[[], Store]:
        """A function giving each thread its own Store of the database at `path`, opened on the
        thread's first call (a sqlite3 connection stays in the thread that opened it)."""
        local = threading.local()

        def store() -> Store:
            mine: Store | None = getattr(local, "store", None)
            if mine is None:
                mine = local.store = cls.open(path)
            return mine

        return store

    # -- the export stage -------------------------------------------------------------------

    def record_export(
        self,
        *,
        run_id: str,
        job_id: str,
        listing: MergedListing,
        drafts: Iterable[Draft],
        issue: DraftIssue | None = None,
        fit: Fit | None = None,
    ) -> RecordedExport:
        """`jobsearch.store.exports.record_export` in a transaction of its own."""
        with self._write() as conn:
            return record_export(
                conn, run_id=run_id, job_id=job_id, listing=listing, drafts=drafts, issue=issue, fit=fit
            )

    def record_draft_issue(self, listing_id: str, issue: DraftIssue, *, run_id: str, job_id: str) -> bool:
        """Record why a listing has no draft (`jobsearch.store.drafting.record_issue`); False when
        the listing is not here, or has drafts."""
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM listings WHERE id = ?", (listing_id,)).fetchone() is None:
                return False
            return record_issue(conn, listing_id, issue, run_id=run_id, job_id=job_id)

    def owed_drafts(self, *, missing: bool = False) -> list[MergedListing]:
        """The listings owed a draft (drafting failed or waits; with `missing`, every `Saved`
        listing with no draft at all), oldest first, as merged listings to draft."""
        ids = undrafted(self.conn) if missing else owed_drafts(self.conn)
        return [self.merged_listing(listing_id) for listing_id in ids]

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
            previous = set_status(conn, listing_id, wanted, source, detail, None, utcnow())
        return previous, wanted

    def set_notes(self, listing_id: str, notes: str, *, source: str) -> None:
        """Replace a listing's notes (the old text stays in `notes_history`).

        Raises:
            UnknownListing: no such listing.
        """
        with self._write() as conn:
            set_notes(conn, listing_id, notes, source, utcnow())

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

    # -- one listing in full: its text, sources and drafts (the review page) ----------------

    def merged_listing(self, listing_id: str) -> MergedListing:
        """The listing as the export recorded it, sources in order: what a re-draft is written from.

        Raises:
            UnknownListing: no such listing.
        """
        return self._merged(self._listing_row(listing_id))

    def listing(self, listing_id: str) -> ListingDetail:
        """One listing with its sources, status, notes, current drafts and every draft before them.

        Raises:
            UnknownListing: no such listing.
        """
        row = self._listing_row(listing_id)
        history = self.draft_history(listing_id)
        current = newest_by_step(history)
        steps: dict[Step, tuple[str, list[Check]]] = {d.step: (d.status, d.checks) for d in current.values()}
        return ListingDetail(
            listing=self._merged(row),
            status=parse_status(row["status"]) or "Saved",
            status_at=datetime.fromisoformat(row["status_at"]),
            notes=row["notes"],
            drafts=current,
            history=history,
            review=review_text(steps, issues(self.conn, [listing_id]).get(listing_id)),
            fit=row["fit"],
            fit_reasons=REASONS.decode(row["fit_reasons"]) if row["fit_reasons"] else [],
            closed_at=day(row["closed_at"]),
            stale_at=day(row["stale_at"]),
        )

    def _listing_row(self, listing_id: str) -> sqlite3.Row:
        row: sqlite3.Row | None = self.conn.execute(
            "SELECT * FROM listings WHERE id = ?", (listing_id,)
        ).fetchone()
        if row is None:
            raise UnknownListing(f"no listing has the id {listing_id!r}")
        return row

    def _merged(self, row: sqlite3.Row) -> MergedListing:
        sources = self.conn.execute(
            "SELECT * FROM listing_sources WHERE listing_id = ? ORDER BY rowid", (row["id"],)
        )
        return merged_listing(row, sources)

    def current_drafts(self, listing_id: str) -> dict[Step, StoredDraft]:
        """The newest draft of each step (a person's edit, or the pipeline's latest).

        Raises:
            UnknownListing: no such listing.
        """
        return current_drafts(self.conn, listing_id)

    def draft_history(self, listing_id: str) -> list[StoredDraft]:
        """Every draft and edit of the listing, oldest first, with its checks."""
        return draft_history(self.conn, listing_id)

    def save_draft_edit(self, listing_id: str, step: Step, text: str) -> StoredDraft:
        """Store a person's text for one step as the listing's newest draft (`origin` `edit`).

        The history is kept; the next export carries the edit. It keeps the provider and model of
        the draft it replaces (the text began there), is `ok` (a person has read it) and has no
        checks (those judge a model's output).

        Raises:
            UnknownListing: no such listing.
            ValueError: `step` is not a draft step.
        """
        if step not in STEPS:
            raise ValueError(f"{step!r} is not a draft step ({', '.join(STEPS)})")
        with self._write() as conn:
            return save_draft_edit(conn, listing_id, step, text)

    # -- the listings table's lookups (the review page) -------------------------------------

    def new_listing_ids(self, run_id: str | None = None) -> set[str]:
        """The listings first found by `run_id` (default: the run that started last)."""
        if run_id is None:
            last = self.last_run()
            if last is None:
                return set()
            run_id = last.run_id
        rows = self.conn.execute("SELECT id FROM listings WHERE first_run_id = ?", (run_id,))
        return {row["id"] for row in rows}

    def boards(self) -> list[str]:
        """Every board some listing came from."""
        rows = self.conn.execute("SELECT DISTINCT board FROM listing_sources ORDER BY 1")
        return [row["board"] for row in rows]

    def boards_by_listing(self) -> dict[str, list[str]]:
        """Each listing's boards, sorted."""
        boards: dict[str, list[str]] = {}
        for row in self.conn.execute("SELECT DISTINCT listing_id, board FROM listing_sources ORDER BY board"):
            boards.setdefault(row["listing_id"], []).append(row["board"])
        return boards

    def needing_review(self) -> set[str]:
        """The listings whose current draft of some step failed its checks twice."""
        return {listing for listing, states in self.draft_states().items() if "needs_review" in states}

    def draft_checks(self) -> dict[str, dict[Step, tuple[str, list[Check]]]]:
        """Each drafted listing's current draft of each step: its status and checks, without the texts."""
        return current_checks(self.conn)

    def draft_states(
        self, checks: dict[str, dict[Step, tuple[str, list[Check]]]] | None = None
    ) -> dict[str, set[str]]:
        """The statuses of each listing's current drafts (`ok`, `needs_review`), for listings with
        any draft: whether a listing is drafted, without reading the texts (from `checks`, the
        `draft_checks` a caller already read, when given)."""
        checks = self.draft_checks() if checks is None else checks
        return {listing: {status for status, _ in steps.values()} for listing, steps in checks.items()}

    def matching(self, text: str) -> set[str]:
        """The listings whose title, company, description, notes or locations contain `text`
        (case-insensitive for ASCII; `%` and `_` are taken literally)."""
        pattern = "%" + text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        rows = self.conn.execute(
            "SELECT id FROM listings WHERE title LIKE :p ESCAPE '\\' OR company LIKE :p ESCAPE '\\'"
            " OR description LIKE :p ESCAPE '\\' OR notes LIKE :p ESCAPE '\\'"
            " OR locations LIKE :p ESCAPE '\\'",
            {"p": pattern},
        )
        return {row["id"] for row in rows}

    # -- the tracker ------------------------------------------------------------------------

    def tracker_rows(self) -> list[TrackerRow]:
        """Every listing as a tracker row, newest found first, with its current drafts."""
        return tracker_rows(self.conn)

    def summary_rows(
        self, *, checks: dict[str, dict[Step, tuple[str, list[Check]]]] | None = None
    ) -> list[TrackerRow]:
        """Every listing as a tracker row without its drafts, newest found first (the review
        page's table, refreshed every few seconds, reads neither descriptions nor draft texts)."""
        return summary_rows(self.conn, checks=checks)

    def apply_sheet_edits(self, edits: Iterable[SheetEdit], *, tracker_mtime: datetime) -> EditReport:
        """Bring the person's tracker edits (status, notes) into the database, before a re-render.

        A field is an edit when the sheet differs from what the last render wrote. If the database
        changed too (`jobsearch mark`, the review page) and to something else, that is a conflict:
        for status the newer of the two wins (the tracker's time is its file's mtime), for notes
        both texts are kept; each conflict gets a row in `conflicts` and a line in the notes.
        """
        now = utcnow()
        with self._write() as conn:
            return apply_sheet_edits(conn, edits, tracker_mtime=tracker_mtime, now=now)

    def remember_rendered(self, rows: Iterable[tuple[TrackerRow, str]]) -> None:
        """Record what the tracker now shows (each row and its notes cell's text as written), so
        that the next export can tell the person's edits from ours."""
        now = utcnow()
        with self._write() as conn:
            remember_rendered(conn, rows, now=now)

    # -- runs -------------------------------------------------------------------------------

    def start_run(self, run_id: str, *, profile: str, trigger: str = "typed") -> None:
        """Record that a run started, in this process (which holds the run's lock until
        `finish_run`); record `interrupted` the runs whose process ended without finishing
        (`jobsearch.store.runs`). `trigger`: typed, `schedule:<name>`, replay or draft."""
        hold_run(self.conn, run_id)  # before the row: a run seen without its lock is gone
        with self._write() as conn:
            conn.execute(
                "INSERT OR IGNORE INTO runs (run_id, started_at, profile, trigger) VALUES (?, ?, ?, ?)",
                (run_id, utcnow(), profile, trigger),
            )
            mark_interrupted(conn, found_by=run_id)

    def finish_run(self, run_id: str, *, outcome: str, summary: dict[str, Any]) -> None:
        """Record how a run ended and its summary."""
        with self._write() as conn:
            conn.execute(
                "UPDATE runs SET finished_at = ?, outcome = ?, summary = ? WHERE run_id = ?",
                (utcnow(), outcome, _JSON.encode(summary).decode(), run_id),
            )
        release_run(self.conn, run_id)

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
            # No outcome and no process: it was killed before it could record one.
            outcome=row["outcome"] or ("interrupted" if abandoned(self.conn, row["run_id"]) else None),
            summary=_SUMMARY.decode(row["summary"]) if row["summary"] else None,
        )

    def run_numbers(self, run_id: str, *, drafts_since: str | None = None) -> RunNumbers:
        """What a run added (`jobsearch.store.runs.run_numbers`)."""
        return run_numbers(self.conn, run_id, drafts_since=drafts_since)
