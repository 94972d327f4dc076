"""Any RSS or Atom feed, parsed by feedparser (the body is fetched by BoardHttp, never by feedparser).

Each entry becomes a listing: `id` (or `link`) as its id, `title`, `link`, `published`/`updated`,
`summary`/`content` (HTML) as the description, `author` as the company when there is one, the
first `category` as the department. The workplace is what the title, region and categories say
(remote, hybrid, on-site); pay is read from the description (`jobsearch.sources.fetched`). We Work
Remotely's feeds title each item `Company: Title` and carry `region` and `type` (employment type)
elements: all are mapped, and every We Work Remotely job is remote. An entry with no author
titled `Role at Company` (as job aggregators' feeds write it) is split into the two.
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
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_in_text

ACCEPT = "application/rss+xml, application/atom+xml, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.1"


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


# "Staff Data Engineer at Corvid Labs", "Backend Engineer @ Acme": how job feeds without an author
# write the employer. The right side must read as a name (capitalised, at most six words).
_AT_COMPANY = re.compile(
    r"^(?P<title>.+?)\s+(?:at|@)\s+(?P<company>[A-Z0-9][^\s,;|()]*(?:\s+[^\s,;|()]+){0,5})$"
)


def _role_at_company(title: str) -> tuple[str, str]:
    """(title, company) of a `Role at Company` title; (title, "") when it is not one."""
    found = _AT_COMPANY.match(title.strip())
    if found is None:
        return title, ""
    return found["title"], found["company"]


def _date(parsed: Any) -> date | None:
    try:
        return date(parsed.tm_year, parsed.tm_mon, parsed.tm_mday) if parsed else None
    except (AttributeError, ValueError):
        return None
