"""Hacker News "Ask HN: Who is hiring?" through the Algolia HN API.

The thread: `source.thread_id`, else the newest story by `whoishiring` whose title starts with
"Ask HN: Who is hiring?" (`GET /api/v1/search_by_date?tags=story,author_whoishiring`). Its
comments: `GET /api/v1/items/{id}` gives the story with `children`, the top-level comments, each
with `id`, `text` (HTML) and `created_at`. Each comment is read as a person reads it
(`jobsearch.sources.hn`): one listing per role it offers, or a skip counted by why (a "not a
posting: ..." reason, "unreadable comment", "deleted comment"), and the comments read are counted
(`Fetched.read`) for the run's summary.

A role's listing: the careers or ATS link the comment gives is its URL (a board jobsearch reads
then joins it in dedupe); the comment on news.ycombinator.com is the first line of its description
("Hacker News: ..."), with "Apply: <link>" and "Apply by e-mail: <address>" lines. A multi-role
comment's roles share the company and the back-link; each keeps its own place, pay and link, its
id is `<comment id>` then `<comment id>-2`, ..., and a link several roles share (a careers page)
is not a role's URL: one URL is one posting to dedupe, so the role's URL is the comment (told
apart per role). A remote role's region ("US", "EU timezones") is one of its locations.

With `EXTRACT_PROVIDER` set, the fetch stage hands the unreadable comments to a model
(`read_unread`, `jobsearch.sources.hn.extract`): each posting it reads, checked against the
comment, becomes a listing like those above, its description saying which model read it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import msgspec

from jobsearch.profile import HackerNews
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, Unread, convert_each, parse_date
from jobsearch.sources.hn import Role, read_comment
from jobsearch.sources.hn.extract import Extractor
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://hn.algolia.com"
ITEM_URL = "https://news.ycombinator.com/item?id={}"
THREAD_TITLE = "ask hn: who is hiring?"
UNREADABLE = "unreadable comment"  # the skip a model may read (`read_unread`)


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
    return read_thread(body, name)


def read_thread(body: dict[str, Any], name: str) -> Fetched:
    """The listings of a thread's top-level comments (the item as `GET /api/v1/items/{id}` gives
    it): one per role, the comments that are no posting and those not read counted by reason; the
    unreadable ones kept (`Fetched.unread`) for `read_unread`."""
    collector = Collector("hackernews", name)
    comments = convert_each(body.get("children"), HNComment, collector)
    unread: list[Unread] = []
    for comment in comments:
        if not comment.text:
            collector.skip("deleted comment")
            continue
        reading = read_comment(comment.text)
        if reading.skip is not None:
            collector.skip(reading.skip)
            if reading.skip == UNREADABLE and comment.id is not None:
                unread.append(Unread(id=str(comment.id), html=comment.text, created_at=comment.created_at))
            continue
        _add(collector, comment, [(reading.company, role) for role in reading.roles])
    children = body.get("children")
    return collector.result(read=len(children) if isinstance(children, list) else 0, unread=unread)


async def read_unread(fetched: Fetched, name: str, extractor: Extractor) -> Fetched:
    """`fetched` with the postings a model read from its unreadable comments (`hn.extract`: each
    checked against the comment), those comments no longer counted unreadable, and what the pass
    did (`Fetched.extraction`). A comment the model could not read stays unreadable; never raises
    for a provider's failure."""
    if not fetched.unread:
        return fetched
    found, extraction = await extractor.read_all(fetched.unread)
    collector = Collector("hackernews", name)
    for unread in fetched.unread:
        read = found.get(unread.id)
        if read is not None and read.postings:
            comment = HNComment(id=int(unread.id), text=unread.html, created_at=unread.created_at)
            _add(collector, comment, read.postings, read_by=read.by)
    reasons = Counter(fetched.skipped_reasons)
    reasons.update(collector.reasons)
    reasons[UNREADABLE] -= extraction.read
    kept = {reason: n for reason, n in reasons.items() if n > 0}
    return msgspec.structs.replace(
        fetched,
        listings=[*fetched.listings, *collector.listings],
        skipped=sum(kept.values()),
        skipped_reasons=kept,
        unread=[],
        extraction=extraction,
    )


def _add(
    collector: Collector, comment: HNComment, roles: list[tuple[str, Role]], *, read_by: str | None = None
) -> None:
    """One listing per role of the comment; `read_by`, the model that read it, when the rules
    could not (said in the description)."""
    description, hidden = text.visible_text(comment.text)
    first_line = description.split("\n", 1)[0]
    back = ITEM_URL.format(comment.id)
    several = len(roles) > 1
    shared = Counter(role.url for _, role in roles if role.url)
    for n, (company, role) in enumerate(roles, start=1):
        how = [f"Hacker News: {back}"]
        if role.url:
            how.append(f"Apply: {role.url}")
        if role.email:
            how.append(f"Apply by e-mail: {role.email}")
        if read_by:
            how.append(f"Read by {read_by}: the rules could not read this comment")
        places = [*role.places, *([role.region] if role.workplace == "remote" and role.region else [])]
        collector.add(
            external_id=comment.id if n == 1 else f"{comment.id}-{n}",
            url=_listing_url(role.url, shared, back, n),
            title=role.title,
            company=company,
            locations=places,
            workplace=role.workplace,
            employment_type=role.employment,
            salary=role.salary,
            posted_at=parse_date(comment.created_at),
            description="\n".join(how) + "\n\n" + (_own(role, first_line) if several else description),
            hidden_parts=hidden,
        )


def _listing_url(apply: str | None, shared: Counter[str], back: str, n: int) -> str:
    """The apply link, unless other roles of the comment share it (a careers page, not this role's
    posting): then the comment, told apart per role, since one URL is one posting to dedupe."""
    if apply and shared[apply] == 1:
        return apply
    return back if n == 1 else f"{back}&role={n}"


def _own(role: Role, first_line: str) -> str:
    """A split role's description: the comment's first line and the role's own line. The rest of
    the comment (what the company does, how it works) is on the back-link: copied into every
    role's listing, the same text would make dedupe take the roles for one job."""
    own = role.own_text.strip()
    return first_line if not own or own in first_line else f"{first_line}\n\n{role.title}: {own}"


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
