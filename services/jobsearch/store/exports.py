"""Recording what the export stage is handed: a listing (new or a newer revision) and its drafts.

A connection-level function, so that the export service can batch many of them into one
transaction (`jobsearch.batch.BatchWriter`); `Store.record_export` runs one in its own.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, date, datetime
from typing import Any

import msgspec

from jobsearch.fit import Fit
from jobsearch.jobs import Draft, DraftIssue
from jobsearch.listing import MergedListing
from jobsearch.store.clock import utcnow, utcnow_exact
from jobsearch.store.drafting import clear_issue, record_issue
from jobsearch.store.history import add_status, set_status
from jobsearch.store.records import RecordedExport, Status

_JSON = msgspec.json.Encoder()


def record_export(
    conn: sqlite3.Connection,
    *,
    run_id: str,
    job_id: str,
    listing: MergedListing,
    drafts: Iterable[Draft],
    issue: DraftIssue | None = None,
    fit: Fit | None = None,
) -> RecordedExport:
    """Record a listing (new or seen again), its sources and its drafts; idempotent per job id.

    With no drafts and an `issue`, record why (`jobsearch.store.drafting`): the listing stays
    `Saved`, its Review cell says so, and the next run drafts it again.

    With a `fit` (dedupe's score for the run's profile), the listing's fit and reasons become it.

    A new listing starts `Drafted` when it comes with drafts, else `Saved`; a `Saved` listing
    that later gets drafts moves to `Drafted`. A status the person set is never changed. What
    the listing says is replaced only by the same or a newer revision (a draft job carries the
    listing as it stood when it was sent; a posting may have joined it since).
    """
    now = utcnow()
    drafts = list(drafts)
    existing = conn.execute("SELECT status, revision FROM listings WHERE id = ?", (listing.id,)).fetchone()
    fields = _listing_fields(listing)
    if existing is None:
        first_seen = (listing.first_seen or datetime.now(UTC)).isoformat(timespec="seconds")
        status: Status = "Drafted" if drafts else "Saved"
        conn.execute(
            "INSERT INTO listings (id, title, company, url, locations, remote, employment_type,"
            " salary, posted_at, description, department, workplace, revision, changed_at, pay_note,"
            " first_seen, first_run_id, last_run_id, updated_at, status, status_at)"
            " VALUES (:id, :title, :company, :url, :locations, :remote, :employment_type, :salary,"
            " :posted_at, :description, :department, :workplace, :revision, :changed_at, :pay_note,"
            " :first_seen, :run_id, :run_id, :now, :status, :now)",
            fields | {"first_seen": first_seen, "run_id": run_id, "now": now, "status": status},
        )
        add_status(conn, listing.id, status, None, "pipeline", "found", run_id, now)
    elif listing.revision >= existing["revision"]:
        conn.execute(
            "UPDATE listings SET title = :title, company = :company, url = :url,"
            " locations = :locations, remote = :remote, employment_type = :employment_type,"
            " salary = :salary, posted_at = :posted_at, description = :description,"
            " department = :department, workplace = :workplace, revision = :revision,"
            " changed_at = :changed_at, pay_note = :pay_note, last_run_id = :run_id, updated_at = :now"
            " WHERE id = :id",
            fields | {"run_id": run_id, "now": now},
        )
    if fit is not None:
        conn.execute(
            "UPDATE listings SET fit = ?, fit_reasons = ? WHERE id = ?",
            (fit.score, _JSON.encode(fit.reasons).decode(), listing.id),
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
            " recorded_at, fell_over)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pipeline', ?, ?, ?, ?, ?)",
            (
                listing.id, draft.step, draft.text, draft.provider, draft.model, draft.tokens_in,
                draft.tokens_out, draft.cost_usd, draft.latency_ms, draft.status,
                _JSON.encode(draft.checks).decode(), run_id, job_id,
                (draft.created_at.isoformat(timespec="seconds") if draft.created_at else now),
                utcnow_exact(), _JSON.encode(draft.fell_over).decode(),
            ),
        )  # fmt: skip
        added += cursor.rowcount
    if added:
        clear_issue(conn, listing.id)
    elif issue is not None and not drafts:
        record_issue(conn, listing.id, issue, run_id=run_id, job_id=job_id)
    if existing is not None and existing["status"] == "Saved" and added:
        set_status(conn, listing.id, "Drafted", "pipeline", "drafted", run_id, now)
    return RecordedExport(listing_id=listing.id, new=existing is None, drafts=added)


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
        "workplace": listing.workplace,
        "revision": listing.revision,
        "changed_at": listing.updated_at.isoformat(timespec="seconds") if listing.updated_at else None,
        "pay_note": listing.pay_note,
    }


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value else None
