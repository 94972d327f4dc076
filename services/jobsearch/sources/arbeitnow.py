"""Arbeitnow: `GET /api/job-board-api?page=N`, paged.

`{"data": [...], "links": {"next": ...}, "meta": {...}}`; each job has `slug` (its id), `title`,
`company_name`, `description` (HTML), `remote`, `url`, `tags`, `job_types`, `location` and
`created_at` (epoch seconds). `remote: false` says only that a job is not remote (it may be
hybrid): the workplace is then what the title says, if anything. There is no salary field.
Pages are read until `links.next` is empty or `max_pages`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.profile import Arbeitnow
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_in_text

BASE_URL = "https://www.arbeitnow.com"


class ArbeitnowJob(msgspec.Struct, kw_only=True, frozen=True):
    """One job as Arbeitnow lists it (only the fields we map)."""

    slug: str | None = None
    title: str | None = None
    company_name: str | None = None
    description: str | None = None
    remote: bool | None = None
    url: str | None = None
    job_types: list[str] = []
    location: str | None = None
    created_at: int | str | None = None


async def fetch(http: BoardHttp, source: Arbeitnow, name: str) -> Fetched:
    """Read up to `source.max_pages` pages of Arbeitnow's job board."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/api/job-board-api"
    collector = Collector("arbeitnow", name)
    for page in range(1, source.max_pages + 1):
        body: Any = await http.get_json("arbeitnow", url, params={"page": page})
        data = body.get("data") if isinstance(body, dict) else None
        for job in convert_each(data, ArbeitnowJob, collector):
            description, hidden = text.visible_text(job.description)
            collector.add(
                external_id=job.slug,
                url=job.url,
                title=job.title,
                company=job.company_name,
                locations=[job.location or ""],
                remote=job.remote,
                workplace="remote" if job.remote else workplace_in_text(job.title),
                employment_type=", ".join(job.job_types) or None,
                posted_at=parse_date(job.created_at),
                description=description,
                hidden_parts=hidden,
            )
        links = body.get("links") if isinstance(body, dict) else None
        if not data or not (isinstance(links, dict) and links.get("next")):
            return collector.result()
    return collector.result(complete=False)  # `max_pages` read and the board names a next one
