"""BambooHR careers site: the careers list, then each opening's detail.

`GET https://{company}.bamboohr.com/careers/list` gives the whole board in one request (no
paging): `{"meta": {"totalCount": N}, "result": [...]}`, each opening with `id` (digits, as a
string), `jobOpeningName` (the title), `departmentLabel`, `employmentStatusLabel`, `location`
(`city`, `state`), `atsLocation` (`country`, `state`, `province`, `city`), `isRemote` and
`locationType`. `GET .../careers/{id}/detail` gives `{"meta": {}, "result": {"jobOpening": {...}}}`
with the same fields and `description` (HTML), `datePosted` (`2026-07-21`), `compensation` (free
text or null), `jobOpeningShareUrl`, and `location` with `postalCode` and `addressCountry`. These
are the JSON documents BambooHR's own careers pages read; BambooHR documents them nowhere (its
documented API needs a customer's key), so the shape is the one real responses show, read
leniently: any field may be null, `id` may be a number, `isRemote` a string, and a bare list is
read as `result`.

`location` (the office) and `atsLocation` (the region a remote opening accepts) are alternates:
real boards fill one or the other. Both are listed, each the detail's copy where it names a place,
else the list's. `locationType` is BambooHR's location setting: "1" remote, "2" hybrid, "0" in
office. Most readers of it take "0" as on-site, as here; one notes that BambooHR's own page prints
no word for it, so an opening made before the setting existed may carry "0" too. A true
`isRemote` (null on every board seen) makes a non-hybrid opening remote. The records name no
company: the company is the source's `company`.

Details are read for at most `MAX_DETAILS` openings, the newest (highest id) first, one request
each, politely spaced; an opening whose detail cannot be read (BambooHR answers 404 for one closed
since the list) is kept without its description, date and pay. A capped read still lists every
opening, so it is complete; it is not when the list holds fewer openings than `meta.totalCount`.
A company BambooHR does not know is redirected to bamboohr.com's own site: an HTML page.
"""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import quote

import anyio
import msgspec

from jobsearch.listing import Salary, Workplace
from jobsearch.profile import BambooHR
from jobsearch.salary import salary_from_text
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

MAX_DETAILS = 200
_SUBDOMAIN: Final = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$")
_WORKPLACES: Final[dict[str, Workplace]] = {"0": "onsite", "1": "remote", "2": "hybrid"}
# The countries whose own currency a bare `$` names, by the name or code BambooHR gives.
_DOLLARS: Final = {
    **dict.fromkeys(("canada", "ca"), "CAD"),
    **dict.fromkeys(("australia", "au"), "AUD"),
    **dict.fromkeys(("new zealand", "nz"), "NZD"),
    **dict.fromkeys(("singapore", "sg"), "SGD"),
    **dict.fromkeys(("hong kong", "hk"), "HKD"),
}
_US_DOLLARS: Final = re.compile(r"\bUS\s?\$|\bUSD\b|\bUS dollars?\b", re.I)


class _Place(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """`location` or `atsLocation`: each has some of these fields."""

    city: str | None = None
    state: str | None = None
    province: str | None = None
    address_country: str | None = None
    country: str | None = None

    @property
    def nation(self) -> str:
        return self.address_country or self.country or ""

    @property
    def text(self) -> str:
        """City, state (else province) and country, a part equal to the one before it left out."""
        parts: list[str] = []
        for part in (self.city, self.state or self.province, self.nation):
            clean = text.line(part)
            if clean and (not parts or parts[-1].casefold() != clean.casefold()):
                parts.append(clean)
        return ", ".join(parts)


class BambooHROpening(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One opening as the list (or, with the detail's fields, the detail) gives it."""

    id: str | int | None = None
    job_opening_name: str | None = None
    department_label: str | None = None
    employment_status_label: str | None = None
    location: _Place | None = None
    ats_location: _Place | None = None
    is_remote: bool | str | None = None
    location_type: str | int | None = None
    description: str | None = None  # HTML; the detail's only
    date_posted: str | None = None
    compensation: Any = None  # text wherever seen; anything else is not read
    job_opening_share_url: str | None = None


class _DetailResult(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    job_opening: BambooHROpening


class _Detail(msgspec.Struct, kw_only=True, frozen=True):
    result: _DetailResult


async def fetch(http: BoardHttp, source: BambooHR, name: str) -> Fetched:
    """Read a BambooHR company's careers list and its openings' details."""
    if not _SUBDOMAIN.match(source.company):
        raise SourceError(
            "bamboohr", "not_found", f"{source.company!r} is not a BambooHR company name (a subdomain)"
        )
    public = f"https://{source.company}.bamboohr.com"
    origin = (source.base_url or public).rstrip("/")
    url = f"{origin}/careers/list"
    try:
        body: Any = await http.get_json("bamboohr", url)
    except SourceError as exc:
        if exc.kind != "html_page":
            raise
        raise SourceError(
            "bamboohr",
            "html_page",
            "answered with an HTML page, not its careers list (BambooHR sends a company name it "
            "does not know to its own site: check the source's `company`)",
            url=exc.url,
        ) from None
    items = body.get("result") if isinstance(body, dict) else body
    if not isinstance(items, list):
        raise SourceError("bamboohr", "malformed", "answered without a `result` list of openings", url=url)
    collector = Collector("bamboohr", name)
    openings = convert_each(items, BambooHROpening, collector)
    details: dict[str, BambooHROpening] = {}

    async def detail(opening_id: str) -> None:
        try:
            raw = await http.get_json("bamboohr", f"{origin}/careers/{quote(opening_id, safe='')}/detail")
            details[opening_id] = msgspec.convert(raw, _Detail, strict=False).result.job_opening
        except (SourceError, msgspec.ValidationError):
            pass  # the opening is kept without its description

    ids = [str(o.id) for o in openings if o.id is not None and str(o.id)]
    async with anyio.create_task_group() as tg:  # BoardHttp spaces them per host
        for opening_id in sorted(set(ids), key=_newest, reverse=True)[:MAX_DETAILS]:
            tg.start_soon(detail, opening_id)
    for listed in openings:
        opening_id = str(listed.id) if listed.id is not None else ""
        found = details.get(opening_id)
        o = found or listed
        office = _first(o.location, listed.location)
        region = _first(o.ats_location, listed.ats_location)
        country = next((p.nation for p in (office, region) if p and p.nation), "")
        pay = text.line(o.compensation) if isinstance(o.compensation, str) else ""
        description, hidden = text.visible_text(o.description)
        if pay:  # the pay as the company wrote it stays readable, even where it is not understood
            description = f"Salary: {pay}\n\n{description}".strip()
        collector.add(
            external_id=opening_id,
            url=o.job_opening_share_url or f"{public}/careers/{quote(opening_id, safe='')}",
            title=o.job_opening_name or listed.job_opening_name,
            company=source.company,
            locations=[office.text if office else "", region.text if region else ""],
            workplace=_workplace(o) or _workplace(listed),
            employment_type=o.employment_status_label or listed.employment_status_label,
            salary=stated_pay(pay, country),
            posted_at=parse_date(o.date_posted),
            description=description,
            hidden_parts=hidden,
            department=o.department_label or listed.department_label,
        )
    meta = body.get("meta") if isinstance(body, dict) else None
    total = meta.get("totalCount") if isinstance(meta, dict) else None
    short = isinstance(total, int) and not isinstance(total, bool) and len(items) < total
    return collector.result(complete=not short)


def _newest(opening_id: str) -> tuple[bool, int]:
    """A sort key, largest newest: BambooHR numbers openings as they are made (others oldest)."""
    return (opening_id.isdigit(), int(opening_id) if opening_id.isdigit() else 0)


def _first(*places: _Place | None) -> _Place | None:
    """The first place that names anything: the detail's copy, else the list's."""
    return next((p for p in places if p is not None and p.text), None)


def _workplace(o: BambooHROpening) -> Workplace | None:
    """`locationType` "2" hybrid, "1" or a true `isRemote` remote, "0" on-site; else unknown."""
    kind = _WORKPLACES.get(str(o.location_type).strip()) if o.location_type is not None else None
    flag = o.is_remote if isinstance(o.is_remote, bool) else str(o.is_remote).lower() == "true"
    if kind == "hybrid":
        return kind
    return "remote" if flag else kind


def stated_pay(pay: str, country: str) -> Salary | None:
    """`compensation` as the board's own pay field (`stated="field"`: the employer typed it as the
    pay, though as free text); a bare `$` in a dollar country other than the US (`country`, a name
    or ISO 3166 code) is that country's dollar."""
    found = salary_from_text(pay)
    if found is None:
        return None
    currency = found.currency
    dollar = _DOLLARS.get(country.strip().casefold())
    if currency == "USD" and dollar and not _US_DOLLARS.search(pay):
        currency = dollar
    return msgspec.structs.replace(found, currency=currency, stated="field")
