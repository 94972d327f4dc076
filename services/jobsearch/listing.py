"""The listing wire types every stage agrees on.

fetch turns each board's own shape into a `Listing`; dedupe merges the listings that name one real
job into a `MergedListing`, which keeps every source; draft and export carry the merged listing on.
Evolution rule (as the platform's envelope): new fields get defaults, a field never changes type.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from typing import Annotated, Literal, get_args

import msgspec

Board = Literal[
    "greenhouse",
    "lever",
    "ashby",
    "workable",
    "smartrecruiters",
    "remoteok",
    "remotive",
    "arbeitnow",
    "hackernews",
    "rss",
    "workday",
    "personio",
    "recruitee",
    "bamboohr",
    "breezy",
    "jobposting",
    "sample",
]
BOARDS: tuple[Board, ...] = get_args(Board)
# The boards whose API lists every open posting of an employer: a whole read that misses a posting
# means it was taken down. The others (aggregators, feeds, crawled pages) list only some or only
# recent postings: their postings are never taken as gone for being missed.
LISTS_EVERY_OPEN_POSTING: frozenset[Board] = frozenset(
    {
        "greenhouse",
        "lever",
        "ashby",
        "workable",
        "smartrecruiters",
        "workday",
        "personio",
        "recruitee",
        "bamboohr",
        "breezy",
    }
)

SalaryInterval = Literal["year", "month", "week", "day", "hour"]
# Where the job is done: the board's own field where it has one, else what its text says.
Workplace = Literal["remote", "hybrid", "onsite"]
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class Salary(msgspec.Struct, kw_only=True, frozen=True):
    """A pay range as the board states it; any part may be missing."""

    min: float | None = None
    max: float | None = None
    currency: str | None = None  # ISO 4217 where the board says so
    interval: SalaryInterval | None = None
    # "field": the board's structured pay field; "text": read from the posting's text.
    stated: Literal["field", "text"] = "field"


class Listing(msgspec.Struct, kw_only=True, frozen=True):
    """One posting on one board, as fetched. All text is plain text: untrusted, never markup."""

    board: Board
    source: str  # the name of the profile's source entry that fetched it
    external_id: NonEmpty  # the board's own id (Arbeitnow: the slug)
    url: NonEmpty
    title: NonEmpty
    company: str = ""
    locations: list[str] = []
    remote: bool | None = None
    employment_type: str | None = None
    salary: Salary | None = None
    posted_at: date | None = None
    description: str = ""
    department: str | None = None
    fetched_at: datetime | None = None
    workplace: Workplace | None = None
    hidden_parts: int = 0  # parts of the description's markup nobody sees, removed from `description`
    valid_through: date | None = None  # the last day the board says it takes applications

    @property
    def key(self) -> str:
        """`<board>:<external id>`: the listing job's idempotency key (`Nats-Msg-Id`)."""
        return listing_key(self.board, self.external_id)


def listing_key(board: str, external_id: str) -> str:
    """The key of one posting on one board, safe as a `Nats-Msg-Id` and a job key (<= 256 chars).

    An id with characters a header cannot carry, or a very long one, is replaced by its digest.
    """
    raw = f"{board}:{external_id}"
    if len(raw) <= 200 and raw.isprintable() and not any(c.isspace() for c in raw):
        return raw
    return f"{board}:sha256-{hashlib.sha256(external_id.encode()).hexdigest()[:32]}"


class SourceRef(msgspec.Struct, kw_only=True, frozen=True):
    """Where a merged listing was seen: one board posting."""

    board: Board
    source: str
    external_id: str
    url: str
    posted_at: date | None = None


class MergedListing(msgspec.Struct, kw_only=True, frozen=True):
    """One real job, merged from every board that posted it. `id` is stable across runs."""

    id: Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_-]{1,64}$")]
    title: str
    company: str
    url: str  # the primary posting (the company's own board where there is one)
    locations: list[str] = []
    remote: bool | None = None
    employment_type: str | None = None
    salary: Salary | None = None
    posted_at: date | None = None  # the earliest of its sources
    description: str = ""
    department: str | None = None
    sources: list[SourceRef] = []
    first_seen: datetime | None = None
    workplace: Workplace | None = None
    # Counts the changes of what the listing says (a posting joined or changed): a newer revision
    # replaces an older one in the state of record, never the other way round.
    revision: int = 0
    updated_at: datetime | None = None  # when a posting of it last changed or joined (None: never)
    # Why its pay was not held against the profile's floor ("in USD, not compared with your EUR
    # floor"): the listing is kept and marked, never dropped for a currency.
    pay_note: str | None = None
