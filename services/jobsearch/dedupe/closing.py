"""Which postings a board took down, and so which listings are closed or stale.

```python
changes = close_listings(db, run_id, today=date(2026, 12, 2), stale_after_days=30)
changes.closed, changes.reopened, changes.stale     # the listings whose state changed
```
Run once a run has drained (every posting it read recorded), from `jobsearch.close_listings`:

- a posting is **gone** when a whole read of its source in this run (`dedupe_board_reads`) did not
  list it, on a board that lists every open posting (`LISTS_EVERY_OPEN_POSTING`), or when the
  `validThrough` its page states has passed (schema.org pages: the only way they close); a read
  that failed, stopped early or was rate-limited records no whole read, so it makes nothing gone;
- a posting read again is listed again, whatever the read;
- a listing is **closed** when every posting of it is gone or, for postings of aggregators and
  feeds, not seen for `stale_after_days`, and at least one is gone: on the day the last one went;
- a listing only aggregators and feeds carry, none seen for `stale_after_days`, is **stale**;
- a closed or stale listing with a posting listed again reopens.
The person's own status is never touched: closed and stale are the board's facts beside it.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

import msgspec

from jobsearch.jobs import ListingState
from jobsearch.listing import LISTS_EVERY_OPEN_POSTING, Listing


class Closings(msgspec.Struct, kw_only=True, frozen=True):
    """The listings whose state a run changed."""

    closed: list[ListingState] = []
    reopened: list[ListingState] = []
    stale: list[ListingState] = []

    @property
    def changed(self) -> list[ListingState]:
        """Every listing whose closed or stale date changed, for the state of record."""
        return [*self.closed, *self.reopened, *self.stale]


_LISTING = msgspec.json.Decoder(Listing)


def close_listings(
    db: sqlite3.Connection, run_id: str, *, today: date | None = None, stale_after_days: int = 30
) -> Closings:
    """Mark what run `run_id` shows gone or listed again, then each touched listing's state."""
    today = today or datetime.now(UTC).date()
    _mark_postings(db, run_id, today)
    return _listing_states(db, today, stale_after_days)


def _mark_postings(db: sqlite3.Connection, run_id: str, today: date) -> None:
    # Read again in this run: listed, whatever the read.
    db.execute(
        "UPDATE dedupe_postings SET gone_at = NULL WHERE gone_at IS NOT NULL AND key IN "
        "(SELECT key FROM dedupe_run_postings WHERE run_id = ?)",
        (run_id,),
    )
    boards = sorted(LISTS_EVERY_OPEN_POSTING)
    marks = ",".join("?" * len(boards))
    # Missed by a whole read of its source: gone since the day of that read.
    db.execute(
        "UPDATE dedupe_postings SET gone_at = ("
        "  SELECT substr(r.read_at, 1, 10) FROM dedupe_board_reads r"
        "  WHERE r.run_id = ? AND r.source = dedupe_postings.source)"
        f" WHERE gone_at IS NULL AND board IN ({marks})"
        " AND source IN (SELECT source FROM dedupe_board_reads WHERE run_id = ?)"
        " AND key NOT IN (SELECT key FROM dedupe_run_postings WHERE run_id = ?)",
        (run_id, *boards, run_id, run_id),
    )
    # A page's own last day (`validThrough`): past it, the posting is gone, read or not.
    rows = db.execute(
        "SELECT key, data FROM dedupe_postings"
        " WHERE gone_at IS NULL AND board = 'jobposting' AND data IS NOT NULL"
    ).fetchall()
    for key, data in rows:
        through = _LISTING.decode(data).valid_through
        if through is not None and through < today:
            gone = (through + timedelta(days=1)).isoformat()
            db.execute("UPDATE dedupe_postings SET gone_at = ? WHERE key = ?", (gone, key))


_Posting = tuple[str | None, str]  # (gone_at, last_seen)


def _listing_states(db: sqlite3.Connection, today: date, stale_after_days: int) -> Closings:
    """Each listing's state from its postings' (one pass over them); the changed ones written."""
    stale_before = (today - timedelta(days=stale_after_days)).isoformat()
    postings: dict[str, list[_Posting]] = defaultdict(list)
    for listing_id, gone_at, last_seen in db.execute(
        "SELECT listing_id, gone_at, last_seen FROM dedupe_postings"
    ):
        postings[listing_id].append((gone_at, last_seen))
    current = {
        r[0]: (r[1], r[2])
        for r in db.execute(
            "SELECT id, closed_at, stale_at FROM dedupe_listings"
            " WHERE closed_at IS NOT NULL OR stale_at IS NOT NULL"
        )
    }
    changes: dict[str, list[ListingState]] = {"closed": [], "reopened": [], "stale": []}
    for listing_id, its in postings.items():
        state = _state_of(listing_id, its, stale_before, stale_after_days)
        now = (_iso(state.closed_at), _iso(state.stale_at))
        if now == current.get(listing_id, (None, None)):
            continue
        db.execute("UPDATE dedupe_listings SET closed_at = ?, stale_at = ? WHERE id = ?", (*now, listing_id))
        kind = "closed" if state.closed_at else "stale" if state.stale_at else "reopened"
        changes[kind].append(state)
    return Closings(**changes)


def _state_of(
    listing_id: str, postings: list[_Posting], stale_before: str, stale_after_days: int
) -> ListingState:
    """Closed when every posting is gone or unseen for long, one at least gone; stale when all are
    unseen for long; else open."""
    gone = [g for g, _ in postings if g is not None]
    unseen = [seen for g, seen in postings if g is None and seen < stale_before]
    if len(gone) + len(unseen) < len(postings):
        return ListingState(id=listing_id)
    if gone:
        return ListingState(id=listing_id, closed_at=date.fromisoformat(max(gone)[:10]))
    last = datetime.fromisoformat(max(unseen)).date()
    return ListingState(id=listing_id, stale_at=last + timedelta(days=stale_after_days))


def _iso(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None
