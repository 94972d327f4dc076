"""The runs table read back as history: every run, newest first, with what started it, how it
ended and the summary it stored (`jobsearch runs`).

A run's summary is whatever its command stored: a whole `RunSummary`, `{"refused": reason}` (a
run that could not start), `{"interrupted": reason}` (recorded by the run that found it gone),
`{}`, or nothing yet while it runs. It is read back as the plain dict it was; the reader decides
what to make of it.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from typing import Any

import msgspec

from jobsearch.store.runs import abandoned

_SUMMARY = msgspec.json.Decoder(dict[str, Any])
_SHOWN_CANDIDATES = 5  # an ambiguous prefix names this many of the runs it matches


class PastRun(msgspec.Struct, frozen=True, kw_only=True):
    """One run as the runs table keeps it."""

    run_id: str
    started_at: datetime  # aware, UTC
    finished_at: datetime | None  # None while it runs (or when it ended without recording)
    trigger: str  # typed | schedule:<name> | replay | draft
    outcome: str | None  # ok | failed | interrupted; None while it runs
    profile: str  # the profile file, or what the run was (`replay --stage draft --since 1h`)
    summary: dict[str, Any]  # {} when none is stored yet


def past_runs(conn: sqlite3.Connection, *, limit: int = 20) -> list[PastRun]:
    """The `limit` most recently started runs, newest first."""
    rows = conn.execute("SELECT * FROM runs ORDER BY started_at DESC, rowid DESC LIMIT ?", (limit,))
    return [_past_run(conn, row) for row in rows.fetchall()]


def latest_runs(conn: sqlite3.Connection, trigger_prefix: str) -> dict[str, PastRun]:
    """The latest run of each trigger starting with `trigger_prefix` (`schedule:`), by trigger."""
    rows = conn.execute(
        "SELECT * FROM runs WHERE trigger LIKE ? ESCAPE '\\' ORDER BY started_at, rowid",
        (_escaped(trigger_prefix) + "%",),
    )
    return {run.trigger: run for run in (_past_run(conn, row) for row in rows.fetchall())}


def past_run(conn: sqlite3.Connection, ref: str) -> PastRun | None:
    """The run whose id is `ref`, or the only one whose id starts with it; None if no run has.

    Raises:
        ValueError: `ref` is the prefix of several runs' ids (the message names some of them).
    """
    row = conn.execute("SELECT * FROM runs WHERE run_id = ?", (ref,)).fetchone()
    if row is not None:
        return _past_run(conn, row)
    rows = conn.execute(
        "SELECT * FROM runs WHERE run_id LIKE ? ESCAPE '\\' ORDER BY started_at DESC, rowid DESC LIMIT ?",
        (_escaped(ref) + "%", _SHOWN_CANDIDATES + 1),
    ).fetchall()
    if len(rows) > 1:
        shown = ", ".join(r["run_id"] for r in rows[:_SHOWN_CANDIDATES])
        more = ", ..." if len(rows) > _SHOWN_CANDIDATES else ""
        raise ValueError(f"{ref!r} names several runs ({shown}{more}): give more of the id")
    return _past_run(conn, rows[0]) if rows else None


def _past_run(conn: sqlite3.Connection, row: sqlite3.Row) -> PastRun:
    # A connection that did not migrate the file (read-only) may find no trigger column: every
    # run before version 6 was typed, which is what the migration fills in too.
    trigger = row["trigger"] if "trigger" in row.keys() else "typed"  # noqa: SIM118 - sqlite3.Row
    outcome = row["outcome"]
    if outcome is None and abandoned(conn, row["run_id"]):
        # No outcome and no process: killed before it could record one (as `jobsearch status`).
        outcome = "interrupted"
    return PastRun(
        run_id=row["run_id"],
        started_at=_utc(row["started_at"]),
        finished_at=_utc(row["finished_at"]) if row["finished_at"] else None,
        trigger=trigger or "typed",
        outcome=outcome,
        profile=row["profile"] or "",
        summary=_summary(row["summary"]),
    )


def _escaped(text: str) -> str:
    """`text` as a literal LIKE prefix (with ESCAPE '\\')."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _utc(text: str) -> datetime:
    moment = datetime.fromisoformat(text)
    # Every timestamp column holds UTC (`jobsearch.store.clock`); one written without its offset
    # is UTC too.
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _summary(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        return _SUMMARY.decode(text)
    except msgspec.DecodeError:
        # A summary that is not a JSON object (hand-edited, cut short) is shown as what it is.
        return {"summary": text}
