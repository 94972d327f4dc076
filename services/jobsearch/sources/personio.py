"""Personio's public XML feed: `GET https://{company}.jobs.personio.de/xml[?language=xx]`.

One request gives every published position:
```
<workzag-jobs><position>
  <id>, <subcompany>, <office>, <additionalOffices><office>…</office></additionalOffices>,
  <department>, <recruitingCategory>, <name> (the title),
  <jobDescriptions><jobDescription><name>Your tasks</name><value><![CDATA[HTML]]></value></jobDescription>…,
  <employmentType> (permanent, intern, trainee, freelance, temporary, working_student),
  <seniority>, <schedule> (full-time, part-time, full-or-part-time), <yearsOfExperience>,
  <keywords>, <occupation>, <occupationCategory>, <createdAt> (ISO 8601)
</position>…</workzag-jobs>
```
The feed has no paging (every read is whole), no pay field (pay is read from the text) and no
workplace field (read from the offices' names and the title). Each posting's page is
`https://{company}.jobs.personio.de/job/{id}`, with `?language=` when the source names one.

Parsed by `defusedxml.ElementTree` with DTDs forbidden: no entity expansion (a "billion laughs"
feed), no external entity or DTD (a feed asking for `file:///etc/passwd`) is ever resolved; such a
feed fails as `malformed`. An unknown company answers 404; some redirect to an HTML page, which
fails as `html_page`.
"""

from __future__ import annotations

from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree as SafeTree

from jobsearch.profile import Personio
from jobsearch.sources import text
from jobsearch.sources.errors import SourceError
from jobsearch.sources.fetched import Collector, Fetched, parse_date
from jobsearch.sources.http import BoardHttp
from jobsearch.sources.workplace import workplace_in_text

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


async def fetch(http: BoardHttp, source: Personio, name: str) -> Fetched:
    """Read a company's Personio feed."""
    public = f"https://{source.company}.jobs.personio.de"
    origin = (source.base_url or public).rstrip("/")
    params = {"language": source.language} if source.language else None
    body = await http.get("personio", f"{origin}/xml", params=params, accept=ACCEPT)
    root = _parse(body.content, body.url)
    if root.tag != "workzag-jobs":
        raise SourceError(
            "personio",
            "malformed",
            f"answered with <{root.tag}>, not Personio's <workzag-jobs> feed",
            url=body.url,
        )
    collector = Collector("personio", name)
    suffix = f"?language={source.language}" if source.language else ""
    for position in root.findall("position"):
        job_id = _text(position, "id")
        offices = [
            _text(position, "office"),
            *(_clean(o.text) for o in position.findall("additionalOffices/office")),
        ]
        description, hidden = _description(position)
        title = _text(position, "name")
        collector.add(
            external_id=job_id or None,
            url=f"{public}/job/{job_id}{suffix}" if job_id else None,
            title=title,
            company=_text(position, "subcompany") or source.company,
            locations=[o for o in offices if o],
            workplace=workplace_in_text(*offices, title),
            employment_type=_employment(position),
            posted_at=parse_date(_text(position, "createdAt")),
            description=description,
            hidden_parts=hidden,
            department=_text(position, "department") or None,
        )
    return collector.result()


def _parse(content: bytes, url: str) -> Element:
    head = content[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):
        raise SourceError(
            "personio", "html_page", "answered with an HTML page, not its XML feed (check `company`)", url=url
        )
    try:
        root: Element = SafeTree.fromstring(content, forbid_dtd=True)
    except defusedxml.DefusedXmlException as exc:
        raise SourceError(
            "personio",
            "malformed",
            f"sent XML with a DTD or entities, refused unread ({type(exc).__name__})",
            url=url,
        ) from None
    except ParseError as exc:
        raise SourceError("personio", "malformed", f"answered with malformed XML ({exc})", url=url) from None
    return root


def _clean(value: str | None) -> str:
    return (value or "").strip()


def _text(position: Element, tag: str) -> str:
    return _clean(position.findtext(tag))


def _employment(position: Element) -> str | None:
    """`permanent` + `full-time` → "Permanent, full-time"; unknown codes spelled out."""
    kind = _text(position, "employmentType")
    schedule = _text(position, "schedule")
    parts = [
        _KINDS.get(kind, kind.replace("_", " ").capitalize()),
        _SCHEDULES.get(schedule, schedule.replace("-", " ")),
    ]
    return ", ".join(p for p in parts if p) or None


def _description(position: Element) -> tuple[str, int]:
    """Every jobDescription section in order, its name as a heading line, as plain text."""
    sections: list[str] = []
    hidden = 0
    for part in position.findall("jobDescriptions/jobDescription"):
        body, removed = text.visible_text(part.findtext("value"))
        hidden += removed
        heading = text.line(part.findtext("name"))
        if body or heading:
            sections.append(f"{heading}\n{body}".strip() if heading else body)
    return "\n\n".join(sections), hidden
