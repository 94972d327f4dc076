"""The tracker's columns, and a row's cells as text and dates (shared by the xlsx and the CSV).

The headers here (with `FORMER_HEADERS`, the ones it used to write) are the tracker's; any other
column of the Tracker sheet, and any other sheet, is the person's (`jobsearch.tracker.layout`).
"""

from __future__ import annotations

from datetime import date
from typing import Literal

import msgspec

from jobsearch.listing import Salary
from jobsearch.salary import format_salary
from jobsearch.store import TrackerRow
from jobsearch.tracker.cells import safe_text

Kind = Literal["text", "long", "date", "link", "status", "number"]


class Column(msgspec.Struct, frozen=True):
    """One tracker column: its header, what it holds, and its width in characters."""

    header: str
    kind: Kind
    width: int


COLUMNS: tuple[Column, ...] = (
    Column("ID", "text", 14),
    Column("Company", "text", 24),
    Column("Role", "text", 34),
    Column("Fit", "number", 6),
    Column("Why", "long", 44),
    Column("Location", "text", 24),
    Column("Remote", "text", 9),
    Column("Salary", "text", 22),
    Column("Sources", "long", 44),
    Column("URL", "link", 40),
    Column("Posted", "date", 12),
    Column("Found", "date", 12),
    Column("Updated", "date", 12),
    Column("Status", "status", 12),
    Column("Closed", "date", 12),
    Column("Review", "long", 40),
    Column("Cover letter", "long", 70),
    Column("Connection note", "long", 45),
    Column("Provider/model", "text", 22),
    Column("Notes", "long", 40),
)
HEADERS = tuple(column.header for column in COLUMNS)
BY_HEADER = {column.header: column for column in COLUMNS}
NOTES = HEADERS.index("Notes")
REVIEW = HEADERS.index("Review")
# The cells a draft that needs review marks (besides its Review cell).
DRAFT_HEADERS = frozenset(("Cover letter", "Connection note", "Provider/model"))
DRAFT_CELLS = frozenset(HEADERS.index(name) for name in DRAFT_HEADERS)
# Headers the tracker once wrote and writes no more, with the header each became (None: the
# column was dropped). A tracker rendered by an older version has them; they are the tracker's,
# never the person's. So far columns were only added (Updated, Review, Fit, Why, Closed), none
# renamed or dropped; a rename goes here, e.g. {"Sources": "Postings"}.
FORMER_HEADERS: dict[str, str | None] = {}
# Every header the tracker owns on its sheet: any other column there is the person's.
OWNED_HEADERS = frozenset(HEADERS) | frozenset(FORMER_HEADERS)

Value = str | int | date | None


def salary_text(salary: Salary | None, note: str | None = None) -> str:
    """`€65k-80k / year` as `jobsearch.salary.format_salary` writes it, with the pay note if any."""
    text = format_salary(salary)
    return f"{text} ({note})" if text and note else text


def sources_text(row: TrackerRow) -> str:
    """Every posting of the listing, one `board · URL · posted` per line, after their count."""
    if not row.postings:
        return ", ".join(row.sources)
    lines = [f"{len(row.postings)} posting" + ("s" if len(row.postings) != 1 else "")]
    for ref in row.postings:
        posted = f" · {ref.posted_at.isoformat()}" if ref.posted_at else ""
        lines.append(f"{ref.board} · {ref.url}{posted}")
    return "\n".join(lines)


def closed_cell(row: TrackerRow) -> Value:
    """The day its boards took it down; `stale` when only aggregators carried it and none lately."""
    if row.closed_at is not None:
        return row.closed_at
    return "stale" if row.stale_at is not None else None


def row_values(row: TrackerRow) -> list[Value]:
    """The cells of one row, in COLUMNS order: every text made safe (`safe_text`), dates as dates."""
    remote = row.workplace or ("" if row.remote is None else ("yes" if row.remote else "no"))
    texts: list[Value] = [
        safe_text(row.listing_id),
        safe_text(row.company),
        safe_text(row.title),
        row.fit,
        safe_text(row.fit_why),
        safe_text("; ".join(row.locations)),
        remote,
        safe_text(salary_text(row.salary, row.pay_note)),
        safe_text(sources_text(row)),
        safe_text(row.url),
        row.posted_at,
        row.found,
        row.updated,
        row.status,
        closed_cell(row),
        safe_text(row.review),
        safe_text(row.cover_letter),
        safe_text(row.connection_note),
        safe_text(row.provider_model),
        safe_text(row.notes),
    ]
    return texts
