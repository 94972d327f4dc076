"""The seen-set's tables in the pipeline's SQLite file, and how an older file is brought up to date.

- `dedupe_listings`: one row per merged listing: its JSON, its matching features, its `revision`
  (bumped whenever a posting joins or changes it; the export stage is owed it until the state of
  record's `listings` row shows it), and its state: `pending` (kept; its draft job is owed by the
  posting named in `draft_owner`), `drafted` (the draft job was submitted) or `dropped` (the
  filters said no: `drop_reason`).
- `dedupe_postings`: one row per board posting (`board:external_id`) → its merged listing, how
  it matched (`new`, `url`, `fuzzy`, `employer`) with the scores, its JSON and its fingerprint.
- `dedupe_urls`: canonical URLs (the posting's own and the board links in its text) → listing.
- `dedupe_company_keys`: the company keys a listing is known under (each posting's company, and
  the employer a recruiter's copy names).
- `dedupe_title_tokens`: per company key, the level and title words that tell its jobs apart →
  listing (`match.block_keys`): the block fuzzy matching compares within.
- `dedupe_run_postings`: what each run did with each posting it read (`new`, `merged`, `updated`,
  `unchanged`, `filtered`), per source: the run's counts, and which postings a board still lists.
- `dedupe_board_reads`: each source a run read in full, and how many postings it listed.
  With the run's postings they say which postings are gone (`gone_at`), and so which listings
  are closed or stale (`jobsearch.dedupe.closing`).
- `dedupe_meta`: the version of the matching features the listings were written with: a file
  written by an older normalisation has its features, company keys and blocks made anew once.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable

import msgspec

from jobsearch.db import immediate
from jobsearch.dedupe import match
from jobsearch.dedupe.posting import Posting, posting_of
from jobsearch.listing import Listing, MergedListing

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
    how TEXT NOT NULL,              -- new | url | fuzzy | employer
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
CREATE TABLE IF NOT EXISTS dedupe_company_keys (
    company_key TEXT NOT NULL,
    listing_id TEXT NOT NULL REFERENCES dedupe_listings (id),
    PRIMARY KEY (company_key, listing_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dedupe_title_tokens (
    company_key TEXT NOT NULL,
    token TEXT NOT NULL,            -- level|word of the title that tells jobs apart (`*`: none)
    listing_id TEXT NOT NULL REFERENCES dedupe_listings (id),
    PRIMARY KEY (company_key, token, listing_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dedupe_run_postings (
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,              -- the posting (board:external_id)
    source TEXT NOT NULL,
    listing_id TEXT NOT NULL,
    outcome TEXT NOT NULL,          -- new | merged | updated | unchanged | filtered
    reason TEXT,                    -- why it was filtered
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dedupe_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dedupe_board_reads (
    run_id TEXT NOT NULL,
    source TEXT NOT NULL,
    board TEXT NOT NULL,
    listed INTEGER NOT NULL,
    read_at TEXT NOT NULL,
    PRIMARY KEY (run_id, source)
) WITHOUT ROWID;
"""

# Columns added since the first version of the tables: (table, column, declaration).
_ADDED = (
    ("dedupe_listings", "revision", "INTEGER NOT NULL DEFAULT 1"),
    ("dedupe_postings", "data", "BLOB"),  # the posting's Listing, JSON (NULL: recorded before)
    ("dedupe_postings", "fingerprint", "TEXT"),
    ("dedupe_postings", "why", "TEXT"),  # how it matched, in words (`jobsearch listings --explain`)
    ("dedupe_listings", "fit", "INTEGER"),  # its fit for the profile of the run that last saw it
    ("dedupe_listings", "fit_reasons", "BLOB"),  # the fit's reasons, JSON (`jobsearch.fit.Reason`)
    # When a whole read of its source last missed it, or its `validThrough` passed (NULL: listed).
    ("dedupe_postings", "gone_at", "TEXT"),
    ("dedupe_listings", "closed_at", "TEXT"),  # every posting of it gone: the day the last went
    ("dedupe_listings", "stale_at", "TEXT"),  # only aggregators' postings, none seen for a while
)


# Bumped whenever normalisation or `match.block_keys` changes what a stored listing's features,
# company keys or blocks would be: 2 read title tags, regions, transliterations and slugs.
FEATURES_VERSION = 2

_LISTING = msgspec.json.Decoder(Listing)
_MERGED = msgspec.json.Decoder(MergedListing)
_ENCODE = msgspec.json.Encoder()


def index_listing(
    conn: sqlite3.Connection, listing_id: str, features: match.Features, postings: Iterable[Posting]
) -> None:
    """Put a listing in the fuzzy block: under every company key it is known by (its own and its
    postings'), with the block keys of its title and of each title it was posted under."""
    postings = list(postings)
    keys = [k for k in dict.fromkeys([features.company, *(k for p in postings for k in p.company_keys)]) if k]
    tokens = {*match.block_keys(features), *(t for p in postings for t in match.block_keys(p.features))}
    conn.executemany(
        "INSERT OR IGNORE INTO dedupe_company_keys (company_key, listing_id) VALUES (?, ?)",
        [(k, listing_id) for k in keys],
    )
    conn.executemany(
        "INSERT OR IGNORE INTO dedupe_title_tokens (company_key, token, listing_id) VALUES (?, ?, ?)",
        [(k, t, listing_id) for k in keys for t in tokens],
    )


def _rebuild_features(conn: sqlite3.Connection) -> None:
    """Make every listing's features anew from its postings, and its place in the fuzzy block."""
    listings = conn.execute("SELECT id, data FROM dedupe_listings WHERE length(data) > 0").fetchall()
    for listing_id, data in listings:
        merged = _MERGED.decode(data)
        stored = [
            r[0] for r in conn.execute("SELECT data FROM dedupe_postings WHERE listing_id = ?", (listing_id,))
        ]
        postings = [posting_of(_LISTING.decode(raw)) for raw in stored if raw is not None]
        features = match.features(merged, [p.listing for p in postings])
        conn.execute(
            "UPDATE dedupe_listings SET company_key = ?, features = ?, words = ? WHERE id = ?",
            (
                features.company,
                _ENCODE.encode(msgspec.structs.replace(features, description="")),
                features.description,
                listing_id,
            ),
        )
        index_listing(conn, listing_id, features, postings)


def _features_version(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM dedupe_meta WHERE key = 'features'").fetchone()
    return int(row[0]) if row is not None else 0


def create(conn: sqlite3.Connection) -> None:
    """Create the tables and add what an older file lacks (idempotent; one process upgrades).

    A file written by an older normalisation has its listings' features and blocks made anew.
    """
    conn.executescript(SCHEMA)
    for table, column, declaration in _ADDED:
        if column in _columns(conn, table):
            continue
        with immediate(conn):
            if column in _columns(conn, table):  # another service added it meanwhile
                continue
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
    if _features_version(conn) < FEATURES_VERSION:
        with immediate(conn):
            if _features_version(conn) < FEATURES_VERSION:  # another service did it meanwhile
                _rebuild_features(conn)  # and the blocks, which older files lack
                conn.execute(
                    "INSERT INTO dedupe_meta (key, value) VALUES ('features', ?)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(FEATURES_VERSION),),
                )


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
