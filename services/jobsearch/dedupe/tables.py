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
  the employer a recruiter's copy names): the block fuzzy matching compares within.
- `dedupe_run_postings`: what each run did with each posting it read (`new`, `merged`, `updated`,
  `unchanged`, `filtered`), per source: the run's counts, and which postings a board still lists.
- `dedupe_board_reads`: each source a run read in full, and how many postings it listed.
"""

from __future__ import annotations

import sqlite3

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


def create(conn: sqlite3.Connection) -> None:
    """Create the tables and add the columns an older file lacks (idempotent).

    An older file's kept listings count as already exported (their drafts carried them), and its
    company block is filled from `dedupe_listings.company_key`.
    """
    conn.executescript(SCHEMA)
    for table, column, declaration in _ADDED:
        present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        if column in present:
            continue
        try:
            conn.execute("BEGIN IMMEDIATE")
            present = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
            if column not in present:  # another service may have added it meanwhile
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
                if (table, column) == ("dedupe_listings", "exported_rev"):
                    conn.execute("UPDATE dedupe_listings SET exported_rev = 1 WHERE state = 'drafted'")
                    conn.execute(
                        "INSERT OR IGNORE INTO dedupe_company_keys (company_key, listing_id)"
                        " SELECT company_key, id FROM dedupe_listings WHERE company_key != ''"
                    )
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
