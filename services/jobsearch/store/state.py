"""The read/write API of the state of record: listings, drafts, statuses, notes, runs.

One `Store` per thread (an sqlite3 connection is not shared between threads). Every write is one
`BEGIN IMMEDIATE` transaction, so two writers (two export services, `jobsearch mark` beside a
running pipeline) queue on the file's write lock instead of failing half-way; readers (the review
page, a person's `sqlite3`) never block thanks to WAL.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from datetime import date, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import msgspec

from jobsearch.db import immediate, open_db_retrying
from jobsearch.fit import Fit, Reason
from jobsearch.jobs import STEPS, Check, Draft, DraftIssue, Step
from jobsearch.listing import MergedListing, Salary, SourceRef
from jobsearch.store.clock import utcnow, utcnow_exact
from jobsearch.store.drafting import (
    CURRENT_DRAFTS,
    current_checks,
    issues,
    owed_drafts,
    record_issue,
    review_text,
    undrafted,
)
from jobsearch.store.errors import AmbiguousListing, InvalidStatus, UnknownListing
from jobsearch.store.exports import record_export
from jobsearch.store.history import set_notes, set_status
from jobsearch.store.readback import read_back_notes, read_back_status
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
from jobsearch.store.runs import abandoned, hold_run, mark_interrupted, release_run, run_numbers
from jobsearch.store.schema import migrate

_JSON = msgspec.json.Encoder()
_SALARY = msgspec.json.Decoder(Salary)
_STRINGS = msgspec.json.Decoder(list[str])
_SUMMARY = msgspec.json.Decoder(dict[str, Any])
_CHECKS = msgspec.json.Decoder(list[Check])
_CURRENT_DRAFTS = CURRENT_DRAFTS


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
        current = _current(history)
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
            fit_reasons=_REASONS.decode(row["fit_reasons"]) if row["fit_reasons"] else [],
            closed_at=_day(row["closed_at"]),
            stale_at=_day(row["stale_at"]),
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
        return _merged_listing(row, sources)

    def current_drafts(self, listing_id: str) -> dict[Step, StoredDraft]:
        """The newest draft of each step (a person's edit, or the pipeline's latest).

        Raises:
            UnknownListing: no such listing.
        """
        if self.conn.execute("SELECT 1 FROM listings WHERE id = ?", (listing_id,)).fetchone() is None:
            raise UnknownListing(f"no listing has the id {listing_id!r}")
        rows = self.conn.execute(
            "SELECT * FROM drafts WHERE id IN"
            " (SELECT max(id) FROM drafts WHERE listing_id = ? GROUP BY step) ORDER BY id",
            (listing_id,),
        )
        return _current([_stored_draft(row) for row in rows])

    def draft_history(self, listing_id: str) -> list[StoredDraft]:
        """Every draft and edit of the listing, oldest first, with its checks."""
        rows = self.conn.execute("SELECT * FROM drafts WHERE listing_id = ? ORDER BY id", (listing_id,))
        return [_stored_draft(row) for row in rows]

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
            if conn.execute("SELECT 1 FROM listings WHERE id = ?", (listing_id,)).fetchone() is None:
                raise UnknownListing(f"no listing has the id {listing_id!r}")
            previous = conn.execute(
                "SELECT provider, model FROM drafts WHERE listing_id = ? AND step = ?"
                " ORDER BY id DESC LIMIT 1",
                (listing_id, step),
            ).fetchone()
            provider, model = (previous["provider"], previous["model"]) if previous else ("person", "")
            cursor = conn.execute(
                "INSERT INTO drafts (listing_id, step, text, provider, model, status, checks, origin,"
                " created_at, recorded_at) VALUES (?, ?, ?, ?, ?, 'ok', '[]', 'edit', ?, ?)",
                (listing_id, step, text, provider, model, utcnow(), utcnow_exact()),
            )
            row = conn.execute("SELECT * FROM drafts WHERE id = ?", (cursor.lastrowid,)).fetchone()
        return _stored_draft(row)

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
        current: dict[str, dict[str, sqlite3.Row]] = {}
        for row in self.conn.execute(
            "SELECT d.listing_id, d.step, d.text, d.provider, d.model, d.fell_over FROM drafts d"
            f" JOIN ({_CURRENT_DRAFTS}) c ON d.id = c.id"
        ):
            current.setdefault(row["listing_id"], {})[row["step"]] = row
        return [_with_drafts(row, current.get(row.listing_id)) for row in self.summary_rows()]

    def summary_rows(
        self, *, checks: dict[str, dict[Step, tuple[str, list[Check]]]] | None = None
    ) -> list[TrackerRow]:
        """Every listing as a tracker row without its drafts, newest found first (the review
        page's table, refreshed every few seconds, reads neither descriptions nor draft texts)."""
        sources: dict[str, list[str]] = {}
        postings: dict[str, list[SourceRef]] = {}
        for row in self.conn.execute(
            "SELECT listing_id, board, source, external_id, url, posted_at FROM listing_sources"
            " ORDER BY listing_id, rowid"
        ):
            names = sources.setdefault(row["listing_id"], [])
            if row["source"] not in names:
                names.append(row["source"])
            postings.setdefault(row["listing_id"], []).append(_source_ref(row))
        checks = self.draft_checks() if checks is None else checks
        waits = issues(self.conn)
        return [
            TrackerRow(
                listing_id=row["id"],
                **_shown_fields(row),
                sources=sources.get(row["id"], []),
                postings=postings.get(row["id"], []),
                found=datetime.fromisoformat(row["first_seen"]).date(),
                updated=datetime.fromisoformat(row["changed_at"]).date() if row["changed_at"] else None,
                status=parse_status(row["status"]) or "Saved",
                notes=row["notes"],
                review=review_text(checks.get(row["id"]), waits.get(row["id"])),
                fit=row["fit"],
                fit_why=fit_why(row["fit_reasons"]),
                closed_at=_day(row["closed_at"]),
                stale_at=_day(row["stale_at"]),
            )
            for row in self.conn.execute(
                "SELECT id, company, title, locations, remote, salary, url, posted_at, workplace, pay_note,"
                " first_seen, changed_at, status, notes, fit, fit_reasons, closed_at, stale_at FROM listings"
                " ORDER BY fit IS NULL, fit DESC, first_seen DESC, company, title"
            )
        ]

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
                read_back_notes(conn, edit, listing, now, report)
                read_back_status(conn, edit, listing, tracker_mtime, now, report)
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


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None


_REASONS = msgspec.json.Decoder(list[Reason])
WHY_REASONS = 4  # how many of a fit's reasons the Why column shows


def fit_why(reasons_json: str | None) -> str:
    """A fit's largest reasons as the Why column shows them: "the title is your role (+25); onsite
    in London; you want remote or Berlin (-35)" (points after the words: a cell that starts with
    a sign would read as a formula)."""
    if not reasons_json:
        return ""
    reasons = _REASONS.decode(reasons_json)[:WHY_REASONS]
    return "; ".join(f"{r.text} ({r.points:+d})" for r in reasons)


def _day(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _shown_fields(row: sqlite3.Row) -> dict[str, Any]:
    """The columns of a `listings` row that a merged listing and a tracker row both show, decoded."""
    return {
        "title": row["title"],
        "company": row["company"],
        "url": row["url"],
        "locations": _STRINGS.decode(row["locations"]),
        "remote": None if row["remote"] is None else bool(row["remote"]),
        "salary": _SALARY.decode(row["salary"]) if row["salary"] else None,
        "posted_at": date.fromisoformat(row["posted_at"]) if row["posted_at"] else None,
        "workplace": row["workplace"],
        "pay_note": row["pay_note"],
    }


def _merged_listing(row: sqlite3.Row, sources: Iterable[sqlite3.Row]) -> MergedListing:
    return MergedListing(
        id=row["id"],
        **_shown_fields(row),
        employment_type=row["employment_type"],
        description=row["description"],
        department=row["department"],
        sources=[_source_ref(s) for s in sources],
        first_seen=datetime.fromisoformat(row["first_seen"]),
        revision=row["revision"],
        updated_at=datetime.fromisoformat(row["changed_at"]) if row["changed_at"] else None,
    )


def _source_ref(row: sqlite3.Row) -> SourceRef:
    return SourceRef(
        board=row["board"],
        source=row["source"],
        external_id=row["external_id"],
        url=row["url"],
        posted_at=date.fromisoformat(row["posted_at"]) if row["posted_at"] else None,
    )


def _with_drafts(row: TrackerRow, steps: dict[str, sqlite3.Row] | None) -> TrackerRow:
    """A summary row with the texts of its current drafts and the provider/models that wrote them."""
    if not steps:
        return row
    used = sorted({_provider_cell(d) for d in steps.values()})
    return msgspec.structs.replace(
        row,
        cover_letter=steps["cover_letter"]["text"] if "cover_letter" in steps else "",
        connection_note=steps["connection_note"]["text"] if "connection_note" in steps else "",
        provider_model=", ".join(used),
    )


def _provider_cell(draft: sqlite3.Row) -> str:
    """`offline/template-v2 (after openai failed: HTTP 500 ...)`: a fallback is never silent."""
    cell = f"{draft['provider']}/{draft['model']}"
    fell_over = _STRINGS.decode(draft["fell_over"] or "[]")
    return f"{cell} (after {'; '.join(fell_over)})" if fell_over else cell


def _current(history: Iterable[StoredDraft]) -> dict[Step, StoredDraft]:
    """The newest draft of each step, from drafts oldest first."""
    return {d.step: d for d in history}


def _stored_draft(row: sqlite3.Row) -> StoredDraft:
    return StoredDraft(
        id=row["id"],
        step=row["step"],
        text=row["text"],
        provider=row["provider"],
        model=row["model"],
        status=row["status"],
        checks=_CHECKS.decode(row["checks"]),
        origin=row["origin"],
        run_id=row["run_id"],
        created_at=datetime.fromisoformat(row["created_at"]),
        fell_over=_STRINGS.decode(row["fell_over"] or "[]"),
    )
