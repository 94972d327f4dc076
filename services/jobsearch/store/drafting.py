"""What the state of record knows about drafting beyond the drafts: why a listing has none yet,
which listings are owed one, and what the Review column says.

A listing's drafting ends one of three ways, and the person sees each where they read:

| how it ended                    | recorded as                      | Review cell                  |
|---------------------------------|----------------------------------|------------------------------|
| every check passed              | `drafts` rows, `status = ok`     | empty                        |
| checks failed twice             | `drafts` rows, `needs_review`    | the failed checks, in words  |
| every provider failed, or waits | a `draft_issues` row (no drafts) | "draft failed: ..." / waits  |

A `draft_issues` row is cleared when a draft of the listing is recorded. The listings that have
one, and that the person has not moved past `Saved`, are owed a draft: the next run (and
`jobsearch draft --failed`) drafts them again, so an outage never needs a manual requeue.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from datetime import datetime

import msgspec

from jobsearch.jobs import Check, DraftIssue, Step
from jobsearch.store.clock import utcnow_exact

_CHECKS = msgspec.json.Decoder(list[Check])
_STEP_NAMES: dict[str, str] = {"cover_letter": "cover letter", "connection_note": "note"}
# The id of each listing's current draft of each step (the newest row: an edit or the pipeline's).
CURRENT_DRAFTS = "SELECT listing_id, step, max(id) AS id FROM drafts GROUP BY listing_id, step"


class StoredIssue(msgspec.Struct, kw_only=True, frozen=True):
    """One `draft_issues` row: why a listing has no draft yet."""

    listing_id: str
    kind: str  # failed | waiting
    reason: str
    attempts: int
    retry_at: datetime | None
    run_id: str | None
    at: str

    @property
    def review(self) -> str:
        """The Review cell's words for it."""
        if self.kind == "waiting":
            return f"draft waiting: {self.reason} (the next run drafts it)"
        tries = f" after {self.attempts} attempts" if self.attempts > 1 else ""
        return f"draft failed{tries}: {self.reason} (the next run retries)"


def record_issue(
    conn: sqlite3.Connection, listing_id: str, issue: DraftIssue, *, run_id: str, job_id: str
) -> bool:
    """Record why `listing_id` has no draft (replacing an older reason); False when it has drafts
    (a late report of an attempt that lost, or a re-draft that failed: the drafts it has stand)."""
    drafted = conn.execute("SELECT 1 FROM drafts WHERE listing_id = ? LIMIT 1", (listing_id,)).fetchone()
    if drafted is not None:
        return False
    retry_at = issue.retry_at.isoformat(timespec="seconds") if issue.retry_at else None
    conn.execute(
        "INSERT INTO draft_issues (listing_id, kind, reason, attempts, retry_at, run_id, job_id, at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (listing_id) DO UPDATE SET kind = excluded.kind,"
        " reason = excluded.reason, attempts = excluded.attempts, retry_at = excluded.retry_at,"
        " run_id = excluded.run_id, job_id = excluded.job_id, at = excluded.at",
        (listing_id, issue.kind, issue.reason, issue.attempts, retry_at, run_id, job_id, utcnow_exact()),
    )
    return True


def clear_issue(conn: sqlite3.Connection, listing_id: str) -> None:
    """A draft of the listing was recorded: it no longer waits or fails."""
    conn.execute("DELETE FROM draft_issues WHERE listing_id = ?", (listing_id,))


def issues(conn: sqlite3.Connection, listing_ids: Iterable[str] | None = None) -> dict[str, StoredIssue]:
    """Every listing's issue (or those of `listing_ids`), by listing id."""
    if listing_ids is None:
        rows = conn.execute("SELECT * FROM draft_issues").fetchall()
    else:
        wanted = list(listing_ids)
        marks = ", ".join("?" * len(wanted))
        rows = conn.execute(f"SELECT * FROM draft_issues WHERE listing_id IN ({marks})", wanted).fetchall()
    return {
        row["listing_id"]: StoredIssue(
            listing_id=row["listing_id"],
            kind=row["kind"],
            reason=row["reason"],
            attempts=row["attempts"],
            retry_at=datetime.fromisoformat(row["retry_at"]) if row["retry_at"] else None,
            run_id=row["run_id"],
            at=row["at"],
        )
        for row in rows
    }


def owed_drafts(conn: sqlite3.Connection) -> list[str]:
    """The listings owed a draft: drafting failed or waits, and the person has not moved them past
    `Saved` (a listing they applied to, or closed, is not drafted behind their back). Oldest first."""
    rows = conn.execute(
        "SELECT i.listing_id FROM draft_issues i JOIN listings l ON l.id = i.listing_id"
        " WHERE l.status = 'Saved' ORDER BY l.first_seen, i.listing_id"
    )
    return [row["listing_id"] for row in rows]


def undrafted(conn: sqlite3.Connection) -> list[str]:
    """The `Saved` listings with no draft at all (`jobsearch draft --missing`), oldest first."""
    rows = conn.execute(
        "SELECT id FROM listings WHERE status = 'Saved'"
        " AND id NOT IN (SELECT DISTINCT listing_id FROM drafts) ORDER BY first_seen, id"
    )
    return [row["id"] for row in rows]


def current_checks(conn: sqlite3.Connection) -> dict[str, dict[Step, tuple[str, list[Check]]]]:
    """Each drafted listing's current draft of each step: its status and checks."""
    out: dict[str, dict[Step, tuple[str, list[Check]]]] = {}
    for row in conn.execute(
        f"SELECT d.listing_id, d.step, d.status, d.checks FROM drafts d JOIN ({CURRENT_DRAFTS}) c"
        " ON d.id = c.id"
    ):
        out.setdefault(row["listing_id"], {})[row["step"]] = (row["status"], _CHECKS.decode(row["checks"]))
    return out


def review_text(steps: Mapping[Step, tuple[str, list[Check]]] | None, issue: StoredIssue | None) -> str:
    """What the Review column says: empty when every current draft passed its checks; else the
    failed checks in words, by step; or why there is no draft yet."""
    parts: list[str] = []
    for step, (status, checks) in sorted((steps or {}).items()):
        if status != "needs_review":
            continue
        details = [c.detail or f"the {c.name} check failed" for c in checks if not c.passed]
        parts.append(f"{_STEP_NAMES.get(step, step)}: {'; '.join(details) or 'failed its checks'}")
    if not parts and issue is not None:
        return issue.review
    return " | ".join(parts)


def review_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Current drafts that need review, by the provider that wrote them (`jobsearch status`)."""
    rows = conn.execute(
        f"SELECT d.provider, count(*) AS n FROM drafts d JOIN ({CURRENT_DRAFTS}) c ON d.id = c.id"
        " WHERE d.status = 'needs_review' GROUP BY d.provider ORDER BY n DESC, d.provider"
    )
    return {row["provider"]: row["n"] for row in rows}


def issue_counts(conn: sqlite3.Connection) -> dict[str, int]:
    """Listings with no draft yet, by why (`failed`, `waiting`)."""
    rows = conn.execute("SELECT kind, count(*) AS n FROM draft_issues GROUP BY kind ORDER BY kind")
    return {row["kind"]: row["n"] for row in rows}
