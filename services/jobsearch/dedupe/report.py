"""What the seen-set can tell, read only: its listings, a run's outcomes, and why postings joined
a listing.

`read_listings` is what `jobsearch listings` prints (each merged listing with its state and fit);
`run_outcomes` is what `jobsearch run` prints as its listings line (every posting a run read is
exactly one of new, merged, updated, unchanged, filtered); `explain` is
`jobsearch listings --explain ID`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date
from pathlib import Path

import msgspec

from jobsearch.db import open_db
from jobsearch.dedupe.recording import State
from jobsearch.fit import Reason
from jobsearch.listing import MergedListing

_MERGED = msgspec.json.Decoder(MergedListing)
_REASONS = msgspec.json.Decoder(list[Reason])


class RunOutcomes(msgspec.Struct, kw_only=True):
    """What one run did with the postings it read, per outcome; and the sources it read whole."""

    new: int = 0
    merged: int = 0
    updated: int = 0
    unchanged: int = 0
    filtered: int = 0
    rejected: int = 0  # postings that could not be recorded (the dedupe log says why)
    filtered_reasons: dict[str, int] = {}  # the first words of each reason ("salary", "remote")
    full_reads: dict[str, int] = {}  # source → postings it listed

    @property
    def recorded(self) -> int:
        """Every posting the run recorded."""
        return self.new + self.merged + self.updated + self.unchanged + self.filtered + self.rejected


class PostingWhy(msgspec.Struct, kw_only=True, frozen=True):
    """One posting of a listing and why it joined it."""

    key: str
    board: str
    url: str
    how: str  # new | url | fuzzy | employer
    why: str
    title_score: float | None = None
    text_score: float | None = None
    first_seen: str = ""
    last_seen: str = ""


@contextmanager
def _reading(path: Path) -> Iterator[sqlite3.Connection | None]:
    if not path.exists():
        yield None
        return
    conn = open_db(path, readonly=True)
    try:
        yield conn
    finally:
        conn.close()


def run_outcomes(path: Path, run_id: str) -> RunOutcomes:
    """What run `run_id` did with each posting it read (zeros for a run that read none)."""
    out = RunOutcomes()
    with _reading(path) as conn:
        if conn is None:
            return out
        try:
            rows = conn.execute(
                "SELECT outcome, reason, count(*) AS n FROM dedupe_run_postings WHERE run_id = ?"
                " GROUP BY outcome, reason",
                (run_id,),
            ).fetchall()
            reads = conn.execute(
                "SELECT source, listed FROM dedupe_board_reads WHERE run_id = ? ORDER BY source", (run_id,)
            ).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return out
            raise
    for row in rows:
        setattr(out, row["outcome"], getattr(out, row["outcome"]) + row["n"])
        if row["reason"] and row["outcome"] == "filtered":
            kind = row["reason"].split(":", 1)[0]
            out.filtered_reasons[kind] = out.filtered_reasons.get(kind, 0) + row["n"]
    out.full_reads = {row["source"]: row["listed"] for row in reads}
    return out


def explain(path: Path, listing_id: str) -> list[PostingWhy]:
    """The postings of a listing (an id, or a unique prefix of one), oldest first, with why each
    joined it; [] when there is no such listing."""
    with _reading(path) as conn:
        if conn is None:
            return []
        escaped = listing_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        ids = conn.execute(
            "SELECT id FROM dedupe_listings WHERE id = ? OR id LIKE ? ESCAPE '\\' LIMIT 2",
            (listing_id, escaped + "%"),
        ).fetchall()
        if len(ids) != 1:
            return []
        rows = conn.execute(
            "SELECT key, board, url, how, why, title_score, text_score, first_seen, last_seen"
            " FROM dedupe_postings WHERE listing_id = ? ORDER BY first_seen, rowid",
            (ids[0]["id"],),
        ).fetchall()
    return [
        PostingWhy(
            key=r["key"],
            board=r["board"],
            url=r["url"],
            how=r["how"],
            why=r["why"] or ("the first posting of the listing" if r["how"] == "new" else r["how"]),
            title_score=r["title_score"],
            text_score=r["text_score"],
            first_seen=r["first_seen"],
            last_seen=r["last_seen"],
        )
        for r in rows
    ]


class StoredListing(msgspec.Struct, kw_only=True, frozen=True):
    """A merged listing as `jobsearch listings` shows it."""

    listing: MergedListing
    state: State
    drop_reason: str | None = None
    fit: int | None = None  # 0-100 for the profile of the run that last saw it (None: not scored)
    fit_reasons: list[Reason] = []
    closed_at: date | None = None  # every board that posted it took it down (`dedupe.closing`)
    stale_at: date | None = None  # only aggregators carried it, and none lately


def read_listings(path: Path, *, include_dropped: bool = False) -> list[StoredListing]:
    """The merged listings in the database at `path` (read only), newest first; [] if there is none."""
    if not path.exists():
        return []
    conn = open_db(path, readonly=True)
    try:
        try:
            rows = conn.execute(
                "SELECT data, state, drop_reason, fit, fit_reasons, closed_at, stale_at FROM dedupe_listings "
                + ("" if include_dropped else "WHERE state != 'dropped' ")
                + "ORDER BY first_seen DESC, id"
            ).fetchall()
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return []
            raise
    finally:
        conn.close()
    return [
        StoredListing(
            listing=_MERGED.decode(r["data"]),
            state=r["state"],
            drop_reason=r["drop_reason"],
            fit=r["fit"],
            fit_reasons=_REASONS.decode(r["fit_reasons"]) if r["fit_reasons"] else [],
            closed_at=date.fromisoformat(r["closed_at"]) if r["closed_at"] else None,
            stale_at=date.fromisoformat(r["stale_at"]) if r["stale_at"] else None,
        )
        for r in rows
    ]
