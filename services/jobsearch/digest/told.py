"""What a digest may tell, read from the state of record, and what it told, written back.

```python
found = to_tell(db_path, run_id, min_fit=60)   # Found(listed=[Entry, ...], closed=[Entry, ...])
record_told(db_path, run_id, message)           # digest_items: told once per listing and kind
```
- **listed**: the listings run `run_id` recorded as new (`first_run_id`) or updated (`last_run_id`,
  as `jobsearch.store.runs.run_numbers` counts them), still open, with `fit >= min_fit` (an
  unscored listing only when `min_fit` is 0), not Rejected or Withdrawn, never told `listed`;
  best fit first (unscored last), ties the newest posted first.
- **closed**: the listings taken down since the run before this one started, whose status the
  person set (the newest `status_history` row is not the pipeline's) and that they have not
  ended (Rejected, Withdrawn), never told `closed`; the newest closing first.

A listing is told once per kind (`digest_items`' key): an update after it was told is not news
enough for a morning message (the review page shows it), and a listing that reopens and closes
again is not told twice.

Every string here comes from a job board: `plain_line` makes it one line of printable text, and
`web_link` keeps only http(s) addresses; escaping for HTML is the renderer's (`compose`).
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Literal
from urllib.parse import urlsplit

import msgspec

from jobsearch.db import immediate, open_db
from jobsearch.fit import Reason
from jobsearch.listing import Salary
from jobsearch.salary import format_salary
from jobsearch.store import Store
from jobsearch.store.clock import utcnow

if TYPE_CHECKING:  # compose builds on this module; the message type is only named here
    from jobsearch.digest.compose import DigestMessage

Kind = Literal["listed", "closed"]
# Statuses with which the person said they are done with a listing: nothing about it is news.
ENDED = ("Rejected", "Withdrawn", "Dismissed")
MAX_FIELD = 160  # characters of one scraped field in a line (a title of a page's length is cut)
_LOCATIONS_SHOWN = 3

_LOCATIONS = msgspec.json.Decoder(list[str])
_SALARY = msgspec.json.Decoder(Salary)
_REASONS = msgspec.json.Decoder(list[Reason])
_SPACES = re.compile(r"\s+")
# Characters that start a new line, or reorder or hide what follows (bidi overrides and
# isolates, zero-width marks), beside the control characters (category Cc).
_BREAKING = frozenset(
    "\u2028\u2029\u0085\u200b\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\ufeff"
)


class Entry(msgspec.Struct, frozen=True, kw_only=True):
    """One listing as a digest line shows it: every text one clean line, the link http(s) or None."""

    listing_id: str
    title: str
    company: str
    place: str  # "Berlin, Remote (EU) · hybrid"; "" when the listing says nothing
    salary: str  # "€70k-90k / year" (with an en dash); "" when unknown
    fit: int | None  # 0-100; None: not scored
    reasons: list[Reason]  # the largest first, their texts clean
    link: str | None  # the best web address of the posting
    updated: bool = False  # seen by an earlier run: updated, not new
    status: str = ""  # the person's status (closed entries)
    closed_at: date | None = None


class Found(msgspec.Struct, frozen=True, kw_only=True):
    """What run `run_id` may tell: every listing eligible, best first (the caller cuts)."""

    listed: list[Entry] = []
    closed: list[Entry] = []


def printable(text: str) -> str:
    """`text` with every control, line-breaking and bidi character made a space (the spacing of
    the rest kept, for text aligned in columns)."""
    return "".join(
        " " if c in _BREAKING or unicodedata.category(c) in ("Cc", "Zl", "Zp") else c for c in text
    )


def plain_line(text: str, limit: int = MAX_FIELD) -> str:
    """`text` as one line of printable text (`printable`), runs of space made one, cut to `limit`
    characters with an ellipsis."""
    line = _SPACES.sub(" ", printable(text)).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def web_link(url: str | None) -> str | None:
    """The URL if it is an http(s) address with a host and no space or control character; else
    None (`javascript:`, `data:`, a relative path, a URL that would break a line)."""
    if not url:
        return None
    url = url.strip()
    if any(c.isspace() or unicodedata.category(c) == "Cc" or c in _BREAKING for c in url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def to_tell(db_path: Path, run_id: str, *, min_fit: int) -> Found:
    """What run `run_id`'s digest may tell (see the module); nothing when there is no database."""
    if not db_path.exists():
        return Found()
    conn = open_db(db_path, readonly=True)
    try:
        links = _links(conn)
        listed = [
            _entry(row, links, updated=row["first_run_id"] != run_id)
            for row in conn.execute(_LISTED, {"run": run_id, "min_fit": min_fit})
        ]
        since = _previous_start(conn, run_id)
        closed = [
            _entry(row, links, status=row["status"], closed_at=date.fromisoformat(row["closed_at"][:10]))
            for row in conn.execute(_CLOSED, {"since": since})
        ]
    finally:
        conn.close()
    return Found(listed=listed, closed=closed)


def record_told(db_path: Path, run_id: str, message: DigestMessage) -> None:
    """Record that run `run_id`'s digest told `message.listed` (kind `listed`) and
    `message.closed` (kind `closed`); a listing already told keeps its first row."""
    rows = [(i, "listed", run_id) for i in message.listed] + [(i, "closed", run_id) for i in message.closed]
    if not rows:
        return
    now = utcnow()
    with Store.open(db_path) as store, immediate(store.conn) as conn:
        conn.executemany(
            "INSERT OR IGNORE INTO digest_items (listing_id, kind, run_id, at) VALUES (?, ?, ?, ?)",
            [(*row, now) for row in rows],
        )


_ENDED = ", ".join(f"'{status}'" for status in ENDED)
_COLUMNS = (
    "l.id, l.title, l.company, l.url, l.locations, l.remote, l.workplace, l.salary, l.fit,"
    " l.fit_reasons, l.first_run_id, l.status, l.closed_at"
)
_LISTED = f"""
SELECT {_COLUMNS} FROM listings l
WHERE (l.first_run_id = :run OR l.last_run_id = :run)
  AND l.closed_at IS NULL
  AND l.status NOT IN ({_ENDED})
  AND (:min_fit = 0 OR l.fit >= :min_fit)
  AND NOT EXISTS (SELECT 1 FROM digest_items d WHERE d.listing_id = l.id AND d.kind = 'listed')
ORDER BY l.fit IS NULL, l.fit DESC, l.posted_at IS NULL, l.posted_at DESC, l.first_seen DESC, l.id
"""
_CLOSED = f"""
SELECT {_COLUMNS} FROM listings l
WHERE l.closed_at IS NOT NULL
  AND (:since IS NULL OR l.closed_at >= :since)
  AND l.status NOT IN ({_ENDED})
  AND (SELECT h.source FROM status_history h WHERE h.listing_id = l.id ORDER BY h.id DESC LIMIT 1)
      != 'pipeline'
  AND NOT EXISTS (SELECT 1 FROM digest_items d WHERE d.listing_id = l.id AND d.kind = 'closed')
ORDER BY l.closed_at DESC, l.status_at DESC, l.id
"""


def _previous_start(conn: sqlite3.Connection, run_id: str) -> str | None:
    """The day (ISO) the run before `run_id` started: a listing closed since then closed in this
    run (a board's closing date is the day of the read that missed it, or the day after its
    page's last day; either falls after the previous run began). None: no earlier run."""
    row = conn.execute(
        "SELECT p.started_at FROM runs p, runs r WHERE r.run_id = ? AND p.run_id != r.run_id"
        " AND (p.started_at < r.started_at OR (p.started_at = r.started_at AND p.rowid < r.rowid))"
        " ORDER BY p.started_at DESC, p.rowid DESC LIMIT 1",
        (run_id,),
    ).fetchone()
    return str(row[0])[:10] if row is not None else None


def _links(conn: sqlite3.Connection) -> dict[str, list[str]]:
    """Each listing's posting URLs, in the order its sources were recorded."""
    links: dict[str, list[str]] = {}
    for row in conn.execute("SELECT listing_id, url FROM listing_sources ORDER BY listing_id, rowid"):
        links.setdefault(row["listing_id"], []).append(row["url"])
    return links


def _entry(
    row: sqlite3.Row,
    links: dict[str, list[str]],
    *,
    updated: bool = False,
    status: str = "",
    closed_at: date | None = None,
) -> Entry:
    # The listing's own URL is the primary posting (its employer's board where there is one);
    # else the first web address among its postings.
    candidates = [row["url"], *links.get(row["id"], [])]
    reasons = _REASONS.decode(row["fit_reasons"]) if row["fit_reasons"] else []
    return Entry(
        listing_id=row["id"],
        title=plain_line(row["title"]) or "(untitled)",
        company=plain_line(row["company"]) or "(company not stated)",
        place=_place(row),
        salary=plain_line(format_salary(_SALARY.decode(row["salary"]))) if row["salary"] else "",
        fit=row["fit"],
        reasons=[Reason(points=r.points, text=plain_line(r.text)) for r in reasons],
        link=next((link for link in map(web_link, candidates) if link), None),
        updated=updated,
        status=plain_line(status),
        closed_at=closed_at,
    )


def _place(row: sqlite3.Row) -> str:
    """`Berlin, Remote (EU) · hybrid`: up to three locations, then how the work is done."""
    locations = [plain_line(x, 60) for x in _LOCATIONS.decode(row["locations"] or "[]")]
    locations = [x for x in locations if x]
    shown = ", ".join(locations[:_LOCATIONS_SHOWN])
    if len(locations) > _LOCATIONS_SHOWN:
        shown += f" +{len(locations) - _LOCATIONS_SHOWN}"
    how = row["workplace"] or ("remote" if row["remote"] == 1 else "")
    return " · ".join(part for part in (shown, plain_line(how)) if part)
