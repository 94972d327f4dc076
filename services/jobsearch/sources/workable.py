"""Workable's public job widget: `GET /api/v1/widget/accounts/{account}?details=true`.

One request gives the account: `{"name": ..., "jobs": [...]}` where each job has `title`,
`shortcode`, `employment_type`, `telecommuting`, `department`, `url`, `published_on`, `city`,
`state`, `country`, `locations` (each `city`, `region`, `country`, `countryCode`, `hidden`) and,
with `details=true`, `description` (HTML). The widget documents no workplace beyond
`telecommuting` and no pay; Workable's authenticated API (SPI v3) has `workplace_type` (`on_site`,
`hybrid`, `remote`, in its `location`) and `salary` (`salary_from`, `salary_to`,
`salary_currency`, no interval), and these are read in that shape when a widget answer carries
them. Otherwise pay is read from the description.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.listing import Salary
from jobsearch.profile import Workable
from jobsearch.salary import inferred_interval
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_named

BASE_URL = "https://apply.workable.com"


class _Location(msgspec.Struct, kw_only=True, frozen=True):
    city: str | None = None
    region: str | None = None
    country: str | None = None
    hidden: bool = False
    workplace_type: str | None = None


class _Salary(msgspec.Struct, kw_only=True, frozen=True):
    salary_from: float | None = None
    salary_to: float | None = None
    salary_currency: str | None = None


class WorkableJob(msgspec.Struct, kw_only=True, frozen=True):
    """One job as the widget lists it (only the fields we map)."""

    title: str | None = None
    shortcode: str | None = None
    employment_type: str | None = None
    telecommuting: bool | None = None
    workplace_type: str | None = None
    location: _Location | None = None
    salary: _Salary | None = None
    department: str | None = None
    url: str | None = None
    shortlink: str | None = None
    published_on: str | None = None
    created_at: str | None = None
    city: str | None = None
    state: str | None = None
    country: str | None = None
    locations: list[_Location] = []
    description: str | None = None


def _place(*parts: str | None) -> str:
    return ", ".join(p for p in parts if p)


async def fetch(http: BoardHttp, source: Workable, name: str) -> Fetched:
    """Read a Workable account's published jobs."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/api/v1/widget/accounts/{source.account}"
    body: Any = await http.get_json("workable", url, params={"details": "true"})
    collector = Collector("workable", name)
    company = body.get("name") if isinstance(body, dict) else None
    jobs = body.get("jobs") if isinstance(body, dict) else None
    for job in convert_each(jobs, WorkableJob, collector):
        places = [_place(loc.city, loc.region, loc.country) for loc in job.locations if not loc.hidden]
        workplace = job.workplace_type or (job.location.workplace_type if job.location else None)
        description, hidden = text.visible_text(job.description)
        collector.add(
            external_id=job.shortcode,
            url=job.url or job.shortlink,
            title=job.title,
            company=company if isinstance(company, str) else source.account,
            locations=places or [_place(job.city, job.state, job.country)],
            remote=job.telecommuting,
            workplace=workplace_named(workplace),
            salary=_salary(job.salary),
            employment_type=job.employment_type,
            posted_at=parse_date(job.published_on or job.created_at),
            description=description,
            hidden_parts=hidden,
            department=job.department,
        )
    return collector.result()


def _salary(salary: _Salary | None) -> Salary | None:
    """Workable's salary object; it names no interval, so a year's size is read as a year."""
    if salary is None or (salary.salary_from is None and salary.salary_to is None):
        return None
    low, high = salary.salary_from, salary.salary_to
    return Salary(min=low, max=high, currency=salary.salary_currency, interval=inferred_interval(low, high))
