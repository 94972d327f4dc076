"""Breezy HR careers portal: `GET https://{company}.breezy.hr/json?verbose=true`.

One request gives the whole board, a bare JSON array of positions (no paging): `id`,
`friendly_id`, `name` (the title), `url` (`{origin}/p/{friendly_id}...`), `published_date` (ISO
8601), `type` (`{"id": "fullTime", "name": "Full-Time"}`), `location` (`name`, `city`, `state`
and `country` as `{"id", "name"}`, `is_remote`, `remote_details` as `{"value", "label"}`),
`locations` (the same shape, one per place), `department` (text), `salary` (free text, such as
`$115,000 - $145,000 / year` with an en dash, or "") and `company` (`name`, `logo_url`,
`friendly_id`). `verbose=true` adds `description` (HTML), which the plain list lacks:
descriptions included, the board is still one request, and no position's page is read.

This feed is what Breezy's own careers pages and job widget read. Breezy documents it nowhere
(its documented v3 API needs a customer's token), so the shape here is the one real responses
show, read leniently: `_id` (the v3 API's name) stands in for `id`, and `type`, `state`,
`country` and `department` may be plain text instead of objects.

`is_remote` is true for hybrid positions too: `remote_details.value` (`remote`,
`remote-location`, `hybrid`) says which, and `is_remote: false` is on-site. `salary` is the
board's own field, read with `salary_from_text`; a bare `$` is that reader's US dollar, so for a
position in another dollar country (Canada, Australia...) it is that country's dollar. A company
name Breezy does not know answers 404, or is redirected to Breezy's home page (an HTML page).
"""

from __future__ import annotations

import re
from typing import Any, Final

import msgspec

from jobsearch.listing import Salary, Workplace
from jobsearch.profile import Breezy
from jobsearch.salary import salary_from_text
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_named

# The countries whose own currency a bare `$` names (ISO 3166 code -> ISO 4217 code).
_DOLLARS: Final = {"CA": "CAD", "AU": "AUD", "NZ": "NZD", "SG": "SGD", "HK": "HKD"}
_US_DOLLARS: Final = re.compile(r"\bUS\s?\$|\bUSD\b|\bUS dollars?\b", re.I)


class _Named(msgspec.Struct, kw_only=True, frozen=True):
    id: str | int | None = None
    name: str | None = None


def _name(value: _Named | str | None) -> str:
    """An `{"id", "name"}` object's name (else its id), or the plain text given in its place."""
    if isinstance(value, _Named):
        return value.name or (str(value.id) if value.id is not None else "")
    return value or ""


class _RemoteDetails(msgspec.Struct, kw_only=True, frozen=True):
    value: str | None = None  # remote, remote-location, hybrid
    label: str | None = None


class _Place(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None
    city: str | None = None
    state: _Named | str | None = None
    country: _Named | str | None = None
    is_remote: bool | None = None
    remote_details: _RemoteDetails | None = None

    @property
    def text(self) -> str:
        """Breezy's own `name` ("Tampa, FL"), else city, state and country."""
        parts = (self.city or "", _name(self.state), _name(self.country))
        return self.name or ", ".join(p for p in parts if p)

    @property
    def country_code(self) -> str:
        code = self.country.id if isinstance(self.country, _Named) else None
        return str(code).upper() if code is not None else ""

    @property
    def workplace(self) -> Workplace | None:
        """`remote_details.value` where it names one, else `is_remote` (false is on-site)."""
        detail = (self.remote_details.value if self.remote_details else None) or ""
        if named := workplace_named(detail):
            return named
        if detail.lower().startswith("remote") or self.is_remote:
            return "remote"
        return "onsite" if self.is_remote is False else None


class _Company(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None


class BreezyPosition(msgspec.Struct, kw_only=True, frozen=True):
    """One position as the careers portal's `/json` lists it (only the fields we map)."""

    id: str | int | None = None
    v3_id: str | None = msgspec.field(default=None, name="_id")
    friendly_id: str | None = None
    name: str | None = None
    url: str | None = None
    published_date: str | None = None
    type: _Named | str | None = None
    location: _Place | None = None
    locations: list[_Place] = []
    department: _Named | str | None = None
    salary: Any = None  # text wherever seen; anything else is not read
    company: _Company | None = None
    description: str | None = None  # HTML, with `verbose=true`

    @property
    def primary(self) -> _Place | None:
        return self.location or next(iter(self.locations), None)


async def fetch(http: BoardHttp, source: Breezy, name: str) -> Fetched:
    """Read a Breezy HR company's careers portal: every position, in one request."""
    origin = (source.base_url or f"https://{source.company}.breezy.hr").rstrip("/")
    url = f"{origin}/json?verbose=true"
    try:
        body: Any = await http.get_json("breezy", url)
    except SourceError as exc:
        if exc.kind != "html_page":
            raise
        if exc.url and exc.url != url:  # sent elsewhere: Breezy's answer to a name it does not know
            raise SourceError(
                "breezy",
                "not_found",
                f"no such company: sent to {exc.url} (check the source's `company`)",
                url=url,
            ) from None
        raise SourceError(
            "breezy",
            "html_page",
            "answered with an HTML page, not its positions list (check the source's `company`)",
            url=url,
        ) from None
    if not isinstance(body, list):
        raise SourceError(
            "breezy", "malformed", "answered with JSON that is not a list of positions", url=url
        )
    collector = Collector("breezy", name)
    for p in convert_each(body, BreezyPosition, collector):
        primary = p.primary
        pay = text.line(p.salary) if isinstance(p.salary, str) else ""
        description, hidden = text.visible_text(p.description)
        if pay:  # the pay as the company wrote it stays readable, even where it is not understood
            description = f"Salary: {pay}\n\n{description}".strip()
        collector.add(
            external_id=p.id if p.id is not None else p.v3_id,
            url=p.url or (f"{origin}/p/{p.friendly_id}" if p.friendly_id else None),
            title=p.name,
            company=(p.company.name if p.company else None) or source.company,
            locations=[place.text for place in (p.locations or ([primary] if primary else []))],
            workplace=primary.workplace if primary else None,
            employment_type=_name(p.type) or None,
            salary=stated_pay(pay, primary.country_code if primary else ""),
            posted_at=parse_date(p.published_date),
            description=description,
            hidden_parts=hidden,
            department=_name(p.department) or None,
        )
    return collector.result()


def stated_pay(pay: str, country: str) -> Salary | None:
    """The `salary` text as the board's own pay field; a bare `$` in a dollar country other than
    the US (`country`, an ISO 3166 code) is that country's dollar."""
    found = salary_from_text(pay)
    if found is None:
        return None
    currency = found.currency
    if currency == "USD" and country in _DOLLARS and not _US_DOLLARS.search(pay):
        currency = _DOLLARS[country]
    return msgspec.structs.replace(found, currency=currency, stated="field")
