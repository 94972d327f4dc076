"""Hacker News "Ask HN: Who is hiring?" through the Algolia HN API.

The thread: `source.thread_id`, else the newest story by `whoishiring` whose title starts with
"Ask HN: Who is hiring?" (`GET /api/v1/search_by_date?tags=story,author_whoishiring`). Its
comments: `GET /api/v1/items/{id}` gives the story with `children`, the top-level comments, each
with `id`, `text` (HTML) and `created_at`. A posting's first line follows the thread's convention
`Company | Role | Location | REMOTE | Salary | URL` (any order after the first two); a comment
whose first line has fewer than two `|`-separated fields is skipped and counted ("unparsed").
Its fields say the workplace (REMOTE, HYBRID, ONSITE) and the pay, read as any posting's text is
(`jobsearch.salary.salary_from_text`, `stated="text"`: a comment has no pay field).
The listing's URL is the comment on news.ycombinator.com (the link back HN's readers expect).
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from jobsearch.listing import Salary, Workplace
from jobsearch.profile import HackerNews
from jobsearch.salary import salary_from_text
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_in_text

BASE_URL = "https://hn.algolia.com"
ITEM_URL = "https://news.ycombinator.com/item?id={}"
THREAD_TITLE = "ask hn: who is hiring?"
_TYPES = re.compile(r"\b(full[- ]?time|part[- ]?time|contract(?:or)?|intern(?:ship)?|freelance)\b", re.I)
# A field that says only where the job is done ("REMOTE", "Onsite") is no place.
_WHERE_ONLY = re.compile(r"\W*(?:remote|on[- ]?site|in[- ]office|hybrid)\W*", re.I)


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
        description, hidden = text.visible_text(comment.text)
        collector.add(
            external_id=comment.id,
            url=ITEM_URL.format(comment.id),
            title=posting.role,
            company=posting.company,
            locations=posting.locations,
            workplace=posting.workplace,
            employment_type=posting.employment_type,
            salary=posting.salary,
            posted_at=parse_date(comment.created_at),
            description=description,
            hidden_parts=hidden,
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
    workplace: Workplace | None = None
    employment_type: str | None = None
    salary: Salary | None = None

    @property
    def remote(self) -> bool | None:
        """Remote for a remote workplace, not remote for an on-site one."""
        return {"remote": True, "onsite": False}.get(self.workplace or "")


def parse_comment(html: str) -> Posting | None:
    """The posting in a comment's first line (`Company | Role | ...`), or None if it has none."""
    first = re.split(r"<p>|<br\s*/?>|\n", html, maxsplit=1)[0]
    fields = [text.line(text.html_to_text(f)) for f in first.split("|")]
    fields = [f for f in fields if f]
    if len(fields) < 2 or len(fields[0]) > 120 or len(fields[1]) > 200:
        return None
    company, role, *rest = fields
    rest = [f for f in rest if not f.lower().startswith(("http://", "https://", "www."))]
    locations: list[str] = []
    employment: str | None = None
    salary: Salary | None = None
    for field in rest:
        if (kind := _TYPES.search(field)) is not None and employment is None:
            employment = kind.group(1).capitalize()
        if salary is None and (salary := salary_from_text(field)) is not None:
            continue
        if kind is None and not _WHERE_ONLY.fullmatch(field):
            locations.append(field)
    return Posting(
        company=company,
        role=role,
        locations=locations,
        workplace=workplace_in_text(*rest),
        employment_type=employment,
        salary=salary,
    )
