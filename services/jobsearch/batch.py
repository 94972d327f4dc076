"""`BatchWriter`: a service's writes to the pipeline's SQLite file, many to a transaction.

A stage service runs several jobs at once, and two services (dedupe and export) write one file.
One transaction per job means one write-lock handover per job, and a writer that finds the lock
taken sleeps in SQLite's busy handler for milliseconds at a time: at a board's scale (thousands
of postings a run) the services spend more time waiting for the lock than working. So each
service hands its writes to one `BatchWriter`: one connection, one thread, and every write that
arrived while the last transaction ran goes into the next one (group commit). Each write runs in
a savepoint of its own, so one that fails is rolled back and raised to its caller alone; the
others commit. A write sees the ones before it in its batch, as if they had committed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

import anyio
import anyio.to_thread

from jetjobs import Retry
from jobsearch.db import immediate, open_db_retrying

T = TypeVar("T")
Write = Callable[[sqlite3.Connection], T]


class _Pending(Generic[T]):
    """One write waiting for its batch, and its outcome once the batch ran."""

    def __init__(self, write: Write[T]) -> None:
        self.write = write
        self.done = anyio.Event()
        self.result: T | None = None
        self.error: BaseException | None = None


class BatchWriter:
    """Runs writes on one connection of the database at `path`, as many per transaction as wait.

    Use it from one event loop. `prepare` runs once on the new connection (creating tables).
    """

    def __init__(
        self,
        path: Path,
        *,
        prepare: Callable[[sqlite3.Connection], None] | None = None,
        max_batch: int = 256,
    ) -> None:
        self.path = path
        self.max_batch = max_batch
        self._prepare = prepare
        self._conn: sqlite3.Connection | None = None
        self._pending: list[_Pending[Any]] = []
        self._flushing = False
        self._wake = anyio.Event()
        self._limiter = anyio.CapacityLimiter(1)  # the connection stays in one thread at a time
        self.batches = 0  # transactions committed (for tests and benchmarks)

    async def run(self, write: Write[T]) -> T:
        """Run `write(conn)` inside the next transaction; its result, or its exception.

        Whoever finds no transaction running commits the next batch (its own write among the
        first `max_batch` waiting); the others wait for that batch's end and look again, so no
        caller commits other callers' batches for ever.
        """
        pending: _Pending[T] = _Pending(write)
        self._pending.append(pending)
        while not pending.done.is_set():
            if self._flushing:
                await self._wake.wait()  # a batch ended, perhaps with this write in it
                continue
            self._flushing = True
            try:
                batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                await self._flush(batch)
            finally:
                self._flushing = False
                wake, self._wake = self._wake, anyio.Event()
                wake.set()
        if pending.error is not None:
            raise pending.error
        return pending.result  # type: ignore[return-value]

    async def run_job(self, write: Write[T]) -> T:
        """`run`, for a job's handler: a database still locked after its busy timeout (another
        process holding the write lock that long) retries the job later instead of failing it.

        Raises:
            Retry: the database was locked or busy.
        """
        try:
            return await self.run(write)
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise Retry(reason=f"the database is busy: {exc}") from None
            raise

    async def _flush(self, batch: list[_Pending[Any]]) -> None:
        try:
            await anyio.to_thread.run_sync(self._commit, batch, limiter=self._limiter)
        except BaseException as exc:  # the transaction as a whole failed: every write in it did
            for pending in batch:
                if pending.error is None:
                    pending.error = exc
            if not isinstance(exc, Exception):
                raise
        finally:
            for pending in batch:
                pending.done.set()

    def _commit(self, batch: list[_Pending[Any]]) -> None:
        conn = self._connection()
        with immediate(conn):
            for pending in batch:
                conn.execute("SAVEPOINT one_write")
                try:
                    pending.result = pending.write(conn)
                except Exception as exc:  # this write's own failure: undo it, keep the others
                    conn.execute("ROLLBACK TO one_write")
                    pending.error = exc
                finally:
                    conn.execute("RELEASE one_write")
        self.batches += 1

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            conn = open_db_retrying(self.path)
            if self._prepare is not None:
                self._prepare(conn)
            self._conn = conn
        return self._conn

    async def aclose(self) -> None:
        """Close the connection (after the writes in flight)."""
        await anyio.to_thread.run_sync(self.close, limiter=self._limiter)

    def close(self) -> None:
        """Close the connection, if one was opened."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
