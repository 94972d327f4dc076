"""Hacker News "Ask HN: Who is hiring?" through the Algolia HN API.

The thread: `source.thread_id`, else the newest story by `whoishiring` whose title starts with
"Ask HN: Who is hiring?" (`GET /api/v1/search_by_date?tags=story,author_whoishiring`). Its
comments: `GET /api/v1/items/{id}` gives the story with `children`, the top-level comments, each
with `id`, `text` (HTML) and `created_at`. A posting's first line follows the thread's convention
`Company | Role | Location | REMOTE | Salary | URL` (any order after the first two); a comment
whose first line has fewer than two `|`-separated fields is skipped and counted ("unparsed").
The listing's URL is the comment on news.ycombinator.com (the link back HN's readers expect).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from jobsearch.listing import Salary
from jobsearch.profile import HackerNews
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://hn.algolia.com"
ITEM_URL = "https://news.ycombinator.com/item?id={}"
THREAD_TITLE = "ask hn: who is hiring?"
_TYPES = re.compile(r"\b(full[- ]?time|part[- ]?time|contract(?:or)?|intern(?:ship)?|freelance)\b", re.I)
_REMOTE = re.compile(r"\bremote\b", re.I)
_ONSITE = re.compile(r"\b(on[- ]?site|in[- ]office)\b", re.I)
_MONEY = re.compile(
    r"(?P<cur>[$€£])\s?(?P<lo>\d+(?:[.,]\d+)?)\s*(?P<lok>[kK])?"
    r"(?:\s*(?:-|\u2013|to)\s*[$€£]?\s?(?P<hi>\d+(?:[.,]\d+)?)\s*(?P<hik>[kK])?)?"
)
_CURRENCY = {"$": "USD", "€": "EUR", "£": "GBP"}


class _Hit(msgspec.Struct, kw_only=True, frozen=True):
    objectID: str
    title: str | None = None


class HNComment(msgspec.Struct, kw_only=True, frozen=True):
    """One top-level comment of the thread (only the fields we map)."""

    id: int | None = None
    text: str | None = None
    created_at: str | None = None
    author: str | None = None


async def fetch(http: BoardHttp, source: HackerNews, name: str) -> Fetched:
    """Read the "Who is hiring?" thread's top-level comments."""
    base = (source.base_url or BASE_URL).rstrip("/")
    thread_id = source.thread_id or await _latest_thread(http, base)
    url = f"{base}/api/v1/items/{thread_id}"
    body: Any = await http.get_json("hackernews", url)
    if not isinstance(body, dict):
        raise SourceError("hackernews", "malformed", "answered with JSON that is not an item", url=url)
    collector = Collector("hackernews", name)
    for comment in convert_each(body.get("children"), HNComment, collector):
        if not comment.text:
            collector.skip("deleted comment")
            continue
        posting = parse_comment(comment.text)
        if posting is None:
            collector.skip("unparsed comment")
            continue
        collector.add(
            external_id=comment.id,
            url=ITEM_URL.format(comment.id),
            title=posting.role,
            company=posting.company,
            locations=posting.locations,
            remote=posting.remote,
            employment_type=posting.employment_type,
            salary=posting.salary,
            posted_at=parse_date(comment.created_at),
            description=text.html_to_text(comment.text),
        )
    return collector.result()


async def _latest_thread(http: BoardHttp, base: str) -> str:
    url = f"{base}/api/v1/search_by_date"
    body: Any = await http.get_json(
        "hackernews", url, params={"tags": "story,author_whoishiring", "hitsPerPage": 30}
    )
    hits = body.get("hits") if isinstance(body, dict) else None
    for hit in msgspec.convert(hits if isinstance(hits, list) else [], list[_Hit], strict=False):
        if (hit.title or "").lower().startswith(THREAD_TITLE):
            return hit.objectID
    raise SourceError("hackernews", "not_found", 'no "Ask HN: Who is hiring?" thread found', url=url)


class Posting(msgspec.Struct, kw_only=True, frozen=True):
    """What a comment's first line says."""

    company: str
    role: str
    locations: list[str] = []
    remote: bool | None = None
    employment_type: str | None = None
    salary: Salary | None = None


def parse_comment(html: str) -> Posting | None:
    """The posting in a comment's first line (`Company | Role | ...`), or None if it has none."""
    first = re.split(r"<p>|<br\s*/?>|\n", html, maxsplit=1)[0]
    fields = [text.line(text.html_to_text(f)) for f in first.split("|")]
    fields = [f for f in fields if f]
    if len(fields) < 2 or len(fields[0]) > 120 or len(fields[1]) > 200:
        return None
    company, role, *rest = fields
    locations: list[str] = []
    remote: bool | None = None
    employment: str | None = None
    salary: Salary | None = None
    for field in rest:
        lowered = field.lower()
        if lowered.startswith(("http://", "https://", "www.")):
            continue
        if _REMOTE.search(field):
            remote = True
        elif _ONSITE.search(field) and remote is None:
            remote = False
        if (kind := _TYPES.search(field)) is not None and employment is None:
            employment = kind.group(1).capitalize()
        if (money := _MONEY.search(field)) is not None and salary is None:
            salary = _salary(money)
            continue
        if not _REMOTE.fullmatch(field.strip()) and kind is None and not _ONSITE.fullmatch(field.strip()):
            locations.append(field)
    return Posting(
        company=company,
        role=role,
        locations=locations,
        remote=remote,
        employment_type=employment,
        salary=salary,
    )


def _salary(match: re.Match[str]) -> Salary:
    def amount(number: str | None, k: str | None) -> float | None:
        if number is None:
            return None
        value = float(re.sub(r",(?=\d{3}\b)", "", number).replace(",", "."))  # 150,000 or 1,5
        return value * 1000 if k else value

    low = amount(match.group("lo"), match.group("lok") or match.group("hik"))
    high = amount(match.group("hi"), match.group("hik"))
    yearly = max(low or 0, high or 0) >= 1000
    return Salary(
        min=low, max=high, currency=_CURRENCY[match.group("cur")], interval="year" if yearly else None
    )
