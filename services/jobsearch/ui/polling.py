"""How the review page stays current without costing anything while nothing happens.

The page's script (`static/review.js`) asks for a fragment every few seconds only while a run is
going on (the server says so in `X-Poll`), and once a minute otherwise, each time sending back the
fragment's last `ETag`. The table's `ETag` comes from SQLite's `PRAGMA data_version` on a
connection of its own, which changes whenever any other connection (a run's export, `jobsearch
mark`, this page's own writes) commits: an unchanged database answers `304 Not Modified`, a few
hundred bytes, without reading or rendering anything. Every answer is gzip-compressed.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import threading
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from jobsearch.store import Store
from jobsearch.store.run_history import past_runs

RUN_EVERY_MS = 3000  # while a run goes on
IDLE_EVERY_MS = 60_000  # otherwise: enough to notice that a run started
JOB_EVERY_MS = 2000  # while a draft job this page submitted has not landed


class ChangeWatch:
    """Whether the database changed, from a connection that only ever asks that."""

    def __init__(self, db_path: Path) -> None:
        self._db_path = db_path
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self.boot = secrets.token_hex(4)  # a restarted page never answers 304 to an older page's tag

    def version(self) -> int:
        """A number that changes whenever another connection commits (call in a worker thread)."""
        with self._lock:
            if self._conn is None:  # read-only: this connection never writes, so it sees every commit
                uri = f"{self._db_path.resolve().as_uri()}?mode=ro"
                self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])


def run_going_on(store: Store) -> bool:
    """True while some run has no outcome and its process still holds its lock."""
    return any(run.outcome is None for run in past_runs(store.conn, limit=20))


def tag(*parts: object) -> str:
    """A strong ETag from `parts`."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=12).hexdigest()
    return f'"{digest}"'


def body_tag(body: bytes) -> str:
    """A strong ETag of a rendered body."""
    return f'"{hashlib.blake2b(body, digest_size=12).hexdigest()}"'


def poll_headers(etag: str, mode: str) -> dict[str, str]:
    """The headers of every fragment answer: its tag, when to ask again, never cached unchecked."""
    return {"ETag": etag, "X-Poll": mode, "Cache-Control": "no-cache"}


def unchanged(request: Request, etag: str) -> bool:
    """True when the request already holds `etag` (`If-None-Match`)."""
    offered = request.headers.get("if-none-match", "")
    return etag in (t.strip() for t in offered.split(","))


def not_modified(etag: str, mode: str) -> Response:
    """`304 Not Modified` with the fragment's headers."""
    return Response(status_code=304, headers=poll_headers(etag, mode))


__all__ = [
    "IDLE_EVERY_MS",
    "JOB_EVERY_MS",
    "RUN_EVERY_MS",
    "ChangeWatch",
    "body_tag",
    "not_modified",
    "poll_headers",
    "run_going_on",
    "tag",
    "unchanged",
]
