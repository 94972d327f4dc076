"""What the insights page shows, read from the state of record: found per day, the funnel, answers.

Read-only SQL over the tables the export stage and the person write (`listings`,
`listing_sources`, `status_history`, `runs`); dedupe's own `dedupe_*` tables are never read.
Fit and pay are in `jobsearch.insights.pay`.

- **Found per day**: a listing is found on the day (UTC) of its `first_seen`, by the board of its
  first posting. "Seen again" on a day is what that day's runs recorded as known already (merged,
  updated or unchanged postings, from each run's summary).
- **Funnel**: a listing counts at a stage when its status history reached that stage or a later
  one (Rejected and Withdrawn come after Applied; Dismissed goes no further than found).
- **Answers**: a listing was applied to when it reached Applied or a later status; it was answered
  when its history holds Screen, Interview, Offer or Rejected.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any, Final

import msgspec

from jobsearch.store import Status

# The last days with listings that the daily charts show (older days stay in the database).
DAYS_SHOWN: Final = 30
NO_BOARD: Final = "(no board)"
FUNNEL: Final = ("found", "Drafted", "Applied", "Screen/Interview", "Offer")
# The funnel stage each status reaches (its index in FUNNEL).
_STAGE: Final[dict[Status, int]] = {
    "Saved": 0,
    "Dismissed": 0,
    "Drafted": 1,
    "Applied": 2,
    "Rejected": 2,
    "Withdrawn": 2,
    "Screen": 3,
    "Interview": 3,
    "Offer": 4,
}
APPLIED: Final = ("Applied", "Screen", "Interview", "Offer", "Rejected", "Withdrawn")
ANSWERS: Final = ("Screen", "Interview", "Offer", "Rejected")
_SUMMARY = msgspec.json.Decoder(dict[str, Any])


class FoundPerDay(msgspec.Struct, kw_only=True, frozen=True):
    """Listings first seen per day and board, and the postings seen again per day."""

    days: list[str]  # ISO dates, oldest first
    boards: list[str]  # most listings first
    found: dict[str, dict[str, int]]  # day: {board: listings first seen that day}
    seen_again: dict[str, int]  # day: postings of known listings that day's runs saw

    def new(self, day: str) -> int:
        """Listings first seen on `day`."""
        return sum(self.found.get(day, {}).values())


class Stage(msgspec.Struct, kw_only=True, frozen=True):
    """One stage of the funnel: how many listings reached it or a later one."""

    name: str
    count: int
    of_previous: float | None  # the share of the stage before (None for the first, or 0 before)
    of_found: float | None


class AnswerRate(msgspec.Struct, kw_only=True, frozen=True):
    """Applications and answers from one source or board."""

    name: str
    applied: int
    answered: int

    @property
    def rate(self) -> float:
        """answered / applied (0 when nothing was applied to)."""
        return self.answered / self.applied if self.applied else 0.0


def found_per_day(conn: sqlite3.Connection, *, days: int = DAYS_SHOWN) -> FoundPerDay:
    """Listings first seen per day by board, and postings seen again, over the last `days` days
    that have either."""
    found: dict[str, dict[str, int]] = defaultdict(dict)
    totals: dict[str, int] = defaultdict(int)
    rows = conn.execute(
        "SELECT substr(l.first_seen, 1, 10) AS day,"
        " (SELECT s.board FROM listing_sources s WHERE s.listing_id = l.id"
        "  ORDER BY s.first_seen, s.rowid LIMIT 1) AS board, count(*) AS n"
        " FROM listings l GROUP BY day, board"
    )
    for day, board, n in rows:
        name = board or NO_BOARD
        found[day][name] = n
    seen_again: dict[str, int] = defaultdict(int)
    for day, summary in conn.execute(
        "SELECT substr(started_at, 1, 10), summary FROM runs WHERE summary IS NOT NULL"
    ):
        seen_again[day] += _known(summary)
    shown = sorted(set(found) | {d for d, n in seen_again.items() if n})[-days:]
    for day in shown:
        for board, n in found.get(day, {}).items():
            totals[board] += n
    return FoundPerDay(
        days=shown,
        boards=sorted(totals, key=lambda b: (-totals[b], b)),
        found={d: dict(found[d]) for d in shown if d in found},
        seen_again={d: seen_again.get(d, 0) for d in shown},
    )


def _known(summary_json: str) -> int:
    """The postings a run saw of listings known already (merged + updated + unchanged)."""
    try:
        summary = _SUMMARY.decode(summary_json)
    except msgspec.DecodeError:
        return 0  # a summary written by hand or cut short: it tells nothing

    def number(key: str) -> int:
        value = summary.get(key, 0)
        return value if isinstance(value, int) and value > 0 else 0

    known = max(number("listings_known"), number("listings_merged") + number("listings_unchanged"))
    return known + number("listings_updated")


def funnel(conn: sqlite3.Connection) -> list[Stage]:
    """found → Drafted → Applied → Screen/Interview → Offer, each counting the listings whose
    history reached it or a later stage, with the conversion from the stage before."""
    reached: dict[str, int] = {}
    for (listing_id,) in conn.execute("SELECT id FROM listings"):
        reached[listing_id] = 0
    for listing_id, status in conn.execute("SELECT listing_id, status FROM status_history"):
        if listing_id in reached:
            reached[listing_id] = max(reached[listing_id], _STAGE.get(status, 0))
    counts = [sum(1 for stage in reached.values() if stage >= i) for i in range(len(FUNNEL))]
    stages: list[Stage] = []
    for i, (name, count) in enumerate(zip(FUNNEL, counts, strict=True)):
        before = counts[i - 1] if i else 0
        stages.append(
            Stage(
                name=name,
                count=count,
                of_previous=count / before if i and before else None,
                of_found=count / counts[0] if counts[0] else None,
            )
        )
    return stages


def answer_rates(conn: sqlite3.Connection, by: str) -> list[AnswerRate]:
    """Applications and answers per `source` (the profile's source entry) or per `board`; a
    listing posted on several counts for each. Most applications first."""
    if by not in ("source", "board"):
        raise ValueError(f"answer rates are by source or board, not {by!r}")
    applied = ", ".join("?" * len(APPLIED))
    answers = ", ".join("?" * len(ANSWERS))
    rows = conn.execute(
        f"SELECT s.{by} AS name, count(DISTINCT s.listing_id) AS applied,"
        " count(DISTINCT CASE WHEN EXISTS (SELECT 1 FROM status_history a"
        f"   WHERE a.listing_id = s.listing_id AND a.status IN ({answers}))"
        "  THEN s.listing_id END) AS answered"
        " FROM listing_sources s"
        " WHERE EXISTS (SELECT 1 FROM status_history h"
        f"  WHERE h.listing_id = s.listing_id AND h.status IN ({applied}))"
        f" GROUP BY s.{by} ORDER BY applied DESC, name",
        (*ANSWERS, *APPLIED),
    )
    return [AnswerRate(name=name, applied=n, answered=m) for name, n, m in rows]


def listing_count(conn: sqlite3.Connection) -> int:
    """How many listings the state of record holds."""
    count: int = conn.execute("SELECT count(*) FROM listings").fetchone()[0]
    return count
