"""The person's profile: who they are, what they search for, and which boards to read.

A TOML file (`examples/profile.toml`; `jobsearch init` writes a commented one). The same Structs
travel inside the pipeline's jobs, so a client in any language can submit a search with the
profile inline (`schemas/jobsearch/`).
"""

from __future__ import annotations

import re
import tomllib
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from jetjobs import ConfigError
from jobsearch._toml_lines import PathPart, line_of
from jobsearch.listing import BOARDS

Text = Annotated[str, msgspec.Meta(max_length=20_000)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
Url = Annotated[str, msgspec.Meta(pattern=r"^https?://", max_length=2048)]
# A company's word in its board's host name (`acme` in acme.recruitee.com): one DNS label.
Subdomain = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")]


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
    """What to look for. Every filter is optional. `exclude` drops a listing; the others score its
    fit (docs/fit.md) and drop it only when `hard` names them."""

    terms: list[str] = []  # the roles and topics looked for, in a listing's title or text
    exclude: list[str] = []  # a listing is dropped if its title or company has any of them
    locations: list[str] = []  # where the person works (a remote listing is anywhere, when wanted)
    remote: Remote = "any"
    seniority: list[Seniority] = []
    # yearly; a listing stating a lower maximum scores lower; 0 or more (a negative floor is a typo)
    salary_floor: Annotated[float, msgspec.Meta(ge=0)] | None = None
    salary_currency: str | None = None
    # The filters that also drop what they do not want; none by default, since a keyword filter
    # drops good fits. `terms` may be one too: a broad board read only for a few words.
    hard: list[Literal["terms", "locations", "remote", "seniority", "salary_floor"]] = []
    must: list[str] = []  # skills the person insists on: each one a listing lacks costs fit points
    avoid: list[str] = []  # skills or areas the person does not want: a listing naming them costs
    needs_visa: bool = False  # the person needs visa sponsorship to work where the listing is
    # A listing only aggregators or feeds carry, none of them seen for this many days, is Stale.
    stale_after_days: Annotated[int, msgspec.Meta(ge=1, le=3650)] = 30


class FitWeights(_Base, kw_only=True, frozen=True):
    """The fit score's weights, in points of 0-100 (`[fit]` overrides any; docs/fit.md explains
    each). A listing starts at `base`; every rule adds or takes its points, with its reason."""

    base: float = 40
    title_match: float = 25  # the title is one of the person's roles (its words, synonyms allowed)
    title_partial: float = 12  # half or more of a role's words in the title
    text_match: float = 4  # the role named only in the text
    role_missing: float = -20  # the person's roles named nowhere
    field_unknown: float = -10  # the title's field ("... - Neonatal Unit") is in none of the profile's words
    topic_title: float = 8  # the title names one of the person's topics (search terms that are no role)
    skill_required: float = 5  # each of the person's skills the listing requires
    skill_other: float = 3  # each named elsewhere (nice to have, the text)
    skills_most: float = 30  # the skills' points at most
    ask_missing: float = -3  # each tool the listing requires that the person does not list
    asks_most: float = -12
    must_missing: float = -8  # each of `must` the listing does not name
    avoid_title: float = -30  # an `avoid` term in the title
    avoid_required: float = -15  # ... in the requirements
    avoid_text: float = -5  # ... elsewhere in the text
    level_match: float = 8  # the listing's level is one the person wants
    level_near: float = -6  # one step away
    level_far: float = -22  # two or more steps away
    years_over: float = -10  # asks for more than the person's years plus `years_slack`
    years_slack: float = 2
    place_match: float = 8  # where and how the person wants to work
    place_mismatch: float = -35  # onsite elsewhere, remote but restricted to a region they are not in
    remote_unwanted: float = -10  # remote only, when the person wants to be on site or hybrid
    onsite_unwanted: float = -10  # onsite in their city, when the person wants hybrid or remote
    visa_refused: float = -30  # no sponsorship, when the person needs it
    visa_offered: float = 5
    pay_meets: float = 5  # the stated pay reaches the floor
    pay_below: float = -25  # the stated pay stays under it
    fresh_2_days: float = 6
    fresh_week: float = 4
    stale_month: float = -4  # posted 31 to 60 days ago
    stale: float = -30  # more than 60 days ago: most such posts are filled
    temporary: float = -6  # a contract, temporary, fixed-term or part-time post
    excluded: float = -100  # `exclude` names its title or company


class Writing(_Base, kw_only=True, frozen=True):
    """How drafts should read."""

    tone: str = "warm, direct, specific"
    cover_letter_words: Annotated[int, msgspec.Meta(ge=80, le=800)] = 250
    language: str = "en"
    signature: str | None = None


class Drafting(_Base, kw_only=True, frozen=True):
    """Whether the pipeline drafts at all (off: listings only, e.g. to triage a broad search), and
    which of a run's listings: once dedupe has drained, the best `max_per_run` by fit at or above
    `min_fit`, best first (docs/fit.md); the others are kept and ranked, not drafted."""

    enabled: bool = True
    min_fit: Annotated[int, msgspec.Meta(ge=0, le=100)] = 50
    max_per_run: Annotated[int, msgspec.Meta(ge=1, le=10000)] = 15


EmailAddress = Annotated[str, msgspec.Meta(pattern=r"^[^@\s<>,;]+@[^@\s<>,;]+\.[^@\s<>,;]+$", max_length=320)]


class Digest(_Base, kw_only=True, frozen=True):
    """Where a run's digest of its best new listings goes (`jobsearch.digest`); none: no digest."""

    email: EmailAddress | None = None
    ntfy: Url | None = None  # https://ntfy.sh/<topic>: ntfy's JSON publish form
    webhook: Url | None = None  # any URL: a JSON body (docs/run.md)
    min_fit: Annotated[int, msgspec.Meta(ge=0, le=100)] = 0  # 0: every new or updated listing
    max_listings: Annotated[int, msgspec.Meta(ge=1, le=100)] = 10
    page_url: Url = "http://127.0.0.1:8322"  # where the review page is reachable, for links

    def __post_init__(self) -> None:
        # ntfy publishes to a topic: the URL's path, which a bare server URL lacks.
        if self.ntfy is not None and not self.ntfy.split("://", 1)[-1].partition("/")[2].strip("/"):
            raise ValueError(
                f"ntfy = {self.ntfy!r} names no topic: write the topic URL, https://ntfy.sh/<topic>"
            )

    @property
    def enabled(self) -> bool:
        """Whether the digest goes anywhere."""
        return bool(self.email or self.ntfy or self.webhook)


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


class Workday(_Source, tag="workday", kw_only=True, frozen=True):
    """A Workday careers site: its `url` (`https://acme.wd5.myworkdayjobs.com/en-US/External`), or
    `host` + `tenant` + `site` (a Workday host cannot be guessed from a company's name)."""

    url: Url | None = None
    host: Name | None = None  # acme.wd5.myworkdayjobs.com
    tenant: Name | None = None
    site: Name | None = None
    # The site's own search, one query per entry; None: the profile's `[search] terms`; []: all.
    search: list[Name] | None = None


class Personio(_Source, tag="personio", kw_only=True, frozen=True):
    company: Subdomain  # {company}.jobs.personio.de/xml
    language: Annotated[str, msgspec.Meta(pattern=r"^[a-z]{2}$")] | None = None


class Recruitee(_Source, tag="recruitee", kw_only=True, frozen=True):
    company: Subdomain  # {company}.recruitee.com/api/offers/


class BambooHR(_Source, tag="bamboohr", kw_only=True, frozen=True):
    company: Subdomain  # {company}.bamboohr.com/careers/list


class Breezy(_Source, tag="breezy", kw_only=True, frozen=True):
    company: Subdomain  # {company}.breezy.hr/json


class JobPosting(_Source, tag="jobposting", kw_only=True, frozen=True):
    """Any careers page with schema.org `JobPosting` data, and its posting pages on the same site."""

    url: Url
    max_pages: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 100


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
    | Workday
    | Personio
    | Recruitee
    | BambooHR
    | Breezy
    | JobPosting
    | Sample
)


def source_name(source: Source) -> str:
    """The name a report uses for a source: its `name`, else `<board>:<what it reads>`."""
    if source.name:
        return source.name
    board = type(source).__struct_config__.tag
    for attr in (
        "token",
        "board_name",
        "account",
        "company",
        "url",
        "tenant",
        "site",
        "thread_id",
        "category",
        "tag",
    ):
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
    drafting: Drafting = Drafting()
    fit: FitWeights = FitWeights()
    digest: Digest = Digest()


class ProfileError(ConfigError):
    """The profile file is missing or wrong; the message names the file, the line and the key."""


_AT = re.compile(r"^(?P<what>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_FIELD = re.compile(r"field `(?P<field>[^`]+)`")
_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")


def load_profile(path: Path) -> Profile:
    """Read and check a profile TOML file.

    Raises:
        ProfileError: the file is missing, is not TOML, or has a wrong key, type or board;
            the message reads `FILE:LINE: KEY: what is wrong`.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(
            f"{path}: no such profile (write an example with `jobsearch init {path}`)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"{path}: cannot read the profile: {exc}") from None
    return parse_profile(text, str(path))


def parse_profile(text: str, name: str = "<profile>") -> Profile:
    """Check a profile's TOML text; `name` is how errors name the file."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{name}: not valid TOML: {exc}") from None
    try:
        return msgspec.convert(data, Profile)
    except msgspec.ValidationError as exc:
        raise ProfileError(_explain(str(exc), text, name)) from None


def _explain(message: str, text: str, name: str) -> str:
    """msgspec's "Problem - at `$.a[1].b`" as `FILE:LINE: a[1].b: problem`."""
    match = _AT.match(message)
    what = match["what"] if match else message
    container: list[PathPart] = [
        key if key else int(index) for key, index in _PART.findall((match and match["path"]) or "")
    ]
    field = _FIELD.search(what)
    unknown = field is not None and "unknown field" in what
    missing = field is not None and "missing required field" in what
    parts = [*container, field["field"]] if field and (unknown or missing) else list(container)
    if parts[-1:] == ["board"] and container[:1] == ["sources"]:
        if missing:
            what = f"missing `board`: one of {', '.join(BOARDS)}"
        else:
            what = f"{what.replace('Invalid value', 'unknown board')}: expected one of {', '.join(BOARDS)}"
    elif unknown:
        what = f"unknown key `{parts[-1]}` (a misspelling? `jobsearch init` writes every key)"
    elif missing:
        what = f"missing required key `{parts[-1]}`"
    # An unknown key is found where it is written; a missing one, on the line of its table.
    line = line_of(text, container if missing else parts)
    where = f"{name}:{line}" if line else name
    return f"{where}: {_dotted(parts) or '(top level)'}: {what}"


def _dotted(parts: list[PathPart]) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def example_profile() -> str:
    """The commented example profile that `jobsearch init` writes (also `examples/profile.toml`)."""
    return resources.files("jobsearch").joinpath("profile_example.toml").read_text(encoding="utf-8")


def write_example_profile(path: Path) -> None:
    """Write the example profile to `path`; never overwrite an existing file.

    Raises:
        ProfileError: `path` already exists.
    """
    try:
        with path.open("x", encoding="utf-8") as out:
            out.write(example_profile())
    except FileExistsError:
        raise ProfileError(f"{path} already exists: not overwriting it (choose another path)") from None
