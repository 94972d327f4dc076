"""`Fetched`, what reading one board gives, and `Collector`, which builds it posting by posting."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, date, datetime
from typing import Any

import msgspec

from jobsearch.listing import Board, Listing, Salary, Workplace
from jobsearch.salary import salary_from_text
from jobsearch.sources import text

DESCRIPTION_LIMIT = 20_000  # characters: a listing job (with its profile) must stay under 256 KiB


class Unread(msgspec.Struct, kw_only=True, frozen=True):
    """An item of the board that its rules could not read (a hand-written Hacker News comment
    counted "unreadable comment"), kept as the board gave it for an optional model pass."""

    id: str
    html: str
    created_at: str | None = None


class Extraction(msgspec.Struct, kw_only=True):
    """What a model pass over a board's unread items did (`jobsearch.sources.hn.extract`), for the
    run summary: each posting it gave was checked against its item's text."""

    by: str  # the first provider and model asked, "openai/gpt-4o-mini"
    sent: int = 0  # items sent to the model
    read: int = 0  # items at least one checked posting came from (no longer unreadable)
    postings: int = 0  # postings that passed their check: listings
    dropped: int = 0  # postings that failed it (a field not in the item's text...)
    failed: int = 0  # items no provider read, or whose answer was not the JSON asked for
    left: int = 0  # unread items over the most sent per run (`EXTRACT_MAX`), not sent
    reasons: dict[str, int] = {}  # why dropped or failed, counted
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class Fetched(msgspec.Struct, kw_only=True, frozen=True):
    """The listings one board gave, and how many postings were dropped and why."""

    listings: list[Listing]
    skipped: int = 0
    skipped_reasons: dict[str, int] = {}
    # False when the read stopped before the board's end (a page cap): what it lists is then not
    # all the board still lists, and the fetch stage records no whole read.
    complete: bool = True
    # How many items the board gave where one item is not one posting (Hacker News comments: a
    # comment may offer several roles, or none); 0 where each item is one posting.
    read: int = 0
    # The items counted "unreadable comment", for a model pass (Hacker News); and what that pass
    # did, when one ran.
    unread: list[Unread] = []
    extraction: Extraction | None = None


class Collector:
    """Turns a board's postings into Listings, dropping (and counting) the unusable ones.

    A posting without an id, a title or a URL is dropped; every other field is optional. Text is
    made plain (`jobsearch.sources.text`) here, so every adapter treats it alike; descriptions
    come already plain, with the count of hidden parts `text.visible_text` removed from them.
    """

    def __init__(self, board: Board, source: str, *, fetched_at: datetime | None = None) -> None:
        self.board: Board = board
        self.source = source
        self.fetched_at = fetched_at or datetime.now(UTC)
        self.listings: list[Listing] = []
        self.reasons: Counter[str] = Counter()
        self._seen: set[str] = set()

    def skip(self, reason: str) -> None:
        """Count one posting dropped for `reason`."""
        self.reasons[reason] += 1

    def add(
        self,
        *,
        external_id: object,
        url: str | None,
        title: str | None,
        company: str | None = None,
        locations: list[str] | None = None,
        remote: bool | None = None,
        employment_type: str | None = None,
        salary: Salary | None = None,
        posted_at: date | None = None,
        description: str = "",
        department: str | None = None,
        hidden_parts: int = 0,
        workplace: Workplace | None = None,
        valid_through: date | None = None,
    ) -> None:
        """Keep one posting (fields already plain text, except title/company/locations: tidied here).

        `valid_through` is the last day the board says the posting takes applications, where it says
        (schema.org `validThrough`). `hidden_parts` is how many parts of the description's markup
        nobody sees were left out of `description` (`text.visible_text`). `workplace` is the board's
        own field where it has one; `remote` follows it (a remote workplace is remote, an on-site
        one is not), and a posting only flagged remote has a remote workplace. A posting whose board
        gives no salary gets the one its description states (`salary_from_text`, `stated="text"`),
        so every board's text is read the same way.
        """
        ext = text.line(str(external_id) if external_id is not None else "", limit=1000)
        clean_title = text.line(title)
        clean_url = (url or "").strip()
        if not ext:
            return self.skip("no id")
        if not clean_title:
            return self.skip("no title")
        if not clean_url.startswith(("http://", "https://")):
            return self.skip("no url")
        if ext in self._seen:  # a board that lists one posting twice (paging overlap)
            return self.skip("repeated on the board")
        self._seen.add(ext)
        places = [p for p in (text.line(loc, limit=200) for loc in locations or []) if p]
        description = description[:DESCRIPTION_LIMIT]
        if salary is None or (salary.min is None and salary.max is None):
            salary = salary_from_text(description)
        if workplace is None and remote:
            workplace = "remote"
        if remote is None and workplace in ("remote", "onsite"):
            remote = workplace == "remote"
        self.listings.append(
            Listing(
                board=self.board,
                source=self.source,
                external_id=ext,
                url=clean_url[:2048],
                title=clean_title,
                company=text.line(company),
                locations=list(dict.fromkeys(places)),
                remote=True if workplace == "remote" else remote,
                employment_type=text.line(employment_type, limit=100) or None,
                salary=salary,
                posted_at=posted_at,
                description=description,
                department=text.line(department, limit=200) or None,
                fetched_at=self.fetched_at,
                hidden_parts=max(0, hidden_parts),
                workplace=workplace,
                valid_through=valid_through,
            )
        )
        return None

    def result(self, *, complete: bool = True, read: int = 0, unread: list[Unread] | None = None) -> Fetched:
        """What was collected; `complete=False` when the read stopped before the board's end;
        `read`, the items read where an item is not one posting (HN comments); `unread`, the items
        the rules could not read."""
        return Fetched(
            listings=self.listings,
            skipped=sum(self.reasons.values()),
            skipped_reasons=dict(self.reasons),
            complete=complete,
            read=read,
            unread=unread or [],
        )


def convert_each(items: Any, shape: type[Any], collector: Collector) -> list[Any]:
    """Each item of a board's list converted to `shape`; items that do not fit are skipped, counted."""
    if not isinstance(items, list):
        return []
    out = []
    for item in items:
        try:
            out.append(msgspec.convert(item, shape, strict=False))
        except msgspec.ValidationError:
            collector.skip("unexpected shape")
    return out


def parse_date(value: object) -> date | None:
    """A date from an ISO 8601 string, an epoch (seconds or milliseconds) or None."""
    if value is None or value == "":
        return None
    try:
        if isinstance(value, int | float) and not isinstance(value, bool):
            seconds = value / 1000 if value > 10**11 else value
            return datetime.fromtimestamp(seconds, UTC).date()
        if isinstance(value, str):
            raw = value.strip().replace("Z", "+00:00")
            if len(raw) == 10:
                return date.fromisoformat(raw)
            return datetime.fromisoformat(raw).date()
    except (ValueError, OverflowError, OSError):
        return None
    return None
