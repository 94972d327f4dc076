"""Greenhouse Job Board API: `GET /v1/boards/{token}/jobs?content=true`.

One request gives the whole board: `{"jobs": [...], "meta": {"total": N}}`. `content` is the
description as HTML-escaped HTML (`&lt;p&gt;`); `location.name` is free text; `departments` and
`offices` are lists. An unknown token answers 404.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.profile import Greenhouse
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://boards-api.greenhouse.io"


class _Named(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None


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
    offices: list[_Named] = []
    company_name: str | None = None


async def fetch(http: BoardHttp, source: Greenhouse, name: str) -> Fetched:
    """Read a Greenhouse board."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/v1/boards/{source.token}/jobs"
    body: Any = await http.get_json("greenhouse", url, params={"content": "true"})
    collector = Collector("greenhouse", name)
    jobs = body.get("jobs") if isinstance(body, dict) else None
    for job in convert_each(jobs, GreenhouseJob, collector):
        where = job.location.name if job.location else None
        collector.add(
            external_id=job.id,
            url=job.absolute_url,
            title=job.title,
            company=job.company_name or source.token,
            locations=[part.strip() for part in (where or "").split(";")],
            remote=True if where and "remote" in where.lower() else None,
            posted_at=parse_date(job.first_published or job.updated_at),
            description=text.html_to_text(job.content, escaped=True),
            department=next((d.name for d in job.departments if d.name), None),
        )
    return collector.result()
