"""Ashby Job Posting API: `GET /posting-api/job-board/{name}?includeCompensation=true`.

One request gives the whole board: `{"apiVersion": "1", "jobs": [...]}`. Each job has `title`,
`location`, `secondaryLocations`, `isRemote`, `workplaceType`, `employmentType` (`FullTime`...),
`publishedAt`, `jobUrl`, `descriptionPlain`/`descriptionHtml`, `department`, `team`, `isListed`
and, when asked, `compensation.summaryComponents` (`compensationType: "Salary"`, `interval:
"1 YEAR"`, `currencyCode`, `minValue`, `maxValue`). Unlisted jobs are skipped.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.listing import Salary, SalaryInterval
from jobsearch.profile import Ashby
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://api.ashbyhq.com"
_EMPLOYMENT = {
    "FullTime": "Full-time",
    "PartTime": "Part-time",
    "Intern": "Internship",
    "Contract": "Contract",
    "Temporary": "Temporary",
}
_INTERVALS: dict[str, SalaryInterval] = {
    "1 YEAR": "year",
    "1 MONTH": "month",
    "1 WEEK": "week",
    "1 DAY": "day",
    "1 HOUR": "hour",
}


class _Secondary(msgspec.Struct, kw_only=True, frozen=True):
    location: str | None = None


class _Component(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    compensation_type: str | None = None
    interval: str | None = None
    currency_code: str | None = None
    min_value: float | None = None
    max_value: float | None = None


class _Compensation(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    summary_components: list[_Component] = []


class AshbyJob(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One job as the Job Posting API lists it (only the fields we map)."""

    id: str | None = None
    title: str | None = None
    location: str | None = None
    secondary_locations: list[_Secondary] = []
    department: str | None = None
    team: str | None = None
    is_listed: bool = True
    is_remote: bool | None = None
    workplace_type: str | None = None
    employment_type: str | None = None
    published_at: str | None = None
    job_url: str | None = None
    description_plain: str | None = None
    description_html: str | None = None
    compensation: _Compensation | None = None


async def fetch(http: BoardHttp, source: Ashby, name: str) -> Fetched:
    """Read an Ashby job board."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/posting-api/job-board/{source.board_name}"
    body: Any = await http.get_json("ashby", url, params={"includeCompensation": "true"})
    collector = Collector("ashby", name)
    jobs = body.get("jobs") if isinstance(body, dict) else None
    for job in convert_each(jobs, AshbyJob, collector):
        if not job.is_listed:
            collector.skip("unlisted")
            continue
        workplace = (job.workplace_type or "").lower()
        remote = job.is_remote if job.is_remote is not None else (workplace == "remote" or None)
        collector.add(
            external_id=job.id,
            url=job.job_url,
            title=job.title,
            company=source.board_name,
            locations=[job.location or "", *(s.location or "" for s in job.secondary_locations)],
            remote=remote,
            employment_type=_EMPLOYMENT.get(job.employment_type or "", job.employment_type),
            salary=_salary(job.compensation),
            posted_at=parse_date(job.published_at),
            description=text.tidy(job.description_plain) or text.html_to_text(job.description_html),
            department=job.department or job.team,
        )
    return collector.result()


def _salary(compensation: _Compensation | None) -> Salary | None:
    if compensation is None:
        return None
    for c in compensation.summary_components:
        if (c.compensation_type or "").lower() == "salary":
            return Salary(
                min=c.min_value,
                max=c.max_value,
                currency=c.currency_code,
                interval=_INTERVALS.get((c.interval or "").upper()),
            )
    return None
