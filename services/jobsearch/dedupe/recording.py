"""One posting's way through the seen-set, and the `Decision` it ends in: is it a posting seen
before (unchanged or updated), one more posting of a known listing (merged), or a new listing;
the merged listing rebuilt from all of its postings; the profile's filter; what is owed now.

`Recording` runs inside the caller's transaction (`jobsearch.dedupe.store.record_posting`, which
scores the fit on top). Tables: `jobsearch.dedupe.tables`.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Literal

import msgspec

from jobsearch.dedupe import lookup, match, merge, tables
from jobsearch.dedupe.filters import drop_reason, pay_note
from jobsearch.dedupe.posting import Posting
from jobsearch.fit import Fit
from jobsearch.listing import Listing, MergedListing
from jobsearch.profile import Search

State = Literal["pending", "drafted", "dropped"]
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


def _features_json(features: match.Features) -> bytes:
    return _ENCODE.encode(msgspec.structs.replace(features, description=""))


class Recording:
    """One posting's way through the seen-set, inside the caller's transaction."""

    def __init__(self, db: sqlite3.Connection, posting: Posting, run_id: str) -> None:
        self.db = db
        self.posting = posting
        self.run_id = run_id
        self.now = datetime.now(UTC)

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
