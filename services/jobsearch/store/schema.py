"""The tables of the state of record, and how the file is brought up to date.

Everything the tracker shows lives here; the tracker is only a rendering. History is rows, never
overwritten: a status change, a notes change and a draft (or its edit) each add a row, and the
current value is the newest row (mirrored on `listings` for cheap reads).

```
runs ─┐                 listings ──┬── listing_sources   (every board that posted it)
      └─ run_id on ─────▶          ├── drafts            (every draft and edit, newest is current)
                                   ├── status_history    (every status, who set it, when)
                                   ├── notes_history     (every notes text)
                                   ├── tracker_rows      (what the tracker last showed: edit detection)
                                   └── conflicts         (edited in the sheet and here: both kept)
fit_judgements (a model's judgement of a listing's fit, by revision, profile and chain)
fit_learning   (the fit weights learned from the person's decisions, per person)
```
Dedupe keeps its own `dedupe_*` tables in the same file; nothing here reads them.
"""

from __future__ import annotations

import sqlite3

from jobsearch.fit.judge_store import TABLE as FIT_JUDGEMENTS

VERSION = 8

_TABLES = """
CREATE TABLE IF NOT EXISTS runs (
    run_id      TEXT PRIMARY KEY,
    started_at  TEXT NOT NULL,
    finished_at TEXT,
    profile     TEXT NOT NULL DEFAULT '',
    outcome     TEXT,                       -- ok | failed | interrupted; NULL while running
    summary     TEXT,                       -- JSON: what `jobsearch run` printed
    trigger     TEXT NOT NULL DEFAULT 'typed' -- typed | schedule:<name> | ... (version 6)
);
CREATE TABLE IF NOT EXISTS listings (
    id               TEXT PRIMARY KEY,      -- MergedListing.id, stable across runs
    title            TEXT NOT NULL,
    company          TEXT NOT NULL,
    url              TEXT NOT NULL,
    locations        TEXT NOT NULL DEFAULT '[]',   -- JSON list
    remote           INTEGER,               -- 1, 0 or NULL (unknown)
    employment_type  TEXT,
    salary           TEXT,                  -- JSON Salary or NULL
    posted_at        TEXT,                  -- ISO date
    description      TEXT NOT NULL DEFAULT '',
    department       TEXT,
    first_seen       TEXT NOT NULL,         -- ISO datetime (UTC)
    first_run_id     TEXT NOT NULL,
    last_run_id      TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    status           TEXT NOT NULL,         -- mirror of the newest status_history row
    status_at        TEXT NOT NULL,
    notes            TEXT NOT NULL DEFAULT '',     -- mirror of the newest notes_history row
    notes_at         TEXT,
    workplace        TEXT,                  -- remote | hybrid | onsite | NULL (version 2)
    revision         INTEGER NOT NULL DEFAULT 0,   -- the MergedListing's revision shown (version 2)
    changed_at       TEXT,                  -- when a posting of it last changed or joined (version 2)
    pay_note         TEXT                   -- why its pay was not compared with the floor (version 2)
);
CREATE INDEX IF NOT EXISTS listings_status ON listings(status);
CREATE INDEX IF NOT EXISTS listings_first_run ON listings(first_run_id);
CREATE TABLE IF NOT EXISTS listing_sources (
    listing_id   TEXT NOT NULL REFERENCES listings(id),
    board        TEXT NOT NULL,
    source       TEXT NOT NULL,
    external_id  TEXT NOT NULL,
    url          TEXT NOT NULL,
    posted_at    TEXT,
    first_seen   TEXT NOT NULL,
    PRIMARY KEY (listing_id, board, external_id)
);
CREATE TABLE IF NOT EXISTS drafts (
    id           INTEGER PRIMARY KEY,
    listing_id   TEXT NOT NULL REFERENCES listings(id),
    step         TEXT NOT NULL,             -- cover_letter | connection_note
    text         TEXT NOT NULL,
    provider     TEXT NOT NULL,
    model        TEXT NOT NULL,
    tokens_in    INTEGER NOT NULL DEFAULT 0,
    tokens_out   INTEGER NOT NULL DEFAULT 0,
    cost_usd     REAL NOT NULL DEFAULT 0,
    latency_ms   REAL NOT NULL DEFAULT 0,
    status       TEXT NOT NULL,             -- ok | needs_review
    checks       TEXT NOT NULL DEFAULT '[]',-- JSON list of Check
    origin       TEXT NOT NULL,             -- pipeline | edit
    run_id       TEXT,
    job_id       TEXT,                      -- the export job that recorded it (idempotency)
    created_at   TEXT NOT NULL,             -- when the provider wrote it
    recorded_at  TEXT NOT NULL,             -- when the state of record got it
    fell_over    TEXT NOT NULL DEFAULT '[]',-- JSON list: the providers that failed first, why (version 3)
    UNIQUE (job_id, step)
);
CREATE INDEX IF NOT EXISTS drafts_listing ON drafts(listing_id, step, id);
CREATE INDEX IF NOT EXISTS drafts_run ON drafts(run_id);
CREATE INDEX IF NOT EXISTS drafts_recorded ON drafts(recorded_at);
CREATE TABLE IF NOT EXISTS draft_issues (   -- version 3: a listing whose drafting failed or waits
    listing_id   TEXT PRIMARY KEY REFERENCES listings(id),
    kind         TEXT NOT NULL,             -- failed | waiting
    reason       TEXT NOT NULL,             -- in words, for the Review cell
    attempts     INTEGER NOT NULL DEFAULT 1,-- the draft job's attempts made
    retry_at     TEXT,                      -- when a waiting provider can be asked again
    run_id       TEXT,
    job_id       TEXT,
    at           TEXT NOT NULL              -- when it was recorded (exact); a newer draft clears it
);
CREATE TABLE IF NOT EXISTS status_history (
    id          INTEGER PRIMARY KEY,
    listing_id  TEXT NOT NULL REFERENCES listings(id),
    status      TEXT NOT NULL,
    previous    TEXT,
    source      TEXT NOT NULL,              -- pipeline | tracker | mark | ui
    detail      TEXT NOT NULL DEFAULT '',
    run_id      TEXT,
    changed_at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS status_history_listing ON status_history(listing_id, id);
CREATE TABLE IF NOT EXISTS notes_history (
    id          INTEGER PRIMARY KEY,
    listing_id  TEXT NOT NULL REFERENCES listings(id),
    notes       TEXT NOT NULL,
    source      TEXT NOT NULL,              -- tracker | mark | ui | conflict
    changed_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tracker_rows (
    listing_id   TEXT PRIMARY KEY REFERENCES listings(id),
    status       TEXT NOT NULL,             -- the database's status and notes at the render
    notes        TEXT NOT NULL,
    notes_cell   TEXT NOT NULL,             -- the notes cell's text as written (escaped, cut)
    rendered_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS digest_items (   -- version 6: what a digest told, so it is told once
    listing_id   TEXT NOT NULL REFERENCES listings(id),
    kind         TEXT NOT NULL,             -- listed (new or updated) | closed (taken down)
    run_id       TEXT NOT NULL,             -- the run whose digest told it
    at           TEXT NOT NULL,
    PRIMARY KEY (listing_id, kind)
);
CREATE TABLE IF NOT EXISTS fit_learning (  -- version 8: fit weights learned from the person's decisions
    person       TEXT PRIMARY KEY,          -- the profile's person, by name (`jobsearch.store.learned`)
    learned      TEXT,                      -- JSON Learned (multipliers per component) or NULL: none
    fingerprint  TEXT NOT NULL DEFAULT '',  -- the newest decision row, reset and profile learned from
    reset_after  INTEGER NOT NULL DEFAULT 0,-- status_history rows up to this id count no more
    learned_at   TEXT,
    reset_at     TEXT
);
CREATE TABLE IF NOT EXISTS conflicts (
    id             INTEGER PRIMARY KEY,
    listing_id     TEXT NOT NULL REFERENCES listings(id),
    field          TEXT NOT NULL,           -- status | notes
    tracker_value  TEXT NOT NULL,
    db_value       TEXT NOT NULL,
    kept           TEXT NOT NULL,
    detected_at    TEXT NOT NULL
);
"""
# The file's own facts: the tables' version, the data dir's id (`jobsearch.store.identity`).
META = """
CREATE TABLE IF NOT EXISTS store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


# Columns that later versions added to an older file (2: workplace..pay_note; 3: fell_over;
# 4: fit, fit_reasons; 5: closed_at, stale_at; 6: runs.trigger, the digest_items table;
# 7: the fit_judgements table (`FIT_JUDGEMENTS`); 8: the fit_learning table, made by `_TABLES`).
_ADDED = (
    ("listings", "workplace", "TEXT"),
    ("listings", "revision", "INTEGER NOT NULL DEFAULT 0"),
    ("listings", "changed_at", "TEXT"),
    ("listings", "pay_note", "TEXT"),
    ("drafts", "fell_over", "TEXT NOT NULL DEFAULT '[]'"),
    ("listings", "fit", "INTEGER"),  # 0-100 for the profile of the run that last scored it
    ("listings", "fit_reasons", "TEXT NOT NULL DEFAULT '[]'"),  # JSON: [{points, text}]
    ("listings", "closed_at", "TEXT"),  # ISO date: every board that posted it took it down
    ("listings", "stale_at", "TEXT"),  # ISO date: only aggregators carried it, unseen since long
    ("runs", "trigger", "TEXT NOT NULL DEFAULT 'typed'"),  # typed | schedule:<name> | replay | draft
)


def migrate(conn: sqlite3.Connection) -> None:
    """Create the tables (idempotent, safe while other processes use the file).

    The version lives in its own table, not in `PRAGMA user_version`, which the whole file shares
    with the other stages' tables.

    Raises:
        sqlite3.DatabaseError: the file is not a database, or was written by a newer jobsearch.
    """
    # Version 7 added `fit_judgements` (`jobsearch.fit.judge_store` owns it: dedupe's shortlist
    # writes it, and makes it there too in a file no Store has opened yet).
    conn.executescript(_TABLES + FIT_JUDGEMENTS + META)
    row = conn.execute("SELECT value FROM store_meta WHERE key = 'version'").fetchone()
    if row is not None and int(row[0]) > VERSION:
        raise sqlite3.DatabaseError(
            f"the database's tracker tables have version {row[0]}; this jobsearch knows {VERSION}: "
            "upgrade jobsearch"
        )
    columns = {
        (table, r[1])
        for table in {t for t, _, _ in _ADDED}
        for r in conn.execute(f"PRAGMA table_info({table})")
    }
    if row is not None and int(row[0]) == VERSION and all((t, c) in columns for t, c, _ in _ADDED):
        return
    conn.execute("BEGIN IMMEDIATE")  # one process upgrades; the others find it done
    try:
        for table, column, declaration in _ADDED:
            if column not in {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}:
                conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
        conn.execute(
            "INSERT INTO store_meta (key, value) VALUES ('version', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (str(VERSION),),
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
