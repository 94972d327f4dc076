"""Trying a company's likely sources: each read by its own adapter, all in parallel.

A slug is tried by reading the source it makes (`fetch_source`), so "found" means exactly what a
run would read. A wrong slug answers 404, an HTML page (a board sending an unknown name to its home
page) or a body not in the board's shape: those are quietly not this company's. A passing failure
(5xx, 429, a timeout) says nothing either way, and is reported as "could not check". Every request
goes through the one `BoardHttp`, whose manners are per host: the finder starts every probe at once
and each board's host still sees at most its `per_host` requests, `min_interval` apart. A subdomain
board (`acme.recruitee.com`, `globex.recruitee.com`) is one service behind many host names, so its
probes are also held to `per_host` at once for the whole board (`BoardGates`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

import anyio
import msgspec
from anyio.abc import TaskGroup

from jetjobs import ConfigError
from jobsearch.finding.careers import read_careers
from jobsearch.finding.slugs import SUBDOMAIN, slug_candidates, source_key, source_slug
from jobsearch.profile import (
    Ashby,
    BambooHR,
    Breezy,
    Greenhouse,
    Lever,
    Personio,
    Recruitee,
    SmartRecruiters,
    Source,
    Workable,
    source_name,
)
from jobsearch.sources import BoardHttp, SourceError, fetch_source

# The slug-keyed boards, each with its source made from a slug, in the order they are reported.
SLUG_BOARDS: Final[dict[str, Callable[[str], Source]]] = {
    "greenhouse": lambda slug: Greenhouse(token=slug),
    "lever": lambda slug: Lever(site=slug),
    "ashby": lambda slug: Ashby(board_name=slug),
    "workable": lambda slug: Workable(account=slug),
    "smartrecruiters": lambda slug: SmartRecruiters(company=slug),
    "personio": lambda slug: Personio(company=slug),
    "recruitee": lambda slug: Recruitee(company=slug),
    "bamboohr": lambda slug: BambooHR(company=slug),
    "breezy": lambda slug: Breezy(company=slug),
}
# Boards whose base URL replaces the company's own origin (`https://{slug}.recruitee.com`).
SUBDOMAIN_BOARDS: Final = frozenset({"personio", "recruitee", "bamboohr", "breezy"})
NOT_THIS_SLUG: Final = frozenset({"not_found", "html_page", "malformed"})
# SmartRecruiters answers 200 with an empty list for any name at all: an empty answer proves nothing.
EMPTY_FOR_ANY_NAME: Final = frozenset({"smartrecruiters"})

Verdict = Literal["found", "empty", "unchecked"]


class Mirrors(msgspec.Struct, kw_only=True, frozen=True):
    """Where the boards and sites are read from instead of their public hosts (a mirror, a test).

    `bases` maps a board to its `base_url`; a subdomain board's carries `{slug}`. `site` replaces
    `https://{domain}` and may carry `{domain}`. When any is set, only what they name is tried.
    """

    bases: dict[str, str] = {}
    site: str | None = None

    @property
    def active(self) -> bool:
        """Whether the public hosts are replaced (and the boards not named are not tried)."""
        return bool(self.bases) or self.site is not None

    @classmethod
    def parse(cls, data: object, name: str) -> Mirrors:
        """The mirrors of a JSON object `{"<board>": "<base>", ..., "site": "<base>"}`.

        Raises:
            ConfigError: not such an object, an unknown board, a subdomain board without `{slug}`.
        """
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise ConfigError(
                f'{name}: expected a JSON object of strings, like {{"greenhouse": "http://..."}}'
            )
        bases = {k: v for k, v in data.items() if k != "site"}
        for board, base in bases.items():
            if board not in SLUG_BOARDS and board != "workday":
                raise ConfigError(
                    f"{name}: unknown board {board!r} (one of {', '.join(SLUG_BOARDS)}, workday)"
                )
            if board in SUBDOMAIN_BOARDS and "{slug}" not in base:
                raise ConfigError(f"{name}: {board}'s base must carry {{slug}} (its boards are subdomains)")
        return cls(bases=bases, site=data.get("site"))

    def site_base(self, domain: str) -> str | None:
        """Where `domain`'s pages are read from, or None for the domain itself."""
        return self.site.replace("{domain}", domain) if self.site is not None else None

    def apply(self, source: Source) -> Source | None:
        """`source` read from its mirror; None when mirrors are set but name not its board."""
        base = self.bases.get(str(type(source).__struct_config__.tag))
        if base is None:
            return None if self.active else source
        return msgspec.structs.replace(
            source, base_url=base.replace("{slug}", source_slug(source)).rstrip("/")
        )


class BoardGates:
    """At most `per_host` probes of one subdomain board at once, whatever the host names."""

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
        self._gates: dict[str, anyio.CapacityLimiter] = {}

    def of(self, source: Source) -> anyio.CapacityLimiter | None:
        """The gate of `source`'s board, or None for a board whose host is its own (one per board)."""
        board = str(type(source).__struct_config__.tag)
        if board not in SUBDOMAIN_BOARDS:
            return None
        if board not in self._gates:
            self._gates[board] = anyio.CapacityLimiter(self.per_host)
        return self._gates[board]


@dataclass(frozen=True, slots=True)
class Company:
    """A company to find the boards of: its name, and its domain when known."""

    name: str
    domain: str | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """What trying one source (or reading one careers page) gave."""

    what: str  # the source's name (`greenhouse:acme`), or a page's URL
    verdict: Verdict
    source: Source | None = None  # None: a careers page that could not be read
    postings: int = 0
    sample: str = ""  # one posting's title
    reason: str = ""  # why it could not be checked


@dataclass
class CompanyReport:
    """Everything tried for one company, and what answered."""

    company: Company
    slugs: list[str]
    tried: list[str] = field(default_factory=list)  # source names, then pages read
    findings: list[Finding] = field(default_factory=list)


async def probe(http: BoardHttp, source: Source) -> Finding | None:
    """Read `source`: a Finding, or None when it is not this company's (a wrong slug)."""
    name = source_name(source)
    board = str(type(source).__struct_config__.tag)
    try:
        fetched = await fetch_source(http, source)
    except SourceError as exc:
        if exc.kind in NOT_THIS_SLUG:
            return None
        return Finding(name, "unchecked", source, reason=str(exc))
    if fetched.listings:
        return Finding(name, "found", source, len(fetched.listings), fetched.listings[0].title)
    return None if board in EMPTY_FOR_ANY_NAME else Finding(name, "empty", source)


def guessed_sources(slugs: Sequence[str], mirrors: Mirrors) -> list[Source]:
    """Every slug board's source for every slug (the subdomain boards' only for DNS labels)."""
    out: list[Source] = []
    for board, make in SLUG_BOARDS.items():
        for slug in slugs:
            if board in SUBDOMAIN_BOARDS and not SUBDOMAIN.match(slug):
                continue
            source = mirrors.apply(make(slug))
            if source is not None:
                out.append(source)
    return out


async def find_company(
    http: BoardHttp, company: Company, mirrors: Mirrors | None = None, *, gates: BoardGates | None = None
) -> CompanyReport:
    """Try `company`'s likely slugs on every slug board, and read its domain's careers pages.

    `gates` are shared by the companies looked for at once (`find_companies`).
    """
    mirrors = mirrors or Mirrors()
    gates = gates or BoardGates(http.policy.per_host)
    report = CompanyReport(company, slug_candidates(company.name, company.domain))
    sources = guessed_sources(report.slugs, mirrors)
    keys = {source_key(s) for s in sources}
    results: dict[tuple[str, str], Finding | None] = {}

    async def attempt(source: Source) -> None:
        gate = gates.of(source)
        if gate is None:
            results[source_key(source)] = await probe(http, source)
            return
        async with gate:
            results[source_key(source)] = await probe(http, source)

    async def careers(domain: str, tg: TaskGroup) -> None:
        site_base = mirrors.site_base(domain)
        if mirrors.active and site_base is None:
            return
        read = await read_careers(http, domain, site_base=site_base)
        report.tried.append(f"{read.pages} page(s) of {domain}")
        for linked in read.linked:
            source = mirrors.apply(linked)
            if source is not None and source_key(source) not in keys:
                keys.add(source_key(source))
                sources.append(source)
                tg.start_soon(attempt, source)
        if read.postings is not None:
            found = read.postings
            report.findings.append(
                Finding(source_name(found.source), "found", found.source, found.postings, found.sample)
            )
        for failure in read.failures:
            report.findings.append(Finding(failure.url or domain, "unchecked", reason=str(failure)))

    async with anyio.create_task_group() as tg:
        for source in sources:
            tg.start_soon(attempt, source)
        if company.domain:
            tg.start_soon(careers, company.domain, tg)
    report.tried[:0] = [source_name(s) for s in sources]
    report.findings[:0] = [f for s in sources if (f := results.get(source_key(s))) is not None]
    return report


async def find_companies(
    http: BoardHttp,
    companies: Sequence[Company],
    mirrors: Mirrors | None = None,
    *,
    done: Callable[[CompanyReport], None] | None = None,
) -> list[CompanyReport]:
    """`find_company` for each company, all at once; the reports in the companies' order.

    `done` is called with each report as it completes (progress for a long list).
    """
    reports: dict[int, CompanyReport] = {}
    gates = BoardGates(http.policy.per_host)

    async def one(index: int, company: Company) -> None:
        reports[index] = await find_company(http, company, mirrors, gates=gates)
        if done is not None:
            done(reports[index])

    async with anyio.create_task_group() as tg:
        for index, company in enumerate(companies):
            tg.start_soon(one, index, company)
    return [reports[i] for i in range(len(companies))]
