"""The pipeline's SQLite file: one connection helper that every writer and reader uses.

Each stage creates its own tables (`CREATE TABLE IF NOT EXISTS`) in its own module; they share
the file, never each other's code. WAL mode lets a second writer, the review page and the person's
own `sqlite3` read while a stage writes; `busy_timeout` makes writers wait for each other.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def open_db(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open (and create) the database in WAL mode with a 10 s busy timeout and foreign keys on."""
    if readonly:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10.0, check_same_thread=False)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, timeout=10.0, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
        except sqlite3.Error:
            # A brand-new file switching to WAL while another connection opens it can fail with
            # "database is locked" (SQLite does not wait there); a leaked connection would then hold
            # the file, so close it and let the caller retry.
            conn.close()
            raise
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.row_factory = sqlite3.Row
    return conn


def open_db_retrying(path: Path) -> sqlite3.Connection:
    """`open_db` for a writer, with explicit transactions only (see `immediate`).

    Switching a new file to WAL takes an exclusive lock that SQLite does not wait for: two services
    opening a brand-new file at once can get "database is locked" there. That is retried for a few
    seconds; any other error is raised.
    """
    for delay in (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 0.0):
        try:
            conn = open_db(path)
            break
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or not delay:
                raise
            time.sleep(delay)
    conn.isolation_level = None  # we say BEGIN ourselves
    return conn


@contextmanager
def immediate(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write transaction begun with the write lock held (BEGIN IMMEDIATE, so that busy_timeout
    applies; a deferred transaction upgrading later can fail with SQLITE_BUSY at once)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:  # a failed COMMIT leaves it open: never reuse it half done
            conn.execute("ROLLBACK")
        raise
