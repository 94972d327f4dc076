"""A company's own careers pages: the boards they link to, and the JobPostings they carry.

`GET https://{domain}{path}` for each of `CAREERS_PATHS` (robots.txt honoured, as the `jobposting`
board does). Each page is searched for URLs of the boards the pipeline reads: the page's text as a
whole, not only `<a href>`, because boards are as often embedded by a script or an iframe
(`boards.greenhouse.io/embed/job_board/js?for=acme`) as linked. A Workday site is only ever found
this way: its host (`acme.wd5.myworkdayjobs.com`) cannot be guessed from a name. The page's
`application/ld+json` blocks are read by `jobsearch.sources.jobposting_data`, the `jobposting`
board's own mapping, so what counts as a posting here is what that board would list. The blocks
are found with the stdlib `html.parser` (lxml ships no type information; extruct is not a
dependency).
"""

from __future__ import annotations

import codecs
import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import parse_qs, urlsplit
from urllib.robotparser import RobotFileParser

import anyio

from jobsearch.finding.slugs import source_key
from jobsearch.profile import (
    Ashby,
    BambooHR,
    Breezy,
    Greenhouse,
    JobPosting,
    Lever,
    Personio,
    Recruitee,
    SmartRecruiters,
    Source,
    Workable,
    Workday,
)
from jobsearch.sources import jobposting_data
from jobsearch.sources.errors import TRANSIENT, SourceError
from jobsearch.sources.fetched import Collector
from jobsearch.sources.http import BoardHttp, Body
from jobsearch.sources.jobposting import ld_json_blocks
from jobsearch.sources.robots import DISALLOW_ALL, read_robots
from jobsearch.sources.workday import careers_site

CAREERS_PATHS: Final = ("/careers", "/careers/", "/jobs", "/jobs/", "/join-us", "/about/careers", "/")
LABEL: Final = "careers"  # how BoardHttp's errors and spans name these requests
ACCEPT: Final = "text/html, application/xhtml+xml;q=0.9, */*;q=0.1"
_BOARD_URL: Final = re.compile(
    r"(?:https?:)?//[a-z0-9.-]+\.(?:greenhouse\.io|lever\.co|ashbyhq\.com|workable\.com|"
    r"smartrecruiters\.com|personio\.(?:de|com)|recruitee\.com|bamboohr\.com|breezy\.hr|"
    r"myworkdayjobs\.com|myworkdaysite\.com)(?:/[^\s\"'<>\\)]*)?",
    re.IGNORECASE,
)
_PATH_SLUG: Final = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_SUBDOMAIN: Final = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")
# Path segments and subdomains that are the board's own pages, never a company.
_NOT_A_COMPANY: Final = frozenset({"api", "app", "assets", "blog", "embed", "help", "j", "static", "www"})
_SUBDOMAIN_BOARDS: Final[dict[str, type[Personio | Recruitee | BambooHR | Breezy]]] = {
    ".jobs.personio.de": Personio,
    ".jobs.personio.com": Personio,
    ".recruitee.com": Recruitee,
    ".bamboohr.com": BambooHR,
    ".breezy.hr": Breezy,
}


@dataclass(frozen=True, slots=True)
class PagePostings:
    """A careers page with schema.org JobPostings: the `jobposting` source reading it."""

    source: JobPosting
    postings: int
    sample: str


@dataclass
class CareersRead:
    """What a domain's careers pages gave."""

    pages: int = 0  # pages read
    linked: list[Source] = field(default_factory=list)  # the boards they link to, in page order
    postings: PagePostings | None = None  # the page with the most JobPostings
    failures: list[SourceError] = field(default_factory=list)  # transient: try again later


async def read_careers(http: BoardHttp, domain: str, *, site_base: str | None = None) -> CareersRead:
    """Read `domain`'s careers pages (from `site_base` instead of `https://{domain}` when given).

    A missing or refused page is skipped quietly; a page that failed for a passing reason
    (5xx, timeout, network) is in `failures`.
    """
    public = f"https://{domain}"
    base = (site_base or public).rstrip("/")
    read = CareersRead()
    robots = await _robots(http, base, read)
    agent = http.policy.user_agent.split("/")[0].strip() or "jobsearch"
    bodies: dict[str, Body] = {}

    async def page(path: str) -> None:
        try:
            bodies[path] = await http.get(LABEL, base + path, accept=ACCEPT)
        except SourceError as exc:
            if exc.kind in TRANSIENT or exc.kind == "host_denied":
                read.failures.append(exc)

    async with anyio.create_task_group() as tg:  # BoardHttp spaces them: one host
        for path in CAREERS_PATHS:
            if robots.can_fetch(agent, public + path):
                tg.start_soon(page, path)
    seen: set[str] = set()
    for path in CAREERS_PATHS:  # in a fixed order, whichever answered first
        body = bodies.get(path)
        if body is None or body.url in seen:  # `/careers` and `/careers/` are often one page
            continue
        seen.add(body.url)
        read.pages += 1
        markup = body.content.decode(_charset(body.content_type), errors="replace")
        for source in linked_sources(body.url, markup):
            if source_key(source) not in {source_key(s) for s in read.linked}:
                read.linked.append(source)
        found = _page_postings(markup, public + path, domain, site_base)
        if found and (read.postings is None or found.postings > read.postings.postings):
            read.postings = found
    return read


def linked_sources(page_url: str, markup: str) -> Iterator[Source]:
    """The sources of the board URLs in a page's text (its own URL first: a redirect to a board)."""
    unescaped = html.unescape(markup.replace("\\/", "/"))
    for url in [page_url, *(m.group(0) for m in _BOARD_URL.finditer(unescaped))]:
        source = linked_source(url if "://" in url else f"https:{url}")
        if source is not None:
            yield source


def linked_source(url: str) -> Source | None:  # noqa: PLR0911 - one exit per board
    """The source a board URL names (`https://jobs.lever.co/acme/123` → Lever `acme`), or None."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    segments = [s for s in parts.path.split("/") if s]
    first = segments[0] if segments and _PATH_SLUG.match(segments[0]) else None
    if first is not None and first.lower() in _NOT_A_COMPANY:
        first = None
    if host in ("boards.greenhouse.io", "job-boards.greenhouse.io"):
        token = parse_qs(parts.query).get("for", [""])[0] if segments[:1] == ["embed"] else first
        return Greenhouse(token=token) if token and _PATH_SLUG.match(token) else None
    if host == "boards-api.greenhouse.io" and segments[:2] == ["v1", "boards"] and len(segments) > 2:
        return Greenhouse(token=segments[2]) if _PATH_SLUG.match(segments[2]) else None
    if host.endswith((".myworkdayjobs.com", ".myworkdaysite.com")):
        try:
            return Workday(url=careers_site(Workday(url=f"https://{host}{parts.path}")).public)
        except SourceError:  # a link to Workday's own pages, not a careers site
            return None
    if first is None:
        return _subdomain_source(host)
    if host == "jobs.lever.co":
        return Lever(site=first)
    if host == "jobs.eu.lever.co":  # Lever's EU instance has its own API host
        return Lever(site=first, base_url="https://api.eu.lever.co")
    if host == "jobs.ashbyhq.com":
        return Ashby(board_name=first)
    if host == "apply.workable.com":
        return Workable(account=first)
    if host in ("jobs.smartrecruiters.com", "careers.smartrecruiters.com"):
        return SmartRecruiters(company=first)
    return _subdomain_source(host)


def _subdomain_source(host: str) -> Source | None:
    """The source of a subdomain board's host: `acme.recruitee.com` → Recruitee `acme`."""
    for suffix, board in _SUBDOMAIN_BOARDS.items():
        label = host.removesuffix(suffix)
        if host.endswith(suffix) and _SUBDOMAIN.match(label) and label not in _NOT_A_COMPANY:
            return board(company=label)
    return None


def _page_postings(markup: str, public_url: str, domain: str, site_base: str | None) -> PagePostings | None:
    """The page's JobPostings as the `jobposting` board would read them, or None without any."""
    collector = Collector("jobposting", f"jobposting:{public_url}")
    jobposting_data.read_page(collector, ld_json_blocks(markup), page_url=public_url, host=domain)
    if not collector.listings:
        return None
    source = JobPosting(url=public_url, base_url=site_base.rstrip("/") if site_base else None)
    return PagePostings(source, len(collector.listings), collector.listings[0].title)


async def _robots(http: BoardHttp, base: str, read: CareersRead) -> RobotFileParser:
    """The site's robots.txt (`jobsearch.sources.robots`); a failure to read it is reported."""
    try:
        robots, unreadable = await read_robots(http, LABEL, f"{base}/robots.txt")
    except SourceError as exc:  # a host JOBSEARCH_ALLOW_HOSTS does not allow
        read.failures.append(exc)
        robots = RobotFileParser()
        robots.parse(DISALLOW_ALL)
        return robots
    if unreadable is not None:
        read.failures.append(unreadable)
    return robots


def _charset(content_type: str) -> str:
    """The Content-Type's charset when Python knows it, else UTF-8 (what careers pages send)."""
    found = re.search(r"charset=[\"']?([A-Za-z0-9_.:-]+)", content_type)
    if found:
        try:
            return codecs.lookup(found[1]).name
        except LookupError:
            pass
    return "utf-8"
