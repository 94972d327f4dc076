"""`BatchWriter` on a real SQLite file: writes that wait share a transaction, each keeps its own
result or error, and a second process's writer queues on the lock instead of failing."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import anyio
import pytest

from jetjobs import Retry
from jobsearch.batch import BatchWriter
from jobsearch.db import open_db


def create(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")


def rows(path: Path) -> dict[int, str]:
    conn = open_db(path, readonly=True)
    try:
        return {r["k"]: r["v"] for r in conn.execute("SELECT k, v FROM t")}
    finally:
        conn.close()


async def test_concurrent_writes_share_transactions_and_keep_their_own_results(tmp_path: Path) -> None:
    """200 writes at once commit in far fewer transactions than writes; each caller gets its own
    result; a write that fails is rolled back alone and raised to its caller only."""
    writer = BatchWriter(tmp_path / "db.sqlite", prepare=create)
    results: dict[int, int] = {}
    errors: dict[int, BaseException] = {}

    async def one(k: int) -> None:
        def write(conn: sqlite3.Connection) -> int:
            conn.execute("INSERT INTO t (k, v) VALUES (?, ?)", (k, f"v{k}"))
            if k % 50 == 7:
                raise ValueError(f"write {k} refuses")
            return k * 2

        try:
            results[k] = await writer.run(write)
        except ValueError as exc:
            errors[k] = exc

    async with anyio.create_task_group() as tg:
        for k in range(200):
            tg.start_soon(one, k)
    await writer.aclose()
    failed = {k for k in range(200) if k % 50 == 7}
    assert set(errors) == failed
    assert results == {k: k * 2 for k in range(200) if k not in failed}
    assert set(rows(tmp_path / "db.sqlite")) == set(range(200)) - failed
    assert writer.batches < 20


async def test_a_write_sees_the_writes_before_it_in_its_batch(tmp_path: Path) -> None:
    """Writes run in the order they were handed in, each seeing the earlier ones."""
    writer = BatchWriter(tmp_path / "db.sqlite", prepare=create)
    seen: list[int] = []

    async def one(k: int) -> None:
        def write(conn: sqlite3.Connection) -> None:
            seen.append(conn.execute("SELECT count(*) FROM t").fetchone()[0])
            conn.execute("INSERT INTO t (k, v) VALUES (?, 'x')", (k,))

        await writer.run(write)

    async with anyio.create_task_group() as tg:
        for k in range(30):
            tg.start_soon(one, k)
    await writer.aclose()
    assert seen == list(range(30))


async def test_a_failed_commit_fails_every_write_of_its_batch(tmp_path: Path) -> None:
    """A batch whose COMMIT fails (a deferred foreign key checked only then) raises to each of its
    writes' callers, keeps nothing of it, and the next batch commits as usual."""

    def create_both(conn: sqlite3.Connection) -> None:
        create(conn)
        conn.execute(
            "CREATE TABLE IF NOT EXISTS c (p INTEGER REFERENCES t (k) DEFERRABLE INITIALLY DEFERRED)"
        )

    writer = BatchWriter(tmp_path / "db.sqlite", prepare=create_both)
    outcomes: dict[str, str] = {}
    gate = threading.Event()  # holds the first batch until the other two writes wait

    async def one(name: str, sql: str, queued: anyio.Event | None = None) -> None:
        def write(conn: sqlite3.Connection) -> None:
            if name == "gate":
                gate.wait(timeout=60)
            conn.execute(sql)

        if queued is not None:
            queued.set()  # `run` queues the write before it first waits
        try:
            await writer.run(write)
            outcomes[name] = "ok"
        except sqlite3.IntegrityError:
            outcomes[name] = "failed"

    queued = [anyio.Event(), anyio.Event()]
    async with anyio.create_task_group() as tg:
        tg.start_soon(one, "gate", "SELECT 1")
        tg.start_soon(one, "parent", "INSERT INTO t (k, v) VALUES (1, 'a')", queued[0])
        tg.start_soon(one, "orphan", "INSERT INTO c (p) VALUES (999)", queued[1])
        for event in queued:
            await event.wait()
        gate.set()
    assert outcomes == {"gate": "ok", "parent": "failed", "orphan": "failed"}
    assert rows(tmp_path / "db.sqlite") == {}
    await writer.run(lambda conn: conn.execute("INSERT INTO t (k, v) VALUES (2, 'b')"))
    await writer.aclose()
    assert rows(tmp_path / "db.sqlite") == {2: "b"}


async def test_a_write_that_finds_the_file_locked_retries_its_job(tmp_path: Path) -> None:
    """`run_job`: another connection holding the write lock past the busy timeout makes the job
    a Retry (run again later), not a failure; other errors are raised as they are."""
    path = tmp_path / "db.sqlite"
    writer = BatchWriter(path, prepare=create)
    await writer.run(lambda conn: conn.execute("SELECT 1"))
    holder = sqlite3.connect(path, timeout=0)
    holder.execute("BEGIN IMMEDIATE")
    writer._connection().execute("PRAGMA busy_timeout=50")  # the test's own short wait
    try:
        with pytest.raises(Retry, match="the database is busy"):
            await writer.run_job(lambda conn: conn.execute("INSERT INTO t (k, v) VALUES (1, 'a')"))
    finally:
        holder.rollback()
        holder.close()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        await writer.run_job(lambda conn: conn.execute("SELECT * FROM missing_table"))
    await writer.aclose()
