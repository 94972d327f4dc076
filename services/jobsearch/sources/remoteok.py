"""Remote OK: `GET /api` (optionally `?tag=python`).

A JSON array whose element 0 is Remote OK's legal notice (`{"legal": ...}`), then the jobs:
`id`, `slug`, `position` (the title), `company`, `location`, `tags`, `description` (HTML),
`salary_min`/`salary_max` (yearly USD; 0 when not given), `date` (ISO), `url`. Every job is remote.
Remote OK's terms ask for a link back to Remote OK: the listing's URL is its Remote OK page.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.listing import Salary
from jobsearch.profile import RemoteOK
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://remoteok.com"


class RemoteOKJob(msgspec.Struct, kw_only=True, frozen=True):
    """One job as Remote OK lists it (only the fields we map)."""

    id: str | int | None = None
    position: str | None = None
    company: str | None = None
    location: str | None = None
    description: str | None = None
    salary_min: float | None = None
    salary_max: float | None = None
    date: str | None = None
    epoch: int | None = None
    url: str | None = None
    tags: list[str] = []


async def fetch(http: BoardHttp, source: RemoteOK, name: str) -> Fetched:
    """Read Remote OK (all jobs, or one tag's)."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/api"
    body: Any = await http.get_json("remoteok", url, params={"tag": source.tag} if source.tag else None)
    if not isinstance(body, list):
        raise SourceError("remoteok", "malformed", "answered with JSON that is not a list", url=url)
    collector = Collector("remoteok", name)
    jobs = [item for item in body if not (isinstance(item, dict) and "legal" in item)]
    for job in convert_each(jobs, RemoteOKJob, collector):
        low, high = job.salary_min or None, job.salary_max or None
        description, hidden = text.visible_text(job.description)
        collector.add(
            external_id=job.id,
            url=job.url,
            title=job.position,
            company=job.company,
            locations=[job.location or ""],
            workplace="remote",
            salary=Salary(min=low, max=high, currency="USD", interval="year") if low or high else None,
            posted_at=parse_date(job.date or job.epoch),
            description=description,
            hidden_parts=hidden,
        )
    return collector.result()
