"""What the review page reads and writes beyond `jobsearch.store.Store`'s API, on the same tables.

The state of record's schema is `jobsearch.store.schema`; this adds, as methods of a `Store`, the
reads a page needs (a listing's text and sources, its current drafts with their checks, which
listings the latest run found) and the one write it needs that the store does not offer yet
(saving a person's edit of a draft as a new `drafts` row with `origin = 'edit'`, which the schema
already foresees: the newest row of a step is its current text, so the next export carries it).
Status and notes changes go through `Store.set_status` / `Store.set_notes` unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Literal

import msgspec

from jobsearch.jobs import STEPS, Check, Step
from jobsearch.listing import Board, MergedListing, Salary, SourceRef
from jobsearch.store import STATUSES, Status, Store, TrackerRow, UnknownListing
from jobsearch.store.state import utcnow, utcnow_exact

_CHECKS = msgspec.json.Decoder(list[Check])
_STRINGS = msgspec.json.Decoder(list[str])
_SALARY = msgspec.json.Decoder(Salary)

SortKey = Literal["found", "company", "title", "status", "posted", "location", "salary"]
SORT_KEYS: tuple[SortKey, ...] = ("found", "company", "title", "status", "posted", "location", "salary")


class ListingRow(msgspec.Struct, kw_only=True, frozen=True):
    """A tracker row with what the table adds: its boards, whether it is new, whether a draft needs review."""

    row: TrackerRow
    boards: list[str]
    new: bool
    needs_review: bool


class Filters(msgspec.Struct, kw_only=True, frozen=True):
    """The table's filters and order (every field optional)."""

    status: str = ""
    company: str = ""
    board: str = ""
    found_since: date | None = None
    text: str = ""
    sort: SortKey = "found"
    descending: bool = True


class StoredDraft(msgspec.Struct, kw_only=True, frozen=True):
    """One row of `drafts`: a step's text from the pipeline or a person's edit."""

    id: int
    step: Step
    text: str
    provider: str
    model: str
    status: str
    checks: list[Check]
    origin: str
    run_id: str | None
    created_at: datetime

    @property
    def failed_checks(self) -> list[Check]:
        """The checks that did not pass: why the draft needs review."""
        return [c for c in self.checks if not c.passed]


class ListingDetail(msgspec.Struct, kw_only=True, frozen=True):
    """Everything the listing page shows about one listing."""

    listing: MergedListing
    status: Status
    status_at: datetime
    notes: str
    drafts: dict[str, StoredDraft]


class ReviewStore(Store):
    """The state of record as the review page uses it."""

    def latest_run_id(self) -> str | None:
        """The run that started last (its listings are the new ones)."""
        run = self.last_run()
        return run.run_id if run else None

    def listing_rows(self, filters: Filters, *, limit: int = 500) -> tuple[list[ListingRow], int]:
        """The rows that pass `filters`, in their order (at most `limit`), and how many passed."""
        boards: dict[str, list[str]] = {}
        for r in self.conn.execute("SELECT DISTINCT listing_id, board FROM listing_sources ORDER BY board"):
            boards.setdefault(r["listing_id"], []).append(r["board"])
        latest = self.latest_run_id()
        new = {
            r["id"] for r in self.conn.execute("SELECT id FROM listings WHERE first_run_id = ?", (latest,))
        }
        review = {
            r["listing_id"]
            for r in self.conn.execute(
                "SELECT d.listing_id FROM drafts d JOIN (SELECT listing_id, step, max(id) AS id FROM drafts"
                " GROUP BY listing_id, step) c ON d.id = c.id WHERE d.status = 'needs_review'"
            )
        }
        matching = self._text_matches(filters.text) if filters.text.strip() else None
        rows = []
        for row in self.tracker_rows():
            listing_boards = boards.get(row.listing_id, [])
            if (
                (filters.status and row.status != filters.status)
                or (filters.company and filters.company.casefold() not in row.company.casefold())
                or (filters.board and filters.board not in listing_boards)
                or (filters.found_since and row.found < filters.found_since)
                or (matching is not None and row.listing_id not in matching)
            ):
                continue
            rows.append(
                ListingRow(
                    row=row,
                    boards=listing_boards,
                    new=row.listing_id in new,
                    needs_review=row.listing_id in review,
                )
            )
        rows.sort(key=lambda r: _sort_value(r.row, filters.sort), reverse=filters.descending)
        return rows[:limit], len(rows)

    def _text_matches(self, text: str) -> set[str]:
        pattern = "%" + text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        return {
            r["id"]
            for r in self.conn.execute(
                "SELECT id FROM listings WHERE title LIKE :p ESCAPE '\\' OR company LIKE :p ESCAPE '\\'"
                " OR description LIKE :p ESCAPE '\\' OR notes LIKE :p ESCAPE '\\'"
                " OR locations LIKE :p ESCAPE '\\'",
                {"p": pattern},
            )
        }

    def boards(self) -> list[str]:
        """Every board some listing came from."""
        return [
            r["board"] for r in self.conn.execute("SELECT DISTINCT board FROM listing_sources ORDER BY 1")
        ]

    def listing(self, listing_id: str) -> ListingDetail:
        """One listing with its sources, status, notes and current drafts.

        Raises:
            UnknownListing: no such listing.
        """
        r = self.conn.execute("SELECT * FROM listings WHERE id = ?", (listing_id,)).fetchone()
        if r is None:
            raise UnknownListing(f"no listing has the id {listing_id!r}")
        sources = [
            SourceRef(
                board=s["board"],
                source=s["source"],
                external_id=s["external_id"],
                url=s["url"],
                posted_at=date.fromisoformat(s["posted_at"]) if s["posted_at"] else None,
            )
            for s in self.conn.execute(
                "SELECT * FROM listing_sources WHERE listing_id = ? ORDER BY rowid", (listing_id,)
            )
        ]
        listing = MergedListing(
            id=r["id"],
            title=r["title"],
            company=r["company"],
            url=r["url"],
            locations=_STRINGS.decode(r["locations"]),
            remote=None if r["remote"] is None else bool(r["remote"]),
            employment_type=r["employment_type"],
            salary=_SALARY.decode(r["salary"]) if r["salary"] else None,
            posted_at=date.fromisoformat(r["posted_at"]) if r["posted_at"] else None,
            description=r["description"],
            department=r["department"],
            sources=sources,
            first_seen=datetime.fromisoformat(r["first_seen"]),
        )
        return ListingDetail(
            listing=listing,
            status=r["status"],
            status_at=datetime.fromisoformat(r["status_at"]),
            notes=r["notes"],
            drafts=self.current_drafts(listing_id),
        )

    def current_drafts(self, listing_id: str) -> dict[str, StoredDraft]:
        """The newest draft of each step (an edit, or the pipeline's latest)."""
        drafts = self.draft_history(listing_id)
        return {d.step: d for d in drafts}  # oldest first, so the newest of each step stays

    def draft_history(self, listing_id: str) -> list[StoredDraft]:
        """Every draft and edit of the listing, oldest first."""
        return [
            StoredDraft(
                id=d["id"],
                step=d["step"],
                text=d["text"],
                provider=d["provider"],
                model=d["model"],
                status=d["status"],
                checks=_CHECKS.decode(d["checks"]),
                origin=d["origin"],
                run_id=d["run_id"],
                created_at=datetime.fromisoformat(d["created_at"]),
            )
            for d in self.conn.execute("SELECT * FROM drafts WHERE listing_id = ? ORDER BY id", (listing_id,))
        ]

    def save_draft_edit(self, listing_id: str, step: Step, text: str) -> StoredDraft:
        """Store a person's text for one step as the listing's newest draft (history kept).

        It keeps the provider and model of the draft it replaces (the text began there), is
        `ok` (a person has read it) and has no checks (those judge a model's output).

        Raises:
            UnknownListing: no such listing.
            ValueError: `step` is not a draft step.
        """
        if step not in STEPS:
            raise ValueError(f"{step!r} is not a draft step ({', '.join(STEPS)})")
        now = utcnow()
        with self._write() as conn:
            if conn.execute("SELECT 1 FROM listings WHERE id = ?", (listing_id,)).fetchone() is None:
                raise UnknownListing(f"no listing has the id {listing_id!r}")
            previous = conn.execute(
                "SELECT provider, model FROM drafts WHERE listing_id = ? AND step = ?"
                " ORDER BY id DESC LIMIT 1",
                (listing_id, step),
            ).fetchone()
            provider, model = (previous["provider"], previous["model"]) if previous else ("person", "")
            conn.execute(
                "INSERT INTO drafts (listing_id, step, text, provider, model, status, checks, origin,"
                " created_at, recorded_at) VALUES (?, ?, ?, ?, ?, 'ok', '[]', 'edit', ?, ?)",
                (listing_id, step, text, provider, model, now, utcnow_exact()),
            )
        return self.current_drafts(listing_id)[step]


def _salary_top(row: TrackerRow) -> float:
    return (row.salary.max or row.salary.min or 0.0) if row.salary else 0.0


_SORTS: dict[SortKey, Callable[[TrackerRow], tuple[object, ...]]] = {
    "found": lambda r: (r.found, r.company.casefold()),
    "company": lambda r: (r.company.casefold(), r.title.casefold()),
    "title": lambda r: (r.title.casefold(), r.company.casefold()),
    "status": lambda r: (STATUSES.index(r.status), r.company.casefold()),
    "posted": lambda r: (r.posted_at or date.min, r.company.casefold()),
    "location": lambda r: (", ".join(r.locations).casefold(), r.company.casefold()),
    "salary": lambda r: (_salary_top(r), r.company.casefold()),
}


def _sort_value(row: TrackerRow, key: SortKey) -> tuple[object, ...]:
    return _SORTS[key](row)


__all__ = ["SORT_KEYS", "Board", "Filters", "ListingDetail", "ListingRow", "ReviewStore", "StoredDraft"]
