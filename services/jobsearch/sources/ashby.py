"""Ashby Job Posting API: `GET /posting-api/job-board/{name}?includeCompensation=true`.

One request gives the whole board: `{"apiVersion": "1", "jobs": [...]}`. Each job has `title`,
`location`, `secondaryLocations` (`location`, `address`), `isRemote`, `workplaceType` (`OnSite`,
`Hybrid`, `Remote`), `employmentType` (`FullTime`...), `publishedAt`, `jobUrl`,
`descriptionHtml`/`descriptionPlain`, `department`, `team`, `isListed` and, when asked,
`compensation`: `summaryComponents` (each with `compensationType`, `interval` like `"1 YEAR"`,
`currencyCode`, `minValue`, `maxValue`), the same per pay zone in `compensationTiers[].components`,
and the text `compensationTierSummary` / `scrapeableCompensationSalarySummary`. Unlisted jobs are
skipped.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec

from jobsearch.listing import Salary, SalaryInterval
from jobsearch.profile import Ashby
from jobsearch.salary import salary_from_text
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_named

BASE_URL = "https://api.ashbyhq.com"
_EMPLOYMENT = {
    "FullTime": "Full-time",
    "PartTime": "Part-time",
    "Intern": "Internship",
    "Contract": "Contract",
    "Temporary": "Temporary",
}
_UNITS: dict[str, SalaryInterval] = {
    "YEAR": "year",
    "MONTH": "month",
    "WEEK": "week",
    "DAY": "day",
    "HOUR": "hour",
}
_INTERVAL = re.compile(r"^\s*(\d+)\s+(YEAR|MONTH|WEEK|DAY|HOUR)S?\s*$", re.I)


class _Secondary(msgspec.Struct, kw_only=True, frozen=True):
    location: str | None = None


class _Component(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    compensation_type: str | None = None
    interval: str | None = None
    currency_code: str | None = None
    min_value: float | None = None
    max_value: float | None = None


class _Tier(msgspec.Struct, kw_only=True, frozen=True):
    components: list[_Component] = []


class _Compensation(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    summary_components: list[_Component] = []
    compensation_tiers: list[_Tier] = []
    compensation_tier_summary: str | None = None
    scrapeable_compensation_salary_summary: str | None = None


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
        # The HTML rather than Ashby's plain copy: only the markup shows what a reader cannot see.
        description, hidden = (
            text.visible_text(job.description_html)
            if job.description_html
            else (text.tidy(job.description_plain), 0)
        )
        collector.add(
            external_id=job.id,
            url=job.job_url,
            title=job.title,
            company=source.board_name,
            locations=[job.location or "", *(s.location or "" for s in job.secondary_locations)],
            remote=job.is_remote,
            workplace=workplace_named(job.workplace_type),
            employment_type=_EMPLOYMENT.get(job.employment_type or "", job.employment_type),
            salary=compensation_salary(job.compensation),
            posted_at=parse_date(job.published_at),
            description=description,
            hidden_parts=hidden,
            department=job.department or job.team,
        )
    return collector.result()


def compensation_salary(compensation: _Compensation | None) -> Salary | None:
    """The salary in Ashby's compensation: the `Salary` summary component, else the span of the
    tiers' salary components, else the salary summary text (still Ashby's own field). Equity,
    bonus and commission components are not salary."""
    if compensation is None:
        return None
    for component in compensation.summary_components:
        if (salary := _component_salary(component)) is not None:
            return salary
    tiers = [
        s for tier in compensation.compensation_tiers for c in tier.components if (s := _component_salary(c))
    ]
    if tiers:
        lows = [s.min for s in tiers if s.min is not None and s.currency == tiers[0].currency]
        highs = [s.max for s in tiers if s.max is not None and s.currency == tiers[0].currency]
        return msgspec.structs.replace(
            tiers[0], min=min(lows) if lows else None, max=max(highs) if highs else None
        )
    summary = compensation.scrapeable_compensation_salary_summary or compensation.compensation_tier_summary
    found = salary_from_text(summary)
    return msgspec.structs.replace(found, stated="field") if found else None


def _component_salary(c: _Component) -> Salary | None:
    if (c.compensation_type or "").lower() != "salary" or (c.min_value is None and c.max_value is None):
        return None
    interval, per = None, 1
    if (match := _INTERVAL.match(c.interval or "")) is not None:
        # "2 WEEK" is pay per fortnight: half of it per week.
        interval, per = _UNITS[match.group(2).upper()], max(1, int(match.group(1)))
    return Salary(
        min=c.min_value / per if c.min_value is not None else None,
        max=c.max_value / per if c.max_value is not None else None,
        currency=c.currency_code,
        interval=interval,
    )
