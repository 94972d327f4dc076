"""Recruitee Careers Site API: `GET https://{company}.recruitee.com/api/offers/`.

One request gives the whole board: `{"offers": [...]}`, every published offer. The API documents
no paging (only a department or tag filter) and ignores `page` and `limit`, so the read is
complete once parsed. Each offer has `id`, `slug`, `title`, `company_name`, `careers_url` (the
posting's page, on the company's own domain where it has one), `careers_apply_url`,
`description` and `requirements` (HTML), `highlight` (a short summary, in some offers the only
place a phrase is written), `department`, `employment_type_code` (`fulltime_permanent`,
`parttime_fixed_term`, `internship`...), `min_hours`/`max_hours` (a week), the booleans `remote`,
`hybrid` and `on_site`, `location` (display text, "Amsterdam, Noord-Holland, Netherlands", at
times "Remote job"), `city`, `state_name`, `country`, `country_code`, `locations` (one object per
place: `city`, `state`, `country`, `country_code`, `name`), `salary` (`min`, `max` as strings such
as `"18.50"` or numbers, `currency`, `period`: `year`, `month`, `hour`; all four null on most
offers), `published_at`, `created_at` and `close_at` (`"2026-10-05 16:05:18 UTC"`, not ISO 8601)
and `translations` (`{lang: {title, description, requirements...}}`). A company name Recruitee
does not know answers 404 (`{"error": "Not Found"}`).

Where the shapes seen disagree they are all read: a location object's state is `state` (or
`state_name`), amounts are strings or numbers, and an offer whose top-level text is empty takes
its first translation's. `hybrid` and `on_site` are both true on some real offers: that is hybrid
(the on-site days are part of it). An offer whose `status` says other than `published` is skipped.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Final

import msgspec

from jobsearch.listing import Salary, SalaryInterval, Workplace
from jobsearch.profile import Recruitee
from jobsearch.salary import inferred_interval
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp

_EMPLOYMENT: Final = {
    "fulltime": "Full-time", "fulltime_permanent": "Full-time, permanent",
    "fulltime_fixed_term": "Full-time, fixed-term", "parttime": "Part-time",
    "parttime_permanent": "Part-time, permanent", "parttime_fixed_term": "Part-time, fixed-term",
    "internship": "Internship", "traineeship": "Traineeship", "apprenticeship": "Apprenticeship",
    "freelance": "Freelance", "contract": "Contract", "temporary": "Temporary", "volunteer": "Volunteer",
}  # fmt: skip
# `year`, `month` and `hour` are the periods real offers carry; the others are read in case.
_PERIODS: Final[dict[str, SalaryInterval]] = {
    "year": "year", "yearly": "year", "annual": "year", "annually": "year", "month": "month",
    "monthly": "month", "week": "week", "weekly": "week", "day": "day", "daily": "day",
    "hour": "hour", "hourly": "hour",
}  # fmt: skip


class _Place(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None
    city: str | None = None
    state: str | None = None
    state_name: str | None = None
    country: str | None = None
    country_code: str | None = None

    @property
    def text(self) -> str:
        """City, state and country (the code in capitals when the name is missing), else `name`."""
        country = self.country or (self.country_code or "").upper()
        parts = (self.city, self.state or self.state_name, country)
        return ", ".join(p.strip() for p in parts if p and p.strip()) or self.name or ""


class _Salary(msgspec.Struct, kw_only=True, frozen=True):
    min: float | str | None = None
    max: float | str | None = None
    currency: str | None = None
    period: str | None = None


class _Translation(msgspec.Struct, kw_only=True, frozen=True):
    title: str | None = None
    description: str | None = None
    requirements: str | None = None
    highlight: str | None = None


class RecruiteeOffer(msgspec.Struct, kw_only=True, frozen=True):
    """One offer as the Careers Site API lists it (only the fields we map)."""

    id: int | str | None = None
    slug: str | None = None
    status: str | None = None
    title: str | None = None
    company_name: str | None = None
    careers_url: str | None = None
    highlight: str | None = None
    description: str | None = None
    requirements: str | None = None
    department: str | None = None
    employment_type_code: str | None = None
    min_hours: float | str | None = None
    max_hours: float | str | None = None
    remote: bool | None = None
    hybrid: bool | None = None
    on_site: bool | None = None
    location: str | None = None
    city: str | None = None
    state_name: str | None = None
    country: str | None = None
    country_code: str | None = None
    locations: list[_Place] = []
    salary: _Salary | None = None
    published_at: str | None = None
    created_at: str | None = None
    close_at: str | None = None
    translations: dict[str, _Translation] = {}

    @property
    def workplace(self) -> Workplace | None:
        """Remote, else hybrid (even with `on_site` also true), else on-site, by the flags."""
        if self.remote:
            return "remote"
        if self.hybrid:
            return "hybrid"
        return "onsite" if self.on_site else None

    @property
    def places(self) -> list[str]:
        """Every one of `locations`, else `location`, else city, state and country."""
        listed = [place.text for place in self.locations]
        if any(listed):
            return listed
        flat = _Place(
            city=self.city, state=self.state_name, country=self.country, country_code=self.country_code
        )
        return [self.location or flat.text]

    @property
    def text_parts(self) -> _Translation:
        """The offer's own text, or its first translation's where the offer's own is all empty."""
        own = _Translation(
            title=self.title,
            description=self.description,
            requirements=self.requirements,
            highlight=self.highlight,
        )
        if own.description or own.requirements or own.highlight or not self.translations:
            return own
        first = next(iter(self.translations.values()))
        return _Translation(
            title=self.title or first.title,
            description=first.description,
            requirements=first.requirements,
            highlight=first.highlight,
        )


async def fetch(http: BoardHttp, source: Recruitee, name: str) -> Fetched:
    """Read a Recruitee company's careers site: every published offer, in one request."""
    origin = (source.base_url or f"https://{source.company}.recruitee.com").rstrip("/")
    url = f"{origin}/api/offers/"
    body: Any = await http.get_json("recruitee", url)
    offers = body.get("offers") if isinstance(body, dict) else None
    if not isinstance(offers, list):
        raise SourceError("recruitee", "malformed", "answered with JSON that has no `offers` list", url=url)
    collector = Collector("recruitee", name)
    for offer in convert_each(offers, RecruiteeOffer, collector):
        if offer.status and offer.status != "published":
            collector.skip("not published")
            continue
        parts = offer.text_parts
        description, hidden = _description(parts)
        collector.add(
            external_id=offer.id,
            url=offer.careers_url or (f"{origin}/o/{offer.slug}" if offer.slug else None),
            title=parts.title,
            company=offer.company_name or source.company,
            locations=offer.places,
            remote=offer.remote,
            workplace=offer.workplace,
            employment_type=_employment(offer),
            salary=_salary(offer.salary),
            posted_at=_date(offer.published_at) or _date(offer.created_at),
            valid_through=_date(offer.close_at),
            description=description,
            hidden_parts=hidden,
            department=offer.department,
        )
    return collector.result(complete=True)


def _description(parts: _Translation) -> tuple[str, int]:
    """Highlight, description and requirements as plain text, blank-line separated."""
    texts: list[str] = []
    hidden = 0
    for markup in (parts.highlight, parts.description, parts.requirements):
        plain, count = text.visible_text(markup)
        hidden += count
        if plain:
            texts.append(plain)
    return text.tidy("\n\n".join(texts)), hidden


def _employment(offer: RecruiteeOffer) -> str | None:
    """`employment_type_code` in words, with the hours a week where the offer states them."""
    code = (offer.employment_type_code or "").strip().lower()
    words = _EMPLOYMENT.get(code) or code.replace("_", " ").capitalize()
    hours = [h for h in (_amount(offer.min_hours), _amount(offer.max_hours)) if h]  # 0: not stated
    if hours:
        span = f"{min(hours):g}-{max(hours):g}" if min(hours) != max(hours) else f"{hours[0]:g}"
        words = ", ".join(w for w in (words, f"{span} hours a week") if w)
    return words or None


def _salary(salary: _Salary | None) -> Salary | None:
    """The salary object; its `period` names the interval, else a year's size is a year."""
    if salary is None:
        return None
    low, high = _amount(salary.min), _amount(salary.max)
    if low is None and high is None:
        return None
    interval = _PERIODS.get((salary.period or "").strip().lower()) or inferred_interval(low, high)
    return Salary(min=low, max=high, currency=(salary.currency or "").upper() or None, interval=interval)


def _amount(value: float | str | None) -> float | None:
    """A number, or a string holding one (`"18.50"`); None for anything else."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", ""))
        except ValueError:
            return None
    return None


def _date(value: str | None) -> date | None:
    """A date from Recruitee's `"2026-10-05 16:05:18 UTC"` (or ISO 8601)."""
    if value and value.strip().endswith(" UTC"):
        value = value.strip().removesuffix(" UTC") + "+00:00"
    return parse_date(value)
