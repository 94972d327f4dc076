"""Which listings a run drafts: once dedupe has drained, the best `max_per_run` by fit at or above
`min_fit` (the profile's `[drafting]`), best first; the others stay owed a draft, ranked and shown.

```
dedupe_listings: state pending, draft owed ─┬─ fit < min_fit ─▶ below the bar (kept, not drafted)
                                            ├─ best max_per_run ─▶ a `jobsearch.draft` job each
                                            └─ the rest ─▶ held back (a later run may draft them)
```
Only listings the person has not moved past `Saved` and that are still open are drafted (the
`listings` table of the same file, which the export stage writes). Drafts owed because drafting
failed are the run owner's, submitted before the search, and do not count toward the cap.
"""

from __future__ import annotations

import sqlite3

import msgspec

from jobsearch.listing import MergedListing
from jobsearch.profile import Drafting

_LISTING = msgspec.json.Decoder(MergedListing)


class Shortlist(msgspec.Struct, kw_only=True, frozen=True):
    """A run's drafting choice: the listings to draft (with their owner posting), best first."""

    chosen: list[tuple[MergedListing, str]]
    below_bar: int
    held_back: int


def shortlist(db: sqlite3.Connection, drafting: Drafting) -> Shortlist:
    """The listings owed a draft, cut by the bar and the cap (see the module)."""
    shown = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'listings'").fetchone()
    join, still_open = (_SHOWN, _OPEN) if shown else ("", "")  # no export stage has opened the file
    rows = db.execute(
        "SELECT d.data, d.draft_owner, d.fit FROM dedupe_listings d"
        f" {join} WHERE d.state = 'pending' AND d.draft_owner IS NOT NULL {still_open}"
        " ORDER BY coalesce(d.fit, -1) DESC, d.first_seen DESC, d.id"
    ).fetchall()
    above = [row for row in rows if row["fit"] is None or row["fit"] >= drafting.min_fit]
    chosen = above[: drafting.max_per_run]
    return Shortlist(
        chosen=[(_LISTING.decode(row["data"]), str(row["draft_owner"])) for row in chosen],
        below_bar=len(rows) - len(above),
        held_back=len(above) - len(chosen),
    )


# The person's status and the board's closing live in `listings` (the export stage's table in the
# same file); a listing it does not show yet (its export still queued) counts as Saved and open.
_SHOWN = "LEFT JOIN listings l ON l.id = d.id"
_OPEN = "AND coalesce(l.status, 'Saved') = 'Saved' AND l.closed_at IS NULL AND l.stale_at IS NULL"
