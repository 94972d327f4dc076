"""Greenhouse Job Board API: `GET /v1/boards/{token}/jobs?content=true&pay_transparency=true`.

One request gives the whole board: `{"jobs": [...], "meta": {"total": N}}`. `content` is the
description as HTML-escaped HTML (`&lt;p&gt;`); `location.name` is free text (`;`-separated when a
job has several places); `departments` and `offices` (`name`, `location`) are lists. With
`pay_transparency=true`, a job whose company publishes pay has `pay_input_ranges`: one range per pay
zone, `{"min_cents", "max_cents", "currency_type", "title", "blurb"}`, with no interval field. There
is no workplace field: it is read from the location text. An unknown token answers 404.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.listing import Salary
from jobsearch.profile import Greenhouse
from jobsearch.salary import inferred_interval, stated_interval
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_in_text

BASE_URL = "https://boards-api.greenhouse.io"


class _Named(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None


class _Office(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None
    location: str | None = None


class _PayRange(msgspec.Struct, kw_only=True, frozen=True):
    min_cents: float | None = None
    max_cents: float | None = None
    currency_type: str | None = None
    title: str | None = None
    blurb: str | None = None  # HTML


class GreenhouseJob(msgspec.Struct, kw_only=True, frozen=True):
    """One job as the Job Board API lists it (only the fields we map)."""

    id: int | str | None = None
    title: str | None = None
    absolute_url: str | None = None
    location: _Named | None = None
    content: str | None = None
    updated_at: str | None = None
    first_published: str | None = None
    departments: list[_Named] = []
    offices: list[_Office] = []
    company_name: str | None = None
    pay_input_ranges: list[_PayRange] = []


async def fetch(http: BoardHttp, source: Greenhouse, name: str) -> Fetched:
    """Read a Greenhouse board."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/v1/boards/{source.token}/jobs"
    body: Any = await http.get_json("greenhouse", url, params={"content": "true", "pay_transparency": "true"})
    collector = Collector("greenhouse", name)
    jobs = body.get("jobs") if isinstance(body, dict) else None
    for job in convert_each(jobs, GreenhouseJob, collector):
        where = job.location.name if job.location else None
        offices = [office.location or office.name or "" for office in job.offices]
        description, hidden = text.visible_text(job.content, escaped=True)
        collector.add(
            external_id=job.id,
            url=job.absolute_url,
            title=job.title,
            company=job.company_name or source.token,
            locations=[*(part.strip() for part in (where or "").split(";")), *offices],
            workplace=workplace_in_text(where, *(office.name for office in job.offices)),
            salary=pay_range(job.pay_input_ranges),
            posted_at=parse_date(job.first_published or job.updated_at),
            description=description,
            hidden_parts=hidden,
            department=next((d.name for d in job.departments if d.name), None),
        )
    return collector.result()


def pay_range(ranges: list[_PayRange]) -> Salary | None:
    """The pay zones as one range: from the lowest minimum to the highest maximum of the zones in
    the first zone's currency.

    Greenhouse gives no interval. It is the one a zone's title names ("Hourly range"), else a year
    when the amounts are a year's size (`jobsearch.salary.inferred_interval`), else the one the
    blurb names: a blurb is long prose, trusted only where the amounts cannot tell.
    """
    priced = [r for r in ranges if r.min_cents is not None or r.max_cents is not None]
    if not priced:
        return None
    currency = priced[0].currency_type
    same = [r for r in priced if r.currency_type == currency]
    lows = [r.min_cents / 100 for r in same if r.min_cents is not None]
    highs = [r.max_cents / 100 for r in same if r.max_cents is not None]
    low, high = (min(lows) if lows else None), (max(highs) if highs else None)
    interval = (
        next((i for r in same if (i := stated_interval(r.title))), None)
        or inferred_interval(low, high)
        or next((i for r in same if (i := stated_interval(text.html_to_text(r.blurb)))), None)
    )
    return Salary(min=low, max=high, currency=currency or None, interval=interval)
