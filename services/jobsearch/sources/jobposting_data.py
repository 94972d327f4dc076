"""schema.org `JobPosting` JSON-LD to `Collector.add`: the mapping half of the `jobposting` board.

A page's `<script type="application/ld+json">` blocks are decoded and searched for objects whose
`@type` is `JobPosting` (a string or a list, `schema:`/URL prefixes allowed), wherever they sit: a
block's top level, a list, `@graph`, an `ItemList`, a `WebPage`'s `mainEntity`. A field that is only
a reference (`{"@id": "#org"}`, as `@graph` markup writes the employer) is replaced by the node of
the block with that `@id`. Fields read, per https://schema.org/JobPosting and Google's JobPosting
structured-data guide (https://developers.google.com/search/docs/appearance/structured-data/job-posting):

- `title` (else `name`); `description` (HTML, sometimes entity-escaped) as plain text;
- `identifier` (a `PropertyValue`'s `value`, or a plain string or number) as the id, prefixed with
  the site's host because identifiers are only unique within one employer; without one, the
  posting's `url`, else the page it was found on;
- `url` (else the page it was found on) as the listing's URL;
- `hiringOrganization` (an `Organization`'s `name`, or a string) as the company;
- `jobLocation` (one `Place` or a list; `address` a `PostalAddress` with `addressLocality`,
  `addressRegion`, `addressCountry` as a string or a `Country`'s `name`; or plain text) and
  `applicantLocationRequirements` (the `Country`/`State` names a remote job is limited to) as
  locations;
- `jobLocationType` `TELECOMMUTE` as a remote workplace; otherwise what the title and places say;
- `baseSalary` (a `MonetaryAmount`: `currency`, `value` a `QuantitativeValue` with `value` or
  `minValue`/`maxValue` and `unitText` HOUR/DAY/WEEK/MONTH/YEAR; or a bare number with
  `salaryCurrency`); an amount without a `unitText` is a year's when it is a year's size;
- `employmentType` (a string or a list of FULL_TIME, PART_TIME, CONTRACTOR, TEMPORARY, INTERN,
  VOLUNTEER, PER_DIEM, OTHER) as words ("Full-time, Contractor"); other values as given;
- `datePosted` as the posted date, `validThrough` as `valid_through` (a past one is still listed);
- `employmentUnit` (schema.org: "the department, unit and/or facility where the employee reports")
  as the department. `occupationalCategory` is an occupation code (O*NET, ISCO), not a department.

A malformed block is skipped and counted ("malformed JSON-LD"); a JobPosting whose fields have
types schema.org does not allow is skipped and counted ("unexpected shape"). extruct would find
the blocks, but it is not a dependency; the stdlib JSON decoder is used because, unlike msgspec's,
it accepts the raw line breaks inside strings that many generators leave in descriptions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from typing import Any, Final
from urllib.parse import urljoin

import msgspec

from jobsearch.listing import Salary, SalaryInterval
from jobsearch.salary import inferred_interval
from jobsearch.sources import text
from jobsearch.sources.fetched import Collector, parse_date
from jobsearch.sources.workplace import workplace_in_text

_MAX_DEPTH: Final = 32  # JSON-LD nesting searched for JobPostings; real markup is a few levels deep
_INTERVALS: Final[dict[str, SalaryInterval]] = {
    "HOUR": "hour",
    "DAY": "day",
    "WEEK": "week",
    "MONTH": "month",
    "YEAR": "year",
}
_EMPLOYMENT: Final = {
    "FULL_TIME": "Full-time",
    "PART_TIME": "Part-time",
    "CONTRACTOR": "Contractor",
    "TEMPORARY": "Temporary",
    "INTERN": "Intern",
    "VOLUNTEER": "Volunteer",
    "PER_DIEM": "Per diem",
    "OTHER": "Other",
}

Amount = float | str | None  # schema.org says Number; some pages write "52000"


class _Named(msgspec.Struct, kw_only=True, frozen=True):
    """An Organization, Country, State or AdministrativeArea: only its name is read."""

    name: str | None = None


class _Address(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    address_locality: str | None = None
    address_region: str | None = None
    address_country: str | _Named | None = None


class _Place(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None
    address: _Address | str | list[_Address | str] | None = None


class _Quantity(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    value: Amount = None
    min_value: Amount = None
    max_value: Amount = None
    unit_text: str | None = None


class _Money(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    currency: str | None = None
    value: _Quantity | float | str | None = None
    min_value: Amount = None  # MonetaryAmount's own range, where a page puts it there
    max_value: Amount = None


class _PropertyValue(msgspec.Struct, kw_only=True, frozen=True):
    value: str | int | float | None = None


class LdJobPosting(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One schema.org JobPosting (only the fields we map; each in every shape the spec allows)."""

    title: str | None = None
    name: str | None = None
    description: str | None = None
    url: str | None = None
    # The properties a posting often gives several values of (read_page makes one value a list).
    identifier: list[_PropertyValue | str | int] = []
    hiring_organization: list[_Named | str] = []
    job_location: list[_Place | str] = []
    job_location_type: list[str] = []
    applicant_location_requirements: list[_Named | str] = []
    base_salary: list[_Money | float | str] = []
    employment_type: list[str] = []
    salary_currency: str | None = None
    date_posted: str | None = None
    valid_through: str | None = None
    employment_unit: _Named | str | None = None


# JSON-LD gives any property one value or a list of them: these are read as lists.
_MANY: Final = frozenset(
    {
        "identifier",
        "hiringOrganization",
        "jobLocation",
        "jobLocationType",
        "applicantLocationRequirements",
        "baseSalary",
        "employmentType",
    }
)


def read_page(collector: Collector, blocks: Iterable[str], *, page_url: str, host: str) -> int:
    """Add the JobPostings of one page's JSON-LD blocks to `collector`; how many were found.

    Args:
        collector: where the listings (and the skipped blocks and postings) go.
        blocks: the text of each `application/ld+json` script of the page.
        page_url: the page's public URL: the listing URL (and id) of a posting without its own.
        host: the site's host, which scopes a posting's `identifier`.
    """
    found = 0
    for block in blocks:
        try:
            # strict=False: raw control characters (line breaks) inside strings are accepted.
            data = json.loads(block, strict=False)
        except ValueError:  # JSONDecodeError, and a lone surrogate that cannot decode
            collector.skip("malformed JSON-LD")
            continue
        nodes = dict(_identified(data, 0))
        for raw in _job_postings(data, 0):
            resolved = {key: _listed(key, _dereferenced(value, nodes)) for key, value in raw.items()}
            try:
                posting = msgspec.convert(resolved, LdJobPosting, strict=False)
            except msgspec.ValidationError:
                collector.skip("unexpected shape")
                continue
            fallback = page_url if found == 0 else f"{page_url}#{found}"
            _add(collector, posting, page_url=page_url, fallback_id=fallback, host=host)
            found += 1
    return found


def _add(collector: Collector, p: LdJobPosting, *, page_url: str, fallback_id: str, host: str) -> None:
    title = p.title or p.name
    places = [where for place in p.job_location for where in _place(place)]
    regions = [_name(area) for area in p.applicant_location_requirements]
    telecommute = any(kind.strip().upper() == "TELECOMMUTE" for kind in p.job_location_type)
    markup = p.description or ""
    # An entity-escaped description (`&lt;p&gt;`) carries its markup as text: unescape it first.
    description, hidden = text.visible_text(markup, escaped="<" not in markup and "&lt;" in markup)
    url = urljoin(page_url, p.url.strip()) if p.url else ""
    identifier = _identifier(p.identifier)
    collector.add(
        external_id=f"{host}:{identifier}" if identifier else (url or fallback_id),
        url=url if url.startswith(("http://", "https://")) else page_url,
        title=title,
        company=next((_name(org) for org in p.hiring_organization), None),
        locations=[*places, *regions],
        workplace="remote" if telecommute else workplace_in_text(title, *places),
        employment_type=", ".join(_employment(kind) for kind in p.employment_type) or None,
        salary=_salary(p.base_salary, p.salary_currency),
        posted_at=parse_date(p.date_posted),
        valid_through=parse_date(p.valid_through),
        description=description,
        hidden_parts=hidden,
        department=_name(p.employment_unit) if p.employment_unit else None,
    )


def _job_postings(value: Any, depth: int) -> Iterator[dict[str, Any]]:
    """Every object typed JobPosting in a decoded block (not searched inside a JobPosting)."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, list):
        for item in value:
            yield from _job_postings(item, depth + 1)
    elif isinstance(value, dict):
        kinds = value.get("@type")
        if any(_is_job_posting(kind) for kind in (kinds if isinstance(kinds, list) else [kinds])):
            yield value
            return
        for item in value.values():
            yield from _job_postings(item, depth + 1)


def _is_job_posting(kind: object) -> bool:
    """`JobPosting`, `schema:JobPosting` or `https://schema.org/JobPosting`."""
    return isinstance(kind, str) and kind.rsplit("/", 1)[-1].rsplit(":", 1)[-1].strip() == "JobPosting"


def _identified(value: Any, depth: int) -> Iterator[tuple[str, dict[str, Any]]]:
    """The block's nodes that have an `@id` and say something besides it."""
    if depth > _MAX_DEPTH:
        return
    items: Iterable[Any] = value if isinstance(value, list) else []
    if isinstance(value, dict):
        node_id = value.get("@id")
        if isinstance(node_id, str) and len(value) > 1:
            yield node_id, value
        items = value.values()
    for item in items:
        yield from _identified(item, depth + 1)


def _dereferenced(value: Any, nodes: dict[str, dict[str, Any]]) -> Any:
    """A field's value with a bare `{"@id": ...}` reference replaced by the node it names."""
    if isinstance(value, list):
        return [_dereferenced(item, nodes) for item in value]
    if isinstance(value, dict) and len(value) == 1 and isinstance(value.get("@id"), str):
        return nodes.get(value["@id"], value)
    return value


def _listed(key: str, value: Any) -> Any:
    """One value of a property read as a list (`_MANY`) as a list of it; None as no value."""
    if key not in _MANY or isinstance(value, list):
        return value
    return [] if value is None else [value]


def _name(value: _Named | str) -> str:
    return value if isinstance(value, str) else value.name or ""


def _place(place: _Place | str) -> list[str]:
    """A Place as text: each address's locality, region and country, else the place's name."""
    if isinstance(place, str):
        return [place]
    out: list[str] = []
    addresses = place.address if isinstance(place.address, list) else [place.address]
    for address in addresses:
        if address is None:
            continue
        if isinstance(address, str):
            out.append(address)
            continue
        country = _name(address.address_country) if address.address_country else None
        parts = (address.address_locality, address.address_region, country)
        out.append(", ".join(part.strip() for part in parts if part and part.strip()))
    return [where for where in out if where] or ([place.name] if place.name else [])


def _identifier(values: list[_PropertyValue | str | int]) -> str:
    for item in values:
        raw = item.value if isinstance(item, _PropertyValue) else item
        if isinstance(raw, float) and raw.is_integer():
            raw = int(raw)
        if raw is not None and not isinstance(raw, bool) and str(raw).strip():
            return str(raw).strip()
    return ""


def _employment(kind: str) -> str:
    """FULL_TIME → Full-time (also `full-time`, `Full Time`); a value outside the list as given."""
    key = kind.strip().upper().replace("-", "_").replace(" ", "_")
    return _EMPLOYMENT.get(key, kind.strip())


def _salary(amounts: list[_Money | float | str], currency: str | None) -> Salary | None:
    """The first baseSalary as a range: `minValue`/`maxValue`, else `value` as both ends."""
    if not amounts:
        return None
    money = amounts[0] if isinstance(amounts[0], _Money) else _Money(value=amounts[0])
    value = money.value
    quantity = (
        value
        if isinstance(value, _Quantity)
        else _Quantity(value=value, min_value=money.min_value, max_value=money.max_value)
    )
    exact = _amount(quantity.value)
    low = _amount(quantity.min_value)
    high = _amount(quantity.max_value)
    low, high = (exact if low is None else low), (exact if high is None else high)
    if low is None and high is None:
        return None
    interval = _INTERVALS.get((quantity.unit_text or "").strip().upper()) or inferred_interval(low, high)
    code = (money.currency or currency or "").strip().upper()
    return Salary(min=low, max=high, currency=code or None, interval=interval)


def _amount(value: Amount) -> float | None:
    """A pay amount: a non-negative finite number, or a string holding only one."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if value is None or isinstance(value, bool) or not math.isfinite(value) or value < 0:
        return None
    return float(value)
