"""Any careers page with schema.org `JobPosting` data: the page and its posting pages, crawled.

`GET {url}` (an HTML page), then the links it has on the same site (the same scheme and host),
breadth first, up to `max_pages` pages in all. Every page's `<script type="application/ld+json">`
blocks are read for JobPostings (`jobsearch.sources.jobposting_data`, which states the fields). The
links followed are those of the start page and of the pages without a JobPosting (a second page of
the list, a team's page); a posting page's own links (similar jobs, the rest of the site) are not,
nor links to other sites, `mailto:`, fragments or files (PDFs, images). With `base_url`, every page
of the site is read from that host instead (the path and query kept, as `jobsearch.sources.rss`
does), and listings keep the site's own URLs.

robots.txt is honoured, since this board crawls pages (the API boards are read as documented):
`/robots.txt` is read once per read with `http.get` and parsed by `urllib.robotparser` for the
product token of our User-Agent (`jobsearch`). As RFC 9309 says, a 4xx (none there) allows
everything and an unreachable one (5xx after retries, timeout, network) disallows everything for
this read; a disallowed start page is a `SourceError` (`refused`, or the unreachable robots.txt's
own kind, so a passing outage is retried). Disallowed links are skipped and counted. A `Crawl-delay`
longer than the client's own spacing is waited before each page (at most `MAX_CRAWL_DELAY`), and
then at most `CRAWL_WAIT_BUDGET` seconds of waiting are spent, which may read fewer pages.
`urllib.robotparser` applies the first rule that matches, so each group's rules are handed to it
longest first (RFC 9309 applies the longest); it does not know the `*` and `$` wildcards, which
protego would, but protego is not a dependency. Pages are parsed with the stdlib `html.parser`, as
`jobsearch.sources.text` does, since lxml ships no type information.

`complete` is always False: a crawl never proves that a posting it did not find was taken down (a
page may be unlinked, past the cap, disallowed or failing). Only a past `validThrough`, which each
listing carries, says a posting closed. A start page that is missing is `not_found`; one that is not
HTML is `malformed`; one without any JobPosting in the whole crawl gives no listings, not an error
(counted as "no JobPosting data on N pages"). Another page that fails is skipped and counted.
"""

from __future__ import annotations

import codecs
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Final
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit

import anyio

from jobsearch.profile import JobPosting
from jobsearch.sources import jobposting_data
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched
from jobsearch.sources.http import BoardHttp, Body
from jobsearch.sources.robots import read_robots

BOARD: Final = "jobposting"
ACCEPT: Final = "text/html, application/xhtml+xml;q=0.9, */*;q=0.1"
MAX_CRAWL_DELAY: Final = 60.0  # seconds; a longer Crawl-delay is waited this long
CRAWL_WAIT_BUDGET: Final = 300.0  # seconds of Crawl-delay waiting one read may spend
_FILES: Final = re.compile(
    r"\.(?:pdf|docx?|xlsx?|pptx?|zip|gz|jpe?g|png|gif|svg|webp|ico|css|js|json|xml|rss|mp[34]|woff2?)$",
    re.IGNORECASE,
)
_CHARSET: Final = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.IGNORECASE)


async def fetch(http: BoardHttp, source: JobPosting, name: str) -> Fetched:
    """Crawl one careers site for JobPostings (never a complete read: see the module docstring)."""
    site = _Site.of(source)
    collector = Collector(BOARD, name)
    agent = http.policy.user_agent.split("/")[0].strip() or "jobsearch"
    robots, unreadable = await read_robots(http, BOARD, site.fetch_url(f"{site.origin}/robots.txt"))
    if not robots.can_fetch(agent, site.start):
        if unreadable is not None:
            detail = f"robots.txt could not be read ({unreadable.detail}), so no page of the site is read"
            raise SourceError(BOARD, unreadable.kind, detail, url=unreadable.url)
        raise SourceError(
            BOARD, "refused", f"robots.txt disallows the start page for {agent}", url=site.start
        )
    delay = min(float(robots.crawl_delay(agent) or 0), MAX_CRAWL_DELAY)
    if delay <= http.policy.min_interval:
        delay = 0.0  # BoardHttp's own spacing already waits as long
    cap = min(source.max_pages, max(1, int(CRAWL_WAIT_BUDGET // delay))) if delay else source.max_pages
    frontier = _Frontier(site.start, cap, lambda url: robots.can_fetch(agent, url), collector)
    read = found = 0
    while frontier.queue:
        url = frontier.queue.popleft()
        if delay:
            await anyio.sleep(delay)
        page = await _page(http, site, url, collector, start=read == 0)
        read += 1
        if page is None:
            continue
        on_page = jobposting_data.read_page(collector, page.blocks, page_url=url, host=site.host)
        found += on_page
        if not on_page or read == 1:  # a posting page's links lead to the rest of the site
            frontier.offer(page.links(url, site), read)
    if frontier.unread:
        collector.reasons["links left unread at max_pages"] += frontier.unread
    if not found:
        collector.skip(f"no JobPosting data on {read} pages")
    return collector.result(complete=False)


class _Frontier:
    """The pages still to read, breadth first: each link once, robots.txt allowing, under the cap."""

    def __init__(self, start: str, cap: int, allowed: Callable[[str], bool], collector: Collector) -> None:
        self.queue = deque([start])
        self.cap = cap
        self.unread = 0  # links found that the cap leaves unread
        self._seen = {start}
        self._allowed = allowed
        self._collector = collector

    def offer(self, links: list[str], read: int) -> None:
        """Queue the links not seen before, once `read` pages have been read."""
        for link in links:
            if link in self._seen:
                continue
            self._seen.add(link)
            if not self._allowed(link):
                self._collector.skip("disallowed by robots.txt")
            elif read + len(self.queue) >= self.cap:
                self.unread += 1
            else:
                self.queue.append(link)


@dataclass(frozen=True, slots=True)
class _Site:
    """The site crawled: its origin, and the mirror (`base_url`) its pages are read from, if any."""

    start: str  # the start page's public URL, without a fragment
    origin: str  # scheme://host[:port], lower-cased
    host: str
    mirror: str | None

    @classmethod
    def of(cls, source: JobPosting) -> _Site:
        parts = urlsplit(source.url.strip())
        start = urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, ""))
        mirror = source.base_url.rstrip("/") if source.base_url else None
        return cls(start, _origin(start), (parts.hostname or "").lower(), mirror)

    def fetch_url(self, url: str) -> str:
        """Where the page at public `url` is read: on the mirror, the same path and query."""
        if self.mirror is None:
            return url
        parts = urlsplit(url)
        return self.mirror + (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


class _Page(HTMLParser):
    """One page's JSON-LD blocks, `<a href>` values and `<base href>` (raw; see `links`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)  # script content stays raw; attributes are decoded
        self.blocks: list[str] = []
        self.hrefs: list[str] = []
        self.base: str | None = None
        self._block: list[str] | None = None  # the JSON-LD script being read

    @classmethod
    def parsed(cls, markup: str) -> _Page:
        """The page of `markup`, a JSON-LD script the document never closed included."""
        page = cls()
        page.feed(markup)
        page.close()
        if page._block is not None:
            page.blocks.append("".join(page._block))
        return page

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        href = (values.get("href") or "").strip()
        if tag == "script":
            kind = (values.get("type") or "").split(";")[0].strip().lower()
            self._block = [] if kind == "application/ld+json" else None
        elif tag == "a" and href:
            self.hrefs.append(href)
        elif tag == "base" and href and self.base is None:
            self.base = href

    def handle_data(self, data: str) -> None:
        if self._block is not None:
            self._block.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._block is not None:
            self.blocks.append("".join(self._block))
            self._block = None

    def links(self, page_url: str, site: _Site) -> list[str]:
        """The page's links to pages of `site`, absolute, without fragments, in page order."""
        base = urljoin(page_url, self.base) if self.base else page_url
        out: list[str] = []
        for href in self.hrefs:
            link = urldefrag(urljoin(base, href)).url
            if _origin(link) == site.origin and not _FILES.search(urlsplit(link).path):
                out.append(link)
        return out


async def _page(http: BoardHttp, site: _Site, url: str, collector: Collector, *, start: bool) -> _Page | None:
    """One page, parsed; None (counted) for a page other than the start page that cannot be read.

    Raises:
        SourceError: the start page could not be read, or is not HTML (`malformed`).
    """
    try:
        body = await http.get(BOARD, site.fetch_url(url), accept=ACCEPT)
    except SourceError:
        if start:
            raise
        collector.skip("page could not be read")
        return None
    if not _is_html(body):
        if start:
            what = body.content_type.split(";")[0] or "a body that is not HTML"
            raise SourceError(
                BOARD, "malformed", f"answered with {what} where an HTML page was expected", url=body.url
            )
        collector.skip("not an HTML page")
        return None
    return _Page.parsed(body.content.decode(_charset(body), errors="replace"))


def ld_json_blocks(markup: str) -> list[str]:
    """The text of a page's `<script type="application/ld+json">` blocks, in page order."""
    return _Page.parsed(markup).blocks


def _is_html(body: Body) -> bool:
    if "html" in body.content_type:
        return True
    head = body.content[:1024].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html"))


def _charset(body: Body) -> str:
    """The page's encoding: the Content-Type's charset, else a `<meta charset>`, else UTF-8."""
    declared = re.search(r"charset=[\"']?([^;\s\"']+)", body.content_type)
    found = _CHARSET.search(body.content[:4096])
    for name in (declared[1] if declared else None, found[1].decode("ascii") if found else None):
        if name:
            try:
                return codecs.lookup(name).name
            except LookupError:
                continue
    return "utf-8"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"
