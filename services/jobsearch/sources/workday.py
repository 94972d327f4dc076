"""Workday careers sites: the site's own search, then each posting's detail.

Workday documents no public API for its careers sites; these are the JSON endpoints the site's own
pages call. `POST https://{host}/wday/cxs/{tenant}/{site}/jobs` with `{"appliedFacets": {},
"limit": 20, "offset": N, "searchText": "..."}` gives `{"total", "jobPostings": [{"title",
"externalPath", "locationsText", "postedOn", "bulletFields"}], "facets"}` (`remoteType` and
`timeType` are read when a site adds them). `limit` is at most 20, and `total` is given on the
first page only (later pages say 0), so each query pages until a short page or the first page's
total, at most `MAX_PAGES`. `GET https://{host}/wday/cxs/{tenant}/{site}{externalPath}` gives
`{"jobPostingInfo": {"title", "jobDescription" (HTML), "location", "additionalLocations",
"postedOn", "startDate" (ISO), "timeType", "jobReqId", "externalUrl", "remoteType"},
"hiringOrganization": {"name"}}`. Details are read for at most `MAX_DETAILS` postings; a posting
whose detail cannot be read (404 once taken down, 403 from a site's firewall) keeps the list's data.

- **Ids** are `{tenant}/{last segment of externalPath}` (`acme/Engineer_R-1`): the list always
  gives the path, so a posting keeps its id whether or not its detail was read (`jobReqId` is only
  in the detail, and one requisition can be posted twice); the tenant is in it because requisition
  numbers are per tenant and repeat across employers.
- **Completeness.** A read narrowed by search terms shows only the matching postings: it is
  `complete=False`, so it closes nothing (set `search = []` to read the whole site so its closed
  postings are tracked). A whole read is complete when it reached the end and found as many
  postings as the first page's `total` (fewer: the list shifted under the read).
- **Dates** are the detail's ISO `startDate` when given, else `postedOn` ("Posted Today",
  "Posted Yesterday", "Posted 3 Days Ago") counted back from the fetch date; "Posted 30+ Days
  Ago" is taken as 30 days, the latest day it can be. These four fixed English forms are read by
  one pattern here: `dateparser` is no dependency, and other wordings give no date.
- **Locations**: the detail's `location` and `additionalLocations` (else `jobRequisitionLocation`),
  else the list's `locationsText` unless it is only a count ("2 Locations"). The URL is
  `externalUrl`, else the site's page; the company `hiringOrganization.name`, else the tenant; the
  workplace `remoteType`, else the location text.
- A wrong tenant or site answers 404 (`not_found`); some sites answer 400 or 422 (`refused`).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Final
from urllib.parse import urlsplit

import anyio
import msgspec

from jobsearch.profile import Workday
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_in_text, workplace_named

BOARD: Final = "workday"
PAGE = 20  # the endpoint's own cap on `limit`
MAX_PAGES = 50  # per query: 1,000 postings
MAX_DETAILS = 200

_NAME = re.compile(r"^[A-Za-z0-9_.~-]+$")
_HOST = re.compile(r"^[A-Za-z0-9.-]+(:\d+)?$")
_LOCALE = re.compile(r"^[a-z]{2}(-[A-Za-z0-9]{2,3})?$")
_POSTED = re.compile(r"^posted\s+(?:(today)|(yesterday)|(\d+)\+?\s+days?\s+ago)$", re.I)
_COUNT_ONLY = re.compile(r"^\d+\s+locations?$", re.I)
_PATH = re.compile(r"^/[^?#\s]+$")
_EXAMPLE = "https://acme.wd5.myworkdayjobs.com/en-US/External"


class WorkdayPosting(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One posting as the search lists it (only the fields we map)."""

    title: str | None = None
    external_path: str | None = None
    locations_text: str | None = None
    posted_on: str | None = None
    remote_type: str | None = None
    time_type: str | None = None


class _Descriptor(msgspec.Struct, kw_only=True, frozen=True):
    descriptor: str | None = None


class _Info(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    title: str | None = None
    job_description: str | None = None
    location: str | None = None
    additional_locations: list[str] = []
    job_requisition_location: _Descriptor | None = None
    posted_on: str | None = None
    start_date: str | None = None
    time_type: str | None = None
    external_url: str | None = None
    remote_type: str | None = None


class _Organization(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None


class WorkdayDetail(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One posting's detail (only the fields we map)."""

    job_posting_info: _Info = _Info()
    hiring_organization: _Organization | None = None


@dataclass(frozen=True, slots=True)
class CareersSite:
    """Where a Workday careers site is: its host, tenant and site, and its pages' address."""

    host: str
    tenant: str
    site: str
    public: str  # the site's pages: https://{host}/{locale/}{site}, or .../recruiting/{tenant}/{site}


def careers_site(source: Workday) -> CareersSite:
    """The site a source names by `url`, or by `host`, `tenant` and `site` (which override the url's).

    Raises:
        SourceError: `refused`, naming what to set, when the source does not name a site.
    """
    host, tenant, site, locale, shared = source.host, source.tenant, source.site, "", False
    if source.url:
        parts = urlsplit(source.url)
        path = [p for p in parts.path.split("/") if p]
        if len(path) > 1 and _LOCALE.match(path[0]):
            locale, path = f"{path[0]}/", path[1:]
        if path[:2] == ["wday", "cxs"] and len(path) > 3:  # the endpoint itself was given
            tenant, site = tenant or path[2], site or path[3]
        elif path[:1] == ["recruiting"] and len(path) > 2:  # wdN.myworkdaysite.com/recruiting/...
            tenant, site, shared = tenant or path[1], site or path[2], True
        elif path:
            site = site or path[0]
        host = host or parts.netloc.lower()
        tenant = tenant or host.split(".")[0]
        if not (host and site):
            raise SourceError(
                BOARD, "refused", f"`url` names no careers site (like {_EXAMPLE})", url=source.url
            )
    if not (host and tenant and site):
        missing = ", ".join(n for n, v in (("host", host), ("tenant", tenant), ("site", site)) if not v)
        raise SourceError(
            BOARD,
            "refused",
            f"set `url` (like {_EXAMPLE}) or `host`, `tenant` and `site` ({missing} missing)",
        )
    if not (_HOST.match(host) and _NAME.match(tenant) and _NAME.match(site)):
        raise SourceError(
            BOARD, "refused", f"not a careers site's host, tenant and site: {host} {tenant} {site}"
        )
    shared = shared or host.endswith(".myworkdaysite.com")
    where = f"recruiting/{tenant}/{site}" if shared else site
    return CareersSite(host, tenant, site, f"https://{host}/{locale}{where}")


async def fetch(http: BoardHttp, source: Workday, name: str, *, terms: Sequence[str] = ()) -> Fetched:
    """Read a Workday careers site: one search per term (`search`, else the profile's `terms`), or
    the whole site when there are none; then the postings' details.

    Only a whole read (no terms) can be `complete`: a searched one never lists every open posting.
    """
    where = careers_site(source)
    api = f"{(source.base_url or f'https://{where.host}').rstrip('/')}/wday/cxs/{where.tenant}/{where.site}"
    wanted = terms if source.search is None else source.search
    queries = list(dict.fromkeys(t.strip() for t in wanted if t.strip())) or [""]
    collector = Collector(BOARD, name)
    postings: dict[str, WorkdayPosting] = {}  # by external path: the searches' union
    complete = queries == [""]
    for query in queries:
        complete = await _search(http, f"{api}/jobs", query, postings, collector) and complete
    details: dict[str, WorkdayDetail] = {}

    async def detail(path: str) -> None:
        with contextlib.suppress(SourceError, msgspec.ValidationError):  # it keeps the list's data
            raw = await http.get_json(BOARD, f"{api}{path}")
            details[path] = msgspec.convert(raw, WorkdayDetail, strict=False)

    async with anyio.create_task_group() as tg:  # BoardHttp spaces them per host
        for path in list(postings)[:MAX_DETAILS]:
            tg.start_soon(detail, path)
    today = collector.fetched_at.date()
    for path, posting in postings.items():
        found = details.get(path)
        info = found.job_posting_info if found else _Info()
        org = found.hiring_organization if found else None
        places = [p for p in (info.location, *info.additional_locations) if p]
        if not places and info.job_requisition_location:
            places = [info.job_requisition_location.descriptor or ""]
        if not places and posting.locations_text and not _COUNT_ONLY.match(posting.locations_text.strip()):
            places = [posting.locations_text]
        title = info.title or posting.title
        description, hidden = text.visible_text(info.job_description)
        collector.add(
            external_id=f"{where.tenant}/{path.rstrip('/').rsplit('/', 1)[-1]}",
            url=info.external_url or f"{where.public}{path}",
            title=title,
            company=(org.name if org else None) or where.tenant,
            locations=places,
            workplace=workplace_named(info.remote_type or posting.remote_type)
            or workplace_in_text(*places, title),
            employment_type=info.time_type or posting.time_type,
            posted_at=parse_date(info.start_date)
            or posted_on(info.posted_on, today)
            or posted_on(posting.posted_on, today),
            description=description,
            hidden_parts=hidden,
        )
    return collector.result(complete=complete)


async def _search(
    http: BoardHttp, url: str, query: str, postings: dict[str, WorkdayPosting], collector: Collector
) -> bool:
    """Page one query to its end into `postings`; whether the read was whole (no cap, no shift)."""
    total = 0
    seen: set[str] = set()
    for page in range(MAX_PAGES):
        payload = {"appliedFacets": {}, "limit": PAGE, "offset": page * PAGE, "searchText": query}
        body: Any = await http.post_json(BOARD, url, payload)
        items = body.get("jobPostings") if isinstance(body, dict) else None
        if not isinstance(items, list):
            raise SourceError(BOARD, "malformed", "answered without a `jobPostings` list", url=url)
        if page == 0 and isinstance(body.get("total"), int):
            total = body["total"]  # later pages say 0
        for posting in convert_each(items, WorkdayPosting, collector):
            path = posting.external_path or ""
            if not _PATH.match(path) or "/../" in f"{path}/":
                collector.skip("no url")
                continue
            seen.add(path)
            postings.setdefault(path, posting)
        if len(items) < PAGE or (total > 0 and (page + 1) * PAGE >= total):
            return len(seen) >= total  # fewer than `total`: postings moved between pages meanwhile
    return False


def posted_on(value: str | None, today: date) -> date | None:
    """The date a `postedOn` text ("Posted 3 Days Ago") means, counted back from `today`; an ISO
    date as it is; None for any other text."""
    if not value:
        return None
    match = _POSTED.match(value.strip())
    if not match:
        return parse_date(value)
    if match[1]:
        return today
    if match[2]:
        return today - timedelta(days=1)
    return today - timedelta(days=min(int(match[3]), 3650))  # "30+ Days": 30, the latest it can be
