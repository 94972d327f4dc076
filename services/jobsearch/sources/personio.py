"""Personio's public XML feed: `GET https://{company}.jobs.personio.de/xml[?language=xx]`.

One request gives every published position (the feed has no paging, so every read is whole):
```
<workzag-jobs><position>
  <id>, <subcompany>, <office>, <additionalOffices><office>…</office></additionalOffices>,
  <department>, <recruitingCategory>, <name> (the title),
  <jobDescriptions><jobDescription><name>…</name><value><![CDATA[HTML]]></value></jobDescription>…,
  <employmentType>, <seniority>, <schedule>, <yearsOfExperience>, <keywords>, <occupation>,
  <occupationCategory>, <createdAt> (ISO 8601, `+0200` or `+02:00`),
  <salaryInformation><min>, <max>, <currencyCode>, <currencySymbol>, <type></salaryInformation>
</position>…</workzag-jobs>
```
Personio's developer docs ("Retrieving open positions", and the `XmlResponse` schema of
github.com/personio/api-docs) list `employmentType` as permanent, intern, trainee or freelance,
`schedule` as full-time or part-time, and no pay. Real feeds also carry `temporary`,
`working_student` and `full-or-part-time`, and, where the employer publishes pay, a structured
`salaryInformation` (`<type>` yearly, monthly or hourly): both are read. There is no workplace field
(it is read from the offices' names and the title) and no URL: each position's page is
`https://{company}.jobs.personio.de/job/{id}`, with `?language=` when the source names one, and it
stays on that public host when `base_url` points the read at a mirror.

The feed is untrusted XML, parsed by `defusedxml.ElementTree` with DTDs forbidden: no entity is
expanded (a "billion laughs" feed) and no external entity or DTD is fetched (`SYSTEM
"file:///etc/passwd"`); such a feed fails as `malformed`, unread. An unknown company answers 404
(`not_found`), or redirects to Personio's marketing site (`html_page`).
"""

from __future__ import annotations

import codecs
from typing import Any, Final
from urllib.parse import quote
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree as SafeTree
import msgspec

from jobsearch.listing import Salary
from jobsearch.profile import Personio
from jobsearch.salary import inferred_interval, stated_interval
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, convert_each, parse_date
from jobsearch.sources.http import BoardHttp, Body
from jobsearch.sources.workplace import workplace_in_text

BOARD: Final = "personio"
ACCEPT = "application/xml, text/xml;q=0.9, */*;q=0.1"
_KINDS = {
    "permanent": "Permanent",
    "intern": "Internship",
    "trainee": "Trainee",
    "freelance": "Freelance",
    "temporary": "Temporary",
    "working_student": "Working student",
}
_SCHEDULES = {"full-time": "full-time", "part-time": "part-time", "full-or-part-time": "full- or part-time"}


class _Section(msgspec.Struct, kw_only=True, frozen=True):
    name: str | None = None
    value: str | None = None  # HTML


class _Pay(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    min: str | None = None  # "30000.00": kept as text, so a bad amount loses the pay, not the posting
    max: str | None = None
    currency_code: str | None = None
    currency_symbol: str | None = None
    type: str | None = None  # yearly, monthly, hourly


class PersonioPosition(msgspec.Struct, kw_only=True, frozen=True, rename="camel"):
    """One `<position>` of the feed (only the elements we map)."""

    id: str | None = None
    name: str | None = None
    subcompany: str | None = None
    office: str | None = None
    additional_offices: list[str] = []
    department: str | None = None
    job_descriptions: list[_Section] = []
    employment_type: str | None = None
    schedule: str | None = None
    created_at: str | None = None
    salary_information: _Pay | None = None


async def fetch(http: BoardHttp, source: Personio, name: str) -> Fetched:
    """Read a company's Personio feed."""
    public = f"https://{source.company}.jobs.personio.de"
    origin = (source.base_url or public).rstrip("/")
    params = {"language": source.language} if source.language else None
    root = _feed(await http.get(BOARD, f"{origin}/xml", params=params, accept=ACCEPT))
    collector = Collector(BOARD, name)
    suffix = f"?language={source.language}" if source.language else ""
    shapes = [_fields(position) for position in root.findall("position")]
    for p in convert_each(shapes, PersonioPosition, collector):
        offices = [p.office or "", *p.additional_offices]
        description, hidden = _description(p.job_descriptions)
        collector.add(
            external_id=p.id,
            url=f"{public}/job/{quote(p.id, safe='')}{suffix}" if p.id else None,
            title=p.name,
            company=p.subcompany or source.company,
            locations=offices,
            workplace=workplace_in_text(*offices, p.name),
            employment_type=_employment(p.employment_type, p.schedule),
            salary=_salary(p.salary_information),
            posted_at=parse_date(p.created_at),
            description=description,
            hidden_parts=hidden,
            department=p.department,
        )
    return collector.result()


def _feed(body: Body) -> Element:
    """The feed's `<workzag-jobs>` root; an HTML page, unsafe or malformed XML is a SourceError."""
    head = body.content[:512].lstrip().removeprefix(codecs.BOM_UTF8).lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        raise _html_page(body)
    try:
        root: Element = SafeTree.fromstring(body.content, forbid_dtd=True)
    except defusedxml.DefusedXmlException as exc:
        raise SourceError(
            BOARD,
            "malformed",
            f"sent XML with a DTD or entities, refused unread ({type(exc).__name__})",
            url=body.url,
        ) from None
    except ParseError as exc:
        if "html" in body.content_type:
            raise _html_page(body) from None
        raise SourceError(BOARD, "malformed", f"answered with malformed XML ({exc})", url=body.url) from None
    if root.tag.lower() == "html":
        raise _html_page(body)
    if root.tag != "workzag-jobs":
        raise SourceError(
            BOARD,
            "malformed",
            f"answered with <{root.tag}>, not Personio's <workzag-jobs> feed",
            url=body.url,
        )
    return root


def _html_page(body: Body) -> SourceError:
    return SourceError(
        BOARD, "html_page", "answered with an HTML page, not its XML feed (check `company`)", url=body.url
    )


def _fields(position: Element) -> dict[str, Any]:
    """A `<position>` as the plain dict `PersonioPosition` is converted from."""
    fields: dict[str, Any] = {child.tag: _clean(child.text) for child in position if len(child) == 0}
    fields["additionalOffices"] = [_clean(o.text) for o in position.iterfind("additionalOffices/office")]
    fields["jobDescriptions"] = [
        {"name": part.findtext("name"), "value": _inner(part.find("value"))}
        for part in position.iterfind("jobDescriptions/jobDescription")
    ]
    pay = position.find("salaryInformation")
    if pay is not None:
        fields["salaryInformation"] = {child.tag: _clean(child.text) for child in pay}
    return fields


def _inner(element: Element | None) -> str:
    """An element's text, CDATA included; HTML written as elements (not in CDATA) keeps its words."""
    return "".join(element.itertext()) if element is not None else ""


def _clean(value: str | None) -> str:
    return (value or "").strip()


def _employment(kind: str | None, schedule: str | None) -> str | None:
    """`permanent` + `full-time` → "Permanent, full-time"; unknown codes spelled out."""
    kind, schedule = kind or "", schedule or ""
    parts = [
        _KINDS.get(kind, kind.replace("_", " ").capitalize()),
        _SCHEDULES.get(schedule, schedule.replace("_", " ").replace("-", " ")),
    ]
    return ", ".join(p for p in parts if p) or None


def _salary(pay: _Pay | None) -> Salary | None:
    """`salaryInformation` as a Salary; the interval its `type` names, else a year's size."""
    if pay is None:
        return None
    low, high = _amount(pay.min), _amount(pay.max)
    if low is None and high is None:
        return None
    symbol = (pay.currency_symbol or "").upper()
    currency = pay.currency_code or (symbol if len(symbol) == 3 and symbol.isalpha() else None)
    interval = stated_interval(pay.type) or inferred_interval(low, high)
    return Salary(min=low, max=high, currency=currency or None, interval=interval)


def _amount(value: str | None) -> float | None:
    try:
        amount = float(value) if value else None
    except ValueError:
        return None
    return amount if amount is not None and amount > 0 else None


def _description(sections: list[_Section]) -> tuple[str, int]:
    """Every jobDescription section in order, its name as a heading line, as plain text."""
    parts: list[str] = []
    hidden = 0
    for section in sections:
        body, removed = text.visible_text(section.value)
        hidden += removed
        heading = text.line(section.name)
        if body or heading:
            parts.append(f"{heading}\n{body}".strip())
    return text.tidy("\n\n".join(parts)), hidden
