"""The seen-set: every posting and merged listing dedupe has seen, in the pipeline's SQLite file.

Tables (all `dedupe_`):
- `dedupe_listings`: one row per merged listing: its JSON, its matching features, and its state:
  `pending` (matching; its draft job is owed by the posting named in `draft_owner`), `drafted`
  (the draft job was submitted) or `dropped` (the filters said no: `drop_reason`).
- `dedupe_postings`: one row per board posting (`board:external_id`) → its merged listing, and how
  it matched (`new`, `url`, `fuzzy`).
- `dedupe_urls`: canonical URLs (the posting's own and the board links in its text) → merged listing.

`record` matches and inserts in one `BEGIN IMMEDIATE` transaction: two services, or two jobs of one
service, never both create a listing for one job. The draft job is submitted after the commit and
`mark_drafted` records it; a service killed in between leaves the listing `pending` with its owner,
and the redelivered job of the owner submits the draft again (the draft's key makes a second
submission inside the stream's duplicate window a no-op).
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import msgspec

from jobsearch.db import immediate, open_db, open_db_retrying
from jobsearch.dedupe import match, merge, normalise
from jobsearch.dedupe.filters import drop_reason
from jobsearch.listing import Listing, MergedListing
from jobsearch.profile import Search

State = Literal["pending", "drafted", "dropped"]
Outcome = Literal["new", "merged", "seen"]

SCHEMA = """
CREATE TABLE IF NOT EXISTS dedupe_listings (
    id TEXT PRIMARY KEY,
    company_key TEXT NOT NULL,
    features BLOB NOT NULL,         -- what matching compares (title, level, places...), JSON
    words TEXT NOT NULL,            -- normalised description (the tie-breaker's input)
    data BLOB NOT NULL,             -- the MergedListing, JSON
    state TEXT NOT NULL CHECK (state IN ('pending', 'drafted', 'dropped')),
    draft_owner TEXT,               -- the posting whose job owes the draft (state pending)
    drop_reason TEXT,
    run_id TEXT,                    -- the run that last changed it
    first_seen TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS dedupe_listings_company ON dedupe_listings (company_key);
CREATE TABLE IF NOT EXISTS dedupe_postings (
    key TEXT PRIMARY KEY,           -- board:external_id
    listing_id TEXT NOT NULL REFERENCES dedupe_listings (id),
    board TEXT NOT NULL,
    source TEXT NOT NULL,
    external_id TEXT NOT NULL,
    url TEXT NOT NULL,
    how TEXT NOT NULL,              -- new | url | fuzzy
    title_score REAL,
    text_score REAL,
    first_seen TEXT NOT NULL,
    last_seen TEXT NOT NULL,
    run_id TEXT
);
CREATE INDEX IF NOT EXISTS dedupe_postings_listing ON dedupe_postings (listing_id);
CREATE TABLE IF NOT EXISTS dedupe_urls (
    url TEXT PRIMARY KEY,
    listing_id TEXT NOT NULL REFERENCES dedupe_listings (id)
);
"""

_MERGED = msgspec.json.Decoder(MergedListing)
_ENCODE = msgspec.json.Encoder()
_FEATURES = msgspec.json.Decoder(match.Features)


def _features_json(features: match.Features) -> bytes:
    return _ENCODE.encode(msgspec.structs.replace(features, description=""))


class Decision(msgspec.Struct, kw_only=True, frozen=True):
    """What dedupe did with one posting, and whether a draft job is owed now."""

    listing: MergedListing
    outcome: Outcome  # new merged listing, merged into one, or this posting was seen before
    how: str  # new | posting | url | fuzzy
    state: State
    drop_reason: str | None = None
    draft: bool = False  # submit the draft job for `listing`, then `mark_drafted`


class StoredListing(msgspec.Struct, kw_only=True, frozen=True):
    """A merged listing as `jobsearch listings` shows it."""

    listing: MergedListing
    state: State
    drop_reason: str | None = None


def _now() -> datetime:
    return datetime.now(UTC)


class SeenSet:
    """The seen-set in one SQLite file. One connection: use it from one thread at a time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.conn = open_db_retrying(path)
        self.conn.executescript(SCHEMA)

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def _immediate(self) -> AbstractContextManager[sqlite3.Connection]:
        return immediate(self.conn)

    def record(self, listing: Listing, search: Search, run_id: str) -> Decision:
        """Match `listing` against everything seen, insert it, and apply the filters: atomically."""
        with self._immediate() as db:
            now = _now().isoformat()
            row = db.execute(
                "SELECT listing_id FROM dedupe_postings WHERE key = ?", (listing.key,)
            ).fetchone()
            if row is not None:
                db.execute(
                    "UPDATE dedupe_postings SET last_seen = ?, run_id = ? WHERE key = ?",
                    (now, run_id, listing.key),
                )
                return self._seen_again(db, row["listing_id"], listing.key, search, run_id)
            features = match.features(listing)
            urls = _urls(listing)
            found = self._exact(db, urls, features) or self._fuzzy(db, features)
            if found is None:
                return self._create(db, listing, urls=urls, features=features, search=search, run_id=run_id)
            listing_id, how, verdict = found
            return self._merge(
                db,
                listing_id=listing_id,
                listing=listing,
                urls=urls,
                how=how,
                verdict=verdict,
                search=search,
                run_id=run_id,
            )

    def mark_drafted(self, listing_id: str, owner: str) -> None:
        """Record that the draft job of `listing_id` was submitted by its owner's job."""
        with self._immediate() as db:
            db.execute(
                "UPDATE dedupe_listings SET state = 'drafted', draft_owner = NULL, updated_at = ? "
                "WHERE id = ? AND state = 'pending' AND draft_owner = ?",
                (_now().isoformat(), listing_id, owner),
            )

    # --- the steps of `record`, inside its transaction -------------------------------------------

    def _seen_again(
        self, db: sqlite3.Connection, listing_id: str, key: str, search: Search, run_id: str
    ) -> Decision:
        """A posting seen before: a redelivery owing its draft, a dropped listing seen again, or nothing."""
        row = db.execute("SELECT * FROM dedupe_listings WHERE id = ?", (listing_id,)).fetchone()
        merged = _MERGED.decode(row["data"])
        state: State = row["state"]
        if state == "pending" and row["draft_owner"] == key:
            return Decision(listing=merged, outcome="seen", how="posting", state=state, draft=True)
        if state == "dropped":
            return self._refilter(db, merged, key, search, run_id, outcome="seen", how="posting")
        return Decision(listing=merged, outcome="seen", how="posting", state=state)

    def _exact(
        self, db: sqlite3.Connection, urls: list[str], features: match.Features
    ) -> tuple[str, str, match.Verdict | None] | None:
        """A merged listing with one of this posting's canonical URLs (and a title that agrees)."""
        for url in urls:
            row = db.execute(
                "SELECT u.listing_id, l.features FROM dedupe_urls u "
                "JOIN dedupe_listings l ON l.id = u.listing_id WHERE u.url = ?",
                (url,),
            ).fetchone()
            if row is None:
                continue
            old = _FEATURES.decode(row["features"])
            if match.title_agrees(features, old):
                return row["listing_id"], "url", None
        return None

    def _fuzzy(self, db: sqlite3.Connection, new: match.Features) -> tuple[str, str, match.Verdict] | None:
        """The best fuzzy match among the merged listings of the same (or a related) company."""
        if not new.company:
            return None
        rows = db.execute("SELECT id, features FROM dedupe_listings WHERE company_key = ?", (new.company,))
        candidates = self._screened(db, new, rows.fetchall())
        related: list[tuple[str, match.Features]] = []
        if len(new.company) >= match.RELATED_COMPANY:
            prefixes = [new.company[:n] for n in range(match.RELATED_COMPANY, len(new.company))]
            rows = db.execute(
                "SELECT id, features FROM dedupe_listings WHERE (company_key > ? AND company_key < ?) "
                f"OR company_key IN ({', '.join('?' * len(prefixes))})",
                (new.company, new.company + "\U0010ffff", *prefixes),
            )
            related = self._screened(db, new, rows.fetchall())
        best = match.best_match(new, candidates + related, strict=frozenset(i for i, _ in related))
        if best is None:
            return None
        return best[0], "fuzzy", best[1]

    def _screened(
        self, db: sqlite3.Connection, new: match.Features, rows: list[sqlite3.Row]
    ) -> list[tuple[str, match.Features]]:
        """The rows that pass the cheap checks, with their descriptions loaded."""
        out: list[tuple[str, match.Features]] = []
        for row in rows:
            old = _FEATURES.decode(row["features"])
            if match.screen(new, old) is not None:
                continue
            words = db.execute("SELECT words FROM dedupe_listings WHERE id = ?", (row["id"],)).fetchone()[0]
            out.append((row["id"], msgspec.structs.replace(old, description=words)))
        return out

    def _create(
        self,
        db: sqlite3.Connection,
        listing: Listing,
        *,
        urls: list[str],
        features: match.Features,
        search: Search,
        run_id: str,
    ) -> Decision:
        now = _now()
        merged = merge.create(listing, now)
        reason = drop_reason(merged, search)
        state: State = "dropped" if reason else "pending"
        db.execute(
            "INSERT INTO dedupe_listings (id, company_key, features, words, data, state, draft_owner, "
            "drop_reason, run_id, first_seen, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                merged.id,
                features.company,
                _features_json(features),
                features.description,
                _ENCODE.encode(merged),
                state,
                None if reason else listing.key,
                reason,
                run_id,
                now.isoformat(),
                now.isoformat(),
            ),
        )
        self._add_posting(
            db, listing=listing, urls=urls, listing_id=merged.id, how="new", verdict=None, run_id=run_id
        )
        return Decision(
            listing=merged, outcome="new", how="new", state=state, drop_reason=reason, draft=not reason
        )

    def _merge(
        self,
        db: sqlite3.Connection,
        *,
        listing_id: str,
        listing: Listing,
        urls: list[str],
        how: str,
        verdict: match.Verdict | None,
        search: Search,
        run_id: str,
    ) -> Decision:
        row = db.execute("SELECT data, state FROM dedupe_listings WHERE id = ?", (listing_id,)).fetchone()
        merged = merge.add(_MERGED.decode(row["data"]), listing)
        features = match.features(merged)
        db.execute(
            "UPDATE dedupe_listings SET company_key = ?, features = ?, words = ?, data = ?, updated_at = ? "
            "WHERE id = ?",
            (
                features.company,
                _features_json(features),
                features.description,
                _ENCODE.encode(merged),
                _now().isoformat(),
                listing_id,
            ),
        )
        self._add_posting(
            db, listing=listing, urls=urls, listing_id=listing_id, how=how, verdict=verdict, run_id=run_id
        )
        state: State = row["state"]
        if state == "dropped":
            return self._refilter(db, merged, listing.key, search, run_id, outcome="merged", how=how)
        return Decision(listing=merged, outcome="merged", how=how, state=state)

    def _refilter(
        self,
        db: sqlite3.Connection,
        merged: MergedListing,
        key: str,
        search: Search,
        run_id: str,
        *,
        outcome: Outcome,
        how: str,
    ) -> Decision:
        """A dropped listing seen again, under this job's profile: drafted now if it matches."""
        reason = drop_reason(merged, search)
        if reason:
            db.execute(
                "UPDATE dedupe_listings SET drop_reason = ?, run_id = ? WHERE id = ?",
                (reason, run_id, merged.id),
            )
            return Decision(listing=merged, outcome=outcome, how=how, state="dropped", drop_reason=reason)
        db.execute(
            "UPDATE dedupe_listings SET state = 'pending', draft_owner = ?, drop_reason = NULL, run_id = ?, "
            "updated_at = ? WHERE id = ?",
            (key, run_id, _now().isoformat(), merged.id),
        )
        return Decision(listing=merged, outcome=outcome, how=how, state="pending", draft=True)

    def _add_posting(
        self,
        db: sqlite3.Connection,
        *,
        listing: Listing,
        urls: list[str],
        listing_id: str,
        how: str,
        verdict: match.Verdict | None,
        run_id: str,
    ) -> None:
        """Record the posting under its merged listing, and its canonical URLs (`urls`)."""
        now = _now().isoformat()
        db.execute(
            "INSERT INTO dedupe_postings (key, listing_id, board, source, external_id, url, how, "
            "title_score, text_score, first_seen, last_seen, run_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                listing.key,
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
                run_id,
            ),
        )
        db.executemany(
            "INSERT OR IGNORE INTO dedupe_urls (url, listing_id) VALUES (?, ?)",
            [(url, listing_id) for url in urls],
        )


def _urls(listing: Listing) -> list[str]:
    """The posting's canonical URL, then the board postings its text links to."""
    own = normalise.canonical_url(listing.url)
    return [own, *(u for u in normalise.posting_links(listing.description) if u != own)]


def read_listings(path: Path, *, include_dropped: bool = False) -> list[StoredListing]:
    """The merged listings in the database at `path` (read only), newest first; [] if there is none."""
    if not path.exists():
        return []
    conn = open_db(path, readonly=True)
    try:
        try:
            rows = conn.execute(
                "SELECT data, state, drop_reason FROM dedupe_listings "
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
        StoredListing(listing=_MERGED.decode(r["data"]), state=r["state"], drop_reason=r["drop_reason"])
        for r in rows
    ]
