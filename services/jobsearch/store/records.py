"""What the state of record hands out: the tracker's rows, status counts, runs and their numbers."""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

import msgspec

from jobsearch.fit import Reason
from jobsearch.jobs import Check, Step
from jobsearch.listing import MergedListing, Salary, SourceRef, Workplace

Status = Literal[
    "Saved", "Drafted", "Applied", "Screen", "Interview", "Offer", "Rejected", "Withdrawn", "Dismissed"
]
# The tracker's fixed vocabulary, in the order an application moves through it; Dismissed: "not for
# me", a listing the person will not apply to (the fit score learns from it: `jobsearch.store.learned`).
STATUSES: tuple[Status, ...] = (
    "Saved",
    "Drafted",
    "Applied",
    "Screen",
    "Interview",
    "Offer",
    "Rejected",
    "Withdrawn",
    "Dismissed",
)
_BY_FOLDED = {status.casefold(): status for status in STATUSES}
StatusSource = Literal["pipeline", "tracker", "mark", "ui"]


def parse_status(text: str) -> Status | None:
    """The status a person meant (`applied`, ` Applied `), or None when it is not one of STATUSES."""
    return _BY_FOLDED.get(text.strip().casefold())


class TrackerRow(msgspec.Struct, kw_only=True, frozen=True):
    """One merged listing as the tracker shows it, with its current drafts, status and notes."""

    listing_id: str
    company: str
    title: str
    locations: list[str]
    remote: bool | None
    salary: Salary | None
    sources: list[str]
    url: str
    posted_at: date | None
    found: date
    status: Status
    workplace: Workplace | None = None
    postings: list[SourceRef] = []  # every board posting of it, in the order the listing keeps
    updated: date | None = None  # when a posting of it last changed or joined
    pay_note: str | None = None  # why its pay was not compared with the floor
    cover_letter: str = ""
    connection_note: str = ""
    provider_model: str = ""
    notes: str = ""
    # Empty when every current draft passed its checks; else what failed, in words, or why the
    # listing has no draft yet (`jobsearch.store.drafting.review_text`).
    review: str = ""
    fit: int | None = None  # 0-100 for the profile of the run that last scored it (`jobsearch.fit`)
    fit_why: str = ""  # its largest reasons, signed, in words
    closed_at: date | None = None  # every board that posted it took it down (`jobsearch.dedupe.closing`)
    stale_at: date | None = None  # only aggregators carried it, and none lately


class SheetEdit(msgspec.Struct, kw_only=True, frozen=True):
    """A row's status and notes as the person left them in the tracker (raw cell text)."""

    listing_id: str
    row: int
    status: str
    notes: str
    notes_formula: bool = False  # the Notes cell held a formula: `notes` is its text


class Conflict(msgspec.Struct, kw_only=True, frozen=True):
    """A field changed in the tracker and in the database since the last export: both are kept."""

    listing_id: str
    field: Literal["status", "notes"]
    tracker_value: str
    db_value: str
    kept: str


class EditReport(msgspec.Struct, kw_only=True):
    """What reading the tracker's edits back did."""

    applied: int = 0
    conflicts: list[Conflict] = []
    problems: list[str] = []  # rows that could not be read back, and why


class RecordedExport(msgspec.Struct, kw_only=True, frozen=True):
    """What one export job changed: whether the listing is new, and how many drafts it added."""

    listing_id: str
    new: bool
    drafts: int


class RunRecord(msgspec.Struct, kw_only=True, frozen=True):
    """One `jobsearch run`: when, with which profile, how it ended."""

    run_id: str
    started_at: datetime
    finished_at: datetime | None
    profile: str
    outcome: str | None
    summary: dict[str, object] | None


class ProviderUsage(msgspec.Struct, kw_only=True, frozen=True):
    """Drafts written by one provider/model in a run, and what they cost."""

    provider: str
    model: str
    drafts: int
    tokens_in: int
    tokens_out: int
    cost_usd: float
    needs_review: int = 0  # of `drafts`, those that failed their checks twice


class Fallback(msgspec.Struct, kw_only=True, frozen=True):
    """Drafts a later provider of the chain wrote because an earlier one failed."""

    provider: str  # who wrote them
    drafts: int
    after: str  # "openai failed: HTTP 500: ..." (the most common reason)


class RunNumbers(msgspec.Struct, kw_only=True, frozen=True):
    """What a run added to the state of record."""

    listings_new: int
    listings_updated: int
    drafts: list[ProviderUsage]
    needs_review: int
    drafted_listings: int = 0  # the listings those drafts are for
    fallbacks: list[Fallback] = []
    # Listings this run could not draft, by kind (`failed`, `waiting`), with the reasons counted.
    draft_issues: dict[str, int] = {}
    issue_reasons: dict[str, int] = {}
    # How the most recent other runs ended (`running` if not yet), to name those whose jobs this
    # run finished.
    earlier_outcomes: dict[str, str] = {}
    # Set for a replay, whose jobs carry the run ids of the runs they replay: its drafts are those
    # recorded since this time, and everything it settled is its own.
    drafts_since: str | None = None


class StoredDraft(msgspec.Struct, kw_only=True, frozen=True):
    """One row of `drafts`: a step's text from the pipeline (`origin` `pipeline`) or a person's
    edit (`edit`). The newest row of a step is its current text."""

    id: int
    step: Step
    text: str
    provider: str
    model: str
    status: str
    checks: list[Check]
    origin: str
    run_id: str | None
    created_at: datetime
    fell_over: list[str] = []  # the providers that failed before this one wrote it, and why

    @property
    def failed_checks(self) -> list[Check]:
        """The checks that did not pass: why the draft needs review."""
        return [c for c in self.checks if not c.passed]


class ListingDetail(msgspec.Struct, kw_only=True, frozen=True):
    """One listing in full: the merged listing, its status, notes, the current draft of each step
    and every draft and edit (`history`, oldest first)."""

    listing: MergedListing
    status: Status
    status_at: datetime
    notes: str
    drafts: dict[Step, StoredDraft]
    history: list[StoredDraft]
    review: str = ""  # what the Review column says (`jobsearch.store.drafting.review_text`)
    fit: int | None = None  # 0-100 (`jobsearch.fit`), and its reasons, largest first
    fit_reasons: list[Reason] = []
    closed_at: date | None = None  # every board that posted it took it down
    stale_at: date | None = None  # only aggregators carried it, and none lately
