"""The review page's table of listings: its filters and order, over the state of record's public API.

Everything it reads comes from `jobsearch.store.Store` (the rows without their draft texts, each
listing's boards, the listings new in the latest run, the states of their current drafts, a text
search); what is here is only how the page filters and sorts them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Literal

import msgspec

from jobsearch.salary import annualised
from jobsearch.store import STATUSES, Store, TrackerRow

SortKey = Literal["fit", "found", "company", "title", "status", "posted", "location", "salary"]
# The Review filter: `needs` (the Review cell says something: a draft failed its checks, or none
# could be written), `failed` (no draft: drafting failed or waits), `ok` (drafted, every check passed).
ReviewFilter = Literal["", "needs", "failed", "ok"]
REVIEW_FILTERS: tuple[ReviewFilter, ...] = ("", "needs", "failed", "ok")
ListedFilter = Literal["", "open", "closed"]
SORT_KEYS: tuple[SortKey, ...] = (
    "fit",
    "found",
    "company",
    "title",
    "status",
    "posted",
    "location",
    "salary",
)


class ListingRow(msgspec.Struct, kw_only=True, frozen=True):
    """A tracker row (without draft texts) with what the table adds: its boards, whether it is new,
    whether it has drafts and whether one of them needs review."""

    row: TrackerRow
    boards: list[str]
    new: bool
    drafted: bool
    needs_review: bool


class Filters(msgspec.Struct, kw_only=True, frozen=True):
    """The table's filters and order (every field optional)."""

    status: str = ""
    company: str = ""
    board: str = ""
    found_since: date | None = None
    text: str = ""
    review: ReviewFilter = ""
    min_fit: int | None = None  # only listings whose fit is at least this
    listed: ListedFilter = ""  # open: still listed somewhere; closed: taken down or stale
    sort: SortKey = "fit"
    descending: bool = True
    page: int = 1  # 1-based; past the last page means the last page


PAGE_SIZE = 100


class TablePage(msgspec.Struct, kw_only=True, frozen=True):
    """One page of the rows that passed the filters."""

    rows: list[ListingRow]
    total: int  # how many rows passed
    page: int  # this page, 1-based (the last one when the asked page was past it)
    pages: int  # how many pages there are (at least 1)
    first: int  # the 1-based position of the page's first row (0 when no row passed)


def listing_page(store: Store, filters: Filters, *, size: int = PAGE_SIZE) -> TablePage:
    """The page `filters.page` of the rows that pass `filters`, in their order."""
    rows, total = listing_rows(store, filters, limit=None)
    pages = max(1, -(-total // size))
    page = min(max(1, filters.page), pages)
    start = (page - 1) * size
    return TablePage(
        rows=rows[start : start + size], total=total, page=page, pages=pages, first=start + 1 if total else 0
    )


def listing_rows(store: Store, filters: Filters, *, limit: int | None = 500) -> tuple[list[ListingRow], int]:
    """The rows that pass `filters`, in their order (at most `limit`), and how many passed."""
    boards = store.boards_by_listing()
    new = store.new_listing_ids()
    checks = store.draft_checks()  # read once: the states below and the rows' Review text
    drafts = store.draft_states(checks)
    matching = store.matching(filters.text) if filters.text.strip() else None
    rows = []
    for row in store.summary_rows(checks=checks):
        listing_boards = boards.get(row.listing_id, [])
        if (
            (filters.status and row.status != filters.status)
            or (filters.company and filters.company.casefold() not in row.company.casefold())
            or (filters.board and filters.board not in listing_boards)
            or (filters.found_since and row.found < filters.found_since)
            or (matching is not None and row.listing_id not in matching)
            or not _review_passes(filters.review, row, row.listing_id in drafts)
            or (filters.min_fit is not None and (row.fit is None or row.fit < filters.min_fit))
            or (filters.listed and _is_open(row) != (filters.listed == "open"))
        ):
            continue
        rows.append(
            ListingRow(
                row=row,
                boards=listing_boards,
                new=row.listing_id in new,
                drafted=row.listing_id in drafts,
                needs_review="needs_review" in drafts.get(row.listing_id, ()),
            )
        )
    rows.sort(key=lambda r: _SORTS[filters.sort](r.row), reverse=filters.descending)
    return (rows if limit is None else rows[:limit]), len(rows)


def _is_open(row: TrackerRow) -> bool:
    return row.closed_at is None and row.stale_at is None


def _review_passes(wanted: ReviewFilter, row: TrackerRow, drafted: bool) -> bool:
    if wanted == "needs":
        return bool(row.review)
    if wanted == "failed":
        return bool(row.review) and not drafted
    if wanted == "ok":
        return drafted and not row.review
    return True


def _salary_top(row: TrackerRow) -> float:
    # Yearly, so that an hourly rate sorts beside the yearly salaries it compares with.
    low, high = annualised(row.salary) if row.salary else (None, None)
    return high or low or 0.0


_SORTS: dict[SortKey, Callable[[TrackerRow], tuple[object, ...]]] = {
    "fit": lambda r: (-1 if r.fit is None else r.fit, r.found),
    "found": lambda r: (r.found, r.company.casefold()),
    "company": lambda r: (r.company.casefold(), r.title.casefold()),
    "title": lambda r: (r.title.casefold(), r.company.casefold()),
    "status": lambda r: (STATUSES.index(r.status), r.company.casefold()),
    "posted": lambda r: (r.posted_at or date.min, r.company.casefold()),
    "location": lambda r: (", ".join(r.locations).casefold(), r.company.casefold()),
    "salary": lambda r: (_salary_top(r), r.company.casefold()),
}

__all__ = [
    "PAGE_SIZE",
    "REVIEW_FILTERS",
    "SORT_KEYS",
    "Filters",
    "ListingRow",
    "ReviewFilter",
    "TablePage",
    "listing_page",
    "listing_rows",
]
