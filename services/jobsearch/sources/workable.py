"""Workable's public job widget: `GET /api/v1/widget/accounts/{account}?details=true`.

One request gives the account: `{"name": ..., "jobs": [...]}` where each job has `title`,
`shortcode`, `employment_type`, `telecommuting`, `department`, `url`, `published_on`, `city`,
`state`, `country`, `locations` and, with `details=true`, `description` (HTML).
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.profile import Workable
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://apply.workable.com"


class _Location(msgspec.Struct, kw_only=True, frozen=True):
    city: str | None = None
    region: str | None = None
    country: str | None = None
    hidden: bool = False


class WorkableJob(msgspec.Struct, kw_only=True, frozen=True):
    """One job as the widget lists it (only the fields we map)."""

    title: str | None = None
    shortcode: str | None = None
    employment_type: str | None = None
    telecommuting: bool | None = None
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
        collector.add(
            external_id=job.shortcode,
            url=job.url or job.shortlink,
            title=job.title,
            company=company if isinstance(company, str) else source.account,
            locations=places or [_place(job.city, job.state, job.country)],
            remote=job.telecommuting,
            employment_type=job.employment_type,
            posted_at=parse_date(job.published_on or job.created_at),
            description=text.html_to_text(job.description),
            department=job.department,
        )
    return collector.result()
