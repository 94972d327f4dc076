"""SmartRecruiters Posting API: the postings list, then each posting's detail.

`GET /v1/companies/{company}/postings?limit=100&offset=N` gives `{"offset", "limit",
"totalFound", "content": [...]}` with `id`, `name` (the title), `releasedDate`, `location`
(`city`, `region`, `country`, `remote`; `fullLocation` and `hybrid` are read when present, though
the Posting API's documentation lists neither), `department.label`, `typeOfEmployment.label` and
`company.name`. `GET /v1/companies/{company}/postings/{id}` adds `postingUrl` and `jobAd.sections`
(HTML text). The Posting API documents no compensation: pay is read from the job ad's text.
Details are read for at most `MAX_DETAILS` postings (one request each, politely spaced); a
posting whose detail cannot be read is kept without its description.
"""

from __future__ import annotations

from typing import Any

import anyio
import msgspec

from jobsearch.listing import Workplace
from jobsearch.profile import SmartRecruiters
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

BASE_URL = "https://api.smartrecruiters.com"
PAGE = 100
MAX_PAGES = 20
MAX_DETAILS = 200
PUBLIC_URL = "https://jobs.smartrecruiters.com"


class _Label(msgspec.Struct, kw_only=True, frozen=True):
    label: str | None = None


class _Company(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None
    identifier: str | None = None


class _Location(msgspec.Struct, kw_only=True, frozen=True):
    city: str | None = None
    region: str | None = None
    country: str | None = None
    remote: bool | None = None
    hybrid: bool | None = None
    full_location: str | None = msgspec.field(default=None, name="fullLocation")

    @property
    def place(self) -> str:
        """`fullLocation`, else city, region and country (a country code in capitals)."""
        country = self.country.upper() if self.country and len(self.country) == 2 else self.country
        return self.full_location or ", ".join(x for x in (self.city, self.region, country) if x)

    @property
    def workplace(self) -> Workplace | None:
        """Remote or hybrid by the flags; on-site only when both flags say no."""
        if self.remote:
            return "remote"
        if self.hybrid:
            return "hybrid"
        return "onsite" if self.remote is False and self.hybrid is False else None


class SmartRecruitersPosting(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One posting as the list gives it (only the fields we map)."""

    id: str | None = None
    name: str | None = None
    released_date: str | None = None
    location: _Location = _Location()
    department: _Label | None = None
    type_of_employment: _Label | None = None
    company: _Company | None = None


class _Section(msgspec.Struct, kw_only=True, frozen=True):
    title: str | None = None
    text: str | None = None


class _JobAd(msgspec.Struct, kw_only=True, frozen=True):
    sections: dict[str, _Section] = {}


class SmartRecruitersDetail(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One posting's detail (only the fields we map)."""

    posting_url: str | None = None
    job_ad: _JobAd | None = None


async def fetch(http: BoardHttp, source: SmartRecruiters, name: str) -> Fetched:
    """Read a SmartRecruiters company's postings and their details."""
    base = (source.base_url or BASE_URL).rstrip("/")
    url = f"{base}/v1/companies/{source.company}/postings"
    collector = Collector("smartrecruiters", name)
    postings: list[SmartRecruitersPosting] = []
    for page in range(MAX_PAGES):
        body: Any = await http.get_json("smartrecruiters", url, params={"limit": PAGE, "offset": page * PAGE})
        if not isinstance(body, dict):
            raise SourceError(
                "smartrecruiters", "malformed", "answered with JSON that is not an object", url=url
            )
        content = body.get("content")
        postings.extend(convert_each(content, SmartRecruitersPosting, collector))
        total = body.get("totalFound")
        if (
            not isinstance(content, list)
            or len(content) < PAGE
            or (isinstance(total, int) and len(postings) >= total)
        ):
            break
    details: dict[str, SmartRecruitersDetail] = {}

    async def detail(posting_id: str) -> None:
        try:
            raw = await http.get_json("smartrecruiters", f"{url}/{posting_id}")
            details[posting_id] = msgspec.convert(raw, SmartRecruitersDetail, strict=False)
        except (SourceError, msgspec.ValidationError):
            pass  # the posting is kept without its description

    async with anyio.create_task_group() as tg:  # BoardHttp spaces them per host
        for posting in postings[:MAX_DETAILS]:
            if posting.id:
                tg.start_soon(detail, posting.id)
    for p in postings:
        found = details.get(p.id or "")
        sections = found.job_ad.sections if found and found.job_ad else {}
        parts: list[str] = []
        hidden = 0
        for section in sections.values():
            plain, count = text.visible_text(section.text)
            hidden += count
            if section.text:
                parts.append(f"{text.line(section.title)}\n{plain}".strip())
        company_id = (p.company.identifier if p.company else None) or source.company
        collector.add(
            external_id=p.id,
            url=(found.posting_url if found else None) or f"{PUBLIC_URL}/{company_id}/{p.id}",
            title=p.name,
            company=(p.company.name if p.company else None) or source.company,
            locations=[p.location.place],
            remote=p.location.remote,
            workplace=p.location.workplace,
            employment_type=p.type_of_employment.label if p.type_of_employment else None,
            posted_at=parse_date(p.released_date),
            description=text.tidy("\n\n".join(parts)),
            hidden_parts=hidden,
            department=p.department.label if p.department else None,
        )
    return collector.result()
