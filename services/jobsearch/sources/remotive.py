"""Remotive: `GET /api/remote-jobs` (optionally `?category=...&search=...`).

`{"0-legal-notice": ..., "job-count": N, "jobs": [...]}`; each job has `id`, `url`, `title`,
`company_name`, `category`, `job_type` (`full_time`...), `publication_date`,
`candidate_required_location`, `salary` (free text: read as the salary, still the board's own
field, and kept as the description's first line) and `description` (HTML). Every job is remote.
Remotive's terms: link back to the posting on Remotive and name Remotive as the source (the
listing's URL is the Remotive page, its board is `remotive`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from jobsearch.profile import Remotive
from jobsearch.salary import salary_from_text
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://remotive.com"
_TYPES = {
    "full_time": "Full-time",
    "part_time": "Part-time",
    "contract": "Contract",
    "freelance": "Freelance",
    "internship": "Internship",
}


class RemotiveJob(msgspec.Struct, kw_only=True, frozen=True):
    """One job as Remotive lists it (only the fields we map)."""

    id: int | str | None = None
    url: str | None = None
    title: str | None = None
    company_name: str | None = None
    category: str | None = None
    job_type: str | None = None
    publication_date: str | None = None
    candidate_required_location: str | None = None
    salary: str | None = None
    description: str | None = None


async def fetch(http: BoardHttp, source: Remotive, name: str) -> Fetched:
    """Read Remotive's remote jobs (filtered by category and search when given)."""
    base = (source.base_url or BASE_URL).rstrip("/")
    params = {k: v for k, v in (("category", source.category), ("search", source.search)) if v}
    body: Any = await http.get_json("remotive", f"{base}/api/remote-jobs", params=params or None)
    collector = Collector("remotive", name)
    jobs = body.get("jobs") if isinstance(body, dict) else None
    for job in convert_each(jobs, RemotiveJob, collector):
        description, hidden = text.visible_text(job.description)
        pay = text.line(job.salary)
        salary = salary_from_text(pay)
        if pay:
            description = f"Salary: {pay}\n\n{description}".strip()
        collector.add(
            external_id=job.id,
            url=job.url,
            title=job.title,
            company=job.company_name,
            locations=[job.candidate_required_location or ""],
            workplace="remote",
            salary=msgspec.structs.replace(salary, stated="field") if salary else None,
            employment_type=_TYPES.get(job.job_type or "", job.job_type),
            posted_at=parse_date(job.publication_date),
            description=description,
            hidden_parts=hidden,
            department=job.category,
        )
    return collector.result()
