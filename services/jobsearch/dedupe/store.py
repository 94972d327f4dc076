"""The seen-set: the only authority on whether a posting is new, merged, updated or seen before.

One posting's path is a straight line, inside one `BEGIN IMMEDIATE` transaction (two services, or
two jobs of one service, never both create a listing for one job):

```
posting_of(listing)         normalised once (features, URLs, employers, fingerprint)
  known posting?            same fingerprint: unchanged; another: updated
  else match                exact URL, then fuzzy within the company block  → merged, or new
  merge.union(postings)     the merged listing rebuilt from all of its postings (revision + 1)
  filter                    a new or dropped listing: the profile keeps it, or says why not
  record                    the run's outcome for the posting; what is owed: export, draft
```
A listing the person already has is never dropped by a narrower search; a dropped listing is
looked at again whenever one of its postings is read, so a wider search brings it back as new.
What is owed is submitted after the commit: the export of a kept listing until the state of record
shows its revision (`listings.revision`), the draft until it is marked (`mark_drafted`); a
service killed in between leaves it owed, and the redelivered job submits it again under the
same key. The posting's way up to the filter is `jobsearch.dedupe.recording`'s (with the `Decision`
it ends in); this module scores the fit, batches postings and keeps the seen-set's file. Tables:
`jobsearch.dedupe.tables`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path

import msgspec
import structlog

from jobsearch.db import immediate, open_db_retrying
from jobsearch.dedupe import tables
from jobsearch.dedupe.posting import Posting, posting_of
from jobsearch.dedupe.recording import Decision, Recording
from jobsearch.fit import score
from jobsearch.fit.learn import Learned
from jobsearch.listing import Listing
from jobsearch.profile import Profile, Search
from jobsearch.store.learned import learned_for

# Decision lives in jobsearch.dedupe.recording; what record_posting returns is still imported from here.
__all__ = ["Decision", "SeenSet", "mark_drafted", "record_board_read", "record_posting", "record_postings"]

log = structlog.get_logger("jobsearch.dedupe")

_ENCODE = msgspec.json.Encoder()


def _now() -> datetime:
    return datetime.now(UTC)


def record_posting(
    db: sqlite3.Connection,
    posting: Posting,
    search: Search,
    run_id: str,
    profile: Profile | None = None,
    *,
    learned: Learned | None = None,
) -> Decision:
    """Match, merge, filter and record one posting of run `run_id`, inside the caller's
    transaction; with the run's `profile`, score the listing's fit for it too (with the weights
    `learned` from the person's decisions, when there are)."""
    decision = Recording(db, posting, run_id).run(search)
    if profile is None:
        return decision
    try:
        fit = score(profile, decision.listing, date.today(), learned)
    except Exception as exc:  # a fault of the score never costs the person the listing
        log.warning("dedupe.fit_failed", listing=decision.listing.id, error=f"{type(exc).__name__}: {exc}")
        return decision
    before = db.execute("SELECT fit FROM dedupe_listings WHERE id = ?", (decision.listing.id,)).fetchone()
    db.execute(
        "UPDATE dedupe_listings SET fit = ?, fit_reasons = ? WHERE id = ?",
        (fit.score, _ENCODE.encode(fit.reasons), decision.listing.id),
    )
    # A kept listing whose fit changed (a new profile, a posting that joined, a day older) is owed
    # to the state of record again, so that the tracker shows it.
    changed = before is None or before["fit"] != fit.score
    export = decision.export or (changed and decision.state != "dropped")
    return msgspec.structs.replace(decision, fit=fit, export=export)


def record_postings(
    db: sqlite3.Connection,
    postings: Sequence[Posting],
    search: Search,
    run_id: str,
    profile: Profile | None = None,
) -> list[Decision | str]:
    """`record_posting` for each, inside the caller's transaction; a posting that cannot be
    recorded is undone alone, noted as `rejected` for the run, and given as its reason (str), so
    one bad posting never holds up the others of its batch. The database's own errors (locked,
    busy, disk full) are raised: the whole batch is then tried again.
    """
    out: list[Decision | str] = []
    # The fit weights learned from the person's statuses (`jobsearch.store.learned`), read once.
    learned = _learned(db, profile) if profile is not None else None
    for posting in postings:
        db.execute("SAVEPOINT one_posting")
        try:
            out.append(record_posting(db, posting, search, run_id, profile, learned=learned))
        except sqlite3.Error:
            raise
        except Exception as exc:  # a posting's own failure: keep the batch's others
            db.execute("ROLLBACK TO one_posting")
            reason = f"{type(exc).__name__}: {exc}"[:500]
            db.execute(
                "INSERT OR IGNORE INTO dedupe_run_postings (run_id, key, source, listing_id, outcome,"
                " reason, recorded_at) VALUES (?, ?, ?, '', 'rejected', ?, ?)",
                (run_id, posting.key, posting.listing.source, reason, _now().isoformat()),
            )
            out.append(reason)
        finally:
            db.execute("RELEASE one_posting")
    return out


def _learned(db: sqlite3.Connection, profile: Profile) -> Learned | None:
    """The learned weights, or None should learning fail: a fault of it never costs a listing
    (the database's own errors are raised, and the batch is tried again)."""
    try:
        return learned_for(db, profile)
    except sqlite3.Error:
        raise
    except Exception as exc:
        log.warning("dedupe.learning_failed", error=f"{type(exc).__name__}: {exc}")
        return None


def mark_drafted(db: sqlite3.Connection, owed: Iterable[tuple[str, str]]) -> None:
    """Record that the draft jobs of these (listing id, owner posting) were submitted."""
    db.executemany(
        "UPDATE dedupe_listings SET state = 'drafted', draft_owner = NULL, updated_at = ? "
        "WHERE id = ? AND state = 'pending' AND draft_owner = ?",
        [(_now().isoformat(), listing_id, owner) for listing_id, owner in owed],
    )


def record_board_read(db: sqlite3.Connection, run_id: str, source: str, board: str, listed: int) -> None:
    """Record that run `run_id` read `source` in full and it listed `listed` postings."""
    db.execute(
        "INSERT OR IGNORE INTO dedupe_board_reads (run_id, source, board, listed, read_at)"
        " VALUES (?, ?, ?, ?, ?)",
        (run_id, source, board, listed, _now().isoformat()),
    )


class SeenSet:
    """The seen-set in one SQLite file, a transaction per call (the dedupe service batches them
    with `jobsearch.batch.BatchWriter` instead). One connection: use it from one thread at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = open_db_retrying(path)
        tables.create(self.conn)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def record(
        self, listing: Listing, search: Search, run_id: str, profile: Profile | None = None
    ) -> Decision:
        """Match, merge, filter and record one posting of run `run_id`, and with `profile` score
        its fit: atomically."""
        posting = posting_of(listing)
        with immediate(self.conn) as db:
            learned = _learned(db, profile) if profile is not None else None
            return record_posting(db, posting, search, run_id, profile, learned=learned)

    def mark_drafted(self, listing_id: str, owner: str) -> None:
        """`mark_drafted` in a transaction of its own."""
        with immediate(self.conn) as db:
            mark_drafted(db, [(listing_id, owner)])
