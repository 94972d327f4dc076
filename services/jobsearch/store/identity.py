"""The data dir's identity: an id stored in its database, and the jetjobs namespace made from it.

Two data dirs (two people, or two searches such as "backend" and "data") on one NATS server must
not share queues, durable consumers, a ledger or dead letters: each would take the other's jobs.
So each database gets a random id the first time any command opens it, and the pipeline's jobs
live in the namespace `jobsearch-<id>`. A fresh data dir (or a deleted database) is a new id, so
nothing the platform remembers about an old one (its ledger, its duplicate window) can make a
listing look "seen before": that is the database's call alone. `JETJOBS_NAMESPACE` still
overrides the namespace (services that share one database on several machines, say).
"""

from __future__ import annotations

import secrets
from pathlib import Path

from jobsearch.db import immediate, open_db_retrying
from jobsearch.store.schema import META

NAMESPACE_PREFIX = "jobsearch-"
_KEY = "data_dir_id"


def data_dir_id(db_path: Path) -> str:
    """The database's id (12 hex digits), made and stored the first time it is asked for.

    Safe when several processes ask at once for a new file: the first write wins, and every
    process reads the id that won.
    """
    conn = open_db_retrying(db_path)
    try:
        conn.executescript(META)
        row = conn.execute("SELECT value FROM store_meta WHERE key = ?", (_KEY,)).fetchone()
        if row is not None:
            return str(row[0])
        with immediate(conn):
            conn.execute(
                "INSERT OR IGNORE INTO store_meta (key, value) VALUES (?, ?)", (_KEY, secrets.token_hex(6))
            )
        return str(conn.execute("SELECT value FROM store_meta WHERE key = ?", (_KEY,)).fetchone()[0])
    finally:
        conn.close()


def namespace_of(db_path: Path) -> str:
    """The jetjobs namespace of the data dir whose database is `db_path`: `jobsearch-<id>`."""
    return NAMESPACE_PREFIX + data_dir_id(db_path)
