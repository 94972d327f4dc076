"""Runs: whether one is still running, and what it added to the state of record (listings,
drafts by provider with their cost, how many need review, the fallbacks used, the listings it
could not draft).

A run's process holds a lock on `.<db name>.runs/<run id>.lock` beside the database from
`start_run` to `finish_run` (`flock`, which the kernel lets go however the process ends, `kill -9`
included). A run with no outcome whose lock nobody holds ended without recording one: the next
run to start records it `interrupted`, so that the runs table and `jobsearch status` say what
happened, and the summary of whichever run finishes its jobs names it so.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sqlite3
from collections import Counter
from pathlib import Path

import msgspec

from jobsearch.store.records import Fallback, ProviderUsage, RunNumbers

_STRINGS = msgspec.json.Decoder(list[str])
_JSON = msgspec.json.Encoder()
# How the other runs ended, for the summary's lines about their jobs: the few most recent are
# enough (every run drains the queues, so older runs leave nothing behind).
_EARLIER = 20

# The lock of each run this process runs, held until it finishes or the process ends.
_HELD: dict[Path, int] = {}


def run_numbers(conn: sqlite3.Connection, run_id: str, *, drafts_since: str | None = None) -> RunNumbers:
    """What a run added: new and updated listings, drafts by provider with tokens and cost.

    Drafts count by the run id their jobs carry; with `drafts_since` (an ISO time), by when
    they were recorded instead (a replay re-drafts jobs that carry their first run's id).
    """
    new = conn.execute("SELECT count(*) FROM listings WHERE first_run_id = ?", (run_id,)).fetchone()[0]
    updated = conn.execute(
        "SELECT count(*) FROM listings WHERE last_run_id = ? AND first_run_id != ?", (run_id, run_id)
    ).fetchone()[0]
    which, value = ("recorded_at >= ?", drafts_since) if drafts_since else ("run_id = ?", run_id)
    usage = [
        ProviderUsage(
            provider=row["provider"],
            model=row["model"],
            drafts=row["n"],
            tokens_in=row["tin"],
            tokens_out=row["tout"],
            cost_usd=row["cost"],
            needs_review=row["review"],
        )
        for row in conn.execute(
            "SELECT provider, model, count(*) AS n, sum(tokens_in) AS tin, sum(tokens_out) AS tout,"
            " sum(cost_usd) AS cost, sum(status = 'needs_review') AS review"
            f" FROM drafts WHERE origin = 'pipeline' AND {which} GROUP BY provider, model"
            " ORDER BY provider, model",
            (value,),
        )
    ]
    drafted = conn.execute(
        f"SELECT count(DISTINCT listing_id) FROM drafts WHERE origin = 'pipeline' AND {which}", (value,)
    ).fetchone()[0]
    fallbacks: dict[str, Counter[str]] = {}
    for row in conn.execute(
        f"SELECT provider, fell_over FROM drafts WHERE origin = 'pipeline' AND {which} AND fell_over != '[]'",
        (value,),
    ):
        failed = _STRINGS.decode(row["fell_over"])
        fallbacks.setdefault(row["provider"], Counter())["; ".join(failed)] += 1
    issues: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    # A dead draft job is its listing's issue under the run that found it dead, which may be a
    # later run finishing an earlier one's jobs; the job's id (`draft-<listing>-<run id>`) names
    # the run the draft was for, and only this run's own count here.
    for row in conn.execute(
        "SELECT kind, reason FROM draft_issues WHERE run_id = ? AND (job_id IS NULL"
        " OR job_id NOT LIKE 'draft-%' OR substr(job_id, -length(?) - 1) = '-' || ?)",
        (run_id, run_id, run_id),
    ):
        issues[row["kind"]] += 1
        reasons[f"{row['kind']}: {row['reason']}"] += 1
    return RunNumbers(
        listings_new=new,
        listings_updated=updated,
        drafts=usage,
        needs_review=sum(u.needs_review for u in usage),
        drafted_listings=drafted,
        fallbacks=[
            Fallback(provider=provider, drafts=sum(why.values()), after=why.most_common(1)[0][0])
            for provider, why in sorted(fallbacks.items())
        ],
        draft_issues=dict(issues),
        issue_reasons=dict(reasons.most_common()),
        earlier_outcomes=earlier_outcomes(conn, run_id),
        drafts_since=drafts_since,
    )


def earlier_outcomes(conn: sqlite3.Connection, run_id: str) -> dict[str, str]:
    """How the most recent runs other than `run_id` ended (`running`: no outcome yet)."""
    rows = conn.execute(
        "SELECT run_id, outcome FROM runs WHERE run_id != ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
        (run_id, _EARLIER),
    )
    return {row["run_id"]: row["outcome"] or "running" for row in rows}


# -- whether a run still runs ---------------------------------------------------------------


def hold_run(conn: sqlite3.Connection, run_id: str) -> None:
    """Lock the run's file for as long as this process runs it (see the module); a data dir
    where no lock can be made leaves the run unlocked, never unstarted."""
    path = _lock_path(conn, run_id)
    if path is None or path in _HELD:
        return
    try:
        path.parent.mkdir(exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by the stage services
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return
    _HELD[path] = fd


def release_run(conn: sqlite3.Connection, run_id: str) -> None:
    """Let the run's lock go (its outcome is recorded) and remove its file."""
    path = _lock_path(conn, run_id)
    fd = _HELD.pop(path, None) if path is not None else None
    if path is None or fd is None:
        return
    with contextlib.suppress(OSError):
        path.unlink()
    os.close(fd)


def abandoned(conn: sqlite3.Connection, run_id: str) -> bool:
    """True when no process runs `run_id` any more: nobody holds its lock, or it has no lock
    file (a live run always has one). False for a database without a file (nothing to lock)."""
    path = _lock_path(conn, run_id)
    if path is None or path in _HELD:
        return False
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def mark_interrupted(conn: sqlite3.Connection, *, found_by: str) -> list[str]:
    """Record `interrupted` for every run without an outcome whose process is gone; their ids.

    Inside the caller's transaction. A run that records its own outcome meanwhile keeps it.
    """
    unfinished = [
        row["run_id"]
        for row in conn.execute("SELECT run_id FROM runs WHERE outcome IS NULL AND run_id != ?", (found_by,))
    ]
    gone = [run_id for run_id in unfinished if abandoned(conn, run_id)]
    for run_id in gone:
        why = {"interrupted": f"its process ended before the run did (found by run {found_by})"}
        conn.execute(
            "UPDATE runs SET outcome = 'interrupted', summary = ? WHERE run_id = ? AND outcome IS NULL",
            (_JSON.encode(why).decode(), run_id),
        )
        path = _lock_path(conn, run_id)
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()
    return gone


def _lock_path(conn: sqlite3.Connection, run_id: str) -> Path | None:
    # The main database's file ("" for an in-memory or temporary one: nothing to lock beside).
    row = conn.execute("PRAGMA database_list").fetchone()
    name = row[2] if row is not None else ""
    if not name:
        return None
    db = Path(name)
    return db.with_name(f".{db.name}.runs") / f"{run_id}.lock"
