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
same key. Tables: `jobsearch.dedupe.tables`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal

import msgspec
import structlog

from jobsearch.db import immediate, open_db_retrying
from jobsearch.dedupe import lookup, match, merge, tables
from jobsearch.dedupe.filters import drop_reason, pay_note
from jobsearch.dedupe.posting import Posting, posting_of
from jobsearch.fit import Fit, score
from jobsearch.fit.learn import Learned
from jobsearch.listing import Listing, MergedListing
from jobsearch.profile import Profile, Search
from jobsearch.store.learned import learned_for

State = Literal["pending", "drafted", "dropped"]
log = structlog.get_logger("jobsearch.dedupe")

Outcome = Literal["new", "merged", "updated", "unchanged", "filtered"]  # and, per run, "rejected"
OUTCOMES: tuple[Outcome, ...] = ("new", "merged", "updated", "unchanged", "filtered")

_MERGED = msgspec.json.Decoder(MergedListing)
_LISTING = msgspec.json.Decoder(Listing)
_ENCODE = msgspec.json.Encoder()


class Decision(msgspec.Struct, kw_only=True, frozen=True):
    """What dedupe did with one posting, and what is owed now."""

    listing: MergedListing
    outcome: Outcome
    how: str  # new | posting | url | fuzzy | employer
    state: State
    drop_reason: str | None = None
    posting_key: str = ""  # the posting it is about (its job owes the draft, when `draft`)
    draft: bool = False  # submit the draft job for `listing`, then `mark_drafted`
    export: bool = False  # submit the export job of `listing.revision` (the store does not show it)
    fit: Fit | None = None  # its fit for the profile, when one was given


def _now() -> datetime:
    return datetime.now(UTC)


def _features_json(features: match.Features) -> bytes:
    return _ENCODE.encode(msgspec.structs.replace(features, description=""))


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
    decision = _Recording(db, posting, run_id).run(search)
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


class _Recording:
    """One posting's way through the seen-set, inside the caller's transaction."""

    def __init__(self, db: sqlite3.Connection, posting: Posting, run_id: str) -> None:
        self.db = db
        self.posting = posting
        self.run_id = run_id
        self.now = _now()

    def run(self, search: Search) -> Decision:
        key = self.posting.key
        known = self.db.execute(
            "SELECT listing_id, fingerprint FROM dedupe_postings WHERE key = ?", (key,)
        ).fetchone()
        if known is not None:
            listing_id, how = known["listing_id"], "posting"
            changed = known["fingerprint"] != self.posting.fingerprint
            outcome: Outcome = "updated" if changed else "unchanged"
            self._touch_posting(changed=changed)
        else:
            found = lookup.exact(self.db, self.posting) or lookup.fuzzy(self.db, self.posting)
            listing_id, how, verdict = found or (merge.merged_id(key), "new", None)
            outcome = "merged" if found else "new"
            if not found:  # its row first: the posting refers to it
                self.db.execute(
                    "INSERT INTO dedupe_listings (id, company_key, features, words, data, state, revision,"
                    " first_seen, updated_at) VALUES (?, '', x'', '', x'', 'dropped', 0, ?, ?)",
                    (listing_id, self.now.isoformat(), self.now.isoformat()),
                )
            self._add_posting(listing_id, how, verdict)
            changed = True
        row = self.db.execute("SELECT * FROM dedupe_listings WHERE id = ?", (listing_id,)).fetchone()
        before = None if outcome == "new" else row
        merged = self._rebuild(listing_id, before) if changed else _MERGED.decode(row["data"])
        merged = self._note_pay(merged, search, changed=changed)
        decision = self._filter(merged, before, search, outcome, how)
        self.db.execute(
            "INSERT OR IGNORE INTO dedupe_run_postings (run_id, key, source, listing_id, outcome, reason,"
            " recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                self.run_id,
                key,
                self.posting.listing.source,
                listing_id,
                decision.outcome,
                decision.drop_reason,
                self.now.isoformat(),
            ),
        )
        return decision

    # -- recording ----------------------------------------------------------------------------

    def _add_posting(self, listing_id: str, how: str, verdict: match.Verdict | None) -> None:
        listing, now = self.posting.listing, self.now.isoformat()
        self.db.execute(
            "INSERT INTO dedupe_postings (key, listing_id, board, source, external_id, url, how, "
            "title_score, text_score, first_seen, last_seen, run_id, data, fingerprint, why) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                self.posting.key,
                listing_id,
                listing.board,
                listing.source,
                listing.external_id,
                listing.url,
                how,
                verdict.title_score if verdict else None,
                verdict.text_score if verdict else None,
                now,
                now,
                self.run_id,
                _ENCODE.encode(listing),
                self.posting.fingerprint,
                verdict.reason if verdict else "the first posting of the listing",
            ),
        )

    def _touch_posting(self, *, changed: bool) -> None:
        listing, now = self.posting.listing, self.now.isoformat()
        if changed:
            self.db.execute(
                "UPDATE dedupe_postings SET url = ?, data = ?, fingerprint = ?, last_seen = ?, run_id = ?"
                " WHERE key = ?",
                (
                    listing.url,
                    _ENCODE.encode(listing),
                    self.posting.fingerprint,
                    now,
                    self.run_id,
                    self.posting.key,
                ),
            )
        else:
            self.db.execute(
                "UPDATE dedupe_postings SET last_seen = ?, run_id = ? WHERE key = ?",
                (now, self.run_id, self.posting.key),
            )

    def _rebuild(self, listing_id: str, row: sqlite3.Row | None) -> MergedListing:
        """The merged listing made anew from all of its postings, written with its features.

        `row` is the listing as it was before this posting (None: the posting created it).
        """
        postings = [self.posting.listing]
        if row is not None:
            stored = [
                r["data"]
                for r in self.db.execute(
                    "SELECT data FROM dedupe_postings WHERE listing_id = ? ORDER BY first_seen, rowid",
                    (listing_id,),
                )
            ]
            postings = [_LISTING.decode(data) for data in stored if data is not None]
            if len(postings) < len(stored):  # postings recorded before their data was kept
                postings.insert(0, _legacy_posting(_MERGED.decode(row["data"])))
        merged = merge.union(
            postings,
            listing_id=listing_id,
            first_seen=datetime.fromisoformat(row["first_seen"]) if row is not None else self.now,
            revision=(row["revision"] + 1) if row is not None else 1,
            updated_at=self.now if row is not None else None,
        )
        alone = row is None and merged.company == self.posting.listing.company
        # One posting alone: its features are the listing's.
        features = self.posting.features if alone else match.features(merged, postings)
        values = (
            features.company,
            _features_json(features),
            features.description,
            _ENCODE.encode(merged),
            merged.revision,
            self.run_id,
            self.now.isoformat(),
        )
        self.db.execute(
            "UPDATE dedupe_listings SET company_key = ?, features = ?, words = ?, data = ?, revision = ?,"
            " run_id = ?, updated_at = ? WHERE id = ?",
            (*values, listing_id),
        )
        tables.index_listing(self.db, listing_id, features, [self.posting])
        self.db.executemany(
            "INSERT OR IGNORE INTO dedupe_urls (url, listing_id) VALUES (?, ?)",
            [(url, listing_id) for url in self.posting.urls],
        )
        return merged

    def _note_pay(self, merged: MergedListing, search: Search, *, changed: bool) -> MergedListing:
        """The listing marked when its pay was not compared with the floor (another currency); a
        mark that changes with the profile is a new revision, so it reaches the tracker."""
        note = pay_note(merged, search)
        if note == merged.pay_note:
            return merged
        marked = msgspec.structs.replace(merged, pay_note=note, revision=merged.revision + (not changed))
        self.db.execute(
            "UPDATE dedupe_listings SET data = ?, revision = ? WHERE id = ?",
            (_ENCODE.encode(marked), marked.revision, marked.id),
        )
        return marked

    def _filter(
        self, merged: MergedListing, row: sqlite3.Row | None, search: Search, outcome: Outcome, how: str
    ) -> Decision:
        """Apply the profile to a new or dropped listing; a kept one stays kept. What is owed now."""
        before: State | None = row["state"] if row is not None else None
        state: State
        reason = None
        if before is None or before == "dropped":
            reason = drop_reason(merged, search)
            if reason:
                state, outcome = "dropped", "filtered"
                self.db.execute(
                    "UPDATE dedupe_listings SET state = 'dropped', draft_owner = NULL, drop_reason = ?,"
                    " run_id = ? WHERE id = ?",
                    (reason, self.run_id, merged.id),
                )
            else:
                state, outcome = "pending", "new"  # new to the person, whatever was read before
                self.db.execute(
                    "UPDATE dedupe_listings SET state = 'pending', draft_owner = ?, drop_reason = NULL,"
                    " run_id = ? WHERE id = ?",
                    (self.posting.key, self.run_id, merged.id),
                )
            owner = None if reason else self.posting.key
        else:
            state, owner = before, row["draft_owner"] if row is not None else None
        # Owed to the export stage until the state of record shows this revision: a revision that
        # was handed on but never recorded (its export job died) is handed on again next run.
        shown = _shown_revision(self.db, merged.id) if state != "dropped" else merged.revision
        return Decision(
            listing=merged,
            outcome=outcome,
            how=how,
            state=state,
            drop_reason=reason,
            posting_key=self.posting.key,
            draft=state == "pending" and owner == self.posting.key,
            export=shown < merged.revision,
        )


def _shown_revision(db: sqlite3.Connection, listing_id: str) -> int:
    """The revision of the listing the state of record shows the person (`listings`, written by
    the export stage in the same file); -1 when it shows none yet."""
    try:
        row = db.execute("SELECT revision FROM listings WHERE id = ?", (listing_id,)).fetchone()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):  # the export stage has not opened the file yet
            return -1
        raise
    return -1 if row is None else int(row[0])


def _legacy_posting(merged: MergedListing) -> Listing:
    """A listing recorded before postings kept their data, as one posting of its first source."""
    first = merged.sources[0] if merged.sources else None
    return Listing(
        board=first.board if first else "sample",
        source=first.source if first else "",
        external_id=first.external_id if first else merged.id,
        url=merged.url,
        title=merged.title,
        company=merged.company,
        locations=merged.locations,
        remote=merged.remote,
        workplace=merged.workplace,
        employment_type=merged.employment_type,
        salary=merged.salary,
        posted_at=merged.posted_at,
        description=merged.description,
        department=merged.department,
    )
