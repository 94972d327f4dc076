"""The person's profile: who they are, what they search for, and which boards to read.

A TOML file (`examples/profile.toml`; `jobsearch init` writes a commented one). The same Structs
travel inside the pipeline's jobs, so a client in any language can submit a search with the
profile inline (`schemas/jobsearch/`).
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

import msgspec

Text = Annotated[str, msgspec.Meta(max_length=20_000)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
Url = Annotated[str, msgspec.Meta(pattern=r"^https?://", max_length=2048)]


class _Base(msgspec.Struct, kw_only=True, frozen=True, forbid_unknown_fields=True):
    pass


class Experience(_Base, kw_only=True, frozen=True):
    """One role the person held."""

    employer: Name
    title: Name
    start: date | None = None
    end: date | None = None  # none: current
    location: str | None = None
    highlights: list[Text] = []


class Education(_Base, kw_only=True, frozen=True):
    """A degree or course the person completed."""

    institution: Name
    degree: str | None = None
    field: str | None = None
    year: int | None = None


class Person(_Base, kw_only=True, frozen=True):
    """Who is applying: the only facts a draft may state about them."""

    name: Name
    email: str | None = None
    phone: str | None = None
    location: str | None = None
    links: list[Url] = []
    summary: Text = ""
    skills: list[str] = []
    experience: list[Experience] = []
    education: list[Education] = []


Remote = Literal["any", "remote", "hybrid", "onsite", "remote_or_hybrid"]
Seniority = Literal["intern", "junior", "mid", "senior", "staff", "principal", "lead", "manager"]


class Search(_Base, kw_only=True, frozen=True):
    """What to look for. Every filter is optional: an empty section keeps every listing."""

    terms: list[str] = []  # a listing matches if its title or text has any of them
    exclude: list[str] = []  # a listing is dropped if its title or company has any of them
    locations: list[str] = []  # a listing matches if it is in any of them (or remote, when wanted)
    remote: Remote = "any"
    seniority: list[Seniority] = []
    salary_floor: float | None = None  # yearly; listings stating a lower maximum are dropped
    salary_currency: str | None = None


class Writing(_Base, kw_only=True, frozen=True):
    """How drafts should read."""

    tone: str = "warm, direct, specific"
    cover_letter_words: Annotated[int, msgspec.Meta(ge=80, le=800)] = 250
    language: str = "en"
    signature: str | None = None


class _Source(_Base, tag_field="board", kw_only=True, frozen=True):
    """A board to read; `base_url` points it at a mirror, a proxy or a test server."""

    name: str | None = None  # defaults to `<board>:<token>`; how reports name it
    base_url: Url | None = None


class Greenhouse(_Source, tag="greenhouse", kw_only=True, frozen=True):
    token: Name  # boards-api.greenhouse.io/v1/boards/{token}/jobs


class Lever(_Source, tag="lever", kw_only=True, frozen=True):
    site: Name  # api.lever.co/v0/postings/{site}


class Ashby(_Source, tag="ashby", kw_only=True, frozen=True):
    board_name: Name  # api.ashbyhq.com/posting-api/job-board/{board_name}


class Workable(_Source, tag="workable", kw_only=True, frozen=True):
    account: Name  # apply.workable.com/api/v1/widget/accounts/{account}


class SmartRecruiters(_Source, tag="smartrecruiters", kw_only=True, frozen=True):
    company: Name  # api.smartrecruiters.com/v1/companies/{company}/postings


class RemoteOK(_Source, tag="remoteok", kw_only=True, frozen=True):
    tag: str | None = None


class Remotive(_Source, tag="remotive", kw_only=True, frozen=True):
    category: str | None = None
    search: str | None = None


class Arbeitnow(_Source, tag="arbeitnow", kw_only=True, frozen=True):
    max_pages: Annotated[int, msgspec.Meta(ge=1, le=50)] = 3


class HackerNews(_Source, tag="hackernews", kw_only=True, frozen=True):
    thread_id: int | None = None  # default: the latest "Ask HN: Who is hiring?" thread


class Rss(_Source, tag="rss", kw_only=True, frozen=True):
    url: Url


class Sample(_Source, tag="sample", kw_only=True, frozen=True):
    """Listings shipped with the package (sample data, not real jobs), for the offline run."""

    size: Annotated[int, msgspec.Meta(ge=0, le=100_000)] | None = None  # None: the bundled set


Source = (
    Greenhouse
    | Lever
    | Ashby
    | Workable
    | SmartRecruiters
    | RemoteOK
    | Remotive
    | Arbeitnow
    | HackerNews
    | Rss
    | Sample
)


def source_name(source: Source) -> str:
    """The name a report uses for a source: its `name`, else `<board>:<what it reads>`."""
    if source.name:
        return source.name
    board = type(source).__struct_config__.tag
    for attr in ("token", "site", "board_name", "account", "company", "url", "thread_id", "category", "tag"):
        value = getattr(source, attr, None)
        if value is not None:
            return f"{board}:{value}"
    return str(board)


class Profile(_Base, kw_only=True, frozen=True):
    """A whole profile file."""

    person: Person
    search: Search = Search()
    writing: Writing = Writing()
    sources: list[Source] = []
