"""The state of record's rows read back as values: a `listings` row as a merged listing, a
`listing_sources` row as a source, a `drafts` row as a stored draft, and the cells a tracker row
builds from them (the Why column, the provider/model column).

Pure conversions, no queries: `Store` and `jobsearch.store.tracker_rows` read the rows and hand
them here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

import msgspec

from jobsearch.fit import Reason
from jobsearch.jobs import Check, Step
from jobsearch.listing import MergedListing, Salary, SourceRef
from jobsearch.store.records import StoredDraft, TrackerRow

_SALARY = msgspec.json.Decoder(Salary)
_STRINGS = msgspec.json.Decoder(list[str])
_CHECKS = msgspec.json.Decoder(list[Check])
REASONS = msgspec.json.Decoder(list[Reason])
WHY_REASONS = 4  # how many of a fit's reasons the Why column shows


def fit_why(reasons_json: str | None) -> str:
    """A fit's largest reasons as the Why column shows them: "the title is your role (+25); onsite
    in London; you want remote or Berlin (-35)" (points after the words: a cell that starts with
    a sign would read as a formula)."""
    if not reasons_json:
        return ""
    reasons = REASONS.decode(reasons_json)[:WHY_REASONS]
    return "; ".join(f"{r.text} ({r.points:+d})" for r in reasons)


def day(value: str | None) -> date | None:
    """A stored ISO day (`closed_at`, `stale_at`), or None."""
    return date.fromisoformat(value) if value else None


def shown_fields(row: sqlite3.Row) -> dict[str, Any]:
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


def merged_listing(row: sqlite3.Row, sources: Iterable[sqlite3.Row]) -> MergedListing:
    """A `listings` row and its `listing_sources` rows (in order) as the merged listing they record."""
    return MergedListing(
        id=row["id"],
        **shown_fields(row),
        employment_type=row["employment_type"],
        description=row["description"],
        department=row["department"],
        sources=[source_ref(s) for s in sources],
        first_seen=datetime.fromisoformat(row["first_seen"]),
        revision=row["revision"],
        updated_at=datetime.fromisoformat(row["changed_at"]) if row["changed_at"] else None,
    )


def source_ref(row: sqlite3.Row) -> SourceRef:
    """A `listing_sources` row as one source of a listing."""
    return SourceRef(
        board=row["board"],
        source=row["source"],
        external_id=row["external_id"],
        url=row["url"],
        posted_at=date.fromisoformat(row["posted_at"]) if row["posted_at"] else None,
    )


def with_drafts(row: TrackerRow, steps: dict[str, sqlite3.Row] | None) -> TrackerRow:
    """A summary row with the texts of its current drafts and the provider/models that wrote them."""
    if not steps:
        return row
    used = sorted({provider_cell(d) for d in steps.values()})
    return msgspec.structs.replace(
        row,
        cover_letter=steps["cover_letter"]["text"] if "cover_letter" in steps else "",
        connection_note=steps["connection_note"]["text"] if "connection_note" in steps else "",
        provider_model=", ".join(used),
    )


def provider_cell(draft: sqlite3.Row) -> str:
    """`offline/template-v2 (after openai failed: HTTP 500 ...)`: a fallback is never silent."""
    cell = f"{draft['provider']}/{draft['model']}"
    fell_over = _STRINGS.decode(draft["fell_over"] or "[]")
    return f"{cell} (after {'; '.join(fell_over)})" if fell_over else cell


def newest_by_step(history: Iterable[StoredDraft]) -> dict[Step, StoredDraft]:
    """The newest draft of each step, from drafts oldest first."""
    return {d.step: d for d in history}


def stored_draft(row: sqlite3.Row) -> StoredDraft:
    """A `drafts` row as a stored draft, its checks and fallbacks decoded."""
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
