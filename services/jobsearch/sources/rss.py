"""Any RSS or Atom feed, parsed by feedparser (the body is fetched by BoardHttp, never by feedparser).

Each entry becomes a listing: `id` (or `link`) as its id, `title`, `link`, `published`/`updated`,
`summary`/`content` (HTML) as the description, `author` as the company when there is one, the
first `category` as the department. The workplace is what the title, region and categories say
(remote, hybrid, on-site); pay is read from the description (`jobsearch.sources.fetched`). We Work
Remotely's feeds title each item `Company: Title` and carry `region` and `type` (employment type)
elements: all are mapped, and every We Work Remotely job is remote. An entry with no author whose
title names the employer (`Role at Company`, `Company: Role`, `Company - Role`, `Company is hiring
a Role`, as job aggregators' feeds write it) is split into the two. An entry whose link would run
script or render in place (`javascript:`, `data:`) is dropped and counted, "unsafe link
(javascript:/data:)", in the source's skip reasons and so in the run's report.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any
from urllib.parse import urlsplit

import feedparser

from jobsearch.profile import Rss
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched
from jobsearch.sources.hn import vocab
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_in_text

ACCEPT = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"


UNSAFE_LINK = "unsafe link (javascript:/data:)"
# Schemes a browser runs or renders in place instead of opening a page: never a posting's address.
_UNSAFE_SCHEMES = ("javascript:", "data:")  # any other non-web scheme is "no url" (the Collector)


def _unsafe_link(link: object) -> bool:
    """Whether an item's link would run script or render inline (`javascript:`, `data:`) rather
    than open the posting; such an item is dropped and counted in the run's report."""
    if not isinstance(link, str):
        return False
    squeezed = "".join(ch for ch in link if ch > " ").lower()  # "java\tscript:" runs as well
    return squeezed.startswith(_UNSAFE_SCHEMES)


async def fetch(http: BoardHttp, source: Rss, name: str) -> Fetched:
    """Read one feed."""
    url = source.url
    if source.base_url:  # a mirror: the feed's path and query on another host
        parts = urlsplit(source.url)
        url = source.base_url.rstrip("/") + parts.path + (f"?{parts.query}" if parts.query else "")
    body = await http.get("rss", url, accept=ACCEPT)
    feed: Any = feedparser.parse(body.content, response_headers={"content-type": body.content_type})
    if not feed.entries:
        if "html" in body.content_type or body.content.lstrip()[:15].lower().startswith(
            (b"<!doctype html", b"<html")
        ):
            raise SourceError(
                "rss", "html_page", "answered with an HTML page where a feed was expected", url=body.url
            )
        if feed.bozo and not feed.get("version"):
            reason = getattr(feed.get("bozo_exception"), "getMessage", lambda: "not a feed")()
            raise SourceError("rss", "malformed", f"is not a readable RSS/Atom feed ({reason})", url=body.url)
    wwr = "weworkremotely" in (urlsplit(source.url).hostname or "")
    collector = Collector("rss", name)
    feed_title = text.line(feed.feed.get("title"))
    for entry in feed.entries:
        if _unsafe_link(entry.get("link")):
            collector.skip(UNSAFE_LINK)
            continue
        title = entry.get("title") or ""
        company = entry.get("author") or ""
        if wwr and ": " in title:
            company, title = title.split(": ", 1)
        elif not company:
            title, company = _role_at_company(title)
        content = entry.get("content") or []
        html = content[0].get("value") if content else entry.get("summary")
        region = entry.get("region") if isinstance(entry.get("region"), str) else None
        categories = [t.get("term") for t in entry.get("tags") or [] if isinstance(t.get("term"), str)]
        kind = entry.get("type")
        description, hidden = text.visible_text(html)
        collector.add(
            external_id=entry.get("id") or entry.get("link"),
            url=entry.get("link"),
            title=title,
            company=company or ("" if wwr else feed_title),
            locations=[region] if region else [],
            workplace="remote" if wwr else workplace_in_text(title, region, *categories),
            employment_type=kind if isinstance(kind, str) else None,
            posted_at=_date(entry.get("published_parsed") or entry.get("updated_parsed")),
            description=description,
            hidden_parts=hidden,
            department=categories[0] if categories else None,
        )
    return collector.result()


# How job feeds without an author name the employer in the title: "Staff Data Engineer at Corvid
# Labs", "Backend Engineer @ Acme", "Lumen Health: Staff Data Engineer", "Kestrel Security -
# Security Engineer", "Quillfeather is hiring a Research Engineer". The role side must have a role
# word (Engineer, Designer...), the company side must not, and must read as a name (capitalised,
# at most six words: "Engineer at scale" names none); a place after the company (", New York",
# "| Copenhagen", "(Raleigh, NC)") is not part of it, a workplace in parentheses ("(Remote)") stays
# with the title.
_AT_COMPANY = re.compile(
    r"^(?P<title>.+?)\s+(?:at|@)\s+(?P<company>[A-Z0-9\u00c0-\u00dd][^,;|()]*?)"
    r"\s*(?P<tail>(?:[,|;]|\s\().*)?$"
)
_COMPANY_FIRST = re.compile(r"^(?P<company>[^:|]{1,60}?)(?::\s+|\s+[-\u2013\u2014|]\s+)(?P<title>.+)$")
_IS_HIRING = re.compile(r"^(?P<company>.{1,60}?)\s+is\s+hiring\s+(?:an?\s+)?(?P<title>.+)$", re.I)
_HIRING = re.compile(r"^(?:now\s+)?hiring\s*:\s*", re.I)


def _role_at_company(title: str) -> tuple[str, str]:
    """(title, company) of a title that names its employer; (title, "") when it does not."""
    raw = _HIRING.sub("", title.strip())
    for pattern in (_AT_COMPANY, _IS_HIRING, _COMPANY_FIRST):
        found = pattern.match(raw)
        if found is None:
            continue
        role, company = found["title"].strip(), found["company"].strip()
        if not vocab.ROLE.search(role) or vocab.ROLE.search(company) or len(company.split()) > 6:
            continue
        if workplace_in_text(company) is not None:  # "Remote: Senior DevOps Engineer"
            continue
        tail = (found.groupdict().get("tail") or "").strip()
        if tail.startswith("(") and workplace_in_text(tail) is not None:
            role = f"{role} {tail}"
        return role, company
    return title, ""


def _date(parsed: Any) -> date | None:
    try:
        return date(parsed.tm_year, parsed.tm_mon, parsed.tm_mday) if parsed else None
    except (AttributeError, ValueError):
        return None
