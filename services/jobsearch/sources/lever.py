"""Lever Postings API: `GET /v0/postings/{site}?mode=json&skip=N&limit=M`.

The answer is a bare JSON array of postings; pages are read with `skip`/`limit` until a page
comes back shorter than `limit`. `text` is the title, `categories` holds location, allLocations,
team, department and commitment, `workplaceType` is `unspecified`, `on-site`, `remote` or `hybrid`,
`createdAt` is epoch milliseconds, `description` (HTML, else `descriptionPlain`), `lists` (HTML),
`additional` and `salaryDescription` the text, `salaryRange` (`currency`, `interval`, `min`,
`max`) the pay when the company publishes it. Lever documents no list of `interval` values; the
ones mapped are those its postings carry (`per-year-salary`, `per-hour-wage`...). An unknown site
is a 404.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.listing import Salary, SalaryInterval
from jobsearch.profile import Lever
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_named

BASE_URL = "https://api.lever.co"
PAGE = 100
MAX_PAGES = 50
_INTERVALS: dict[str, SalaryInterval] = {
    "per-year-salary": "year",
    "per-month-salary": "month",
    "per-week-salary": "week",
    "per-day-wage": "day",
    "per-hour-wage": "hour",
}


class _Categories(msgspec.Struct, kw_only=True, frozen=True):
    commitment: str | None = None
    department: str | None = None
    location: str | None = None
    team: str | None = None
    allLocations: list[str] = []


class _List(msgspec.Struct, kw_only=True, frozen=True):
    text: str | None = None
    content: str | None = None


class _SalaryRange(msgspec.Struct, kw_only=True, frozen=True):
    min: float | None = None
    max: float | None = None
    currency: str | None = None
    interval: str | None = None


class LeverPosting(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One posting as the Postings API lists it (only the fields we map)."""

    id: str | None = None
    text: str | None = None
    hosted_url: str | None = None
    categories: _Categories = _Categories()
    workplace_type: str | None = None
    created_at: int | None = None
    description_plain: str | None = None
    description: str | None = None
    lists: list[_List] = []
    additional: str | None = None
    additional_plain: str | None = None
    salary_range: _SalaryRange | None = None
    salary_description: str | None = None
    salary_description_plain: str | None = None


async def fetch(http: BoardHttp, source: Lever, name: str) -> Fetched:
    """Read a Lever site, page by page."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/v0/postings/{source.site}"
    collector = Collector("lever", name)
    for page in range(MAX_PAGES):
        body: Any = await http.get_json(
            "lever", url, params={"mode": "json", "skip": page * PAGE, "limit": PAGE}
        )
        if not isinstance(body, list):
            raise SourceError(
                "lever", "malformed", "answered with JSON that is not a list of postings", url=url
            )
        for posting in convert_each(body, LeverPosting, collector):
            _add(collector, posting, source.site)
        if len(body) < PAGE:
            return collector.result()
    return collector.result(complete=False)  # MAX_PAGES full pages: there may be more


def _add(collector: Collector, p: LeverPosting, site: str) -> None:
    cat = p.categories
    workplace = workplace_named(p.workplace_type)
    # The HTML, where there is some, rather than Lever's plain copy of it: only the markup shows
    # what a reader of the posting cannot see.
    hidden = 0
    parts: list[str] = []
    for html, plain, heading in (
        (p.description, p.description_plain, None),
        *((item.content, None, item.text) for item in p.lists),
        (p.additional, p.additional_plain, None),
        (p.salary_description, p.salary_description_plain, None),
    ):
        body, count = text.visible_text(html) if html else (text.tidy(plain), 0)
        hidden += count
        parts.append(f"{text.line(heading)}\n{body}" if heading else body)
    salary = None
    if p.salary_range is not None:
        r = p.salary_range
        salary = Salary(min=r.min, max=r.max, currency=r.currency, interval=_INTERVALS.get(r.interval or ""))
    collector.add(
        external_id=p.id,
        url=p.hosted_url,
        title=p.text,
        company=site,
        locations=[cat.location or "", *cat.allLocations],
        workplace=workplace,
        employment_type=cat.commitment,
        salary=salary,
        posted_at=parse_date(p.created_at),
        description=text.tidy("\n\n".join(part for part in parts if part)),
        hidden_parts=hidden,
        department=cat.team or cat.department,
    )
