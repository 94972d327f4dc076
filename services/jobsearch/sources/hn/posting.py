"""What reading a comment gives: the company and one `Role` per role it offers, or why it is none."""

from __future__ import annotations

from dataclasses import dataclass, field

from jobsearch.listing import Salary, Workplace


@dataclass
class Role:
    """One role of a comment, with what the comment says of it (its own line first, then the
    comment's shared fields)."""

    title: str
    places: list[str] = field(default_factory=list)
    workplace: Workplace | None = None
    region: str | None = None  # what a remote role is limited to ("US", "EU timezones")
    employment: str | None = None
    salary: Salary | None = None
    url: str | None = None  # the careers page or ATS posting to apply at
    email: str | None = None  # the address to apply to
    own_text: str = ""  # the line (or field) of the comment that names this role


@dataclass
class Reading:
    """A comment read: its postings, or `skip`, why it gives none (a "not a posting" reason or
    "unreadable comment")."""

    company: str = ""
    roles: list[Role] = field(default_factory=list)
    skip: str | None = None
