"""The seen-set's tables in the pipeline's SQLite file, and how an older file is brought up to date.

- `dedupe_listings`: one row per merged listing: its JSON, its matching features, its `revision`
  (bumped whenever a posting joins or changes it), `exported_rev` (the revision last handed to the
  export stage), and its state: `pending` (kept; its draft job is owed by the posting named in
  `draft_owner`), `drafted` (the draft job was submitted) or `dropped` (the filters said no:
  `drop_reason`).
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
"""

from __future__ import annotations

import sqlite3

import msgspec

from jobsearch.db import immediate
from jobsearch.dedupe import match

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
    ("dedupe_listings", "exported_rev", "INTEGER NOT NULL DEFAULT 0"),
    ("dedupe_postings", "data", "BLOB"),  # the posting's Listing, JSON (NULL: recorded before)
    ("dedupe_postings", "fingerprint", "TEXT"),
    ("dedupe_postings", "why", "TEXT"),  # how it matched, in words (`jobsearch listings --explain`)
)


def _backfill_title_tokens(conn: sqlite3.Connection) -> None:
    """Fill `dedupe_title_tokens` for listings recorded before it existed."""
    features = msgspec.json.Decoder(match.Features)
    rows = conn.execute(
        "SELECT k.company_key, l.id, l.features FROM dedupe_company_keys k"
        " JOIN dedupe_listings l ON l.id = k.listing_id"
    ).fetchall()
    conn.executemany(
        "INSERT OR IGNORE INTO dedupe_title_tokens (company_key, token, listing_id) VALUES (?, ?, ?)",
        [(row[0], token, row[1]) for row in rows for token in match.block_keys(features.decode(row[2]))],
    )


def create(conn: sqlite3.Connection) -> None:
    """Create the tables and add what an older file lacks (idempotent; one process upgrades).

    An older file's drafted listings count as already exported (their drafts carried them), and
    its blocks are filled from `dedupe_listings`.
    """
    conn.executescript(SCHEMA)
    for table, column, declaration in _ADDED:
        if column in _columns(conn, table):
            continue
        with immediate(conn):
            if column in _columns(conn, table):  # another service added it meanwhile
                continue
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            if (table, column) == ("dedupe_listings", "exported_rev"):
                conn.execute("UPDATE dedupe_listings SET exported_rev = 1 WHERE state = 'drafted'")
                conn.execute(
                    "INSERT OR IGNORE INTO dedupe_company_keys (company_key, listing_id)"
                    " SELECT company_key, id FROM dedupe_listings WHERE company_key != ''"
                )
                _backfill_title_tokens(conn)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
